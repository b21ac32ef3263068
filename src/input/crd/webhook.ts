// A conversion webhook's client config checked as kube-apiserver checks it
// (k8s.io/apiserver pkg/util/webhook ValidateWebhookURL and ValidateWebhookService), with the URL
// parsed as Go's net/url parses it: https only, a host, no user information, fragment or query;
// a service name, namespace, port 1-65535 and a path of DNS-1123 subdomain segments.
import { invalid, required, type FieldError } from '../../runtime/validation/field-error.js';
import { dns1123SubdomainErrors, portErrors } from './k8s-names.js';

/** What Go's url.Parse keeps of a URL (the parts these checks read), or its error. */
interface GoUrl {
  scheme: string;
  host: string;
  user?: string;
  fragment: string;
  rawQuery: string;
}

/** Go's url.Parse, as far as the webhook checks need it. */
export function parseGoUrl(raw: string): GoUrl | { error: string } {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = unescape(rest.slice(hash + 1));
    rest = rest.slice(0, hash);
  }
  if ([...rest].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return { error: `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL` };
  if (rest === '' && hash >= 0) return { scheme: '', host: '', fragment, rawQuery: '' };
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith(':')) return { error: `parse ${JSON.stringify(raw)}: missing protocol scheme` };
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (scheme !== '' && !rest.startsWith('/')) return { scheme, host: '', fragment, rawQuery };
  if (scheme === '' && !rest.startsWith('/')) {
    // a relative path: a colon before the first slash would have been taken for a scheme
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash))
      return { error: `parse ${JSON.stringify(raw)}: first path segment in URL cannot contain colon` };
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    let authority = end >= 0 ? rest.slice(2, end) : rest.slice(2);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    if (/[^A-Za-z0-9\-._~!$&'()*+,;=:[\]%]/.test(authority))
      return {
        error: `parse ${JSON.stringify(raw)}: invalid character ${JSON.stringify(/[^A-Za-z0-9\-._~!$&'()*+,;=:[\]%]/.exec(authority)![0])} in host name`,
      };
    const port = /:([^:\]]*)$/.exec(authority);
    if (port && !authority.startsWith('[') && !/^[0-9]*$/.test(port[1]))
      return { error: `parse ${JSON.stringify(raw)}: invalid port ${JSON.stringify(`:${port[1]}`)} after host` };
    host = authority;
  }
  return { scheme, host, ...(user !== undefined ? { user } : {}), fragment, rawQuery };
}

function unescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const FORM = '; desired format: https://host[/path]';

/** ValidateWebhookURL(path, url, forceHttps=true). */
export function webhookUrlErrors(field: string, raw: string): FieldError[] {
  const u = parseGoUrl(raw);
  if ('error' in u) return [required(field, `url must be a valid URL: ${u.error}${FORM}`)];
  const out: FieldError[] = [];
  if (u.scheme !== 'https') out.push(invalid(field, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host === '') out.push(invalid(field, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined) out.push(invalid(field, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') out.push(invalid(field, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery !== '') out.push(invalid(field, u.rawQuery, 'query parameters are not permitted in the URL'));
  return out;
}

/**
 * ValidateWebhookService(path, namespace, name, path, port). (apiextensions passes the service's
 * name as the namespace and its namespace as the name: a missing namespace reads `name: Required`.)
 */
export function webhookServiceErrors(
  field: string,
  namespace: string,
  name: string,
  path: string | undefined,
  port: number,
): FieldError[] {
  const out: FieldError[] = [];
  if (name === '') out.push(required(`${field}.name`));
  if (namespace === '') out.push(required(`${field}.namespace`));
  for (const m of portErrors(port)) out.push(invalid(`${field}.port`, port, `port is not valid: ${m}`));
  if (path === undefined || path === '/' || path === '') return out;
  if (path === '//') return [...out, invalid(`${field}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) out.push(invalid(`${field}.path`, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') {
      out.push(invalid(`${field}.path`, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of dns1123SubdomainErrors(step)) out.push(invalid(`${field}.path`, path, `segment[${i}]: ${f}`));
  });
  return out;
}
