// Schema-shaped checks with ajv: the CRD object and every JSONSchemaProps node
// have the right field types and the required fields, before any semantic rule
// runs. Errors come out worded as the apiserver words them.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { pointerToPath, child } from './field-path.js';
import { required, typeInvalid, type Finding } from './field-errors.js';

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer', minimum: 0 } as const;
const strList = { type: 'array', items: str } as const;
const props = { $ref: '#/$defs/props' } as const;

const column = {
  type: 'object',
  properties: {
    name: str, type: str, format: str, description: str, priority: { type: 'integer' }, jsonPath: str, JSONPath: str,
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
        id: str, $schema: str, $ref: str, description: str, type: str, format: str, title: str,
        maximum: num, exclusiveMaximum: bool, minimum: num, exclusiveMinimum: bool,
        maxLength: int, minLength: int, pattern: str, maxItems: int, minItems: int, uniqueItems: bool,
        multipleOf: num, enum: { type: 'array' }, maxProperties: int, minProperties: int,
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
            properties: { rule: str, message: str, messageExpression: str, reason: str, fieldPath: str, optionalOldSelf: bool },
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
          properties: { plural: str, singular: str, kind: str, listKind: str, shortNames: strList, categories: strList },
        },
        versions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'served', 'storage'],
            properties: {
              name: str, served: bool, storage: bool, deprecated: bool, deprecationWarning: str,
              schema: validationSchema, subresources,
              additionalPrinterColumns: { type: 'array', items: column },
            },
          },
        },
        conversion: { type: 'object', properties: { strategy: str } },
      },
    },
  },
} as const;

let validator: ValidateFunction | undefined;

function getValidator(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    validator = ajv.compile(CRD_SHAPE);
  }
  return validator;
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  if (pointer === '') return cur;
  for (const raw of pointer.slice(1).split('/')) {
    const p = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  }
  return cur;
}

/**
 * Checks field types and required fields of a CRD object with ajv. Returns the
 * findings in document order, de-duplicated (an `anyOf` failing yields one
 * finding, for its first branch). `versions` is required only for v1.
 */
export function checkShape(crd: unknown, isV1: boolean): Finding[] {
  const validate = getValidator();
  const findings: Finding[] = [];
  if (!validate(crd)) {
    const seen = new Set<string>();
    const errors = (validate.errors ?? []) as ErrorObject[];
    // Errors inside anyOf branches are noise once the anyOf itself failed at the same place.
    const anyOfAt = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
    for (const e of errors) {
      let f: Finding | undefined;
      if (e.keyword === 'required') {
        const missing = String((e.params as { missingProperty: string }).missingProperty);
        f = required('CRD010', child(pointerToPath(e.instancePath, crd), missing));
      } else if (e.keyword === 'type' || e.keyword === 'anyOf') {
        if (e.keyword === 'type' && anyOfAt.has(e.instancePath)) continue;
        const expected = e.keyword === 'type' ? String((e.params as { type: string | string[] }).type) : describeAnyOf(e.schemaPath);
        f = typeInvalid('CRD011', pointerToPath(e.instancePath, crd), valueAt(crd, e.instancePath), expected);
      } else if (e.keyword === 'minimum') {
        f = typeInvalid('CRD011', pointerToPath(e.instancePath, crd), valueAt(crd, e.instancePath), 'non-negative integer');
      }
      if (!f) continue;
      const key = `${f.diag.field} ${f.diag.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push(f);
    }
  }
  if (isV1 && crd !== null && typeof crd === 'object') {
    const spec = (crd as Record<string, unknown>).spec;
    if (spec !== null && typeof spec === 'object' && !Array.isArray(spec) && !('versions' in spec)) {
      findings.push(required('CRD010', ['spec', 'versions']));
    }
  }
  return findings;
}

function describeAnyOf(schemaPath: string): string {
  if (schemaPath.endsWith('/items/anyOf')) return 'object or array';
  return 'boolean or object';
}
