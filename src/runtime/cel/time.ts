// CEL durations and timestamps: Go's time.ParseDuration syntax, RFC 3339 timestamps, and the
// accessor methods (getHours, getFullYear…), UTC only.
import { CelEvalError, Duration, Timestamp } from './value.js';

const UNIT_NS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, μs: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const MAX_NS = (1n << 63n) - 1n;

/** Go's time.ParseDuration: `1h30m`, `1.5s`, `-20ms`, `0`. */
export function parseDuration(s: string): Duration {
  const bad = () => new CelEvalError(`time: invalid duration ${JSON.stringify(s)}`);
  let rest = s;
  let neg = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return new Duration(0n);
  if (rest === '') throw bad();
  let total = 0n;
  const re = /^([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest) {
    const m = re.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) throw bad();
    const unit = UNIT_NS[m[3]!]!;
    const frac = m[2] ?? '';
    total += BigInt(m[1] || '0') * unit + (frac ? (BigInt(frac) * unit) / 10n ** BigInt(frac.length) : 0n);
    if (total > MAX_NS) throw bad();
    rest = rest.slice(m[0].length);
  }
  return new Duration(neg ? -total : total);
}

/** CEL's string form of a duration: seconds with an `s` suffix (`1.5s`, `3600s`). */
export function formatDuration(d: Duration): string {
  const neg = d.ns < 0n;
  const abs = neg ? -d.ns : d.ns;
  const sec = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${sec}${frac ? `.${frac}` : ''}s`;
}

/** RFC 3339 → timestamp (`2020-01-01T00:00:00Z`, `…T10:00:00.5+02:00`). */
export function parseTimestamp(s: string): Timestamp {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) throw new CelEvalError(`timestamp parse error: ${JSON.stringify(s)} is not RFC 3339`);
  const [, y, mo, d, h, mi, se, frac = '', zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se));
  if (Number.isNaN(ms)) throw new CelEvalError(`timestamp parse error: ${JSON.stringify(s)}`);
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone![0] === '-' ? -1 : 1;
    ms -= sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6))) * 60_000;
  }
  return new Timestamp(BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(9, '0') || '0'));
}

/** RFC 3339 with nanoseconds trimmed, UTC (Go's RFC3339Nano). */
export function formatTimestamp(t: Timestamp): string {
  const ms = t.ns / 1_000_000n - (t.ns % 1_000_000n < 0n ? 1n : 0n);
  const nanos = ((t.ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = nanos.toString().padStart(9, '0').replace(/0+$/, '');
  return `${base}${frac ? `.${frac}` : ''}Z`;
}

function utcDate(t: Timestamp, tz: string | undefined): Date {
  if (tz !== undefined && tz !== 'UTC' && tz !== 'Z' && tz !== '+00:00') throw new CelEvalError(`unsupported time zone ${JSON.stringify(tz)} (only UTC)`);
  const ms = t.ns / 1_000_000n - (t.ns % 1_000_000n < 0n ? 1n : 0n);
  return new Date(Number(ms));
}

/** Timestamp accessors, by method name; undefined for an unknown name. */
export function timestampField(name: string, t: Timestamp, tz: string | undefined): bigint | undefined {
  const d = utcDate(t, tz);
  switch (name) {
    case 'getFullYear': return BigInt(d.getUTCFullYear());
    case 'getMonth': return BigInt(d.getUTCMonth());
    case 'getDate': return BigInt(d.getUTCDate());
    case 'getDayOfMonth': return BigInt(d.getUTCDate() - 1);
    case 'getDayOfWeek': return BigInt(d.getUTCDay());
    case 'getDayOfYear': return BigInt(Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000));
    case 'getHours': return BigInt(d.getUTCHours());
    case 'getMinutes': return BigInt(d.getUTCMinutes());
    case 'getSeconds': return BigInt(d.getUTCSeconds());
    case 'getMilliseconds': return BigInt(d.getUTCMilliseconds());
  }
  return undefined;
}

/** Duration accessors (whole hours, minutes, seconds, milliseconds). */
export function durationField(name: string, d: Duration): bigint | undefined {
  switch (name) {
    case 'getHours': return d.ns / 3_600_000_000_000n;
    case 'getMinutes': return d.ns / 60_000_000_000n;
    case 'getSeconds': return d.ns / 1_000_000_000n;
    case 'getMilliseconds': return d.ns / 1_000_000n;
  }
  return undefined;
}
