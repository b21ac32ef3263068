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

/** `value` as JSON with the keys of every object sorted: the same text for the same value. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
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
