// JSON patches (RFC 6902) for admission responses and lossless conversion: computed with
// fast-json-patch's `compare`, applied here tolerantly (missing parents are created, a remove of
// nothing is nothing), because a patch saved on one object is replayed on a converted one.
import jsonPatch from 'fast-json-patch';
import { jsonEqual, setOwn } from '../meta/json.js';

/** One RFC 6902 operation of the three that diffs produce. */
export type JsonPatchOp = { op: 'add' | 'replace'; path: string; value: unknown } | { op: 'remove'; path: string };

/** The operations that turn `from` into `to` (JSON values; `undefined` members count as absent). */
export function diffJson(from: unknown, to: unknown): JsonPatchOp[] {
  if (!isContainer(from) || !isContainer(to) || Array.isArray(from) !== Array.isArray(to)) {
    return jsonEqual(from, to) ? [] : [{ op: 'replace', path: '', value: structuredClone(to) }];
  }
  return jsonPatch.compare(from as object, to as object) as JsonPatchOp[];
}

/** The reference tokens of a JSON pointer (`/a~1b/0` → `['a/b', '0']`). */
export function pointerTokens(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`bad JSON pointer ${JSON.stringify(path)}: must start with "/"`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Applies `ops` to a deep copy of `doc` and returns it. Where the document no longer has the
 * shape the patch was computed on, an add/replace creates the missing objects on its path and a
 * remove of a missing member is skipped: the result holds every value the patch carries.
 */
export function applyPatchTolerant<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  let root: unknown = structuredClone(doc);
  for (const op of ops) {
    const tokens = pointerTokens(op.path);
    if (tokens.length === 0) {
      if (op.op !== 'remove') root = structuredClone(op.value);
      continue;
    }
    let cur: unknown = root;
    let ok = true;
    for (let i = 0; i < tokens.length - 1; i++) {
      const t = tokens[i];
      const container = cur as Record<string, unknown> | unknown[];
      let next = Array.isArray(container)
        ? container[Number(t)]
        : Object.hasOwn(container, t)
          ? container[t]
          : undefined;
      if (!isContainer(next)) {
        if (op.op === 'remove') {
          ok = false;
          break;
        }
        next = {};
        if (Array.isArray(container)) {
          const idx = Number(t);
          if (!Number.isInteger(idx) || idx > container.length) {
            ok = false;
            break;
          }
          container[idx] = next;
        } else setOwn(container, t, next);
      }
      cur = next;
    }
    if (!ok || !isContainer(cur)) continue;
    const last = tokens[tokens.length - 1];
    if (Array.isArray(cur)) {
      const idx = last === '-' ? cur.length : Number(last);
      if (!Number.isInteger(idx) || idx < 0) continue;
      if (op.op === 'remove') {
        if (idx < cur.length) cur.splice(idx, 1);
      } else if (op.op === 'add') cur.splice(Math.min(idx, cur.length), 0, structuredClone(op.value));
      else if (idx < cur.length) cur[idx] = structuredClone(op.value);
      else cur.push(structuredClone(op.value));
    } else {
      const obj = cur;
      if (op.op === 'remove') delete obj[last];
      else setOwn(obj, last, structuredClone(op.value));
    }
  }
  return root as T;
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}
