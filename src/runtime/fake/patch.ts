// JSON merge patch (RFC 7386) and JSON patch (RFC 6902) on plain JSON values, for the
// fake clientset's tracker. Pure: inputs are never modified.
import { ApiError } from '../client/errors.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function badRequest(code: number, reason: string, message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message });
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, Json> = isObject(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '__proto__') continue;
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v) as Json;
  }
  return out;
}

function unescape(seg: string): string {
  return seg.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw badRequest(422, 'Invalid', `invalid JSON pointer ${JSON.stringify(path)}`);
  return path === '' ? [] : path.slice(1).split('/').map(unescape);
}

function walk(doc: Json, segs: string[]): { parent: Json; key: string } {
  let cur: Json = doc;
  for (const s of segs.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(s)] as Json;
    else if (isObject(cur) && Object.prototype.hasOwnProperty.call(cur, s)) cur = cur[s]!;
    else throw badRequest(422, 'Invalid', `the server rejected our request due to an error in our request: path /${segs.join('/')} does not exist`);
    if (cur === undefined) throw badRequest(422, 'Invalid', `path /${segs.join('/')} does not exist`);
  }
  return { parent: cur, key: segs[segs.length - 1]! };
}

function getAt(doc: Json, segs: string[]): Json {
  if (segs.length === 0) return doc;
  const { parent, key } = walk(doc, segs);
  const v = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) && Object.prototype.hasOwnProperty.call(parent, key) ? parent[key] : undefined;
  if (v === undefined) throw badRequest(422, 'Invalid', `path /${segs.join('/')} does not exist`);
  return v;
}

function removeAt(doc: Json, segs: string[]): Json {
  const v = getAt(doc, segs);
  const { parent, key } = walk(doc, segs);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete (parent as Record<string, Json>)[key];
  return v;
}

function addAt(doc: Json, segs: string[], value: Json, replace: boolean): Json {
  if (segs.length === 0) return value;
  const { parent, key } = walk(doc, segs);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (replace && i >= parent.length)) throw badRequest(422, 'Invalid', `array index ${key} out of range`);
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else if (isObject(parent)) {
    if (replace && !Object.prototype.hasOwnProperty.call(parent, key)) throw badRequest(422, 'Invalid', `path /${segs.join('/')} does not exist`);
    if (key !== '__proto__') parent[key] = value;
  } else {
    throw badRequest(422, 'Invalid', `path /${segs.join('/')} does not exist`);
  }
  return doc;
}

/** RFC 6902 operations (add, remove, replace, move, copy, test) applied in order. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest(400, 'BadRequest', 'a JSON patch must be an array of operations');
  let doc = clone(target) as Json;
  for (const op of ops as unknown[]) {
    if (!isObject(op)) throw badRequest(400, 'BadRequest', 'a JSON patch operation must be an object');
    const segs = parsePointer(op['path']);
    switch (op['op']) {
      case 'add':
        doc = addAt(doc, segs, clone(op['value'] as Json), false);
        break;
      case 'replace':
        doc = addAt(doc, segs, clone(op['value'] as Json), true);
        break;
      case 'remove':
        removeAt(doc, segs);
        break;
      case 'move': {
        const v = removeAt(doc, parsePointer(op['from']));
        doc = addAt(doc, segs, v, false);
        break;
      }
      case 'copy':
        doc = addAt(doc, segs, clone(getAt(doc, parsePointer(op['from']))), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, segs)) !== JSON.stringify(op['value'])) throw badRequest(422, 'Invalid', `test operation failed at ${String(op['path'])}`);
        break;
      default:
        throw badRequest(400, 'BadRequest', `unknown JSON patch operation ${JSON.stringify(op['op'])}`);
    }
  }
  return doc;
}
