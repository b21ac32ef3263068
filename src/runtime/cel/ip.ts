// The Kubernetes CEL IP and CIDR libraries: isIP, ip, family, isUnspecified, isLoopback,
// isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast, isCIDR, cidr, containsIP,
// containsCIDR, prefixLength, masked, string(). IPv4-mapped IPv6 and zones are refused, as upstream.
import { formatIP, type ParsedIP } from '../validation/net.js';
import { goParseAddr, goParsePrefix, is4In6 } from './netip.js';
import { CelEvalError, noOverload, Opaque, type CelLibrary, type Value } from './value.js';

interface CIDR {
  ip: ParsedIP;
  prefix: number;
}

/** Kubernetes' parseIPAddr: the address, or its error text. */
function ipOrError(s: string): ParsedIP | string {
  const ip = goParseAddr(s);
  if (typeof ip === 'string') return `IP Address ${JSON.stringify(s)} parse error during conversion from string: ${ip}`;
  if (ip.zone !== '') return `IP address ${JSON.stringify(s)} with zone value is not allowed`;
  if (is4In6(ip)) return `IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`;
  return { bytes: ip.bytes, family: ip.family };
}

/** Kubernetes' parseCIDR: the prefix, or its error text. */
function cidrOrError(s: string): CIDR | string {
  const c = goParsePrefix(s);
  if (typeof c === 'string') return `network address parse error during conversion from string: ${c}`;
  if (is4In6(c.ip)) return `IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`;
  return { ip: { bytes: c.ip.bytes, family: c.ip.family }, prefix: c.prefix };
}

function masked(c: CIDR): CIDR {
  const bytes = new Uint8Array(c.ip.bytes);
  for (let bit = c.prefix; bit < bytes.length * 8; bit++) bytes[bit >> 3] &= ~(0x80 >> (bit & 7));
  return { ip: { bytes, family: c.ip.family }, prefix: c.prefix };
}

function contains(c: CIDR, ip: ParsedIP): boolean {
  if (c.ip.family !== ip.family) return false;
  const a = masked(c).ip.bytes;
  const b = masked({ ip, prefix: c.prefix }).ip.bytes;
  return a.every((x, i) => x === b[i]);
}

const ipValue = (ip: ParsedIP) => new Opaque('ip', formatIP(ip), ip);
const cidrValue = (c: CIDR) => new Opaque('cidr', `${formatIP(c.ip)}/${c.prefix}`, c);
const asIP = (v: Value | undefined, fn: string): ParsedIP =>
  v instanceof Opaque && v.kind === 'ip' ? (v.value as ParsedIP) : noOverload(fn, v ?? null);
const asCIDR = (v: Value | undefined, fn: string): CIDR =>
  v instanceof Opaque && v.kind === 'cidr' ? (v.value as CIDR) : noOverload(fn, v ?? null);
const str = (v: Value | undefined, fn: string): string => (typeof v === 'string' ? v : noOverload(fn, v ?? null));

function strictIP(s: string): ParsedIP {
  const r = ipOrError(s);
  if (typeof r === 'string') throw new CelEvalError(r);
  return r;
}

function strictCIDR(s: string): CIDR {
  const r = cidrOrError(s);
  // Kubernetes' cidr() wraps parseCIDR's error once more
  if (typeof r === 'string') throw new CelEvalError(`network address parse error during conversion from string: ${r}`);
  return r;
}

const b = (ip: ParsedIP, i: number) => ip.bytes[i];
const isLoopback = (ip: ParsedIP) =>
  ip.family === 4 ? b(ip, 0) === 127 : ip.bytes.slice(0, 15).every((x) => x === 0) && b(ip, 15) === 1;
const isUnspecified = (ip: ParsedIP) => ip.bytes.every((x) => x === 0);
const isLinkLocalUnicast = (ip: ParsedIP) =>
  ip.family === 4 ? b(ip, 0) === 169 && b(ip, 1) === 254 : b(ip, 0) === 0xfe && (b(ip, 1) & 0xc0) === 0x80;

function isGlobalUnicast(ip: ParsedIP): boolean {
  if (ip.family === 4) {
    const bcast = ip.bytes.every((x) => x === 255);
    return !bcast && b(ip, 0) !== 0 && b(ip, 0) !== 127 && b(ip, 0) < 224 && !isLinkLocalUnicast(ip);
  }
  return !isUnspecified(ip) && !isLoopback(ip) && b(ip, 0) !== 0xff && !isLinkLocalUnicast(ip);
}

function ipArg(v: Value | undefined, fn: string): ParsedIP {
  return typeof v === 'string' ? strictIP(v) : asIP(v, fn);
}

function cidrArg(v: Value | undefined, fn: string): CIDR {
  return typeof v === 'string' ? strictCIDR(v) : asCIDR(v, fn);
}

/** The IP and CIDR library. */
export const ipLibrary: CelLibrary = {
  functions: {
    isIP: (_t, a) => typeof ipOrError(str(a[0], 'isIP')) !== 'string',
    'ip.isCanonical': (_t, a) => {
      const s = str(a[0], 'ip.isCanonical');
      const r = ipOrError(s);
      if (typeof r === 'string') throw new CelEvalError(r);
      return formatIP(r) === s;
    },
    ip: (_t, a) => ipValue(strictIP(str(a[0], 'ip'))),
    isCIDR: (_t, a) => typeof cidrOrError(str(a[0], 'isCIDR')) !== 'string',
    cidr: (_t, a) => cidrValue(strictCIDR(str(a[0], 'cidr'))),
    string: (_t, a) => {
      const v = a[0];
      if (v instanceof Opaque && v.kind === 'ip') return formatIP(v.value as ParsedIP);
      if (v instanceof Opaque && v.kind === 'cidr') return v.canonical;
      return noOverload('string', v ?? null);
    },
  },
  methods: {
    family: (t) => BigInt(asIP(t, 'family').family),
    isUnspecified: (t) => isUnspecified(asIP(t, 'isUnspecified')),
    isLoopback: (t) => isLoopback(asIP(t, 'isLoopback')),
    isLinkLocalMulticast: (t) => {
      const ip = asIP(t, 'isLinkLocalMulticast');
      return ip.family === 4
        ? b(ip, 0) === 224 && b(ip, 1) === 0 && b(ip, 2) === 0
        : b(ip, 0) === 0xff && (b(ip, 1) & 0x0f) === 0x02;
    },
    isLinkLocalUnicast: (t) => isLinkLocalUnicast(asIP(t, 'isLinkLocalUnicast')),
    isGlobalUnicast: (t) => isGlobalUnicast(asIP(t, 'isGlobalUnicast')),
    containsIP: (t, a) => contains(asCIDR(t, 'containsIP'), ipArg(a[0], 'containsIP')),
    containsCIDR: (t, a) => {
      const outer = asCIDR(t, 'containsCIDR');
      const inner = cidrArg(a[0], 'containsCIDR');
      return inner.prefix >= outer.prefix && contains(outer, inner.ip);
    },
    ip: (t) => ipValue(asCIDR(t, 'ip').ip),
    masked: (t) => cidrValue(masked(asCIDR(t, 'masked'))),
    prefixLength: (t) => BigInt(asCIDR(t, 'prefixLength').prefix),
  },
};
