// Kubernetes' CEL format library (1.31): `format.<name>()` values of type kubernetes.NamedFormat,
// `format.named(name)` (an optional), and `<format>.validate(s)`: optional.none() when `s` is
// valid, else an optional list of apimachinery's messages.
import { formatChecker } from '../validation/formats.js';
import { parseRequestURI } from './url.js';
import { noOverload, Opaque, Optional, type CelLibrary } from './value.js';

const LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN_FMT = `${LABEL_FMT}(\\.${LABEL_FMT})*`;
const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${KEY_FMT})?`;
const full = (f: string) => new RegExp(`^(?:${f})$`);
const LABEL_RE = full(LABEL_FMT);
const SUBDOMAIN_RE = full(SUBDOMAIN_FMT);
const DNS1035_RE = full(DNS1035_FMT);
const KEY_RE = full(KEY_FMT);
const LABEL_VALUE_RE = full(LABEL_VALUE_FMT);

/** apimachinery's RegexError. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (!examples.length) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}
const maxLen = (n: number) => `must be no more than ${n} characters`;
const utf8Len = (s: string) => new TextEncoder().encode(s).length;

function dns1123Label(s: string): string[] {
  const errs: string[] = [];
  if (utf8Len(s) > 63) errs.push(maxLen(63));
  if (!LABEL_RE.test(s)) {
    if (SUBDOMAIN_RE.test(s)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

function dns1123Subdomain(s: string): string[] {
  const errs: string[] = [];
  if (utf8Len(s) > 253) errs.push(maxLen(253));
  if (!SUBDOMAIN_RE.test(s))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  return errs;
}

function dns1035Label(s: string): string[] {
  const errs: string[] = [];
  if (utf8Len(s) > 63) errs.push(maxLen(63));
  if (!DNS1035_RE.test(s))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_FMT,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

const KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function qualifiedName(s: string): string[] {
  const errs: string[] = [];
  const parts = s.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1]!;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else
    return [
      `a valid label key ${regexError(KEY_MSG, KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  if (name === '') errs.push('name part must be non-empty');
  else if (utf8Len(name) > 63) errs.push(`name part ${maxLen(63)}`);
  if (!KEY_RE.test(name)) errs.push(`name part ${regexError(KEY_MSG, KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

function labelValue(s: string): string[] {
  const errs: string[] = [];
  if (utf8Len(s) > 63) errs.push(maxLen(63));
  if (!LABEL_VALUE_RE.test(s))
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  return errs;
}

/** apimachinery's maskTrailingDash (it drops the last two characters and appends `a`). */
function maskTrailingDash(s: string): string {
  return s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$|^[0-9a-f]{32}$/i;
const byteCheck = formatChecker('byte')!;
const dateCheck = formatChecker('date')!;
const dateTimeCheck = formatChecker('date-time')!;

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: (s) => dns1123Label(maskTrailingDash(s)),
  dns1123SubdomainPrefix: (s) => dns1123Subdomain(maskTrailingDash(s)),
  dns1035LabelPrefix: (s) => dns1035Label(maskTrailingDash(s)),
  labelValue,
  uri: (s) => {
    const r = parseRequestURI(s);
    return r.ok ? [] : [r.error];
  },
  uuid: (s) => (UUID_RE.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (byteCheck(s) ? [] : ['invalid base64']),
  date: (s) => (dateCheck(s) ? [] : ['invalid date']),
  datetime: (s) => (dateTimeCheck(s) ? [] : ['invalid datetime']),
};

const values = new Map(Object.keys(FORMATS).map((n) => [n, new Opaque('format', n, n)]));

/** The format library. */
export const formatLibrary: CelLibrary = {
  functions: {
    ...Object.fromEntries([...values].map(([n, v]) => [`format.${n}`, () => v])),
    'format.named': (_t, a) => {
      const n = a[0];
      if (typeof n !== 'string') return noOverload('format.named', n ?? null);
      return new Optional(values.get(n));
    },
  },
  methods: {
    validate: (t, a) => {
      if (!(t instanceof Opaque) || t.kind !== 'format') return noOverload('validate', t ?? null);
      const s = a[0];
      if (typeof s !== 'string') return noOverload('validate', t, s ?? null);
      const errs = FORMATS[t.canonical](s);
      return new Optional(errs.length ? errs : undefined);
    },
  },
};
