// Proxy selection from the environment (Go's net/http ProxyFromEnvironment, which client-go
// uses when a kubeconfig names no proxy-url): HTTPS_PROXY / HTTP_PROXY, NO_PROXY exclusions,
// and never a proxy for localhost or loopback addresses.
import { isIP } from 'node:net';

/** Reads the first non-empty of `names` from `env`. */
function getEnvAny(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n];
    if (v) return v;
  }
  return undefined;
}

/** Parses an IPv4/IPv6 address into bytes (IPv4 as 4 bytes, IPv6 as 16), or undefined. */
function ipBytes(ip: string): number[] | undefined {
  const v = isIP(ip);
  if (v === 4) return ip.split('.').map(Number);
  if (v !== 6) return undefined;
  let s = ip;
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4?.[1]) {
    tail = v4[1].split('.').map(Number);
    s = s.slice(0, -v4[1].length);
    if (s.endsWith(':') && !s.endsWith('::')) s = s.slice(0, -1);
  }
  const groups = (part: string): number[] => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const double = s.indexOf('::');
  const head = groups(double >= 0 ? s.slice(0, double) : s);
  const rest = double >= 0 ? groups(s.slice(double + 2)) : [];
  const fill = 8 - tail.length / 2 - head.length - rest.length;
  const all = [...head, ...Array<number>(Math.max(0, fill)).fill(0), ...rest];
  return [...all.flatMap((g) => [(g >> 8) & 255, g & 255]), ...tail];
}

function inCidr(ip: string, cidr: string): boolean {
  const [net, bitsText] = cidr.split('/');
  const a = ipBytes(ip);
  const b = ipBytes(net ?? '');
  const bits = Number(bitsText);
  if (!a || !b || a.length !== b.length || !Number.isInteger(bits) || bits < 0 || bits > a.length * 8) return false;
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if (((a[byte] ?? 0) & mask) !== ((b[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** True when `host` (a name or an IP, no brackets) is localhost or a loopback address. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return inCidr(host, '::1/128');
  return false;
}

/** True when NO_PROXY excludes `host`:`port` (Go's rules: `*`, IPs, CIDRs, domains and subdomains, optional port). */
export function excludedByNoProxy(noProxy: string, host: string, port: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (isIP(h) && inCidr(h, entry)) return true;
      continue;
    }
    if (isIP(entry.replace(/^\[|\]$/g, ''))) {
      if (ipBytes(entry.replace(/^\[|\]$/g, ''))?.join('.') === ipBytes(h)?.join('.')) return true;
      continue;
    }
    let entryPort = '';
    const m = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[|\]$/g, ''));
    if (m && m[2] !== undefined) {
      entry = m[1] ?? '';
      entryPort = m[2];
      if (isIP(entry.replace(/^\[|\]$/g, '')) && entry.replace(/^\[|\]$/g, '') === h && entryPort === port) return true;
    }
    if (entryPort && entryPort !== port) continue;
    const domain = entry.startsWith('*.') ? entry.slice(1) : entry;
    if (domain.startsWith('.')) {
      if (h.endsWith(domain)) return true;
    } else if (h === domain || h.endsWith(`.${domain}`)) {
      return true;
    }
  }
  return false;
}

/**
 * The proxy URL the environment chooses for `target`, or undefined for a direct connection:
 * HTTPS_PROXY (https targets) or HTTP_PROXY (http targets), upper or lower case, unless
 * NO_PROXY excludes the host or the host is localhost/loopback. A proxy given without a
 * scheme is taken as `http://`.
 */
export function proxyFromEnvironment(target: URL, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isLoopback(host)) return undefined;
  const proxy =
    target.protocol === 'https:'
      ? getEnvAny(env, 'HTTPS_PROXY', 'https_proxy')
      : getEnvAny(env, 'HTTP_PROXY', 'http_proxy');
  if (!proxy) return undefined;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const noProxy = getEnvAny(env, 'NO_PROXY', 'no_proxy');
  if (noProxy && excludedByNoProxy(noProxy, host, port)) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}
