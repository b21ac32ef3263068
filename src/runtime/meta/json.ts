// Deep equality of JSON values, shared by the fake's patches, the webhook patches and the test server.

/** Deep equality of JSON values: members that are `undefined` count as absent; only own members compare. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ka = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const kb = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
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
  for (const k of Object.keys(src)) {
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: jsonCopy(src[k]), writable: true, enumerable: true, configurable: true });
    else out[k] = jsonCopy(src[k]);
  }
  return out as T;
}
