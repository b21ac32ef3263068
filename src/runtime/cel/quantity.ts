// The Kubernetes CEL quantity library: isQuantity, quantity, compareTo, isGreaterThan, isLessThan,
// add, sub, asInteger, asApproximateFloat, sign, isInteger. Values are exact rationals, so
// quantity("1Gi") == quantity("1024Mi").
import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import { makeOpaque, mustOpaque, OPAQUE } from './opaque.js';

/** An exact quantity: n / d, d > 0, reduced. */
export interface Rational {
  n: bigint;
  d: bigint;
}

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}

function make(n: bigint, d: bigint): Rational {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

/** Parses a Kubernetes quantity (`500m`, `1.5Gi`, `1e3`); undefined when malformed. */
export function parseQuantity(s: string): Rational | undefined {
  const m = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/.exec(s);
  if (!m) return undefined;
  const [, sign, num, suffix = ''] = m;
  const [int, frac = ''] = num!.split('.');
  let n = BigInt((int || '0') + frac);
  let d = 10n ** BigInt(frac.length);
  if (sign === '-') n = -n;
  if (suffix in BINARY) n *= BINARY[suffix]!;
  else {
    const e = suffix in DECIMAL ? DECIMAL[suffix]! : Number(suffix.slice(1));
    if (Math.abs(e) > 1000) return undefined;
    if (e >= 0) n *= 10n ** BigInt(e);
    else d *= 10n ** BigInt(-e);
  }
  return make(n, d);
}

function cmp(a: Rational, b: Rational): number {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
}

const value = (r: Rational) => makeOpaque('quantity', `${r.n}/${r.d}`, r);
const q = (v: unknown, fn: string) => mustOpaque<Rational>(v, 'quantity', fn);
const MAX_INT64 = (1n << 63n) - 1n;

/** The quantity functions, as CEL overloads. */
export const quantityFuncs: CelFunc[] = [
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s) => parseQuantity(s) !== undefined),
  celFunc('quantity', [CelScalar.STRING], OPAQUE, (s) => {
    const r = parseQuantity(s);
    if (!r) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    return value(r);
  }),
  celMethod('compareTo', OPAQUE, [OPAQUE], CelScalar.INT, function (o) {
    return BigInt(cmp(q(this, 'compareTo'), q(o, 'compareTo')));
  }),
  celMethod('isGreaterThan', OPAQUE, [OPAQUE], CelScalar.BOOL, function (o) {
    return cmp(q(this, 'isGreaterThan'), q(o, 'isGreaterThan')) > 0;
  }),
  celMethod('isLessThan', OPAQUE, [OPAQUE], CelScalar.BOOL, function (o) {
    return cmp(q(this, 'isLessThan'), q(o, 'isLessThan')) < 0;
  }),
  celMethod('add', OPAQUE, [OPAQUE], OPAQUE, function (o) {
    const a = q(this, 'add');
    const b = q(o, 'add');
    return value(make(a.n * b.d + b.n * a.d, a.d * b.d));
  }),
  celMethod('add', OPAQUE, [CelScalar.INT], OPAQUE, function (i) {
    const a = q(this, 'add');
    return value(make(a.n + i * a.d, a.d));
  }),
  celMethod('sub', OPAQUE, [OPAQUE], OPAQUE, function (o) {
    const a = q(this, 'sub');
    const b = q(o, 'sub');
    return value(make(a.n * b.d - b.n * a.d, a.d * b.d));
  }),
  celMethod('sub', OPAQUE, [CelScalar.INT], OPAQUE, function (i) {
    const a = q(this, 'sub');
    return value(make(a.n - i * a.d, a.d));
  }),
  celMethod('isInteger', OPAQUE, [], CelScalar.BOOL, function () {
    const a = q(this, 'isInteger');
    return a.d === 1n && a.n <= MAX_INT64 && a.n >= -MAX_INT64 - 1n;
  }),
  celMethod('asInteger', OPAQUE, [], CelScalar.INT, function () {
    const a = q(this, 'asInteger');
    if (a.d !== 1n || a.n > MAX_INT64 || a.n < -MAX_INT64 - 1n) throw new Error('cannot convert value to integer');
    return a.n;
  }),
  celMethod('asApproximateFloat', OPAQUE, [], CelScalar.DOUBLE, function () {
    const a = q(this, 'asApproximateFloat');
    return Number(a.n) / Number(a.d);
  }),
  celMethod('sign', OPAQUE, [], CelScalar.INT, function () {
    const a = q(this, 'sign');
    return a.n < 0n ? -1n : a.n > 0n ? 1n : 0n;
  }),
];
