// IP, CIDR and MAC parsing with Go's net package rules (no leading zeros in IPv4, zones rejected),
// shared by the OpenAPI formats (ipv4, ipv6, cidr, mac) and the CEL ip/cidr library.

/** A parsed IP address: 4 bytes (IPv4) or 16 bytes (IPv6). `mapped` when written as `::ffff:a.b.c.d`. */
export interface ParsedIP {
  bytes: Uint8Array;
  family: 4 | 6;
}

function parseIPv4Bytes(s: string): Uint8Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^[0-9]{1,3}$/.test(p)) return undefined;
    if (p.length > 1 && p[0] === '0') return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIPv6Bytes(s: string): Uint8Array | undefined {
  if (s.includes('%')) return undefined;
  let tail4: Uint8Array | undefined;
  let str = s;
  const lastColon = str.lastIndexOf(':');
  if (lastColon >= 0 && str.slice(lastColon + 1).includes('.')) {
    tail4 = parseIPv4Bytes(str.slice(lastColon + 1));
    if (!tail4) return undefined;
    str = str.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = str.indexOf('::');
  if (dbl !== str.lastIndexOf('::')) return undefined;
  const parseGroups = (g: string): number[] | undefined => {
    if (g === '') return [];
    const out: number[] = [];
    for (const h of g.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(h)) return undefined;
      out.push(parseInt(h, 16));
    }
    return out;
  };
  let groups: number[];
  if (dbl >= 0) {
    const head = parseGroups(str.slice(0, dbl));
    const tail = parseGroups(str.slice(dbl + 2));
    if (!head || !tail) return undefined;
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return undefined;
    groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
  } else {
    const all = parseGroups(str);
    if (!all || all.length !== 8) return undefined;
    groups = all;
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  if (tail4) out.set(tail4, 12);
  return out;
}

/** Go's `net.ParseIP` (without zones): undefined when `s` is not an IP address. */
export function parseIP(s: string): ParsedIP | undefined {
  if (s.includes(':')) {
    const b = parseIPv6Bytes(s);
    return b ? { bytes: b, family: 6 } : undefined;
  }
  const b = parseIPv4Bytes(s);
  return b ? { bytes: b, family: 4 } : undefined;
}

/** A parsed CIDR: the address as written and the prefix length. */
export interface ParsedCIDR {
  ip: ParsedIP;
  prefix: number;
}

/** Go's `net.ParseCIDR`: `10.0.0.0/8`, `fd00::/8`. */
export function parseCIDR(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (!ip || !/^[0-9]{1,3}$/.test(bits) || (bits.length > 1 && bits[0] === '0')) return undefined;
  const prefix = Number(bits);
  if (prefix > (ip.family === 4 ? 32 : 128)) return undefined;
  return { ip, prefix };
}

/** Go's `net.ParseMAC`: 6, 8 or 20 octets separated by `:` or `-`, or dotted groups of four hex digits. */
export function isMAC(s: string): boolean {
  const colon = /^[0-9a-fA-F]{2}([:-])[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2})*$/;
  const dot = /^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})*$/;
  let octets: number;
  if (colon.test(s)) octets = (s.length + 1) / 3;
  else if (dot.test(s)) octets = ((s.length + 1) / 5) * 2;
  else return false;
  return octets === 6 || octets === 8 || octets === 20;
}

/** The canonical text of an IP (Go's `IP.String()`): dotted IPv4, RFC 5952 IPv6. */
export function formatIP(ip: ParsedIP): string {
  const b = ip.bytes;
  if (ip.family === 4) return Array.from(b).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i] << 8) | b[i + 1]);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}
