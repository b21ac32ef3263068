// The JSON schema of a CustomResourceDefinition's shape (field types and required
// fields), checked by crd-shape.ts. Plain data: the build precompiles it into a
// standalone validator (scripts/build-precompiled.mjs).

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const strList = { type: 'array', items: str } as const;
const props = { $ref: '#/$defs/props' } as const;

const column = {
  type: 'object',
  properties: {
    name: str,
    type: str,
    format: str,
    description: str,
    priority: { type: 'integer' },
    jsonPath: str,
    JSONPath: str,
  },
} as const;

const subresources = {
  type: 'object',
  properties: {
    status: { type: 'object' },
    scale: {
      type: 'object',
      properties: { specReplicasPath: str, statusReplicasPath: str, labelSelectorPath: str },
    },
  },
} as const;

const validationSchema = { type: 'object', properties: { openAPIV3Schema: props } } as const;

/** JSON schema (draft 2019-09 subset) of a CustomResourceDefinition, v1 and v1beta1 merged. */
export const CRD_SHAPE = {
  $defs: {
    props: {
      type: 'object',
      properties: {
        id: str,
        $schema: str,
        $ref: str,
        description: str,
        type: str,
        format: str,
        title: str,
        maximum: num,
        exclusiveMaximum: bool,
        minimum: num,
        exclusiveMinimum: bool,
        maxLength: int,
        minLength: int,
        pattern: str,
        maxItems: int,
        minItems: int,
        uniqueItems: bool,
        multipleOf: num,
        enum: { type: 'array' },
        maxProperties: int,
        minProperties: int,
        required: strList,
        items: { anyOf: [props, { type: 'array', items: props }] },
        allOf: { type: 'array', items: props },
        oneOf: { type: 'array', items: props },
        anyOf: { type: 'array', items: props },
        not: props,
        properties: { type: 'object', additionalProperties: props },
        additionalProperties: { anyOf: [bool, props] },
        patternProperties: { type: 'object', additionalProperties: props },
        dependencies: { type: 'object' },
        additionalItems: { anyOf: [bool, props] },
        definitions: { type: 'object', additionalProperties: props },
        externalDocs: { type: 'object' },
        nullable: bool,
        'x-kubernetes-preserve-unknown-fields': bool,
        'x-kubernetes-embedded-resource': bool,
        'x-kubernetes-int-or-string': bool,
        'x-kubernetes-list-map-keys': strList,
        'x-kubernetes-list-type': str,
        'x-kubernetes-map-type': str,
        'x-kubernetes-validations': {
          type: 'array',
          items: {
            type: 'object',
            required: ['rule'],
            properties: {
              rule: str,
              message: str,
              messageExpression: str,
              reason: str,
              fieldPath: str,
              optionalOldSelf: bool,
            },
          },
        },
      },
    },
  },
  type: 'object',
  required: ['metadata', 'spec'],
  properties: {
    apiVersion: str,
    kind: str,
    metadata: {
      type: 'object',
      required: ['name'],
      properties: { name: str, annotations: { type: 'object', additionalProperties: str } },
    },
    spec: {
      type: 'object',
      required: ['group', 'names', 'scope'],
      properties: {
        group: str,
        scope: str,
        preserveUnknownFields: bool,
        version: str,
        validation: validationSchema,
        subresources,
        additionalPrinterColumns: { type: 'array', items: column },
        names: {
          type: 'object',
          required: ['plural', 'kind'],
          properties: {
            plural: str,
            singular: str,
            kind: str,
            listKind: str,
            shortNames: strList,
            categories: strList,
          },
        },
        versions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'served', 'storage'],
            properties: {
              name: str,
              served: bool,
              storage: bool,
              deprecated: bool,
              deprecationWarning: str,
              schema: validationSchema,
              subresources,
              additionalPrinterColumns: { type: 'array', items: column },
            },
          },
        },
        conversion: { type: 'object', properties: { strategy: str } },
      },
    },
  },
} as const;
