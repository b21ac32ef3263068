// CEL's standard functions (size, matches, startsWith, conversions, duration/timestamp) and the
// strings extension (charAt, indexOf, lowerAscii, replace, split, substring, trim, join, …).
import { goFloat } from '../validation/go-format.js';
import { compileRegex } from './regex-cache.js';
import { formatString } from './string-format.js';
import {
  durationField,
  formatDuration,
  formatTimestamp,
  parseDuration,
  parseTimestamp,
  timestampField,
  timestampFromSeconds,
} from './time.js';
import {
  CelEvalError,
  Duration,
  Timestamp,
  TypeValue,
  Uint,
  celSize,
  checkInt,
  checkUint,
  noOverload,
  typeName,
  type CelFn,
  type CelLibrary,
  type Value,
} from './value.js';

const str = (v: Value | undefined, fn: string): string => (typeof v === 'string' ? v : noOverload(fn, v ?? null));
const int = (v: Value | undefined, fn: string): bigint => (typeof v === 'bigint' ? v : noOverload(fn, v ?? null));

/** Code points of a string (CEL indexes strings by code point). */
function cps(s: string): string[] {
  return Array.from(s);
}

function toInt(v: Value): bigint {
  if (typeof v === 'bigint') return v;
  if (v instanceof Uint) return checkInt(v.v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v >= 2 ** 63 || v <= -(2 ** 63)) throw new CelEvalError('integer overflow');
    return BigInt(Math.trunc(v));
  }
  if (typeof v === 'string') {
    if (!/^[+-]?[0-9]+$/.test(v)) throw new CelEvalError(`cannot parse ${JSON.stringify(v)} as int`);
    return checkInt(BigInt(v));
  }
  if (v instanceof Timestamp) return v.ns / 1_000_000_000n;
  if (v instanceof Duration) return v.ns;
  return noOverload('int', v);
}

function toDouble(v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Uint) return Number(v.v);
  if (typeof v === 'string') {
    const n = Number(v);
    if (v.trim() === '' || (Number.isNaN(n) && v !== 'NaN'))
      throw new CelEvalError(`cannot parse ${JSON.stringify(v)} as double`);
    return n;
  }
  return noOverload('double', v);
}

function toStr(v: Value): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Uint) return v.v.toString();
  if (v instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(v);
    } catch {
      throw new CelEvalError('invalid UTF-8 in bytes, cannot convert to string');
    }
  }
  if (v instanceof Duration) return formatDuration(v);
  if (v instanceof Timestamp) return formatTimestamp(v);
  return noOverload('string', v);
}

const matches: CelFn = (t, a) => {
  const s = str(t ?? a[0], 'matches');
  const re = str(t === undefined ? a[1] : a[0], 'matches');
  return compileRegex(re).test(s);
};

function splitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const parts = sep === '' ? cps(s) : s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  const head = parts.slice(0, k - 1);
  head.push(parts.slice(k - 1).join(sep));
  return head;
}

/** The standard library plus the strings extension. */
export const stdlib: CelLibrary = {
  functions: {
    size: (_t, a) => celSize(a[0]),
    matches,
    int: (_t, a) => toInt(a[0]),
    uint: (_t, a) => {
      const v = a[0]!;
      if (v instanceof Uint) return v;
      if (typeof v === 'bigint') return checkUint(v);
      if (typeof v === 'number') return checkUint(BigInt(Math.trunc(v)));
      if (typeof v === 'string' && /^[0-9]+$/.test(v)) return checkUint(BigInt(v));
      return noOverload('uint', v);
    },
    double: (_t, a) => toDouble(a[0]),
    string: (_t, a) => toStr(a[0]),
    bool: (_t, a) => {
      const v = a[0]!;
      if (typeof v === 'boolean') return v;
      if (typeof v === 'string') {
        if (['true', 'True', 'TRUE', 't', '1'].includes(v)) return true;
        if (['false', 'False', 'FALSE', 'f', '0'].includes(v)) return false;
        throw new CelEvalError(`cannot parse ${JSON.stringify(v)} as bool`);
      }
      return noOverload('bool', v);
    },
    bytes: (_t, a) => {
      const v = a[0]!;
      if (v instanceof Uint8Array) return v;
      return new TextEncoder().encode(str(v, 'bytes'));
    },
    duration: (_t, a) => (a[0] instanceof Duration ? a[0] : parseDuration(str(a[0], 'duration'))),
    timestamp: (_t, a) => {
      const v = a[0]!;
      if (v instanceof Timestamp) return v;
      if (typeof v === 'bigint') return timestampFromSeconds(v);
      return parseTimestamp(str(v, 'timestamp'));
    },
    dyn: (_t, a) => a[0]!,
    'strings.quote': (_t, a) => quote(str(a[0], 'strings.quote')),
    type: (_t, a) => new TypeValue(typeName(a[0])),
  },
  methods: {
    size: (t) => celSize(t!),
    matches,
    startsWith: (t, a) => str(t, 'startsWith').startsWith(str(a[0], 'startsWith')),
    endsWith: (t, a) => str(t, 'endsWith').endsWith(str(a[0], 'endsWith')),
    contains: (t, a) => str(t, 'contains').includes(str(a[0], 'contains')),
    charAt: (t, a) => {
      const c = cps(str(t, 'charAt'));
      const i = Number(int(a[0], 'charAt'));
      if (i < 0 || i > c.length) throw new CelEvalError(`index out of range: ${i}`);
      return c[i] ?? '';
    },
    indexOf: (t, a) => {
      const c = cps(str(t, 'indexOf'));
      const sub = cps(str(a[0], 'indexOf'));
      const off = a.length > 1 ? Number(int(a[1], 'indexOf')) : 0;
      if (off < 0) throw new CelEvalError(`index out of range: ${off}`);
      if (sub.length === 0) return BigInt(Math.min(off, c.length));
      if (off >= c.length) return -1n;
      for (let i = off; i + sub.length <= c.length; i++) if (sub.every((x, j) => c[i + j] === x)) return BigInt(i);
      return -1n;
    },
    lastIndexOf: (t, a) => {
      const c = cps(str(t, 'lastIndexOf'));
      const sub = cps(str(a[0], 'lastIndexOf'));
      let off: number;
      if (a.length > 1) {
        off = Number(int(a[1], 'lastIndexOf'));
        if (off < 0) throw new CelEvalError(`index out of range: ${off}`);
      } else {
        if (sub.length === 0) return BigInt(c.length);
        off = c.length - 1;
      }
      if (sub.length === 0) return BigInt(Math.min(off, c.length));
      if (off >= c.length) return -1n;
      off = Math.min(off, c.length - sub.length);
      for (let i = off; i >= 0; i--) if (sub.every((x, j) => c[i + j] === x)) return BigInt(i);
      return -1n;
    },
    lowerAscii: (t) => str(t, 'lowerAscii').replace(/[A-Z]/g, (c) => c.toLowerCase()),
    upperAscii: (t) => str(t, 'upperAscii').replace(/[a-z]/g, (c) => c.toUpperCase()),
    replace: (t, a) => {
      const s = str(t, 'replace');
      const from = str(a[0], 'replace');
      const to = str(a[1], 'replace');
      let n = a.length > 2 ? Number(int(a[2], 'replace')) : -1;
      if (n < 0) return s.split(from).join(to);
      let out = '';
      let rest = s;
      while (n-- > 0) {
        const i = rest.indexOf(from);
        if (i < 0) break;
        out += rest.slice(0, i) + to;
        rest = rest.slice(i + from.length);
        if (from === '') {
          out += rest.slice(0, 1);
          rest = rest.slice(1);
        }
      }
      return out + rest;
    },
    split: (t, a) => splitN(str(t, 'split'), str(a[0], 'split'), a.length > 1 ? int(a[1], 'split') : -1n),
    substring: (t, a) => {
      const c = cps(str(t, 'substring'));
      const start = Number(int(a[0], 'substring'));
      const end = a.length > 1 ? Number(int(a[1], 'substring')) : c.length;
      if (start < 0 || start > c.length) throw new CelEvalError(`index out of range: ${start}`);
      if (end < 0 || end > c.length) throw new CelEvalError(`index out of range: ${end}`);
      if (start > end) throw new CelEvalError(`invalid substring range. start: ${start}, end: ${end}`);
      return c.slice(start, end).join('');
    },
    // Go's strings.TrimSpace: unicode.IsSpace (not U+FEFF, which JS's \s includes)
    trim: (t) =>
      str(t, 'trim').replace(
        /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g,
        '',
      ),
    join: (t, a) => {
      if (!Array.isArray(t)) return noOverload('join', t ?? null);
      const sep = a.length ? str(a[0], 'join') : '';
      return t.map((x) => str(x, 'join')).join(sep);
    },
    format: (t, a) => formatString(str(t, 'format'), Array.isArray(a[0]) ? a[0] : noOverload('format', a[0] ?? null)),
    getHours: (t, a) => timeField('getHours', t, a),
    getMinutes: (t, a) => timeField('getMinutes', t, a),
    getSeconds: (t, a) => timeField('getSeconds', t, a),
    getMilliseconds: (t, a) => timeField('getMilliseconds', t, a),
    getFullYear: (t, a) => timeField('getFullYear', t, a),
    getMonth: (t, a) => timeField('getMonth', t, a),
    getDate: (t, a) => timeField('getDate', t, a),
    getDayOfMonth: (t, a) => timeField('getDayOfMonth', t, a),
    getDayOfWeek: (t, a) => timeField('getDayOfWeek', t, a),
    getDayOfYear: (t, a) => timeField('getDayOfYear', t, a),
  },
};

/** strings.quote: a double-quoted CEL string literal. */
function quote(s: string): string {
  const esc: Record<string, string> = {
    '\\': '\\\\',
    '"': '\\"',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\v': '\\v',
  };
  return `"${s.replace(/[\\"\n\r\t\x07\b\f\v]/g, (c) => esc[c])}"`;
}

function timeField(name: string, t: Value | undefined, a: Value[]): Value {
  if (t instanceof Timestamp) return timestampField(name, t, a.length ? str(a[0], name) : undefined)!;
  if (t instanceof Duration && a.length === 0) {
    const v = durationField(name, t);
    if (v !== undefined) return v;
  }
  return noOverload(name, t ?? null, ...a);
}
