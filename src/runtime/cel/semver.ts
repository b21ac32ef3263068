// Kubernetes' CEL semver library (1.33, version 1): semver(s), semver(s, normalize), isSemver(s),
// isSemver(s, normalize), major/minor/patch, isGreaterThan/isLessThan/compareTo, ==; parsing as
// github.com/blang/semver/v4 (strict Major.Minor.Patch, prerelease, build), with Kubernetes'
// normalization (a leading `v`, leading zeros, missing minor/patch).
import { CelEvalError, noOverload, Opaque, type CelLibrary } from './value.js';

/** A parsed semantic version. */
export interface Semver {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: (string | bigint)[];
  build: string[];
}

const NUM = /^[0-9]+$/;
const ALNUM = /^[0-9A-Za-z-]+$/;
const leadingZero = (s: string) => s.length > 1 && s[0] === '0';
const MAX_U64 = (1n << 64n) - 1n;

function num(s: string, what: string): bigint {
  if (!NUM.test(s)) throw new CelEvalError(`Invalid character(s) found in ${what} number ${JSON.stringify(s)}`);
  if (leadingZero(s))
    throw new CelEvalError(
      `${what[0].toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(s)}`,
    );
  const v = BigInt(s);
  if (v > MAX_U64) throw new CelEvalError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

/** blang/semver's Parse. */
export function parseSemver(s: string): Semver {
  if (s === '') throw new CelEvalError('Version string empty');
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) throw new CelEvalError('No Major.Minor.Patch elements found');
  const major = num(parts[0], 'major');
  const minor = num(parts[1], 'minor');
  let patchStr = parts[2];
  let build: string[] = [];
  let pre: string[] = [];
  const b = patchStr.indexOf('+');
  if (b >= 0) {
    build = patchStr.slice(b + 1).split('.');
    patchStr = patchStr.slice(0, b);
  }
  const p = patchStr.indexOf('-');
  if (p >= 0) {
    pre = patchStr.slice(p + 1).split('.');
    patchStr = patchStr.slice(0, p);
  }
  const patch = num(patchStr, 'patch');
  const preOut = pre.map((x) => {
    if (x === '') throw new CelEvalError('Prerelease is empty');
    if (NUM.test(x)) {
      if (leadingZero(x))
        throw new CelEvalError(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(x)}`);
      return BigInt(x);
    }
    if (!ALNUM.test(x)) throw new CelEvalError(`Invalid character(s) found in prerelease ${JSON.stringify(x)}`);
    return x;
  });
  for (const x of build) {
    if (x === '') throw new CelEvalError('Build meta data is empty');
    if (!ALNUM.test(x)) throw new CelEvalError(`Invalid character(s) found in build meta data ${JSON.stringify(x)}`);
  }
  return { major, minor, patch, pre: preOut, build };
}

function splitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** Kubernetes' normalizeAndParse. */
export function normalizeAndParse(s: string): Semver {
  const parts = splitN(s.startsWith('v') ? s.slice(1) : s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t === '' || !/[0-9]/.test(t[0]) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]))
      throw new CelEvalError('short version cannot contain PreRelease/Build meta data');
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

function cmpBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** blang/semver's Compare (build metadata ignored). */
export function compareSemver(a: Semver, b: Semver): number {
  const c = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (c) return c;
  if (!a.pre.length || !b.pre.length) return a.pre.length === b.pre.length ? 0 : a.pre.length ? -1 : 1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (typeof x === 'bigint' && typeof y === 'bigint') {
      const d = cmpBig(x, y);
      if (d) return d;
    } else if (typeof x === 'bigint') return -1;
    else if (typeof y === 'bigint') return 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

function text(v: Semver): string {
  return `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}${v.build.length ? `+${v.build.join('.')}` : ''}`;
}

const value = (v: Semver) =>
  new Opaque('semver', `${v.major}.${v.minor}.${v.patch}${v.pre.length ? `-${v.pre.join('.')}` : ''}`, v);
const sv = (x: unknown, fn: string): Semver =>
  x instanceof Opaque && x.kind === 'semver' ? (x.value as Semver) : noOverload(fn, x ?? null);

/** The string form of a semver value (`string(semver(...))`). */
export function semverText(v: Semver): string {
  return text(v);
}

/** The semver library. */
export const semverLibrary: CelLibrary = {
  functions: {
    semver: (_t, a) => {
      if (typeof a[0] !== 'string') return noOverload('semver', a[0] ?? null);
      return value(a[1] === true ? normalizeAndParse(a[0]) : parseSemver(a[0]));
    },
    isSemver: (_t, a) => {
      if (typeof a[0] !== 'string') return noOverload('isSemver', a[0] ?? null);
      try {
        if (a[1] === true) normalizeAndParse(a[0]);
        else parseSemver(a[0]);
        return true;
      } catch {
        return false;
      }
    },
  },
  methods: {
    major: (t) => sv(t, 'major').major,
    minor: (t) => sv(t, 'minor').minor,
    patch: (t) => sv(t, 'patch').patch,
    isGreaterThan: (t, a) => compareSemver(sv(t, 'isGreaterThan'), sv(a[0], 'isGreaterThan')) === 1,
    isLessThan: (t, a) => compareSemver(sv(t, 'isLessThan'), sv(a[0], 'isLessThan')) === -1,
    compareTo: (t, a) => BigInt(compareSemver(sv(t, 'compareTo'), sv(a[0], 'compareTo'))),
  },
};
