// The Kubernetes CEL URL library: isURL, url, getScheme, getHost, getHostname, getPort,
// getEscapedPath, getQuery — with Go's url.ParseRequestURI rules (absolute URI or absolute path).
import { CelEvalError, LiteralMap, noOverload, Opaque, type CelLibrary, type Value } from './value.js';

/** A parsed URL, with Go's url.URL field meanings. */
export interface GoURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawQuery: string;
}

/** The outcome of {@link parseRequestURI}: the URL, or Go's error text. */
export type ParseResult = { ok: true; url: GoURL } | { ok: false; error: string };

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*$/;
// Characters Go accepts unescaped in a host (besides alphanumerics).
const HOST_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%]*$/;

function unescapeOK(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%') {
      if (!/^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) return false;
      i += 2;
    }
  }
  return true;
}

function decodePath(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Go's `url.ParseRequestURI`: an absolute URI or an absolute path, no fragment. */
export function parseRequestURI(raw: string): ParseResult {
  const fail = (why: string): ParseResult => ({ ok: false, error: `parse ${JSON.stringify(raw)}: ${why}` });
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  if (raw === '') return fail('empty url');
  const url: GoURL = { scheme: '', opaque: '', host: '', path: '', rawQuery: '' };
  if (raw === '*') return { ok: true, url: { ...url, path: '*' } };
  let rest = raw;
  const colon = raw.indexOf(':');
  const firstNonScheme = raw.search(/[^a-zA-Z0-9+.-]/);
  if (colon >= 0 && firstNonScheme === colon) {
    if (colon === 0) return fail('missing protocol scheme');
    const scheme = raw.slice(0, colon);
    if (SCHEME.test(scheme)) {
      url.scheme = scheme.toLowerCase();
      rest = raw.slice(colon + 1);
    }
  }
  const q = rest.indexOf('?');
  if (q >= 0) {
    url.rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return { ok: true, url };
    }
    return fail('invalid URI for request');
  }
  if (url.scheme !== '' && rest.startsWith('//')) {
    const after = rest.slice(2);
    const slash = after.indexOf('/');
    let authority = slash >= 0 ? after.slice(0, slash) : after;
    rest = slash >= 0 ? after.slice(slash) : '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) authority = authority.slice(at + 1);
    const hostErr = checkHost(authority);
    if (hostErr) return fail(hostErr);
    url.host = authority;
  }
  if (!unescapeOK(rest)) return fail('invalid URL escape');
  url.path = decodePath(rest);
  return { ok: true, url };
}

function checkHost(host: string): string | undefined {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return "missing ']' in host";
    const port = host.slice(end + 1);
    if (port !== '' && !/^:[0-9]*$/.test(port)) return `invalid port ${JSON.stringify(port)} after host`;
    return undefined;
  }
  const c = host.lastIndexOf(':');
  if (c >= 0) {
    const port = host.slice(c);
    if (!/^:[0-9]*$/.test(port)) return `invalid port ${JSON.stringify(port)} after host`;
  }
  if (!HOST_CHARS.test(host) || !unescapeOK(host)) return `invalid character in host name`;
  return undefined;
}

function hostname(u: GoURL): string {
  const h = u.host;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end >= 0 ? h.slice(1, end) : h.slice(1);
  }
  const c = h.lastIndexOf(':');
  return c >= 0 ? h.slice(0, c) : h;
}

function port(u: GoURL): string {
  const h = u.host;
  const end = h.startsWith('[') ? h.indexOf(']') : -1;
  const c = h.lastIndexOf(':');
  return c > end ? h.slice(c + 1) : '';
}

function escapedPath(u: GoURL): string {
  return u.path.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (ch) =>
    Array.from(new TextEncoder().encode(ch), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

function queryMap(u: GoURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    };
    const k = dec(eq >= 0 ? part.slice(0, eq) : part);
    const v = dec(eq >= 0 ? part.slice(eq + 1) : '');
    if (k === undefined || v === undefined) continue;
    out.set(k, [...(out.get(k) ?? []), v]);
  }
  return out;
}

function url(v: Value | undefined, fn: string): GoURL {
  return v instanceof Opaque && v.kind === 'url' ? (v.value as GoURL) : noOverload(fn, v ?? null);
}

const str = (v: Value | undefined, fn: string): string => (typeof v === 'string' ? v : noOverload(fn, v ?? null));

/** The URL library. */
export const urlLibrary: CelLibrary = {
  functions: {
    isURL: (_t, a) => parseRequestURI(str(a[0], 'isURL')).ok,
    url: (_t, a) => {
      const s = str(a[0], 'url');
      const r = parseRequestURI(s);
      if (!r.ok) throw new CelEvalError(`URL parse error during conversion from string: ${r.error}`);
      // parsed again as url.Parse does, which takes the #fragment off (ParseRequestURI keeps it in the query or path)
      const hash = s.indexOf('#');
      const p = hash >= 0 ? parseRequestURI(s.slice(0, hash)) : r;
      return new Opaque('url', s, p.ok ? p.url : r.url);
    },
  },
  methods: {
    getScheme: (t) => url(t, 'getScheme').scheme,
    getHost: (t) => url(t, 'getHost').host,
    getHostname: (t) => hostname(url(t, 'getHostname')),
    getPort: (t) => port(url(t, 'getPort')),
    getEscapedPath: (t) => escapedPath(url(t, 'getEscapedPath')),
    getQuery: (t) => new LiteralMap([...queryMap(url(t, 'getQuery'))].map(([k, v]) => [k, v] as [Value, Value])),
  },
};
