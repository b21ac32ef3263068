// Go's net/netip ParseAddr and ParsePrefix, with their exact error texts (Kubernetes' ip() and
// cidr() wrap them): `ParseAddr("1.2.3.4.5"): IPv4 address too long`.
import type { ParsedIP } from '../validation/net.js';

/** A parsed address with its zone (IPv6 only). */
export interface GoAddr extends ParsedIP {
  zone: string;
}

const q = (s: string) => JSON.stringify(s);

class AddrError {
  /** @param input the whole input; @param msg the problem; @param at the rest of the input where it is */
  constructor(
    readonly input: string,
    readonly msg: string,
    readonly at = '',
  ) {}
  toString(): string {
    return `ParseAddr(${q(this.input)}): ${this.msg}${this.at ? ` (at ${q(this.at)})` : ''}`;
  }
}

function ipv4Fields(input: string, off: number, end: number, out: Uint8Array, o: number): AddrError | undefined {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) return new AddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digLen++;
      if (val > 255) return new AddrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        return new AddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) return new AddrError(input, 'IPv4 address too long');
      out[o + pos++] = val;
      val = 0;
      digLen = 0;
    } else return new AddrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) return new AddrError(input, 'IPv4 address too short');
  out[o + 3] = val;
  return undefined;
}

function hex(c: string): number {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'a' && c <= 'f') return c.charCodeAt(0) - 87;
  if (c >= 'A' && c <= 'F') return c.charCodeAt(0) - 55;
  return -1;
}

function ipv6(input: string): GoAddr | AddrError {
  let s = input;
  let zone = '';
  const z = s.indexOf('%');
  if (z >= 0) {
    zone = s.slice(z + 1);
    s = s.slice(0, z);
    if (zone === '') return new AddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, family: 6, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hex(s[off]);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) return new AddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) return new AddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) return new AddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12)
        return new AddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16)
        return new AddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length ? zone.length + 1 : 0);
      const err = ipv4Fields(input, end - s.length, end, ip, i);
      if (err) return err;
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') return new AddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) return new AddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return new AddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return new AddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return new AddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) return new AddrError(input, 'the :: must expand to at least one field of zeros');
  return { bytes: ip, family: 6, zone };
}

/** netip.ParseAddr: the address, or Go's error text. */
export function goParseAddr(s: string): GoAddr | string {
  for (const c of s) {
    if (c === '.') {
      const b = new Uint8Array(4);
      const err = ipv4Fields(s, 0, s.length, b, 0);
      return err ? err.toString() : { bytes: b, family: 4, zone: '' };
    }
    if (c === ':') {
      const r = ipv6(s);
      return r instanceof AddrError ? r.toString() : r;
    }
    if (c === '%') return new AddrError(s, 'missing IPv6 address').toString();
  }
  return new AddrError(s, 'unable to parse IP').toString();
}

/** netip.ParsePrefix: the address and prefix length, or Go's error text. */
export function goParsePrefix(s: string): { ip: GoAddr; prefix: number } | string {
  const fail = (msg: string) => `netip.ParsePrefix(${q(s)}): ${msg}`;
  const i = s.lastIndexOf('/');
  if (i < 0) return fail("no '/'");
  const ip = goParseAddr(s.slice(0, i));
  if (typeof ip === 'string') return fail(ip);
  if (ip.family === 6 && ip.zone !== '') return fail('IPv6 zones cannot be present in a prefix');
  const bits = s.slice(i + 1);
  if (bits.length > 1 && (bits[0] < '1' || bits[0] > '9')) return fail(`bad bits after slash: ${q(bits)}`);
  if (!/^[+-]?[0-9]+$/.test(bits)) return fail(`bad bits after slash: ${q(bits)}`);
  const n = Number(bits);
  if (n < 0 || n > (ip.family === 4 ? 32 : 128)) return fail('prefix length out of range');
  return { ip, prefix: n };
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d). */
export function is4In6(ip: ParsedIP): boolean {
  const b = ip.bytes;
  return ip.family === 6 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}
