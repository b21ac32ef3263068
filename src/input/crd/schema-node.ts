// openAPIV3Schema (plain JSON, already checked) → model schema nodes, each with
// its source position. Titles are set afterwards by titles.ts.
//
// Nothing is lost: a keyword whose typed form would not be written back identically by the
// model's writer (src/model/schema-json.ts) is kept as written in the node's `keywords`, so
// schemaToJson(toSchemaNode(json)) deep-equals json for every structural schema.

import type { JsonObject, NodeBase, PropertyNode, SchemaNode, SourcePos, ValidationRule } from '../../model/types.js';
import { CHILD, setOwn, typedKeywords } from '../../model/schema-json.js';
import { isObj } from './check-schema.js';
import { child, dottedPath, type Path } from './field-path.js';

/** Maps a path in the document to a source position. */
export type Locator = (path: Path) => SourcePos;

type Obj = Record<string, unknown>;

function base(s: Obj, path: Path, locate: Locator): NodeBase {
  const b: NodeBase = { source: locate(path) };
  if (typeof s.description === 'string') b.description = s.description;
  if (s.default !== undefined) b.default = s.default;
  if (typeof s.nullable === 'boolean') b.nullable = s.nullable;
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    const vs: ValidationRule[] = [];
    for (const r of rules) {
      if (!isObj(r) || typeof r.rule !== 'string') continue;
      const v: ValidationRule = { rule: r.rule };
      if (typeof r.message === 'string') v.message = r.message;
      if (typeof r.messageExpression === 'string') v.messageExpression = r.messageExpression;
      if (typeof r.reason === 'string') v.reason = r.reason;
      if (typeof r.fieldPath === 'string') v.fieldPath = r.fieldPath;
      if (typeof r.optionalOldSelf === 'boolean') v.optionalOldSelf = r.optionalOldSelf;
      vs.push(v);
    }
    if (vs.length > 0) b.validations = vs;
  }
  return b;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

function assignDefined<T extends object>(target: T, extra: Record<string, unknown>): T {
  // for…in, not Object.entries: no pair arrays per node (`extra` is always a plain literal)
  for (const k in extra) {
    const v = extra[k];
    if (v !== undefined) (target as Record<string, unknown>)[k] = v;
  }
  return target;
}

/**
 * Converts one schema object at `path` into a model node (recursively). With `typedOnly` (a
 * v1beta1 schema the apiserver does not require to be structural) the keywords the typed view
 * does not carry are dropped: such a schema cannot be written as a v1 CRD as it is, and the
 * typed view is the structural schema closest to it.
 */
export function toSchemaNode(raw: unknown, path: Path, locate: Locator, typedOnly = false): SchemaNode {
  if (!isObj(raw)) return { type: 'unknown', object: false, source: locate(path) };
  const node = typedNode(raw, path, locate, typedOnly);
  const keywords = typedOnly ? undefined : untypedKeywords(raw, node);
  if (keywords) node.keywords = keywords;
  return node;
}

/**
 * The keywords of `s` that the typed view of `node` does not write back identically (children
 * are compared by kind only: they are nodes of their own, exact by the same rule), or undefined.
 */
function untypedKeywords(s: Obj, node: SchemaNode): JsonObject | undefined {
  const typed = typedKeywords(node);
  let out: JsonObject | undefined;
  for (const k of Object.keys(s)) {
    const v = s[k];
    const t = Object.hasOwn(typed, k) ? typed[k] : undefined;
    let same: boolean;
    if (t === CHILD) same = isObj(v);
    else if (k === 'properties' && Array.isArray(t)) same = isObj(v) && sameKeys(Object.keys(v), t as string[]);
    else same = jsonEqual(t, v);
    if (!same) setOwn((out ??= {}), k, v);
  }
  return out;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

/** Deep equality of JSON values (objects: the same keys, in any order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const ob = b as Obj;
  return (
    ka.length === Object.keys(ob).length && ka.every((k) => Object.hasOwn(ob, k) && jsonEqual((a as Obj)[k], ob[k]))
  );
}

function typedNode(s: Obj, path: Path, locate: Locator, typedOnly: boolean): SchemaNode {
  const b = base(s, path, locate);
  const type = typeof s.type === 'string' ? s.type : '';
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const props = isObj(s.properties) ? s.properties : undefined;
  const ap = s.additionalProperties;

  if (s['x-kubernetes-int-or-string'] === true) return { ...b, type: 'int-or-string' };
  const isObject = type === 'object' || (type === '' && (props !== undefined || isObj(ap) || embedded));
  const mapType =
    s['x-kubernetes-map-type'] === 'atomic' || s['x-kubernetes-map-type'] === 'granular'
      ? s['x-kubernetes-map-type']
      : undefined;
  if (isObject) {
    const hasProps = props !== undefined && Object.keys(props).length > 0;
    if (!hasProps && !embedded) {
      if (isObj(ap))
        return assignDefined(
          {
            ...b,
            type: 'map' as const,
            values: toSchemaNode(ap, child(path, 'additionalProperties'), locate, typedOnly),
          },
          { minProperties: num(s.minProperties), maxProperties: num(s.maxProperties), mapType },
        );
      if (ap === true) return { ...b, type: 'map', values: { type: 'unknown', object: false, source: locate(path) } };
      if (preserve) return { ...b, type: 'unknown', object: true };
    }
    const requiredSet = new Set(
      Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [],
    );
    const properties: PropertyNode[] = Object.entries(props ?? {}).map(([name, p]) => ({
      name,
      required: requiredSet.has(name),
      schema: toSchemaNode(p, child(path, 'properties', { key: name }), locate, typedOnly),
    }));
    return assignDefined(
      { ...b, type: 'object' as const, properties, preserveUnknownFields: preserve, embeddedResource: embedded },
      { minProperties: num(s.minProperties), maxProperties: num(s.maxProperties), mapType },
    );
  }
  if (type === 'array' || (type === '' && s.items !== undefined)) {
    const listType = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'];
    return assignDefined(
      {
        ...b,
        type: 'array' as const,
        items: isObj(s.items)
          ? toSchemaNode(s.items, child(path, 'items'), locate, typedOnly)
          : { type: 'unknown' as const, object: false, source: locate(path) },
      },
      {
        minItems: num(s.minItems),
        maxItems: num(s.maxItems),
        uniqueItems: bool(s.uniqueItems),
        listType: listType === 'atomic' || listType === 'set' || listType === 'map' ? listType : undefined,
        listMapKeys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : undefined,
      },
    );
  }
  if (type === 'string') {
    const en = Array.isArray(s.enum) ? s.enum.filter((e): e is string => typeof e === 'string') : undefined;
    return assignDefined(
      { ...b, type: 'string' as const },
      {
        enum: en && en.length > 0 ? en : undefined,
        format: typeof s.format === 'string' && s.format !== '' ? s.format : undefined,
        pattern: typeof s.pattern === 'string' ? s.pattern : undefined,
        minLength: num(s.minLength),
        maxLength: num(s.maxLength),
      },
    );
  }
  if (type === 'integer' || type === 'number') {
    const en = Array.isArray(s.enum) ? s.enum.filter((e): e is number => typeof e === 'number') : undefined;
    const numeric = {
      enum: en && en.length > 0 ? en : undefined,
      minimum: num(s.minimum),
      maximum: num(s.maximum),
      exclusiveMinimum: bool(s.exclusiveMinimum),
      exclusiveMaximum: bool(s.exclusiveMaximum),
      multipleOf: num(s.multipleOf),
    };
    if (type === 'integer') {
      return assignDefined(
        { ...b, type: 'integer' as const },
        { ...numeric, format: s.format === 'int32' || s.format === 'int64' ? s.format : undefined },
      );
    }
    return assignDefined(
      { ...b, type: 'number' as const },
      { ...numeric, format: typeof s.format === 'string' && s.format !== '' ? s.format : undefined },
    );
  }
  if (type === 'boolean') return { ...b, type: 'boolean' };
  return { ...b, type: 'unknown', object: false };
}

/** Source position helper: a locator result with the dotted path attached. */
export function withPath(pos: { line: number; col: number }, file: string, path: Path): SourcePos {
  return { file, line: pos.line, col: pos.col, path: dottedPath(path) };
}

/**
 * A source position whose line and col are found only when first read (`at` runs the
 * position-keeping parse of the file, once per file): a run whose inputs are all valid never
 * pays for positions. It reads as plain data: own enumerable `file`, `line`, `col`, `path`.
 */
export function lazySourcePos(file: string, path: Path, at: () => { line: number; col: number }): SourcePos {
  let pos: { line: number; col: number } | undefined;
  let dotted: string | undefined;
  const get = () => (pos ??= at());
  return {
    file,
    get line() {
      return get().line;
    },
    set line(line: number) {
      pos = { line, col: get().col };
    },
    get col() {
      return get().col;
    },
    set col(col: number) {
      pos = { line: get().line, col };
    },
    get path() {
      return (dotted ??= dottedPath(path));
    },
    set path(p: string | undefined) {
      dotted = p;
    },
  };
}
