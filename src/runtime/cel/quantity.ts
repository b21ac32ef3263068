// The Kubernetes CEL quantity library: isQuantity, quantity, compareTo, isGreaterThan, isLessThan,
// add, sub, asInteger, asApproximateFloat, sign, isInteger. Values are exact rationals, so
// quantity("1Gi") == quantity("1024Mi").
import { CelEvalError, noOverload, Opaque, type CelLibrary, type Value } from './value.js';

/** An exact quantity: n / d, d > 0, reduced. */
export interface Rational {
  n: bigint;
  d: bigint;
}

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
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
  const [int, frac = ''] = num.split('.');
  let n = BigInt((int || '0') + frac);
  let d = 10n ** BigInt(frac.length);
  if (sign === '-') n = -n;
  if (suffix in BINARY) n *= BINARY[suffix];
  else {
    const e = suffix in DECIMAL ? DECIMAL[suffix] : Number(suffix.slice(1));
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

const value = (r: Rational) => new Opaque('quantity', `${r.n}/${r.d}`, r);
const q = (v: Value | undefined, fn: string): Rational =>
  v instanceof Opaque && v.kind === 'quantity' ? (v.value as Rational) : noOverload(fn, v ?? null);
const MAX_INT64 = (1n << 63n) - 1n;

function operand(v: Value | undefined, fn: string): Rational {
  return typeof v === 'bigint' ? { n: v, d: 1n } : q(v, fn);
}

/** The quantity library. */
export const quantityLibrary: CelLibrary = {
  functions: {
    isQuantity: (_t, a) => typeof a[0] === 'string' && parseQuantity(a[0]) !== undefined,
    quantity: (_t, a) => {
      const r = typeof a[0] === 'string' ? parseQuantity(a[0]) : noOverload('quantity', a[0] ?? null);
      if (!r) {
        // resource.ParseQuantity's errors: the overall shape, then the suffix, then the number
        if (!/^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.test(a[0] as string))
          throw new CelEvalError(
            `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
          );
        if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)/.test(a[0] as string))
          throw new CelEvalError('unable to parse numeric part of quantity');
        throw new CelEvalError("unable to parse quantity's suffix");
      }
      return value(r);
    },
    // `sign(q)`: a function in Kubernetes' quantity library, not a method
    sign: (_t, a) => {
      const x = q(a[0], 'sign');
      return x.n < 0n ? -1n : x.n > 0n ? 1n : 0n;
    },
  },
  methods: {
    compareTo: (t, a) => BigInt(cmp(q(t, 'compareTo'), q(a[0], 'compareTo'))),
    isGreaterThan: (t, a) => cmp(q(t, 'isGreaterThan'), q(a[0], 'isGreaterThan')) > 0,
    isLessThan: (t, a) => cmp(q(t, 'isLessThan'), q(a[0], 'isLessThan')) < 0,
    add: (t, a) => {
      const x = q(t, 'add');
      const y = operand(a[0], 'add');
      return value(make(x.n * y.d + y.n * x.d, x.d * y.d));
    },
    sub: (t, a) => {
      const x = q(t, 'sub');
      const y = operand(a[0], 'sub');
      return value(make(x.n * y.d - y.n * x.d, x.d * y.d));
    },
    isInteger: (t) => {
      const x = q(t, 'isInteger');
      return x.d === 1n && x.n <= MAX_INT64 && x.n >= -MAX_INT64 - 1n;
    },
    asInteger: (t) => {
      const x = q(t, 'asInteger');
      if (x.d !== 1n || x.n > MAX_INT64 || x.n < -MAX_INT64 - 1n)
        throw new CelEvalError('cannot convert value to integer');
      return x.n;
    },
    asApproximateFloat: (t) => {
      const x = q(t, 'asApproximateFloat');
      return Number(x.n) / Number(x.d);
    },
  },
};
