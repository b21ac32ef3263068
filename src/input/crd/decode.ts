// A CRD as kube-apiserver decodes a request body into its apiextensions.k8s.io/v1 Go structs
// (sigs.k8s.io/json, with fieldValidation=Strict as kubectl sends it):
// - a value of the wrong JSON type for its Go field is a decode error (the request is refused);
// - JSON null leaves a field at its zero value: the same as the field being absent;
// - a field the struct does not have is an error (`unknown field`), except inside `items`,
//   `additionalProperties`, `additionalItems` and `dependencies`: their custom unmarshalers decode
//   their whole subtree with the lenient decoder, which drops unknown fields;
// - `items` that is neither an object nor a list is dropped the same way.
// The result is the CRD the validation sees (nulls and dropped fields removed) and the findings:
// errors for what the apiserver refuses at decode, warnings for what it drops silently.
import { didYouMean, typeInvalid, type Finding } from './field-errors.js';
import { apiserverField, dottedPath, type Path, type Seg } from './field-path.js';
import { rfc3339Error } from '../../runtime/validation/go-time.js';
import { setOwn } from '../../model/schema-json.js';

type Obj = Record<string, unknown>;

/** A Go type of the CRD API, as far as decoding tells them apart. */
type GoType =
  | 'string'
  | 'bool'
  | 'int64'
  | 'int32'
  | 'float64'
  | 'bytes'
  | 'time'
  /** apiextensions JSON (default, example, enum values) and runtime.RawExtension-like fields: anything. */
  | 'any'
  | 'props'
  | 'propsOrArray'
  | 'propsOrBool'
  | 'propsOrStringArray'
  | { struct: string; fields: () => Readonly<Record<string, GoType>> }
  | { slice: GoType }
  | { map: GoType };

const str: GoType = 'string';
const strs: GoType = { slice: 'string' };
const struct = (name: string, fields: () => Readonly<Record<string, GoType>>): GoType => ({ struct: name, fields });

const OWNER_REFERENCE = struct('OwnerReference', () => ({
  apiVersion: str,
  kind: str,
  name: str,
  uid: str,
  controller: 'bool',
  blockOwnerDeletion: 'bool',
}));

const MANAGED_FIELDS_ENTRY = struct('ManagedFieldsEntry', () => ({
  manager: str,
  operation: str,
  apiVersion: str,
  time: 'time',
  fieldsType: str,
  fieldsV1: 'any',
  subresource: str,
}));

const OBJECT_META = struct('ObjectMeta', () => ({
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: str,
  resourceVersion: str,
  generation: 'int64',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int64',
  labels: { map: 'string' },
  annotations: { map: 'string' },
  ownerReferences: { slice: OWNER_REFERENCE },
  finalizers: strs,
  managedFields: { slice: MANAGED_FIELDS_ENTRY },
}));

const NAMES = struct('CustomResourceDefinitionNames', () => ({
  plural: str,
  singular: str,
  shortNames: strs,
  kind: str,
  listKind: str,
  categories: strs,
}));

const VALIDATION_RULE = struct('ValidationRule', () => ({
  rule: str,
  message: str,
  messageExpression: str,
  reason: str,
  fieldPath: str,
  optionalOldSelf: 'bool',
}));

/** JSONSchemaProps' fields (the keywords a CRD schema may use). */
export const SCHEMA_FIELDS: Readonly<Record<string, GoType>> = {
  id: str,
  $schema: str,
  $ref: str,
  description: str,
  type: str,
  format: str,
  title: str,
  default: 'any',
  maximum: 'float64',
  exclusiveMaximum: 'bool',
  minimum: 'float64',
  exclusiveMinimum: 'bool',
  maxLength: 'int64',
  minLength: 'int64',
  pattern: str,
  maxItems: 'int64',
  minItems: 'int64',
  uniqueItems: 'bool',
  multipleOf: 'float64',
  enum: { slice: 'any' },
  maxProperties: 'int64',
  minProperties: 'int64',
  required: strs,
  items: 'propsOrArray',
  allOf: { slice: 'props' },
  oneOf: { slice: 'props' },
  anyOf: { slice: 'props' },
  not: 'props',
  properties: { map: 'props' },
  additionalProperties: 'propsOrBool',
  patternProperties: { map: 'props' },
  dependencies: { map: 'propsOrStringArray' },
  additionalItems: 'propsOrBool',
  definitions: { map: 'props' },
  externalDocs: struct('ExternalDocumentation', () => ({ description: str, url: str })),
  example: 'any',
  nullable: 'bool',
  'x-kubernetes-preserve-unknown-fields': 'bool',
  'x-kubernetes-embedded-resource': 'bool',
  'x-kubernetes-int-or-string': 'bool',
  'x-kubernetes-list-map-keys': strs,
  'x-kubernetes-list-type': str,
  'x-kubernetes-map-type': str,
  'x-kubernetes-validations': { slice: VALIDATION_RULE },
};

const COLUMN = struct('CustomResourceColumnDefinition', () => ({
  name: str,
  type: str,
  format: str,
  description: str,
  priority: 'int32',
  jsonPath: str,
}));

const VERSION = struct('CustomResourceDefinitionVersion', () => ({
  name: str,
  served: 'bool',
  storage: 'bool',
  deprecated: 'bool',
  deprecationWarning: str,
  schema: struct('CustomResourceValidation', () => ({ openAPIV3Schema: 'props' })),
  subresources: struct('CustomResourceSubresources', () => ({
    status: struct('CustomResourceSubresourceStatus', () => ({})),
    scale: struct('CustomResourceSubresourceScale', () => ({
      specReplicasPath: str,
      statusReplicasPath: str,
      labelSelectorPath: str,
    })),
  })),
  additionalPrinterColumns: { slice: COLUMN },
  selectableFields: { slice: struct('SelectableField', () => ({ jsonPath: str })) },
}));

const CONVERSION = struct('CustomResourceConversion', () => ({
  strategy: str,
  webhook: struct('WebhookConversion', () => ({
    clientConfig: struct('WebhookClientConfig', () => ({
      url: str,
      service: struct('ServiceReference', () => ({ namespace: str, name: str, path: str, port: 'int32' })),
      caBundle: 'bytes',
    })),
    conversionReviewVersions: strs,
  })),
}));

const CONDITION = struct('CustomResourceDefinitionCondition', () => ({
  type: str,
  status: str,
  lastTransitionTime: 'time',
  reason: str,
  message: str,
  observedGeneration: 'int64',
}));

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
const CRD = struct('CustomResourceDefinition', () => ({
  apiVersion: str,
  kind: str,
  metadata: OBJECT_META,
  spec: struct('CustomResourceDefinitionSpec', () => ({
    group: str,
    names: NAMES,
    scope: str,
    versions: { slice: VERSION },
    conversion: CONVERSION,
    preserveUnknownFields: 'bool',
  })),
  status: struct('CustomResourceDefinitionStatus', () => ({
    conditions: { slice: CONDITION },
    acceptedNames: NAMES,
    storedVersions: strs,
    observedGeneration: 'int64',
  })),
}));

/** What the reader knows of the source beyond the values (the literal form of a number). */
export interface DecodeSource {
  /** The number at `path` (called only when needed) as written (`5.0`), when the source keeps it. */
  numberText?(path: () => Path, value: number): string | undefined;
}

/** The outcome of {@link decodeCrd}. */
export interface Decoded {
  /** The CRD as the apiserver holds it after decoding (a copy; nulls and dropped fields removed). */
  crd: Obj;
  /** Decode errors (the apiserver's 400) and warnings (fields it drops). */
  findings: Finding[];
  /** The apiserver's decode error, in Go's words (`json: cannot unmarshal …`), when it refuses the body. */
  wireError?: string;
}

/**
 * Where encoding/json is in the Go structs: the struct whose field it decodes. Inside a lenient
 * subtree (`items`…) the custom unmarshaler's own errors get the outer struct's name.
 */
interface GoContext {
  struct: string;
  frozen: boolean;
}

/**
 * The path to a value as a list from the value up (made into a {@link Path} only for a finding):
 * `field` marks the struct fields, whose JSON names encoding/json's errors join (map keys and list
 * indexes are not part of that). Undefined: the document root.
 */
interface Trail {
  readonly up: Trail | undefined;
  readonly seg: Seg;
  readonly field: boolean;
}

function pathOf(trail: Trail | undefined): Path {
  const out: Seg[] = [];
  for (let t = trail; t !== undefined; t = t.up) out.push(t.seg);
  return out.reverse();
}

/** The struct fields on the way to `trail`, outermost first. */
function fieldsOf(trail: Trail | undefined): string[] {
  const out: string[] = [];
  for (let t = trail; t !== undefined; t = t.up) if (t.field) out.push(t.seg as string);
  return out.reverse();
}

/** A Go type's name as reflect prints it (`int64`, `[]string`, `v1.JSONSchemaProps`). */
function goTypeName(t: GoType): string {
  if (typeof t === 'object') {
    if ('slice' in t) return `[]${goTypeName(t.slice)}`;
    if ('map' in t) return `map[string]${goTypeName(t.map)}`;
    return `v1.${t.struct}`;
  }
  switch (t) {
    case 'bytes':
      return '[]uint8';
    case 'time':
      return 'string';
    case 'any':
      return 'v1.JSON';
    case 'props':
      return 'v1.JSONSchemaProps';
    case 'propsOrArray':
      return 'v1.JSONSchemaPropsOrArray';
    case 'propsOrBool':
      return 'v1.JSONSchemaPropsOrBool';
    case 'propsOrStringArray':
      return 'v1.JSONSchemaPropsOrStringArray';
    default:
      return t;
  }
}

/** How encoding/json names a JSON value it cannot store (`number 1.5` where a number does not fit). */
function goValueName(v: unknown, numberText: string | undefined, fits: boolean): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return fits ? 'number' : `number ${numberText ?? String(v)}`;
  return 'object';
}

/** The path sigs.k8s.io/json names an unknown field by (`spec.versions[0].schema…properties.spec.foo`). */
function strictPath(path: Path): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const k = typeof seg === 'string' ? seg : seg.key;
      out += out === '' ? k : `.${k}`;
    }
  }
  return out;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const INT64 = 2 ** 63;
const INT32 = 2 ** 31;

/** Go's base64.StdEncoding (padded; `\r` and `\n` ignored): the index of the first bad byte, or -1. */
export function badBase64At(s: string): number {
  const t = s.replace(/[\r\n]/g, '');
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (/[A-Za-z0-9+/]/.test(c)) continue;
    if (c === '=') {
      // padding: only at the end, at most two, and the length must then be a multiple of 4
      const rest = t.slice(i);
      if (/^=={0,1}$/.test(rest) && t.length % 4 === 0 && rest.length <= 2) return -1;
      return i;
    }
    return i;
  }
  return t.length % 4 === 0 ? -1 : t.length - (t.length % 4);
}

/**
 * Decodes a CRD object as the apiserver decodes its JSON into the v1 structs. `source` lets the
 * reader tell `5.0` from `5` (the apiserver refuses a fraction for an integer field).
 */
export function decodeCrd(value: unknown, source: DecodeSource = {}): Decoded {
  const findings: Finding[] = [];
  let typeErrors = 0;
  let wireError: string | undefined;
  const unknownStrict: string[] = [];
  /** A value of the wrong type: the reader's finding, and Go's message for the first one. */
  const typeError = (
    trail: Trail | undefined,
    v: unknown,
    expected: string,
    t: GoType,
    ctx: GoContext,
    go?: string,
    raw: unknown = v,
  ): void => {
    typeErrors++;
    const path = pathOf(trail);
    findings.push(typeInvalid('CRD011', path, v, expected));
    if (wireError !== undefined) return;
    if (go !== undefined) wireError = go;
    else {
      const fits = !(t === 'int64' || t === 'int32') || typeof raw !== 'number';
      const value = goValueName(raw, typeof raw === 'number' ? source.numberText?.(() => path, raw) : undefined, fits);
      const stack = fieldsOf(trail);
      wireError =
        stack.length === 0
          ? `json: cannot unmarshal ${value} into Go value of type ${goTypeName(t)}`
          : `json: cannot unmarshal ${value} into Go struct field ${ctx.struct}.${stack.join('.')} of type ${goTypeName(t)}`;
    }
  };
  const unknownField = (trail: Trail | undefined, key: string, known: readonly string[], lenient: boolean): void => {
    const at: Path = [...pathOf(trail), key];
    const hint = didYouMean(key, known);
    const field = apiserverField(at);
    if (!lenient) unknownStrict.push(`unknown field ${JSON.stringify(strictPath(at))}`);
    findings.push({
      path: at,
      atKey: true,
      diag: lenient
        ? {
            severity: 'warning',
            code: 'CRD013',
            message: `unknown field ${JSON.stringify(key)} is dropped: under items and additionalProperties kube-apiserver decodes schemas leniently and ignores it`,
            path: dottedPath(at),
            field,
            ...(hint ? { hint: `${hint} (the keyword has no effect as written)` } : {}),
          }
        : {
            severity: 'error',
            code: 'CRD012',
            message: `unknown field ${JSON.stringify(key)}: kube-apiserver refuses it (strict field validation, as kubectl sends it)`,
            path: dottedPath(at),
            field,
            reason: 'FieldValueInvalid',
            ...(hint ? { hint } : {}),
          },
    });
  };

  const decode = (t: GoType, v: unknown, path: Trail | undefined, lenient: boolean, ctx: GoContext): unknown => {
    if (v === null || v === undefined) return undefined;
    if (typeof t === 'object') {
      if ('slice' in t) {
        if (!Array.isArray(v)) return typeError(path, v, 'array', t, ctx);
        return v.map((x, i) => decode(t.slice, x, { up: path, seg: i, field: false }, lenient, ctx) ?? null);
      }
      if ('map' in t) {
        if (!isObj(v)) return typeError(path, v, 'object', t, ctx);
        const out: Obj = {};
        for (const [k, x] of Object.entries(v)) {
          const d = decode(t.map, x, { up: path, seg: { key: k }, field: false }, lenient, ctx);
          // a map's null value is kept as the zero value of its type
          setOwn(out, k, d === undefined ? zeroOf(t.map) : d);
        }
        return out;
      }
      return isObj(v)
        ? decodeStruct(t.fields(), t.struct, v, path, lenient, ctx)
        : typeError(path, v, 'object', t, ctx);
    }
    switch (t) {
      case 'string':
        return typeof v === 'string' ? v : typeError(path, v, 'string', t, ctx);
      case 'bool':
        return typeof v === 'boolean' ? v : typeError(path, v, 'boolean', t, ctx);
      case 'float64':
        return typeof v === 'number' ? v : typeError(path, v, 'number', t, ctx);
      case 'int64':
      case 'int32': {
        const limit = t === 'int64' ? INT64 : INT32;
        const text = typeof v === 'number' ? source.numberText?.(() => pathOf(path), v) : undefined;
        const fraction = text !== undefined && /[.eE]/.test(text);
        if (typeof v === 'number' && Number.isInteger(v) && v >= -limit && v < limit && !fraction) return v;
        if (fraction)
          return void typeError(path, text, t === 'int64' ? 'integer' : 'integer (int32)', t, ctx, undefined, v);
        return typeError(path, v, t === 'int64' ? 'integer' : 'integer (int32)', t, ctx);
      }
      case 'bytes': {
        if (typeof v !== 'string') return typeError(path, v, 'string', t, ctx);
        const bad = badBase64At(v);
        if (bad >= 0)
          return typeError(path, v, 'base64-encoded bytes', t, ctx, `illegal base64 data at input byte ${bad}`);
        return v;
      }
      case 'time':
        if (typeof v !== 'string') return typeError(path, v, 'string', t, ctx);
        return rfc3339Error(v) === undefined ? v : typeError(path, v, 'RFC 3339 date-time', t, ctx, rfc3339Error(v));
      case 'any':
        return structuredClone(v);
      case 'props':
        return isObj(v)
          ? decodeStruct(SCHEMA_FIELDS, 'JSONSchemaProps', v, path, lenient, ctx)
          : typeError(path, v, 'object', t, ctx);
      case 'propsOrArray': {
        // an object is one schema, a list is a list of schemas; anything else is dropped
        const inner = { ...ctx, frozen: true };
        if (isObj(v)) return decodeStruct(SCHEMA_FIELDS, 'JSONSchemaProps', v, path, true, inner);
        if (Array.isArray(v))
          return v.map((x, i) => decode('props', x, { up: path, seg: i, field: false }, true, inner) ?? {});
        return undefined;
      }
      case 'propsOrBool':
        if (typeof v === 'boolean') return v;
        if (isObj(v)) return decodeStruct(SCHEMA_FIELDS, 'JSONSchemaProps', v, path, true, { ...ctx, frozen: true });
        return typeError(path, v, 'boolean or object', t, ctx);
      case 'propsOrStringArray': {
        const inner = { ...ctx, frozen: true };
        if (isObj(v)) return decodeStruct(SCHEMA_FIELDS, 'JSONSchemaProps', v, path, true, inner);
        if (Array.isArray(v)) return decode(strs, v, path, true, inner);
        return undefined;
      }
    }
  };

  const decodeStruct = (
    fields: Readonly<Record<string, GoType>>,
    name: string,
    v: Obj,
    path: Trail | undefined,
    lenient: boolean,
    ctx: GoContext,
  ): unknown => {
    const out: Obj = {};
    const inner: GoContext = ctx.frozen || ctx.struct === name ? ctx : { struct: name, frozen: false };
    for (const [k, x] of Object.entries(v)) {
      const t = Object.hasOwn(fields, k) ? fields[k] : undefined;
      if (t === undefined) {
        unknownField(path, k, Object.keys(fields), lenient);
        continue;
      }
      const d = decode(t, x, { up: path, seg: k, field: true }, lenient, inner);
      if (d !== undefined) setOwn(out, k, d);
    }
    return out;
  };

  const top = decode(CRD, value, undefined, false, { struct: '', frozen: false });
  if (wireError === undefined && unknownStrict.length > 0)
    wireError = `strict decoding error: ${unknownStrict.join(', ')}`;
  return {
    crd: isObj(top) ? top : {},
    findings: typeErrors || findings.length ? findings : [],
    ...(wireError !== undefined ? { wireError } : {}),
  };
}

function zeroOf(t: GoType): unknown {
  switch (t) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int64':
    case 'int32':
    case 'float64':
      return 0;
  }
  return null;
}
