// A built-in object as the apiserver holds it after decoding it into its Go struct and
// encoding that again (encoding/json): members in the struct's field order (kind and apiVersion
// first), omitempty members left out when empty (`labels: {}`, `paused: false`, `args: []`,
// `clusterIP: ""`), the members without omitempty written even when the client left them out
// (an Event's `eventTime: null`, a Lease's `spec: {}`), pointers kept as sent (`replicas: 0`,
// `holderIdentity: ""`). The Go types' field order and tags come from the table the protobuf
// decoder uses (schema/kubernetes/<version>/protobuf-messages.json, read from k8s.io/api v0.37).
import { readFileSync } from 'node:fs';
import { isObject, setOwn } from './meta.js';

type Rec = Record<string, unknown>;

/** One field: protobuf number, JSON name (empty when inline), type, Go flags (p pointer, o omitempty, z omitzero, i inline). */
type FieldSpec = [number, string, string, string];

interface Table {
  kinds: Record<string, string>;
  messages: Record<string, { special?: string; fields?: FieldSpec[] }>;
}

let table: Table | undefined;

function messages(): Table {
  table ??= JSON.parse(
    readFileSync(new URL('../../schema/kubernetes/v1.37.1/protobuf-messages.json', import.meta.url), 'utf8'),
  ) as Table;
  return table;
}

/** The Go type of a built-in kind in the table (`core/v1.ConfigMap`), or undefined. */
export function goMessageOf(apiVersion: string, kind: string): string | undefined {
  return messages().kinds[`${apiVersion}/${kind}`];
}

const isEmptyCollection = (v: unknown): boolean =>
  Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0;

/** A scalar's zero value (what a missing non-pointer member decodes to). */
function zeroScalar(type: string): unknown {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  if (type === 'bytes') return null;
  return 0;
}

const isZeroScalar = (v: unknown): boolean => v === '' || v === 0 || v === false;

/** The JSON of a special type's zero value (a missing non-pointer member). */
function zeroSpecial(special: string): unknown {
  switch (special) {
    case 'quantity':
      return '0';
    case 'intorstring':
      return 0;
    case 'duration':
      return '0s';
    default:
      return null;
  }
}

/** One value of `type` (`string`, `@core/v1.Container`, …) as Go writes it. */
function element(type: string, v: unknown): unknown {
  if (!type.startsWith('@')) return v === null || v === undefined ? zeroScalar(type) : v;
  const name = type.slice(1);
  const spec = messages().messages[name];
  if (!spec || spec.special) return v ?? (spec?.special ? zeroSpecial(spec.special) : null);
  return encodeFields(name, isObject(v) ? v : {});
}

function encodeFields(name: string, v: Rec): Rec {
  const spec = messages().messages[name];
  const out: Rec = {};
  for (const [, jsonName, type, flags] of spec.fields ?? []) {
    const pointer = flags.includes('p');
    const omitempty = flags.includes('o');
    if (flags.includes('i')) {
      if (type.startsWith('@')) Object.assign(out, encodeFields(type.slice(1), v));
      continue;
    }
    const has = Object.prototype.hasOwnProperty.call(v, jsonName) && v[jsonName] !== undefined;
    const x = has ? v[jsonName] : undefined;
    if (type.startsWith('[]') || type.startsWith('{}')) {
      const elem = type.slice(2);
      if (x === null || x === undefined) {
        // a nil slice or map
        if (!omitempty) setOwn(out, jsonName, null);
        continue;
      }
      if (omitempty && isEmptyCollection(x)) continue;
      if (Array.isArray(x))
        setOwn(
          out,
          jsonName,
          x.map((e) => element(elem, e)),
        );
      else if (isObject(x)) {
        const m: Rec = {};
        for (const [k, e] of Object.entries(x)) setOwn(m, k, elem === 'bytes' ? e : element(elem, e));
        setOwn(out, jsonName, m);
      } else setOwn(out, jsonName, x);
      continue;
    }
    if (type.startsWith('@')) {
      const msg = messages().messages[type.slice(1)];
      if (pointer && (x === null || x === undefined)) {
        if (!omitempty) setOwn(out, jsonName, null);
        continue;
      }
      if (msg?.special) {
        const value = x === undefined ? zeroSpecial(msg.special) : x;
        // omitzero: a zero Time (null) is left out
        if (flags.includes('z') && value === null) continue;
        setOwn(out, jsonName, value);
        continue;
      }
      const enc = element(type, x);
      if (flags.includes('z') && !pointer && isEmptyCollection(enc)) continue;
      setOwn(out, jsonName, enc);
      continue;
    }
    if (type === 'bytes') {
      if (x === null || x === undefined) {
        if (!omitempty) setOwn(out, jsonName, null);
        continue;
      }
      if (omitempty && x === '') continue;
      setOwn(out, jsonName, x);
      continue;
    }
    if (pointer) {
      if (x === null || x === undefined) {
        if (!omitempty) setOwn(out, jsonName, null);
        continue;
      }
      setOwn(out, jsonName, x);
      continue;
    }
    const value = x === null || x === undefined ? zeroScalar(type) : x;
    if (omitempty && isZeroScalar(value)) continue;
    setOwn(out, jsonName, value);
  }
  return out;
}

/**
 * `obj` as its Go struct (`message`) encodes: returns a new object (kind and apiVersion, when
 * present, first, as TypeMeta is). Members the struct does not have are dropped.
 */
export function goRoundTrip(message: string, obj: Rec): Rec {
  const out: Rec = {};
  if (typeof obj.kind === 'string' && obj.kind) out.kind = obj.kind;
  if (typeof obj.apiVersion === 'string' && obj.apiVersion) out.apiVersion = obj.apiVersion;
  return Object.assign(out, encodeFields(message, obj));
}

/** Go's encoding/json of a string (HTML-safe escapes). */
function goString(str: string): string {
  return JSON.stringify(str).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The JSON text evanphx/json-patch v4 writes for a patched document: members of the objects the
 * patch went into (`decoded`, by JSON pointer; the root always) sorted, as a Go map marshals;
 * every other object as it was written (the stored object's Go field order, the patch's own
 * order for values it brought). Compact, HTML-safe.
 */
export function patchedJson(v: unknown, decoded: Set<string>, path = ''): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x, i) => patchedJson(x, decoded, `${path}/${i}`)).join(',')}]`;
  const o = v as Rec;
  const keys = path === '' || decoded.has(path) ? Object.keys(o).sort() : Object.keys(o);
  return `{${keys.map((k) => `${goString(k)}:${patchedJson(o[k], decoded, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)}`).join(',')}}`;
}

/** The objects a merge patch goes into (merged, not replaced): JSON pointers. */
export function mergePatchDecoded(target: unknown, patch: unknown, path = '', out = new Set<string>()): Set<string> {
  if (!isObject(patch) || !isObject(target)) return out;
  for (const [k, pv] of Object.entries(patch)) {
    const tv = target[k];
    const p = `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (isObject(pv) && isObject(tv)) {
      out.add(p);
      mergePatchDecoded(tv, pv, p, out);
    } else markAll(pv, p, out);
  }
  return out;
}

/** A value a merge patch brings is decoded whole (its nulls pruned): every object in it is re-encoded sorted. */
function markAll(v: unknown, path: string, out: Set<string>): void {
  if (Array.isArray(v)) v.forEach((x, i) => markAll(x, `${path}/${i}`, out));
  else if (isObject(v)) {
    out.add(path);
    for (const [k, x] of Object.entries(v)) markAll(x, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
}

/** The containers a JSON patch's operations walk through (every parent of their paths). */
export function jsonPatchDecoded(ops: unknown): Set<string> {
  const out = new Set<string>();
  for (const op of Array.isArray(ops) ? ops : []) {
    for (const key of ['path', 'from']) {
      const p = isObject(op) ? op[key] : undefined;
      if (typeof p !== 'string' || !p.startsWith('/')) continue;
      const segs = p.split('/').slice(1, -1);
      let cur = '';
      for (const seg of segs) {
        cur += `/${seg}`;
        out.add(cur);
      }
    }
  }
  return out;
}
