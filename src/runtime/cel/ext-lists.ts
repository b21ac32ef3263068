// cel-go's lists extension v3 as Kubernetes 1.34+ has it (slice, flatten, sort, sortBy through
// @sortByAssociatedKeys, lists.range, reverse, distinct), Kubernetes' lists v1 `includes` (1.37),
// the optional library's list helpers (first, last, optional.unwrap, unwrapOpt) and the two-variable
// comprehensions' map insertion (cel.@mapInsert).
import {
  CelEvalError,
  celCompare,
  celEquals,
  isMap,
  keyText,
  LiteralMap,
  noOverload,
  Optional,
  typeName,
  type CelLibrary,
  type Value,
} from './value.js';

const list = (v: Value | undefined, fn: string): Value[] => (Array.isArray(v) ? v : noOverload(fn, v ?? null));
const int = (v: Value | undefined, fn: string): bigint => (typeof v === 'bigint' ? v : noOverload(fn, v ?? null));

/** The most lists.range may produce (cel-go's default). */
export const MAX_RANGE_SIZE = 1_000_000;

function flattenList(xs: Value[], depth: bigint): Value[] {
  if (depth < 0n) throw new CelEvalError('level must be non-negative');
  const out: Value[] = [];
  for (const x of xs) {
    if (Array.isArray(x) && depth > 0n) out.push(...flattenList(x, depth - 1n));
    else out.push(x);
  }
  return out;
}

function sortByKeys(xs: Value[], keys: Value[]): Value[] {
  if (xs.length !== keys.length)
    throw new CelEvalError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${xs.length} and ${keys.length} elements respectively`,
    );
  if (xs.length === 0) return xs;
  const t = typeName(keys[0]);
  const idx = xs.map((_, i) => i);
  for (const k of keys) if (typeName(k) !== t) throw new CelEvalError('list elements must have the same type');
  try {
    idx.sort((i, j) => celCompare(keys[i], keys[j], 'sort') || i - j);
  } catch {
    throw new CelEvalError('list elements must be comparable');
  }
  return idx.map((i) => xs[i]!);
}

function mapEntries(m: Value): [Value, Value][] {
  if (!isMap(m)) return noOverload('cel.@mapInsert', m);
  return m.keys().map((k) => [k, m.get(k)!]);
}

/** The library. */
export const extListsLibrary: CelLibrary = {
  functions: {
    'lists.range': (_t, a) => {
      const n = int(a[0], 'lists.range');
      if (n < 0n) throw new CelEvalError(`lists.range: size must be non-negative, got ${n}`);
      if (n > BigInt(MAX_RANGE_SIZE))
        throw new CelEvalError(`lists.range: size ${n} exceeds maximum allowed (${MAX_RANGE_SIZE})`);
      return Array.from({ length: Number(n) }, (_, i) => BigInt(i));
    },
    'optional.unwrap': (_t, a) =>
      list(a[0], 'optional.unwrap').flatMap((o) =>
        o instanceof Optional ? (o.value === undefined ? [] : [o.value]) : noOverload('optional.unwrap', o),
      ),
    'cel.@mapInsert': (_t, a) => {
      const entries = mapEntries(a[0]);
      const add: [Value, Value][] = a.length === 3 ? [[a[1]!, a[2]!]] : mapEntries(a[1]);
      for (const [k] of add)
        if (entries.some(([x]) => celEquals(x, k)))
          throw new CelEvalError(`insert failed: key ${keyText(k)} already exists`);
      return new LiteralMap([...entries, ...add]);
    },
  },
  methods: {
    slice: (t, a) => {
      const xs = list(t, 'slice');
      const s = int(a[0], 'slice');
      const e = int(a[1], 'slice');
      if (s < 0n || e < 0n) throw new CelEvalError(`cannot slice(${s}, ${e}), negative indexes not supported`);
      if (s > e)
        throw new CelEvalError(`cannot slice(${s}, ${e}), start index must be less than or equal to end index`);
      if (BigInt(xs.length) < e) throw new CelEvalError(`cannot slice(${s}, ${e}), list is length ${xs.length}`);
      return xs.slice(Number(s), Number(e));
    },
    flatten: (t, a) => flattenList(list(t, 'flatten'), a.length ? int(a[0], 'flatten') : 1n),
    sort: (t) => {
      const xs = list(t, 'sort');
      return sortByKeys(xs, xs);
    },
    '@sortByAssociatedKeys': (t, a) =>
      sortByKeys(list(t, '@sortByAssociatedKeys'), list(a[0], '@sortByAssociatedKeys')),
    reverse: (t) => list(t, 'reverse').slice().reverse(),
    distinct: (t) => {
      const out: Value[] = [];
      for (const x of list(t, 'distinct')) if (!out.some((y) => celEquals(x, y))) out.push(x);
      return out;
    },
    first: (t) => new Optional(list(t, 'first')[0]),
    last: (t) => {
      const xs = list(t, 'last');
      return new Optional(xs[xs.length - 1]);
    },
    unwrapOpt: (t) =>
      list(t, 'unwrapOpt').flatMap((o) =>
        o instanceof Optional ? (o.value === undefined ? [] : [o.value]) : noOverload('unwrapOpt', o),
      ),
    includes: (t, a) => (Array.isArray(t) ? t.some((x) => celEquals(x, a[0])) : celEquals(t!, a[0])),
  },
};
