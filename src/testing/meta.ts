// Small helpers on object metadata: timestamps as the apiserver writes them, ages as
// kubectl prints them, names and label/field checks.
import { randomUUID } from 'node:crypto';
import type { FieldCause } from './status.js';
import { jsonEqual, setOwn } from '../runtime/meta/json.js';
export { jsonEqual, setOwn };

/** RFC 3339 at seconds precision, UTC: `2026-11-30T07:40:00Z`. */
export function nowRfc3339(now: Date = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A fresh object uid. */
export function newUid(): string {
  return randomUUID();
}

/** An age as k8s.io/apimachinery/pkg/util/duration.HumanDuration prints it (`5m`, `2d3h`). */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(s / 3600);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 192) return h % 24 === 0 ? `${Math.floor(h / 24)}d` : `${Math.floor(h / 24)}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${Math.floor(h / 24)}d`;
  const y = Math.floor(h / (24 * 365));
  if (y < 8) {
    const d = Math.floor(h / 24) - y * 365;
    return d === 0 ? `${y}y` : `${y}y${d}d`;
  }
  return `${y}y`;
}

/** Age of an RFC 3339 timestamp, or `<unknown>`. */
export function age(timestamp: unknown, now = Date.now()): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Checks an object name as the apiserver does for most kinds (DNS-1123 subdomain). */
export function checkName(name: string, field = 'metadata.name'): FieldCause[] {
  if (name.length > 253) {
    return [
      { reason: 'FieldValueInvalid', field, message: `Invalid value: "${name}": must be no more than 253 characters` },
    ];
  }
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return [
      {
        reason: 'FieldValueInvalid',
        field,
        message:
          `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', ` +
          `and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is ` +
          `'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      },
    ];
  }
  return [];
}

/** Checks a namespace name (DNS-1123 label). */
export function checkLabelName(name: string, field = 'metadata.name'): FieldCause[] {
  if (name.length > 63 || !DNS1123_LABEL.test(name)) {
    return [
      {
        reason: 'FieldValueInvalid',
        field,
        message:
          `Invalid value: "${name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', ` +
          `and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is ` +
          `'[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      },
    ];
  }
  return [];
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_KEY_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Checks metadata.labels keys and values. */
export function checkLabels(labels: unknown, field = 'metadata.labels'): FieldCause[] {
  if (labels === undefined || labels === null) return [];
  if (typeof labels !== 'object' || Array.isArray(labels)) {
    return [{ reason: 'FieldValueInvalid', field, message: 'Invalid value: must be a map of strings' }];
  }
  const errs: FieldCause[] = [];
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    if (!isQualifiedName(k)) errs.push(badKey(field, k));
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      errs.push({
        reason: 'FieldValueInvalid',
        field: `${field}`,
        message: `Invalid value: "${String(v)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
  }
  return errs;
}

/** Whether `k` is a qualified name (`[prefix/]name`: a DNS-1123 subdomain prefix, a name of up to 63 characters). */
function isQualifiedName(k: string): boolean {
  const slash = k.lastIndexOf('/');
  const namePart = slash >= 0 ? k.slice(slash + 1) : k;
  const prefix = slash >= 0 ? k.slice(0, slash) : '';
  return (
    namePart.length <= 63 &&
    LABEL_KEY_NAME.test(namePart) &&
    (slash < 0 || (prefix.length <= 253 && DNS1123_SUBDOMAIN.test(prefix)))
  );
}

function badKey(field: string, k: string): FieldCause {
  return {
    reason: 'FieldValueInvalid',
    field,
    message: `Invalid value: "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
  };
}

/** The apiserver's limit on the total size of an object's annotations: keys and values, in bytes (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/**
 * Checks metadata.annotations as the apiserver's ValidateAnnotations: keys are qualified
 * names (case ignored), and keys and values together hold at most 256 KiB (UTF-8 bytes).
 */
export function checkAnnotations(annotations: unknown, field = 'metadata.annotations'): FieldCause[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isObject(annotations) || !Object.values(annotations).every((v) => typeof v === 'string')) {
    return [{ reason: 'FieldValueInvalid', field, message: 'Invalid value: annotations must be a map of strings' }];
  }
  const errs: FieldCause[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, string>)) {
    if (!isQualifiedName(k.toLowerCase())) errs.push(badKey(field, k));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({
      reason: 'FieldValueTooLong',
      field,
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`,
    });
  }
  return errs;
}

/** A decoded JSON value in a message: a string as it is, any other value as JSON. */
export function jsonText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined');
}

/** Is `v` a plain JSON object? */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `o[k]` when `k` is an own key of `o`, else undefined (never `Object.prototype` for `__proto__`). */
export function ownValue(o: Record<string, unknown>, k: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}

/** Reads a CRD-style JSONPath (`.spec.replicas`, `.status.conditions[0].type`). */
export function readJsonPath(obj: unknown, path: string): unknown {
  const parts = path
    .replace(/^\./, '')
    .split(/\.|\[(\d+)\]/)
    .filter((p) => p !== undefined && p !== '');
  let cur: unknown = obj;
  for (const p of parts) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (isObject(cur)) cur = cur[p];
    else return undefined;
  }
  return cur;
}

/** Writes a dotted path (`.spec.replicas`), creating objects on the way. */
export function writeJsonPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur: Record<string, unknown> = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}
