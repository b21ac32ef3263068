// Patches as the apiserver applies them: JSON patch (RFC 6902) and JSON merge patch (RFC 7386)
// are crdgen/runtime's (src/runtime/fake/patch.ts, shared with the fake clientset); here are the
// patch handler's strict decoding of a JSON patch and strategic merge patch for built-in kinds
// (merge keys per field name, `$patch` directives, `$deleteFromPrimitiveList`, `$setElementOrder`
// and `$retainKeys`).
import { ApiError as ClientApiError } from '../runtime/client/errors.js';
import {
  checkJsonPatchShape,
  goJsonType,
  jsonPatch as applyJsonPatch,
  mergePatch as applyMergePatch,
} from '../runtime/fake/patch.js';
import { badRequest, ApiError } from './status.js';
import { isObject, jsonEqual, ownValue, setOwn } from './meta.js';

type Json = unknown;
type Rec = Record<string, unknown>;

/** Runs `f`, answering the runtime's ApiError as the server's (same Status). */
function asServerError<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ClientApiError && !(e instanceof ApiError)) throw new ApiError(e.status);
    throw e;
  }
}

/** Applies an RFC 7386 merge patch; returns a new value. */
export function mergePatch(target: Json, patch: Json): Json {
  return applyMergePatch(target, patch);
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
          if (v !== null && typeof v !== 'string')
            fail(`${goJsonType(v)} into Go struct field jsonPatchOp.${k} of type string`);
        } else if (k !== 'value') strict.push(`json patch unknown field "[${i}].${k}"`);
      }
    });
    return strict;
  }
  asServerError(() => checkJsonPatchShape(ops));
  return strict;
}

/** Applies an RFC 6902 JSON patch (as evanphx/json-patch v4 does); returns a new value. Throws 422 when an operation does not apply. */
export function jsonPatch(target: Json, ops: Json): Json {
  return asServerError(() => applyJsonPatch(target, ops));
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
  if (!isObject(patch))
    throw badRequest(`json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`);
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
      if (Array.isArray(out[field]) && Array.isArray(v))
        out[field] = (out[field] as Json[]).filter((x) => !v.some((y) => jsonEqual(x, y)));
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
