// JSON merge patch (RFC 7386) and JSON patch (RFC 6902) on plain JSON values, as the apiserver
// applies them (evanphx/json-patch v4 semantics, the apiserver's errors). One implementation:
// the fake clientset's tracker uses it, and so does crdgen/testing's API server
// (src/testing/patch.ts adds the strict decoding and strategic merge patch on top).
// Pure: inputs are never modified.
import { ApiError } from '../client/errors.js';
import type { Status } from '../meta/types.js';
import { jsonEqual, setOwn } from '../meta/json.js';

type Json = unknown;
type Rec = Record<string, unknown>;

function isObject(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `o[k]` when `k` is an own key of `o` (never `Object.prototype` for `__proto__`). */
function ownValue(o: Rec, k: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}

function failure(code: number, reason: string, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details: {}, code };
}

/** Go's name of a JSON value's type in `json: cannot unmarshal <type> into …`. */
export function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** 400 with the apiserver's message (`json: cannot unmarshal …`). */
function badRequest(message: string): ApiError {
  const s = failure(400, 'BadRequest', message);
  delete s.details;
  return new ApiError(s);
}

/**
 * A JSON patch operation that does not apply: the apiserver answers every such error of
 * evanphx/json-patch (a failed `test`, a missing path, an unknown op, a bad pointer) with the
 * same generic 422 (NewGenericServerResponse), its own message dropped.
 */
function patchFailed(): ApiError {
  return new ApiError(failure(422, 'Invalid', 'the server rejected our request due to an error in our request'));
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. Returns a new value. */
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
  return { parent: parent as Rec | Json[], last: path[path.length - 1] };
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

/**
 * Checks a JSON patch document as evanphx/json-patch decodes it (the apiserver with
 * fieldValidation Ignore): an array of objects (or nulls). Throws the apiserver's 400 otherwise.
 */
export function checkJsonPatchShape(ops: Json): void {
  if (!Array.isArray(ops))
    throw badRequest(`json: cannot unmarshal ${goJsonType(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops)
    if (op !== null && !isObject(op))
      throw badRequest(`json: cannot unmarshal ${goJsonType(op)} into Go value of type jsonpatch.Operation`);
}

/**
 * Applies an RFC 6902 JSON patch as evanphx/json-patch v4 does (a `replace` of a missing member
 * of an object adds it); returns a new value. Throws the apiserver's 400 for a document that is
 * not a patch, its generic 422 when an operation does not apply.
 */
export function jsonPatch(target: Json, ops: Json): Json {
  checkJsonPatchShape(ops);
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
