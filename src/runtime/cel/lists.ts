// The Kubernetes CEL lists, sets and regex libraries: isSorted, sum, min, max, indexOf, lastIndexOf
// on lists; sets.contains/equivalent/intersects; find and findAll on strings.
import { compileRegex } from './regex-cache.js';
import {
  CelEvalError,
  celCompare,
  celEquals,
  checkInt,
  checkUint,
  Duration,
  emptySum,
  noOverload,
  Uint,
  type CelLibrary,
  type Value,
} from './value.js';

const list = (v: Value | undefined, fn: string): Value[] => (Array.isArray(v) ? v : noOverload(fn, v ?? null));
const str = (v: Value | undefined, fn: string): string => (typeof v === 'string' ? v : noOverload(fn, v ?? null));

/** The lists, sets and regex libraries. */
export const listsLibrary: CelLibrary = {
  functions: {
    'sets.contains': (_t, a) =>
      list(a[1], 'sets.contains').every((y) => list(a[0], 'sets.contains').some((x) => celEquals(x, y))),
    'sets.equivalent': (_t, a) => {
      const [x, y] = [list(a[0], 'sets.equivalent'), list(a[1], 'sets.equivalent')];
      return x.every((v) => y.some((w) => celEquals(v, w))) && y.every((w) => x.some((v) => celEquals(v, w)));
    },
    'sets.intersects': (_t, a) =>
      list(a[0], 'sets.intersects').some((x) => list(a[1], 'sets.intersects').some((y) => celEquals(x, y))),
  },
  methods: {
    isSorted: (t) => {
      const xs = list(t, 'isSorted');
      for (let i = 1; i < xs.length; i++) if (celCompare(xs[i - 1], xs[i], 'isSorted') > 0) return false;
      return true;
    },
    sum: (t) => {
      const xs = list(t, 'sum');
      if (xs.length === 0) return emptySum(xs);
      if (xs.every((x) => typeof x === 'bigint')) return checkInt(xs.reduce((a, b) => a + b, 0n));
      if (xs.every((x) => typeof x === 'number')) return xs.reduce((a, b) => a + b, 0);
      if (xs.every((x) => x instanceof Uint)) return checkUint(xs.reduce((a, b) => a + b.v, 0n));
      if (xs.every((x) => x instanceof Duration)) return new Duration(checkInt(xs.reduce((a, b) => a + b.ns, 0n)));
      return noOverload('sum', t!);
    },
    min: (t) => {
      const xs = list(t, 'min');
      if (xs.length === 0) throw new CelEvalError('min called on empty list');
      return xs.reduce((a, b) => (celCompare(b, a, 'min') < 0 ? b : a));
    },
    max: (t) => {
      const xs = list(t, 'max');
      if (xs.length === 0) throw new CelEvalError('max called on empty list');
      return xs.reduce((a, b) => (celCompare(b, a, 'max') > 0 ? b : a));
    },
    indexOf: (t, a) => {
      const xs = list(t, 'indexOf');
      return BigInt(xs.findIndex((v) => celEquals(v, a[0])));
    },
    lastIndexOf: (t, a) => {
      const xs = list(t, 'lastIndexOf');
      for (let i = xs.length - 1; i >= 0; i--) if (celEquals(xs[i], a[0])) return BigInt(i);
      return -1n;
    },
    find: (t, a) => compileRegex(str(a[0], 'find')).find(str(t, 'find')) ?? '',
    findAll: (t, a) => compileRegex(str(a[0], 'findAll')).findAll(str(t, 'findAll'), a.length > 1 ? Number(a[1]) : -1),
  },
};
