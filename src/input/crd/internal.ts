// A v1 CRD's parts as the apiserver prints them in its validation errors: it validates the
// internal (unversioned) apiextensions types and formats values with Go's json.Marshal of them —
// Go field names, every field present, a schema (or subresources, or printer columns, or
// selectable fields) that all versions share hoisted to the spec and left null in the versions.
import { goJson } from '../../runtime/validation/go-format.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const ptr = (v: unknown): unknown => (v === undefined ? null : v);
/** A JSON value inside the structs: Go marshals its maps with sorted keys. */
const jsonValue = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(jsonValue);
  if (isRec(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, jsonValue(v[k])]),
    );
  return v === undefined ? null : v;
};
const int = (v: unknown): unknown => (typeof v === 'number' ? v : null);

/** internal JSONSchemaProps of a v1 schema, in Go's field order. */
export function internalSchema(s: unknown): Rec | null {
  if (!isRec(s)) return null;
  const many = (v: unknown): unknown => (Array.isArray(v) ? v.map(internalSchema) : null);
  const map = (v: unknown): unknown =>
    isRec(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, internalSchema(v[k])]),
        )
      : null;
  const orBool = (v: unknown): unknown =>
    v === undefined
      ? null
      : typeof v === 'boolean'
        ? { Allows: v, Schema: null }
        : { Allows: true, Schema: internalSchema(v) };
  const deps = isRec(s.dependencies)
    ? Object.fromEntries(
        Object.keys(s.dependencies)
          .sort()
          .map((k) => {
            const d = (s.dependencies as Rec)[k];
            return [
              k,
              Array.isArray(d) ? { Schema: null, Property: d } : { Schema: internalSchema(d), Property: null },
            ];
          }),
      )
    : null;
  const rules = Array.isArray(s['x-kubernetes-validations'])
    ? (s['x-kubernetes-validations'] as unknown[]).map((r) => {
        const x = isRec(r) ? r : {};
        return {
          Rule: x.rule ?? '',
          Message: x.message ?? '',
          MessageExpression: x.messageExpression ?? '',
          Reason: ptr(x.reason),
          FieldPath: x.fieldPath ?? '',
          OptionalOldSelf: ptr(x.optionalOldSelf),
        };
      })
    : null;
  const docs = isRec(s.externalDocs)
    ? { Description: s.externalDocs.description ?? '', URL: s.externalDocs.url ?? '' }
    : null;
  return {
    ID: s.id ?? '',
    Schema: s.$schema ?? '',
    Ref: ptr(s.$ref),
    Description: s.description ?? '',
    Type: s.type ?? '',
    Nullable: s.nullable === true,
    Format: s.format ?? '',
    Title: s.title ?? '',
    Default: jsonValue(s.default),
    Maximum: int(s.maximum),
    ExclusiveMaximum: s.exclusiveMaximum === true,
    Minimum: int(s.minimum),
    ExclusiveMinimum: s.exclusiveMinimum === true,
    MaxLength: int(s.maxLength),
    MinLength: int(s.minLength),
    Pattern: s.pattern ?? '',
    MaxItems: int(s.maxItems),
    MinItems: int(s.minItems),
    UniqueItems: s.uniqueItems === true,
    MultipleOf: int(s.multipleOf),
    Enum: Array.isArray(s.enum) ? jsonValue(s.enum) : null,
    MaxProperties: int(s.maxProperties),
    MinProperties: int(s.minProperties),
    Required: Array.isArray(s.required) ? s.required : null,
    Items:
      s.items === undefined
        ? null
        : Array.isArray(s.items)
          ? { Schema: null, JSONSchemas: many(s.items) }
          : { Schema: internalSchema(s.items), JSONSchemas: null },
    AllOf: many(s.allOf),
    OneOf: many(s.oneOf),
    AnyOf: many(s.anyOf),
    Not: internalSchema(s.not),
    Properties: map(s.properties),
    AdditionalProperties: orBool(s.additionalProperties),
    PatternProperties: map(s.patternProperties),
    Dependencies: deps,
    AdditionalItems: orBool(s.additionalItems),
    Definitions: map(s.definitions),
    ExternalDocs: docs,
    Example: jsonValue(s.example),
    XPreserveUnknownFields: ptr(s['x-kubernetes-preserve-unknown-fields']),
    XEmbeddedResource: s['x-kubernetes-embedded-resource'] === true,
    XIntOrString: s['x-kubernetes-int-or-string'] === true,
    XListMapKeys: Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : null,
    XListType: ptr(s['x-kubernetes-list-type']),
    XMapType: ptr(s['x-kubernetes-map-type']),
    XValidations: rules,
  };
}

function subresources(v: unknown): unknown {
  if (!isRec(v)) return null;
  const scale = isRec(v.scale)
    ? {
        SpecReplicasPath: v.scale.specReplicasPath ?? '',
        StatusReplicasPath: v.scale.statusReplicasPath ?? '',
        LabelSelectorPath: ptr(v.scale.labelSelectorPath),
      }
    : null;
  return { Status: isRec(v.status) ? {} : null, Scale: scale };
}

function columns(v: unknown): unknown {
  if (!Array.isArray(v)) return null;
  return v.map((c) => {
    const x = isRec(c) ? c : {};
    return {
      Name: x.name ?? '',
      Type: x.type ?? '',
      Format: x.format ?? '',
      Description: x.description ?? '',
      Priority: x.priority ?? 0,
      JSONPath: x.jsonPath ?? '',
    };
  });
}

/** `spec.versions` as the apiserver's error messages print it (Go's json.Marshal of the internal types). */
export function internalVersionsJson(spec: Rec): string {
  const vs = (Array.isArray(spec.versions) ? spec.versions : []).map((v) => (isRec(v) ? v : {}));
  const same = (k: string): boolean =>
    vs.length > 0 && vs.every((v) => JSON.stringify(v[k]) === JSON.stringify(vs[0][k]));
  const hoist = {
    schema: same('schema'),
    subresources: same('subresources'),
    columns: same('additionalPrinterColumns'),
    selectable: same('selectableFields'),
  };
  return goJson(
    vs.map((v) => ({
      Name: v.name ?? '',
      Served: v.served === true,
      Storage: v.storage === true,
      Deprecated: v.deprecated === true,
      DeprecationWarning: ptr(v.deprecationWarning),
      Schema: hoist.schema || !isRec(v.schema) ? null : { OpenAPIV3Schema: internalSchema(v.schema.openAPIV3Schema) },
      Subresources: hoist.subresources ? null : subresources(v.subresources),
      AdditionalPrinterColumns: hoist.columns ? null : columns(v.additionalPrinterColumns),
      SelectableFields:
        hoist.selectable || !Array.isArray(v.selectableFields)
          ? null
          : v.selectableFields.map((f) => ({ JSONPath: isRec(f) ? (f.jsonPath ?? '') : '' })),
    })),
    { sortKeys: false },
  );
}

/** An internal JSONSchemaProps as the apiserver prints it after `Invalid value: ` (Go's json.Marshal). */
export function internalSchemaJson(s: unknown): string {
  return goJson(internalSchema(s), { sortKeys: false });
}
