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

function parsePointer(p: unknown): string[] {
  if (typeof p !== 'string') throw badRequest('json patch: path must be a string');
  if (p === '') return [];
  if (!p.startsWith('/')) throw badRequest(`json patch: invalid path "${p}"`);
  return p.slice(1).split('/').map(unescapePointer);
}

function patchFailed(message: string): ApiError {
  return new ApiError(failure(422, 'Invalid', message));
}

function getAt(doc: Json, path: string[]): Json {
  let cur = doc;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isObject(cur)) cur = ownValue(cur, seg);
    else return undefined;
  }
  return cur;
}

function parentOf(doc: Json, path: string[], raw: string): { parent: Rec | Json[]; last: string } {
  const parent = getAt(doc, path.slice(0, -1));
  if (!isObject(parent) && !Array.isArray(parent)) {
    throw patchFailed(`the server rejected our request due to an error in our request: doc is missing path: "${raw}": missing value`);
  }
  return { parent: parent as Rec | Json[], last: path[path.length - 1]! };
}

function add(doc: Json, path: string[], value: Json, raw: string): Json {
  if (path.length === 0) return structuredClone(value);
  const { parent, last } = parentOf(doc, path, raw);
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) throw patchFailed(`add operation does not apply: doc is missing path: "${raw}": missing value`);
    parent.splice(i, 0, structuredClone(value));
  } else setOwn(parent, last, structuredClone(value));
  return doc;
}

function remove(doc: Json, path: string[], raw: string): Json {
  const { parent, last } = parentOf(doc, path, raw);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw patchFailed(`remove operation does not apply: doc is missing path: "${raw}": missing value`);
    parent.splice(i, 1);
  } else {
    if (!Object.prototype.hasOwnProperty.call(parent, last)) throw patchFailed(`remove operation does not apply: doc is missing path: "${raw}": missing value`);
    delete parent[last];
  }
  return doc;
}

/** Applies an RFC 6902 JSON patch; returns a new value. Throws 422 when an operation does not apply. */
export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = structuredClone(target);
  for (const op of ops) {
    if (!isObject(op)) throw badRequest('json patch: each operation must be an object');
    const raw = String(op.path);
    const path = parsePointer(op.path);
    switch (op.op) {
      case 'add':
        doc = add(doc, path, op.value, raw);
        break;
      case 'remove':
        doc = remove(doc, path, raw);
        break;
      case 'replace':
        if (getAt(doc, path) === undefined) throw patchFailed(`replace operation does not apply: doc is missing key: ${raw}: missing value`);
        doc = remove(doc, path, raw);
        doc = add(doc, path, op.value, raw);
        break;
      case 'move':
      case 'copy': {
        const fromRaw = String(op.from);
        const from = parsePointer(op.from);
        const v = getAt(doc, from);
        if (v === undefined) throw patchFailed(`${op.op} operation does not apply: doc is missing from path: ${fromRaw}: missing value`);
        if (op.op === 'move') doc = remove(doc, from, fromRaw);
        doc = add(doc, path, v, raw);
        break;
      }
      case 'test':
        if (!jsonEqual(getAt(doc, path), op.value)) throw patchFailed(`testing value ${raw} failed: test failed`);
        break;
      default:
        throw badRequest(`Unexpected kind: ${String(op.op)}`);
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
  if (!isObject(patch)) throw badRequest('strategic merge patch: the patch must be a JSON object');
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
