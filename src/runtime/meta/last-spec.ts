// Whether an object's content (spec, data, …: everything but apiVersion, kind, metadata and
// status) is as its controller last wrote it, judged from its metadata alone: what lets a
// controller cache a kind it writes as metadata only (PartialObjectMetadata with managedFields).
// The controller records what it set in an annotation; the object is in line when that record
// is what it would set now, no other field manager owns a field of the content (a change by
// anyone else makes them its owner: server-side apply's bookkeeping, kept for Update too), and
// the controller's own managedFields entry still holds every field it set (a field someone else
// removes gets no owner: it only leaves the controller's set).
import type { KubeObject, ManagedFieldsEntry } from './types.js';

/** The annotation holding what a controller last set of an object's content, as canonical JSON. */
export const LAST_SPEC_ANNOTATION = 'crdgen.dev/last-spec';

/**
 * `value` as JSON with the keys of every object sorted: the same text for the same value. The
 * text of `JSON.stringify` on a copy with sorted keys (undefined, functions and symbols left out
 * of objects and null in arrays, `toJSON` called, non-finite numbers null), written in one pass
 * without that copy: a controller compares it with the record on every reconcile.
 */
export function canonicalJson(value: unknown): string {
  return write('', value) as string;
}

/** An array index as a property key: such keys come first in an object, in numeric order. */
const isIndex = (k: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) < 4294967295;

/** The keys of `o` sorted, in the order an object built with them in that order lists them. */
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o).sort();
  if (!keys.some(isIndex)) return keys;
  const index = keys.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  return [...index, ...keys.filter((k) => !isIndex(k))];
}

/** The JSON of `v` (the member `key` of its parent), or undefined where JSON.stringify leaves it out. */
function write(key: string, v: unknown): string | undefined {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    v = (v as { toJSON: (k: string) => unknown }).toJSON(key);
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(v); // throws, as JSON.stringify does on a BigInt
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (write(String(i), v[i]) ?? 'null');
        return `${out}]`;
      }
      const o = v as Record<string, unknown>;
      let out = '{';
      for (const k of sortedKeys(o)) {
        const s = write(k, o[k]);
        if (s !== undefined) out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${s}`;
      }
      return `${out}}`;
    }
    default:
      return undefined; // undefined, a function, a symbol: left out of an object, null in an array
  }
}

const NOT_CONTENT = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/** `obj`'s content: every top-level field but apiVersion, kind, metadata and status. */
export function objectContent(obj: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!NOT_CONTENT.has(k) && v !== undefined) out[k] = v;
  return out;
}

type FieldSet = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when the item key `k:{"name":"x"}` names `item`: each key field equal where the item sets it. */
function keyMatches(key: string, item: Record<string, unknown>): boolean {
  let fields: unknown;
  try {
    fields = JSON.parse(key.slice(2));
  } catch {
    return false;
  }
  return isPlainObject(fields) && Object.entries(fields).every(([k, v]) => item[k] === undefined || item[k] === v);
}

/**
 * True when the field set `set` (FieldsV1) holds every field of `value`: a leaf of the set
 * (`{}`: a scalar, or an atomic list, map or struct) holds all of it; map-list items
 * are found by their key fields, set items by value.
 */
function holds(set: unknown, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!isPlainObject(set)) return false;
  // no key at all: a leaf (`.` alone marks a node whose items or fields are not held)
  if (Object.keys(set).length === 0) return true;
  const children = Object.keys(set).filter((k) => k !== '.');
  if (Array.isArray(value)) {
    return value.every((item) => {
      if (isPlainObject(item)) {
        const k = children.find((c) => c.startsWith('k:') && keyMatches(c, item));
        return k !== undefined && holds(set[k], item);
      }
      return `v:${JSON.stringify(item)}` in set;
    });
  }
  if (isPlainObject(value))
    return Object.entries(value).every(([k, v]) => v === undefined || (`f:${k}` in set && holds(set[`f:${k}`], v)));
  return true;
}

/** The field sets `entries` hold under the content field `field`. */
function ownSet(entries: readonly ManagedFieldsEntry[], field: string): FieldSet[] {
  return entries.map((e) => e.fieldsV1?.[`f:${field}`]).filter(isPlainObject);
}

/**
 * True when `obj`'s metadata says its content is `content` as `fieldManager` last wrote it:
 * the {@link LAST_SPEC_ANNOTATION} is `content`'s canonical JSON; no managedFields entry of
 * another manager holds a field of the content; `fieldManager`'s entries still hold every field
 * of `content`. False whenever the metadata cannot tell (no annotation, no managedFields, a field
 * someone else owns): then read the object and compare.
 */
export function specAsLastWritten(obj: KubeObject, fieldManager: string, content: Record<string, unknown>): boolean {
  const m = obj.metadata;
  if (m?.annotations?.[LAST_SPEC_ANNOTATION] !== canonicalJson(content)) return false;
  const entries = m.managedFields ?? [];
  const fields = Object.keys(content).filter((k) => content[k] !== undefined);
  const own = entries.filter((e) => e.manager === fieldManager);
  if (own.length === 0) return false;
  if (entries.some((e) => e.manager !== fieldManager && fields.some((f) => e.fieldsV1?.[`f:${f}`] !== undefined)))
    return false;
  return fields.every((f) => ownSet(own, f).some((set) => holds(set, content[f])));
}
