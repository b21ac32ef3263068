// Patches as the apiserver applies them: JSON patch (RFC 6902), JSON merge patch
// (RFC 7386) and strategic merge patch for built-in kinds (merge keys per field name,
// `$patch` directives, `$deleteFromPrimitiveList`, `$setElementOrder` and `$retainKeys`).
import { badRequest, ApiError, failure } from './status.js';
import { isObject, jsonEqual, ownValue, setOwn } from './meta.js';

type Json = unknown;
type Rec = Record<string, unknown>;

/** Applies an RFC 7386 merge patch; returns a new value. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Rec = isObject(target) ? structuredClone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(ownValue(out, k), v));
  }
  return out;
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A JSON patch operation that does not apply: the apiserver answers every such error of
 * evanphx/json-patch (a failed `test`, a missing path, an unknown op, a bad pointer) with the
 * same generic 422 (NewGenericServerResponse), its own message dropped.
 */
function patchFailed(): ApiError {
  return new ApiError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
}

function parsePointer(p: unknown): string[] {
  if (typeof p !== 'string') throw patchFailed();
  if (p === '') return [];
  if (!p.startsWith('/')) throw patchFailed();
  return p.slice(1).split('/').map(unescapePointer);
}

function getAt(doc: Json, path: string[]): Json {
  let cur = doc;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = /^(0|[1-9][0-9]*)$/.test(seg) ? cur[Number(seg)] : undefined;
    else if (isObject(cur)) cur = ownValue(cur, seg);
    else return undefined;
  }
  return cur;
}

function parentOf(doc: Json, path: string[]): { parent: Rec | Json[]; last: string } {
  const parent = getAt(doc, path.slice(0, -1));
  if (!isObject(parent) && !Array.isArray(parent)) throw patchFailed();
  return { parent: parent as Rec | Json[], last: path[path.length - 1]! };
}

function arrayIndex(last: string, length: number, allowEnd: boolean): number {
  if (allowEnd && last === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(last)) throw patchFailed();
  const i = Number(last);
  if (i > length || (!allowEnd && i === length)) throw patchFailed();
  return i;
}

function add(doc: Json, path: string[], value: Json): Json {
  if (path.length === 0) return structuredClone(value);
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true), 0, structuredClone(value));
  else setOwn(parent, last, structuredClone(value));
  return doc;
}

function remove(doc: Json, path: string[]): Json {
  if (path.length === 0) throw patchFailed();
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false), 1);
  else {
    if (!Object.prototype.hasOwnProperty.call(parent, last)) throw patchFailed();
    delete parent[last];
  }
  return doc;
}

/** Go's name of a JSON value's type in `json: cannot unmarshal <type> into …`. */
function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * Checks a JSON patch document as the patch handler decodes it: with fieldValidation Strict or
 * Warn (the default) into its own `[]jsonPatchOp` first (`error decoding patch: …`, and a
 * `json patch unknown field "[0].x"` strict error per unknown member), with Ignore only as
 * evanphx/json-patch decodes it. Returns the strict errors.
 */
export function decodeJsonPatch(ops: Json, strictDecoding: boolean): string[] {
  const strict: string[] = [];
  if (strictDecoding) {
    const fail = (what: string): never => {
      throw badRequest(`error decoding patch: json: cannot unmarshal ${what}`);
    };
    if (ops === null) return strict;
    if (!Array.isArray(ops)) fail(`${goJsonType(ops)} into Go value of type []handlers.jsonPatchOp`);
    (ops as Json[]).forEach((op, i) => {
      if (op === null) return;
      if (!isObject(op)) fail(`${goJsonType(op)} into Go value of type handlers.jsonPatchOp`);
      for (const [k, v] of Object.entries(op as Rec)) {
        if (k === 'op' || k === 'path' || k === 'from') {
          if (v !== null && typeof v !== 'string') fail(`${goJsonType(v)} into Go struct field jsonPatchOp.${k} of type string`);
        } else if (k !== 'value') strict.push(`json patch unknown field "[${i}].${k}"`);
      }
    });
    return strict;
  }
  if (!Array.isArray(ops)) throw badRequest(`json: cannot unmarshal ${goJsonType(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) if (op !== null && !isObject(op)) throw badRequest(`json: cannot unmarshal ${goJsonType(op)} into Go value of type jsonpatch.Operation`);
  return strict;
}

/** Applies an RFC 6902 JSON patch (as evanphx/json-patch v4 does); returns a new value. Throws 422 when an operation does not apply. */
export function jsonPatch(target: Json, ops: Json): Json {
  decodeJsonPatch(ops, false);
  let doc = structuredClone(target);
  for (const op of ops as Json[]) {
    if (!isObject(op)) throw patchFailed();
    const path = parsePointer(op.path);
    switch (op.op) {
      case 'add':
        doc = add(doc, path, op.value);
        break;
      case 'remove':
        doc = remove(doc, path);
        break;
      case 'replace': {
        // json-patch v4 replaces a missing key of an existing object (it adds it); a missing array index fails
        if (path.length === 0) {
          doc = structuredClone(op.value);
          break;
        }
        const { parent, last } = parentOf(doc, path);
        if (Array.isArray(parent)) parent[arrayIndex(last, parent.length, false)] = structuredClone(op.value);
        else setOwn(parent, last, structuredClone(op.value));
        break;
      }
      case 'move':
      case 'copy': {
        const from = parsePointer(op.from);
        const v = getAt(doc, from);
        if (v === undefined) throw patchFailed();
        if (op.op === 'move') doc = remove(doc, from);
        doc = add(doc, path, structuredClone(v));
        break;
      }
      case 'test':
        if (!jsonEqual(getAt(doc, path) ?? null, op.value ?? null)) throw patchFailed();
        break;
      default:
        throw patchFailed();
    }
  }
  return doc;
}

/** Merge keys of list fields in built-in kinds (the `patchMergeKey` tags of k8s.io/api). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  conditions: 'type',
  ownerReferences: 'uid',
  tolerations: 'key',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
};

/** Primitive lists merged as sets (`patchStrategy:"merge"` on a []string). */
const MERGE_PRIMITIVE_LISTS = new Set(['finalizers']);

/** Applies a strategic merge patch to a built-in kind's object; returns a new value. */
export function strategicMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
  return smpObject(isObject(target) ? target : {}, patch);
}

function smpObject(target: Rec, patch: Rec): Rec {
  if (patch.$patch === 'replace') {
    const r = structuredClone(patch);
    delete r.$patch;
    return r;
  }
  if (patch.$patch === 'delete') return {};
  const out: Rec = structuredClone(target);
  const retain = Array.isArray(patch.$retainKeys) ? new Set(patch.$retainKeys as string[]) : undefined;
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = (out[field] as Json[]).filter((x) => !v.some((y) => jsonEqual(x, y)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = ownValue(out, k);
    if (isObject(v)) {
      setOwn(out, k, smpObject(isObject(cur) ? cur : {}, v));
      if (v.$patch === 'delete') delete out[k];
    } else if (Array.isArray(v)) {
      setOwn(out, k, smpList(k, Array.isArray(cur) ? (cur as Json[]) : [], v));
    } else setOwn(out, k, v);
  }
  if (retain) for (const k of Object.keys(out)) if (!retain.has(k)) delete out[k];
  return out;
}

function smpList(field: string, target: Json[], patch: Json[]): Json[] {
  const mergeKey = MERGE_KEYS[field];
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace')).map((p) => structuredClone(p));
  }
  if (mergeKey) {
    const out = target.map((t) => structuredClone(t));
    for (const p of patch) {
      if (!isObject(p)) continue;
      const idx = out.findIndex((t) => isObject(t) && jsonEqual(t[mergeKey], p[mergeKey]));
      if (p.$patch === 'delete') {
        if (idx >= 0) out.splice(idx, 1);
        continue;
      }
      if (idx >= 0) out[idx] = smpObject(out[idx] as Rec, p);
      else {
        const n = structuredClone(p);
        delete n.$patch;
        out.push(n);
      }
    }
    return out;
  }
  if (MERGE_PRIMITIVE_LISTS.has(field)) {
    const out = target.slice();
    for (const p of patch) if (!out.some((t) => jsonEqual(t, p))) out.push(p);
    return out;
  }
  return structuredClone(patch);
}
