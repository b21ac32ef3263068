// String formats the apiserver checks (kube-openapi's strfmt default registry).
// A format not listed here is not checked, as in the apiserver.
import { isMAC, parseCIDR, parseIP } from './net.js';

type Check = (s: string) => boolean;

const re =
  (r: RegExp): Check =>
  (s) =>
    r.test(s);

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$/;
const HUMAN_DURATION =
  /^\d+\s*(ns|us|µs|ms|s|m|h|d|w|sec|secs|second|seconds|min|mins|minute|minutes|hr|hrs|hour|hours|day|days|wk|wks|week|weeks)$/;

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

function isDateTime(s: string): boolean {
  if (!DATE_TIME.test(s)) return false;
  return isDate(s.slice(0, 10));
}

function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

function isURI(s: string): boolean {
  if (s === '' || /\s/.test(s)) return false;
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith('/');
}

const FORMATS: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['bsonobjectid', re(/^[0-9a-fA-F]{24}$/)],
  ['uri', isURI],
  ['email', re(/^[^@\s<>]+@[^@\s<>]+$/)],
  ['hostname', (s) => s.length <= 255 && HOSTNAME.test(s)],
  ['ipv4', (s) => s.includes('.') && parseIP(s) !== undefined],
  ['ipv6', (s) => s.includes(':') && parseIP(s) !== undefined],
  ['cidr', (s) => parseCIDR(s) !== undefined],
  ['mac', isMAC],
  ['uuid', re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i)],
  ['uuid3', re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i)],
  ['uuid4', re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i)],
  ['uuid5', re(/^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i)],
  ['isbn', re(/^(?:[0-9]{9}[0-9X]|[0-9]{13})$/)],
  ['isbn10', re(/^[0-9]{9}[0-9X]$/)],
  ['isbn13', re(/^[0-9]{13}$/)],
  [
    'creditcard',
    re(
      /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/,
    ),
  ],
  ['ssn', re(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/)],
  ['hexcolor', re(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/)],
  [
    'rgbcolor',
    re(
      /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/,
    ),
  ],
  ['byte', isBase64],
  ['password', () => true],
  ['date', isDate],
  ['duration', (s) => GO_DURATION.test(s) || HUMAN_DURATION.test(s)],
  ['date-time', isDateTime],
  ['datetime', isDateTime],
]);

/** The checker for a string format, or undefined when the apiserver does not check that format. */
export function formatChecker(format: string): Check | undefined {
  return FORMATS.get(format);
}
