// Key order of JSON objects. kube-apiserver decodes a custom resource into a Go
// map[string]interface{} and encodes it with encoding/json, which writes map keys sorted
// (byte order), so a custom resource read from a real server has its keys sorted at every
// level. The deepcopy benchmark copies samples in that order too, and the benchmark on the
// real control plane checks the claim on what the server returns.

/** Byte order of two keys, as Go's encoding/json sorts map keys (UTF-8 bytes; UTF-16 units agree for the BMP). */
function before(a: string, b: string): boolean {
  return Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
}

/** The path of the first object whose keys are not in byte order (`$` is the root), or undefined when every level is sorted. */
export function firstUnsorted(v: unknown, path = '$'): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = firstUnsorted(v[i], `${path}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  const keys = Object.keys(v);
  for (let i = 1; i < keys.length; i++) if (!before(keys[i - 1], keys[i])) return path;
  for (const k of keys) {
    const p = firstUnsorted((v as Record<string, unknown>)[k], `${path}.${k}`);
    if (p) return p;
  }
  return undefined;
}

/** A copy of `v` with the keys of every object in byte order (what a real apiserver returns for a custom resource). */
export function sortKeysDeep<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(sortKeysDeep) as T;
  const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const out: Record<string, unknown> = {};
  for (const k of keys)
    Object.defineProperty(out, k, {
      value: sortKeysDeep((v as Record<string, unknown>)[k]),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  return out as T;
}
