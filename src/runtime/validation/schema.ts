// The structural schema reduced to what validation, defaulting and pruning need:
// plain JSON (no descriptions), so generated code can embed it as a literal.
import { setOwn } from '../meta/json.js';

/** One `x-kubernetes-validations` entry, as in the CRD. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate. */
  reason?: string;
  /** JSON path relative to the node, e.g. `.spec.name` or `['key']`; where the error is reported. */
  fieldPath?: string;
  /** Evaluate the transition rule on create too, with `oldSelf` an optional (unsupported here: reported at compile time). */
  optionalOldSelf?: boolean;
}

/**
 * A schema node with the keywords the apiserver validates with, spelled as in the CRD
 * (`x-kubernetes-*` included). Everything else (description, example, title…) is dropped.
 */
export interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  nullable?: boolean;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  not?: SchemaNode;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}

/** The serialisable, precompiled form generated code embeds: `{ crdgenValidation: 1, schema }`. */
export interface PrecompiledSchema {
  crdgenValidation: 1;
  schema: SchemaNode;
}

/** A schema the engine cannot use; `path` points into the schema (`properties.spec.properties.replicas.maximum`). */
export class SchemaError extends Error {
  /** @param path where in the schema; @param problem what is wrong there */
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`invalid schema at ${path || '<root>'}: ${problem}`);
    this.name = 'SchemaError';
  }
}

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const NUMBER_KEYS = ['maximum', 'minimum', 'multipleOf'] as const;
const COUNT_KEYS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'] as const;
const BOOL_KEYS = [
  'nullable',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
] as const;
const COMBINATOR_KEYS = ['allOf', 'oneOf', 'anyOf'] as const;
/**
 * The keyword groups {@link reduceAt} checks in loops, by keyword: a node names few of them, so
 * one pass over its own keys says which loops can find anything.
 */
const HAS_BOOL = 1;
const HAS_NUMBER = 2;
const HAS_COUNT = 4;
const HAS_COMBINATOR = 8;
const GROUP_OF = new Map<string, number>([
  ...BOOL_KEYS.map((k) => [k, HAS_BOOL] as const),
  ...NUMBER_KEYS.map((k) => [k, HAS_NUMBER] as const),
  ...COUNT_KEYS.map((k) => [k, HAS_COUNT] as const),
  ...COMBINATOR_KEYS.map((k) => [k, HAS_COMBINATOR] as const),
]);
const RULE_REASONS = new Set(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/**
 * Checks an `openAPIV3Schema` (as parsed from a CRD) and reduces it to a {@link SchemaNode}.
 * Throws {@link SchemaError} naming the first bad keyword.
 */
export function reduceSchema(raw: unknown, path = ''): SchemaNode {
  return reduceAt(raw, path === '' ? undefined : { up: undefined, seg: path });
}

/**
 * Where a node sits, built into a string only when an error names it, so that reducing a large
 * schema does not join a path string per node.
 */
interface At {
  readonly up: At | undefined;
  readonly seg: string;
}

function pathString(at: At | undefined): string {
  const segs: string[] = [];
  for (let x = at; x; x = x.up) segs.push(x.seg);
  return segs.reverse().join('.');
}

/** The error for keyword `key` of the node at `at`. */
function keywordError(at: At | undefined, key: string, message: string): SchemaError {
  return new SchemaError(join(pathString(at), key), message);
}

function reduceAt(raw: unknown, at: At | undefined): SchemaNode {
  if (!isRecord(raw))
    throw new SchemaError(
      pathString(at),
      `expected an object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`,
    );
  if ('$ref' in raw) throw new SchemaError(pathString(at), '$ref is not allowed in a structural schema');
  const out: SchemaNode = {};
  let groups = 0;
  for (const k in raw) groups |= GROUP_OF.get(k) ?? 0;
  // "" is unset, as for the apiserver (Go's omitempty strings)
  if (raw.type !== undefined && raw.type !== '') {
    if (typeof raw.type !== 'string' || !TYPES.has(raw.type)) {
      throw keywordError(
        at,
        'type',
        `unsupported type ${JSON.stringify(raw.type)}; expected one of object, array, string, integer, number, boolean`,
      );
    }
    out.type = raw.type as SchemaNode['type'];
  }
  if (raw.format !== undefined) {
    if (typeof raw.format !== 'string') throw keywordError(at, 'format', 'must be a string');
    if (raw.format !== '') out.format = raw.format;
  }
  if (groups & HAS_BOOL)
    for (const k of BOOL_KEYS) {
      const v = raw[k];
      if (v === undefined) continue;
      if (typeof v !== 'boolean') throw keywordError(at, k, 'must be a boolean');
      if (v) out[k] = true;
    }
  if (groups & HAS_NUMBER)
    for (const k of NUMBER_KEYS) {
      const v = raw[k];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw keywordError(at, k, 'must be a number');
      out[k] = v;
    }
  // (a multipleOf of 0 or below, and negative counts, are kept: the apiserver accepts them in a CRD)
  if (groups & HAS_COUNT)
    for (const k of COUNT_KEYS) {
      const v = raw[k];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isInteger(v)) throw keywordError(at, k, 'must be an integer');
      out[k] = v;
    }
  if (raw.pattern !== undefined) {
    if (typeof raw.pattern !== 'string') throw keywordError(at, 'pattern', 'must be a string');
    if (raw.pattern !== '') out.pattern = raw.pattern;
  }
  if (raw.enum !== undefined) {
    if (!Array.isArray(raw.enum)) throw keywordError(at, 'enum', 'must be an array');
    out.enum = raw.enum.slice();
  }
  if (raw.required !== undefined) {
    if (!Array.isArray(raw.required) || raw.required.some((r) => typeof r !== 'string')) {
      throw keywordError(at, 'required', 'must be an array of strings');
    }
    out.required = (raw.required as string[]).slice();
  }
  if (raw.properties !== undefined) {
    if (!isRecord(raw.properties)) throw keywordError(at, 'properties', 'must be an object');
    const props: Record<string, SchemaNode> = (out.properties = {});
    for (const k of Object.keys(raw.properties)) {
      const child = reduceAt(raw.properties[k], { up: at, seg: `properties.${k}` });
      setOwn(props, k, child);
    }
  }
  if (raw.additionalProperties !== undefined) {
    const ap = raw.additionalProperties;
    out.additionalProperties = typeof ap === 'boolean' ? ap : reduceAt(ap, { up: at, seg: 'additionalProperties' });
  }
  // an empty list (`items: []`) is no items, as the apiserver's structural conversion reads it
  if (raw.items !== undefined && !(Array.isArray(raw.items) && raw.items.length === 0)) {
    if (Array.isArray(raw.items))
      throw keywordError(at, 'items', 'must be a single schema (tuple items are not structural)');
    out.items = reduceAt(raw.items, { up: at, seg: 'items' });
  }
  if (groups & HAS_COMBINATOR)
    for (const k of COMBINATOR_KEYS) {
      const v = raw[k];
      if (v === undefined) continue;
      if (!Array.isArray(v)) throw keywordError(at, k, 'must be an array of schemas');
      out[k] = v.map((s, i) => reduceAt(s, { up: at, seg: `${k}[${i}]` }));
    }
  if (raw.not !== undefined) out.not = reduceAt(raw.not, { up: at, seg: 'not' });
  if (raw.default !== undefined) out.default = structuredClone(raw.default);
  const lt = raw['x-kubernetes-list-type'];
  if (lt !== undefined) {
    if (lt !== 'atomic' && lt !== 'set' && lt !== 'map')
      throw keywordError(at, 'x-kubernetes-list-type', 'must be atomic, set or map');
    out['x-kubernetes-list-type'] = lt;
  }
  const keys = raw['x-kubernetes-list-map-keys'];
  if (keys !== undefined) {
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) {
      throw keywordError(at, 'x-kubernetes-list-map-keys', 'must be an array of strings');
    }
    out['x-kubernetes-list-map-keys'] = (keys as string[]).slice();
  }
  if (out['x-kubernetes-list-type'] === 'map' && !out['x-kubernetes-list-map-keys']?.length) {
    throw keywordError(at, 'x-kubernetes-list-map-keys', 'required when x-kubernetes-list-type is map');
  }
  const mt = raw['x-kubernetes-map-type'];
  if (mt !== undefined) {
    if (mt !== 'atomic' && mt !== 'granular')
      throw keywordError(at, 'x-kubernetes-map-type', 'must be atomic or granular');
    out['x-kubernetes-map-type'] = mt;
  }
  const rules = raw['x-kubernetes-validations'];
  if (rules !== undefined) {
    if (!Array.isArray(rules)) throw keywordError(at, 'x-kubernetes-validations', 'must be an array');
    out['x-kubernetes-validations'] = rules.map((r, i) =>
      reduceRule(r, { up: at, seg: `x-kubernetes-validations[${i}]` }),
    );
  }
  return out;
}

function reduceRule(raw: unknown, at: At): ValidationRule {
  if (!isRecord(raw)) throw new SchemaError(pathString(at), 'must be an object');
  if (typeof raw.rule !== 'string' || raw.rule.trim() === '')
    throw keywordError(at, 'rule', 'must be a non-empty string');
  const out: ValidationRule = { rule: raw.rule };
  for (const k of ['message', 'messageExpression', 'reason', 'fieldPath'] as const) {
    const v = raw[k];
    if (v === undefined || v === '') continue;
    if (typeof v !== 'string') throw keywordError(at, k, 'must be a string');
    out[k] = v;
  }
  if (out.reason !== undefined && !RULE_REASONS.has(out.reason)) {
    throw keywordError(
      at,
      'reason',
      `unsupported reason ${JSON.stringify(out.reason)}; expected one of ${[...RULE_REASONS].join(', ')}`,
    );
  }
  if (raw.optionalOldSelf !== undefined) {
    if (typeof raw.optionalOldSelf !== 'boolean') throw keywordError(at, 'optionalOldSelf', 'must be a boolean');
    if (raw.optionalOldSelf) out.optionalOldSelf = true;
  }
  return out;
}

/**
 * Whether a schema (raw `openAPIV3Schema` or reduced) has `x-kubernetes-validations` anywhere, that
 * is whether compiling it needs the CEL rule engine. Walks only the keywords that hold schemas
 * (`default`, `enum` and `example` hold data).
 */
export function hasRules(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules) && rules.length > 0) return true;
  if (isRecord(schema.properties) && Object.values(schema.properties).some(hasRules)) return true;
  if (hasRules(schema.additionalProperties) || hasRules(schema.items) || hasRules(schema.not)) return true;
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    const list = schema[k];
    if (Array.isArray(list) && list.some(hasRules)) return true;
  }
  return false;
}

/** True when `x` is a {@link PrecompiledSchema} (as opposed to a raw `openAPIV3Schema`). */
export function isPrecompiled(x: unknown): x is PrecompiledSchema {
  return isRecord(x) && x.crdgenValidation === 1 && isRecord(x.schema);
}
