// JSON values → CEL values, typed by the schema as the apiserver does (integer → int, number → double,
// int-or-string → int or string, objects and maps → maps, arrays → lists). Objects are wrapped lazily:
// a field is converted only when a rule reads it, and each object once per validation.
import { celList, celMap, type CelInput, type CelValue } from '@bufbuild/cel';
import type { Node } from '../validation/node.js';

/** Per-validation memo of converted objects and arrays. */
export type ConversionCache = WeakMap<object, CelValue>;

/** A fresh cache; use one per `validate()` call. */
export function newConversionCache(): ConversionCache {
  return new WeakMap();
}

function childNode(n: Node | undefined, k: string): Node | undefined {
  if (!n) return undefined;
  return n.props?.get(k) ?? n.addl;
}

/** A read-only map view of a JSON object whose values are converted on read. */
class ObjectView implements ReadonlyMap<string, CelInput> {
  constructor(
    private readonly obj: Record<string, unknown>,
    private readonly node: Node | undefined,
    private readonly cache: ConversionCache,
  ) {}

  get size(): number {
    return Object.keys(this.obj).length;
  }

  get(k: string): CelInput | undefined {
    if (!Object.prototype.hasOwnProperty.call(this.obj, k)) return undefined;
    return toCelValue(childNode(this.node, k), this.obj[k], this.cache);
  }

  has(k: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.obj, k);
  }

  keys(): MapIterator<string> {
    return Object.keys(this.obj)[Symbol.iterator]() as MapIterator<string>;
  }

  *entries(): MapIterator<[string, CelInput]> {
    for (const k of Object.keys(this.obj)) yield [k, this.get(k)!];
  }

  *values(): MapIterator<CelInput> {
    for (const k of Object.keys(this.obj)) yield this.get(k)!;
  }

  forEach(cb: (value: CelInput, key: string, map: ReadonlyMap<string, CelInput>) => void): void {
    for (const k of Object.keys(this.obj)) cb(this.get(k)!, k, this);
  }

  [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
}

/** Converts a JSON value typed by `n` (undefined: untyped, e.g. under preserve-unknown-fields). */
export function toCelValue(n: Node | undefined, v: unknown, cache: ConversionCache): CelValue {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isInteger(v) && n?.s.type !== 'number' ? BigInt(v) : v;
    case 'bigint':
      return v;
    case 'undefined':
      return null;
  }
  if (v === null) return null;
  const hit = cache.get(v as object);
  if (hit !== undefined) return hit;
  let out: CelValue;
  if (Array.isArray(v)) {
    const items = n?.items;
    out = celList(v.map((x) => toCelValue(items, x, cache)));
  } else {
    out = celMap(new ObjectView(v as Record<string, unknown>, n, cache));
  }
  cache.set(v as object, out);
  return out;
}
