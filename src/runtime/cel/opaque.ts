// Opaque CEL values (kubernetes URL, IP, CIDR, Quantity). @bufbuild/cel has no custom value types, so
// such a value is a one-entry CEL map keyed by a private marker and holding its canonical text
// (so `==` compares values as the Kubernetes types do), with the parsed form kept on the side.
import { celMap, CelScalar, mapType, type CelMap, type CelMapType } from '@bufbuild/cel';

/** The CEL type opaque values are declared with (a map; the methods check the marker). */
export const OPAQUE: CelMapType = mapType(CelScalar.STRING, CelScalar.DYN);

const parsed = new WeakMap<object, { kind: string; value: unknown }>();

/** Wraps a parsed value of `kind` (`url`, `ip`, …) whose canonical text is `canonical`. */
export function makeOpaque<T>(kind: string, canonical: string, value: T): CelMap {
  const m = celMap(new Map([[`\u0000${kind}`, canonical]]));
  parsed.set(m, { kind, value });
  return m;
}

/** The parsed value behind an opaque CEL value, or undefined when `v` is not a `kind`. */
export function readOpaque<T>(v: unknown, kind: string): T | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const p = parsed.get(v);
  return p && p.kind === kind ? (p.value as T) : undefined;
}

/** Like {@link readOpaque} but throws CEL's overload error when `v` is not a `kind`. */
export function mustOpaque<T>(v: unknown, kind: string, fn: string): T {
  const x = readOpaque<T>(v, kind);
  if (x === undefined) throw new Error(`no such overload: ${fn} applied to a value that is not a ${kind}`);
  return x;
}
