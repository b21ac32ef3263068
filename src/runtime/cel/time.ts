// CEL durations and timestamps as cel-go has them: Go's time.ParseDuration syntax, RFC 3339
// timestamps (the offset is kept for string()), the range 0001-01-01T00:00:00Z …
// 9999-12-31T23:59:59.999999999Z ("timestamp overflow" outside), and the accessors (getHours …)
// in UTC or in a time zone given as an IANA name or a `[+-]HH:MM` offset.
import { CelEvalError, Duration, Timestamp } from './value.js';

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_NS = (1n << 63n) - 1n;
const NS = 1_000_000_000n;
const MIN_UNIX = -62135596800n;
const MAX_UNIX = 253402300799n;

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
  while (rest) {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(rest)!;
    if (m[1] === '' && (m[2] ?? '') === '') throw bad();
    rest = rest.slice(m[0].length);
    // Go: the unit is the run of characters up to the next digit or dot
    const u = /^[^0-9.]*/.exec(rest)![0];
    if (u === '') throw new CelEvalError(`time: missing unit in duration ${JSON.stringify(s)}`);
    const unit = UNIT_NS[u];
    if (unit === undefined)
      throw new CelEvalError(`time: unknown unit ${JSON.stringify(u)} in duration ${JSON.stringify(s)}`);
    rest = rest.slice(u.length);
    const frac = m[2] ?? '';
    total += BigInt(m[1] || '0') * unit + (frac ? (BigInt(frac) * unit) / 10n ** BigInt(frac.length) : 0n);
    if (total > MAX_NS + (neg ? 1n : 0n)) throw bad();
  }
  return checkDuration(new Duration(neg ? -total : total));
}

/** CEL durations are limited to ±(2^63-1) ns; cel-go also checks conversions to seconds. */
export function checkDuration(d: Duration): Duration {
  if (d.ns > MAX_NS || d.ns < -MAX_NS - 1n) throw new CelEvalError('duration overflow');
  return d;
}

/** CEL's string form of a duration: seconds with an `s` suffix (`1.5s`, `3600s`). */
export function formatDuration(d: Duration): string {
  const neg = d.ns < 0n;
  const abs = neg ? -d.ns : d.ns;
  const sec = abs / NS;
  const frac = (abs % NS).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${sec}${frac ? `.${frac}` : ''}s`;
}

/** Errors outside CEL's timestamp range. */
export function checkTimestamp(t: Timestamp): Timestamp {
  const sec = floorDiv(t.ns, NS);
  if (sec < MIN_UNIX || sec > MAX_UNIX) throw new CelEvalError('timestamp overflow');
  return t;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function utcMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const date = new Date(Date.UTC(2000, mo, d, h, mi, s));
  date.setUTCFullYear(y, mo, d);
  return date.getTime();
}

/** RFC 3339 → timestamp (`2020-01-01T00:00:00Z`, `…T10:00:00.5+02:00`), as Go's time.Parse(time.RFC3339). */
export function parseTimestamp(s: string): Timestamp {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) throw new CelEvalError(`timestamp parse error: ${JSON.stringify(s)} is not RFC 3339`);
  const [, y, mo, d, h, mi, se, frac = '', zone] = m;
  const [Y, M, D, H, Mi, S] = [y, mo, d, h, mi, se].map(Number) as [number, number, number, number, number, number];
  const dim = new Date(Date.UTC(2000, M, 0)).getUTCDate();
  const leap = (Y % 4 === 0 && Y % 100 !== 0) || Y % 400 === 0;
  const days = M === 2 ? (leap ? 29 : 28) : dim;
  if (M < 1 || M > 12 || D < 1 || D > days || H > 23 || Mi > 59 || S > 59)
    throw new CelEvalError(`timestamp parse error: ${JSON.stringify(s)}: value out of range`);
  let ms = utcMs(Y, M - 1, D, H, Mi, S);
  let offset = 0;
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59)
      throw new CelEvalError(`timestamp parse error: ${JSON.stringify(s)}: time zone offset out of range`);
    offset = sign * (zh * 3600 + zm * 60);
    ms -= offset * 1000;
  }
  return checkTimestamp(new Timestamp(BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(9, '0') || '0'), offset));
}

/** Timestamp from seconds since the epoch (`timestamp(int)`). */
export function timestampFromSeconds(sec: bigint): Timestamp {
  if (sec < MIN_UNIX || sec > MAX_UNIX) throw new CelEvalError('timestamp overflow');
  return new Timestamp(sec * NS);
}

function wall(t: Timestamp, offsetSec: number): { date: Date; nanos: bigint } {
  const shifted = t.ns + BigInt(offsetSec) * NS;
  const sec = floorDiv(shifted, NS);
  const nanos = shifted - sec * NS;
  return { date: new Date(Number(sec) * 1000 + Number(nanos / 1_000_000n)), nanos };
}

/** RFC 3339 with nanoseconds trimmed (Go's RFC3339Nano), in the offset the timestamp was written with. */
export function formatTimestamp(t: Timestamp): string {
  const { date, nanos } = wall(t, t.offset);
  const y = date.getUTCFullYear().toString().padStart(4, '0');
  const p2 = (n: number) => n.toString().padStart(2, '0');
  const base = `${y}-${p2(date.getUTCMonth() + 1)}-${p2(date.getUTCDate())}T${p2(date.getUTCHours())}:${p2(date.getUTCMinutes())}:${p2(date.getUTCSeconds())}`;
  const frac = nanos.toString().padStart(9, '0').replace(/0+$/, '');
  let zone = 'Z';
  if (t.offset !== 0) {
    const a = Math.abs(t.offset);
    zone = `${t.offset < 0 ? '-' : '+'}${p2(Math.floor(a / 3600))}:${p2(Math.floor((a % 3600) / 60))}`;
  }
  return `${base}${frac ? `.${frac}` : ''}${zone}`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** Seconds east of UTC of `tz` at the instant `t` (IANA name or `[+-]HH:MM`), as cel-go reads it. */
function zoneOffset(tz: string, t: Timestamp): number {
  const colon = tz.indexOf(':');
  if (colon >= 0) {
    const hs = tz.slice(0, colon);
    const ms = tz.slice(colon + 1);
    if (!/^[+-]?\d+$/.test(hs)) throw new CelEvalError(`strconv.Atoi: parsing ${JSON.stringify(hs)}: invalid syntax`);
    if (!/^[+-]?\d+$/.test(ms)) throw new CelEvalError(`strconv.Atoi: parsing ${JSON.stringify(ms)}: invalid syntax`);
    const hr = Number(hs);
    const min = Number(ms);
    if (min < 0 || min > 59) throw new CelEvalError(`timezone offset minutes out of range [0, 59]: ${tz}`);
    return (tz.startsWith('-') ? hr * 60 - min : hr * 60 + min) * 60;
  }
  if (tz === '' || tz === 'UTC') return 0;
  let f = zoneFormats.get(tz);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: tz,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch {
      throw new CelEvalError(`unknown time zone ${tz}`);
    }
    zoneFormats.set(tz, f);
  }
  const ms = Number(floorDiv(t.ns, 1_000_000n));
  const parts = Object.fromEntries(f.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const local = utcMs(
    year,
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  const utcSec = Math.floor(ms / 1000) * 1000;
  return Math.round((local - utcSec) / 1000);
}

/** Timestamp accessors, by method name, in UTC or `tz`; undefined for an unknown name. */
export function timestampField(name: string, t: Timestamp, tz: string | undefined): bigint | undefined {
  const off = tz === undefined ? 0 : zoneOffset(tz, t);
  const { date: d, nanos } = wall(t, off);
  switch (name) {
    case 'getFullYear':
      return BigInt(d.getUTCFullYear());
    case 'getMonth':
      return BigInt(d.getUTCMonth());
    case 'getDate':
      return BigInt(d.getUTCDate());
    case 'getDayOfMonth':
      return BigInt(d.getUTCDate() - 1);
    case 'getDayOfWeek':
      return BigInt(d.getUTCDay());
    case 'getDayOfYear':
      return BigInt(Math.floor((d.getTime() - utcMs(d.getUTCFullYear(), 0, 1, 0, 0, 0)) / 86_400_000));
    case 'getHours':
      return BigInt(d.getUTCHours());
    case 'getMinutes':
      return BigInt(d.getUTCMinutes());
    case 'getSeconds':
      return BigInt(d.getUTCSeconds());
    case 'getMilliseconds':
      return nanos / 1_000_000n;
  }
  return undefined;
}

/** Duration accessors (whole hours, minutes, seconds, milliseconds). */
export function durationField(name: string, d: Duration): bigint | undefined {
  switch (name) {
    case 'getHours':
      return d.ns / 3_600_000_000_000n;
    case 'getMinutes':
      return d.ns / 60_000_000_000n;
    case 'getSeconds':
      return d.ns / NS;
    case 'getMilliseconds':
      return d.ns / 1_000_000n;
  }
  return undefined;
}
