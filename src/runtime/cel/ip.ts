// The Kubernetes CEL IP and CIDR libraries: isIP, ip, family, isUnspecified, isLoopback,
// isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast, isCIDR, cidr, containsIP,
// containsCIDR, prefixLength, masked, string(). IPv4-mapped IPv6 and zones are refused, as upstream.
import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import { formatIP, parseCIDR, parseIP, type ParsedIP } from '../validation/net.js';
import { makeOpaque, mustOpaque, OPAQUE, readOpaque } from './opaque.js';

interface CIDR {
  ip: ParsedIP;
  prefix: number;
}

function is4In6(ip: ParsedIP): boolean {
  const b = ip.bytes;
  return ip.family === 6 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

function ipOrError(s: string): ParsedIP | string {
  if (s.includes('%')) return 'IP address with zone value is not allowed';
  const ip = parseIP(s);
  if (!ip) return `ParseAddr(${JSON.stringify(s)}): unable to parse IP`;
  if (is4In6(ip)) return 'IPv4-mapped IPv6 address is not allowed';
  return ip;
}

function cidrOrError(s: string): CIDR | string {
  if (s.includes('%')) return 'CIDR with zone value is not allowed';
  const c = parseCIDR(s);
  if (!c) return `netip.ParsePrefix(${JSON.stringify(s)}): invalid prefix`;
  if (is4In6(c.ip)) return 'IPv4-mapped IPv6 address is not allowed';
  return c;
}

function masked(c: CIDR): CIDR {
  const bytes = new Uint8Array(c.ip.bytes);
  for (let bit = c.prefix; bit < bytes.length * 8; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return { ip: { bytes, family: c.ip.family }, prefix: c.prefix };
}

function contains(c: CIDR, ip: ParsedIP): boolean {
  if (c.ip.family !== ip.family) return false;
  const a = masked(c).ip.bytes;
  const b = masked({ ip, prefix: c.prefix }).ip.bytes;
  return a.every((x, i) => x === b[i]);
}

const ipValue = (ip: ParsedIP) => makeOpaque('ip', formatIP(ip), ip);
const cidrValue = (c: CIDR) => makeOpaque('cidr', `${formatIP(c.ip)}/${c.prefix}`, c);
const asIP = (v: unknown, fn: string) => mustOpaque<ParsedIP>(v, 'ip', fn);
const asCIDR = (v: unknown, fn: string) => mustOpaque<CIDR>(v, 'cidr', fn);

function strictIP(s: string): ParsedIP {
  const r = ipOrError(s);
  if (typeof r === 'string') throw new Error(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${r}`);
  return r;
}

function strictCIDR(s: string): CIDR {
  const r = cidrOrError(s);
  if (typeof r === 'string') throw new Error(`network address parse error during conversion from string: ${r}`);
  return r;
}

const b = (ip: ParsedIP, i: number) => ip.bytes[i]!;

/** The IP and CIDR functions, as CEL overloads. */
export const ipFuncs: CelFunc[] = [
  celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s) => typeof ipOrError(s) !== 'string'),
  celFunc('ip', [CelScalar.STRING], OPAQUE, (s) => ipValue(strictIP(s))),
  celMethod('family', OPAQUE, [], CelScalar.INT, function () {
    return BigInt(asIP(this, 'family').family);
  }),
  celMethod('isUnspecified', OPAQUE, [], CelScalar.BOOL, function () {
    return asIP(this, 'isUnspecified').bytes.every((x) => x === 0);
  }),
  celMethod('isLoopback', OPAQUE, [], CelScalar.BOOL, function () {
    const ip = asIP(this, 'isLoopback');
    return ip.family === 4 ? b(ip, 0) === 127 : ip.bytes.slice(0, 15).every((x) => x === 0) && b(ip, 15) === 1;
  }),
  celMethod('isLinkLocalMulticast', OPAQUE, [], CelScalar.BOOL, function () {
    const ip = asIP(this, 'isLinkLocalMulticast');
    return ip.family === 4 ? b(ip, 0) === 224 && b(ip, 1) === 0 && b(ip, 2) === 0 : b(ip, 0) === 0xff && (b(ip, 1) & 0x0f) === 0x02;
  }),
  celMethod('isLinkLocalUnicast', OPAQUE, [], CelScalar.BOOL, function () {
    const ip = asIP(this, 'isLinkLocalUnicast');
    return ip.family === 4 ? b(ip, 0) === 169 && b(ip, 1) === 254 : b(ip, 0) === 0xfe && (b(ip, 1) & 0xc0) === 0x80;
  }),
  celMethod('isGlobalUnicast', OPAQUE, [], CelScalar.BOOL, function () {
    const ip = asIP(this, 'isGlobalUnicast');
    if (ip.family === 4) {
      const bcast = ip.bytes.every((x) => x === 255);
      return !bcast && b(ip, 0) !== 0 && b(ip, 0) !== 127 && b(ip, 0) < 224 && !(b(ip, 0) === 169 && b(ip, 1) === 254);
    }
    const unspec = ip.bytes.every((x) => x === 0);
    const loop = ip.bytes.slice(0, 15).every((x) => x === 0) && b(ip, 15) === 1;
    return !unspec && !loop && b(ip, 0) !== 0xff && !(b(ip, 0) === 0xfe && (b(ip, 1) & 0xc0) === 0x80);
  }),
  celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s) => typeof cidrOrError(s) !== 'string'),
  celFunc('cidr', [CelScalar.STRING], OPAQUE, (s) => cidrValue(strictCIDR(s))),
  celMethod('containsIP', OPAQUE, [CelScalar.STRING], CelScalar.BOOL, function (s) {
    return contains(asCIDR(this, 'containsIP'), strictIP(s));
  }),
  celMethod('containsIP', OPAQUE, [OPAQUE], CelScalar.BOOL, function (ip) {
    return contains(asCIDR(this, 'containsIP'), asIP(ip, 'containsIP'));
  }),
  celMethod('containsCIDR', OPAQUE, [CelScalar.STRING], CelScalar.BOOL, function (s) {
    const outer = asCIDR(this, 'containsCIDR');
    const inner = strictCIDR(s);
    return inner.prefix >= outer.prefix && contains(outer, inner.ip);
  }),
  celMethod('containsCIDR', OPAQUE, [OPAQUE], CelScalar.BOOL, function (c) {
    const outer = asCIDR(this, 'containsCIDR');
    const inner = asCIDR(c, 'containsCIDR');
    return inner.prefix >= outer.prefix && contains(outer, inner.ip);
  }),
  celMethod('ip', OPAQUE, [], OPAQUE, function () {
    return ipValue(asCIDR(this, 'ip').ip);
  }),
  celMethod('masked', OPAQUE, [], OPAQUE, function () {
    return cidrValue(masked(asCIDR(this, 'masked')));
  }),
  celMethod('prefixLength', OPAQUE, [], CelScalar.INT, function () {
    return BigInt(asCIDR(this, 'prefixLength').prefix);
  }),
  celFunc('string', [OPAQUE], CelScalar.STRING, (v) => {
    const ip = readOpaque<ParsedIP>(v, 'ip');
    if (ip) return formatIP(ip);
    const c = readOpaque<CIDR>(v, 'cidr');
    if (c) return `${formatIP(c.ip)}/${c.prefix}`;
    throw new Error('no such overload: string applied to a map');
  }),
];
