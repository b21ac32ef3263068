// The Kubernetes CEL lists and regex libraries: isSorted, sum, min, max, indexOf, lastIndexOf on
// lists; find and findAll on strings.
import { celMethod, CelScalar, listType, type CelFunc, type CelList, type CelValue } from '@bufbuild/cel';
import { compileRegex } from './regex-cache.js';

const LIST = listType(CelScalar.DYN);

function items(l: CelList): CelValue[] {
  return Array.from(l);
}

function kindOf(v: CelValue): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  return 'other';
}

/** Compares two comparable CEL values of one kind (int, double, string, bool, bytes). */
function compare(a: CelValue, b: CelValue): number {
  const ka = kindOf(a);
  if (ka !== kindOf(b) || ka === 'other') throw new Error('no such overload: values are not comparable');
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  }
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

function equal(a: CelValue, b: CelValue): boolean {
  return kindOf(a) === kindOf(b) && kindOf(a) !== 'other' ? compare(a, b) === 0 : a === b;
}

/** The list functions, as CEL overloads. */
export const listFuncs: CelFunc[] = [
  celMethod('isSorted', LIST, [], CelScalar.BOOL, function () {
    const xs = items(this);
    for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1]!, xs[i]!) > 0) return false;
    return true;
  }),
  celMethod('sum', LIST, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (xs.length === 0) return 0n;
    if (xs.every((x) => typeof x === 'bigint')) return (xs as bigint[]).reduce((a, b) => a + b, 0n);
    if (xs.every((x) => typeof x === 'number')) return (xs as number[]).reduce((a, b) => a + b, 0);
    throw new Error('no such overload: sum');
  }),
  celMethod('min', LIST, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (xs.length === 0) throw new Error('min called on empty list');
    return xs.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  }),
  celMethod('max', LIST, [], CelScalar.DYN, function () {
    const xs = items(this);
    if (xs.length === 0) throw new Error('max called on empty list');
    return xs.reduce((a, b) => (compare(b, a) > 0 ? b : a));
  }),
  celMethod('indexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    return BigInt(items(this).findIndex((v) => equal(v, x)));
  }),
  celMethod('lastIndexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (x) {
    const xs = items(this);
    for (let i = xs.length - 1; i >= 0; i--) if (equal(xs[i]!, x)) return BigInt(i);
    return -1n;
  }),
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (re) {
    const m = compileRegex(re).exec(this);
    return m ? m[0] : '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (re) {
    return findAll(this, re, -1);
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (re, limit) {
    return findAll(this, re, Number(limit));
  }),
];

function findAll(s: string, re: string, limit: number): string[] {
  if (limit === 0) return [];
  const g = new RegExp(compileRegex(re).source, compileRegex(re).flags + 'g');
  const out: string[] = [];
  for (const m of s.matchAll(g)) {
    out.push(m[0]);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}
