// The runtime's JSON value helpers: structural equality, a fast deep copy, and setting a member
// that may be named `__proto__`. Every part of the runtime (validation, the fake's and the
// webhooks' patches, the manager's client) and the test server use these, not copies of them.

/**
 * Structural equality of JSON values, as the API server would store them: numbers by value,
 * arrays element by element, objects by own members, where a member holding `undefined` counts
 * as absent (JSON.stringify drops it).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // every defined member of `a` is in `b` and equal; then `b` has no other defined member
  let defined = 0;
  for (const k of Object.keys(ao)) {
    const v = ao[k];
    if (v === undefined) continue;
    if (!Object.hasOwn(bo, k) || !jsonEqual(v, bo[k])) return false;
    defined++;
  }
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) defined--;
  return defined === 0;
}

/**
 * Sets `o[k] = v` as an own data property, also when `k` is `__proto__` (a key like any other in
 * JSON; plain assignment would change the prototype of an object that does not own that key).
 */
export function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/**
 * A deep copy of a JSON value, as `structuredClone` makes one for plain data (members in the
 * same order, `undefined` members kept, a `__proto__` member kept as a member) at a fraction of
 * its cost; anything that is not a plain object, an array or a primitive (a Date, a Map, a
 * function…) is handed to `structuredClone`, which copies it or throws as it would.
 */
export function jsonCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null)
    return typeof v === 'function' || typeof v === 'symbol' ? structuredClone(v) : v;
  if (Array.isArray(v)) {
    const n = v.length;
    const a = new Array<unknown>(n);
    for (let i = 0; i < n; i++) a[i] = jsonCopy(v[i] as unknown);
    return a as T;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) setOwn(out, k, jsonCopy(src[k]));
  return out as T;
}
