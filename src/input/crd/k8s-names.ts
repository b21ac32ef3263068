// Kubernetes' name and label validations (k8s.io/apimachinery util/validation and
// api/validate/content, 1.37), returning their messages word for word: what a CRD's metadata,
// names, versions and conversion webhook are checked with.

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** util/validation says characters; api/validate/content (labels, finalizers) says bytes. */
const maxLen = (n: number, unit: 'characters' | 'bytes' = 'characters'): string => `must be no more than ${n} ${unit}`;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Bytes of `s` in UTF-8 (Go's len). */
export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** IsDNS1123Subdomain (util/validation's, or with `bytes` content's). */
export function dns1123SubdomainErrors(v: string, unit: 'characters' | 'bytes' = 'characters'): string[] {
  const errs: string[] = [];
  if (utf8Length(v) > 253) errs.push(maxLen(253, unit));
  if (!DNS1123_SUBDOMAIN.test(v))
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  return errs;
}

/** IsDNS1123Label. */
export function dns1123LabelErrors(v: string): string[] {
  const errs: string[] = [];
  if (utf8Length(v) > 63) errs.push(maxLen(63));
  if (!DNS1123_LABEL.test(v))
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  return errs;
}

/** IsDNS1035Label. */
export function dns1035LabelErrors(v: string): string[] {
  const errs: string[] = [];
  if (utf8Length(v) > 63) errs.push(maxLen(63));
  if (!DNS1035_LABEL.test(v))
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  return errs;
}

/** IsQualifiedName (a label key, a finalizer, an annotation key lower-cased). */
export function qualifiedNameErrors(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  const nameMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const m of dns1123SubdomainErrors(prefix, 'bytes')) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a valid label key ${regexError(nameMsg, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (utf8Length(name) > 63) errs.push(`name part ${maxLen(63, 'bytes')}`);
  if (!QUALIFIED_NAME.test(name))
    errs.push(`name part ${regexError(nameMsg, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** IsLabelValue. */
export function labelValueErrors(v: string): string[] {
  const errs: string[] = [];
  if (utf8Length(v) > 63) errs.push('must be no more than 63 bytes');
  if (!LABEL_VALUE.test(v))
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

/** IsPathSegmentName / IsPathSegmentPrefix (an embedded resource's metadata.name). */
export function pathSegmentErrors(v: string, prefix: boolean): string[] {
  const errs: string[] = [];
  if (!prefix) {
    if (v === '.') errs.push(`may not be '.'`);
    else if (v === '..') errs.push(`may not be '..'`);
  }
  if (v.includes('/')) errs.push(`may not contain '/'`);
  if (v.includes('%')) errs.push(`may not contain '%'`);
  return errs;
}

/** IsValidPortNum. */
export function portErrors(p: number): string[] {
  return p >= 1 && p <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrint(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** Go's unicode.IsControl (C0, DEL, C1). */
export function isGoControl(ch: string): boolean {
  const c = ch.codePointAt(0)!;
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f);
}
