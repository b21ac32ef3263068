// The OpenAPI keyword validator, reproducing kube-openapi's SchemaValidator: the same validators in the
// same order (type, allOf/oneOf/anyOf/not, string, format, number, slice, enum, object), the same
// messages ("spec.replicas in body should be less than or equal to 10"), the same short-circuits,
// then mapped to field errors as apiextensions-apiserver does (kubeOpenAPIResultToFieldErrors).
import {
  ROOT_FIELD,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  type FieldError,
} from './field-error.js';
import { goFloat, goNumber, goQuote } from './go-format.js';
import type { Node } from './node.js';
import { jsonEqual } from '../meta/json.js';

const IN = 'in body';

/** kube-openapi's error name → apiserver field (leading `.` trimmed; empty means the root, printed `<nil>`). */
function fieldOf(name: string): string {
  const f = name.startsWith('.') ? name.slice(1) : name;
  return f === '' ? ROOT_FIELD : f;
}

function jsonKind(v: unknown): 'null' | 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object' {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      // Go decodes an integer beyond int64 as a float64
      return Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63 ? 'integer' : 'number';
    case 'bigint':
      return 'integer';
    default:
      return Array.isArray(v) ? 'array' : 'object';
  }
}

/** Unicode code points, as Go's utf8.RuneCountInString. */
function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    n++;
  }
  return n;
}

// While probing combinator branches (dry > 0), failures are recorded without their messages.
let dry = 0;
const DRY: FieldError = { reason: 'FieldValueInvalid', field: '', message: '' };

function fail(errs: FieldError[], make: () => FieldError): void {
  errs.push(dry > 0 ? DRY : make());
}

/** Marks "no correlated old value" (create, or an uncorrelatable position on update). */
export const NO_OLD: unique symbol = Symbol('no old value');

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The old counterpart of `data[key]`, when `old` is an object holding it. */
function oldChild(old: unknown, key: string): unknown {
  return isObject(old) && Object.prototype.hasOwnProperty.call(old, key) ? old[key] : NO_OLD;
}

/** For a list-type map, finds each item's old counterpart by its keys; other lists do not correlate. */
export function correlateItems(n: Node, old: unknown): ((item: unknown) => unknown) | undefined {
  if (n.s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return undefined;
  const keys = n.s['x-kubernetes-list-map-keys'] ?? [];
  const keyOf = (x: unknown) => (isObject(x) ? JSON.stringify(keys.map((k) => x[k] ?? null)) : undefined);
  const byKey = new Map<string, unknown>();
  for (const o of old) {
    const k = keyOf(o);
    if (k !== undefined) byKey.set(k, o);
  }
  return (item) => {
    const k = keyOf(item);
    return k !== undefined && byKey.has(k) ? byKey.get(k) : NO_OLD;
  };
}

/**
 * Validates `data` against `n`, appending field errors to `errs`; returns kube-openapi's MatchCount
 * (how many validators passed), which picks the reported branch of a failed oneOf/anyOf.
 * `name` is kube-openapi's path (`spec.listeners[0].name`; `` for the root). On update, `old` is the
 * correlated old value: unchanged values are not re-validated (CRD validation ratcheting).
 */
export function validateOpenAPI(
  n: Node,
  data: unknown,
  name: string,
  errs: FieldError[],
  old: unknown = NO_OLD,
): number {
  // Ratcheting (update): a value equal to its correlated old value is not re-validated.
  if (old !== NO_OLD && jsonEqual(data, old)) return 1;
  if (data === null || data === undefined) {
    let c = 0;
    if (n.typeApplies) c += typeCheck(n, null, name, errs);
    if (n.s.enum) c += enumCheck(n, null, name, errs);
    return c;
  }
  let count = 2;
  const kind = jsonKind(data);
  if (n.typeApplies) count += typeCheck(n, data, name, errs) + 1;
  if (n.hasCombinators) count += combinators(n, data, name, errs, old);
  switch (kind) {
    case 'string':
      count++;
      if (n.hasStringChecks) stringCheck(n, data as string, name, errs);
      if (n.formatCheck) count += formatCheck(n, data as string, name, errs) + 1;
      break;
    case 'integer':
    case 'number':
      count++;
      if (n.hasNumberChecks) numberCheck(n, data as number, name, errs);
      break;
    case 'array':
      count += sliceCheck(n, data as unknown[], name, errs, old) + 1;
      break;
  }
  count++;
  if (n.s.enum) enumCheck(n, data, name, errs);
  if (kind === 'object') count += objectCheck(n, data as Record<string, unknown>, name, errs, old) + 1;
  return count;
}

function typeCheck(n: Node, data: unknown, name: string, errs: FieldError[]): number {
  const t = n.types;
  const kind = jsonKind(data);
  if (kind === 'null') {
    if (t.length > 0 && !n.s.nullable) {
      fail(errs, () => typeInvalid(fieldOf(name), 'null', `${name} ${IN} must be of type ${n.typeLabel}: "null"`));
      return 0;
    }
    return 1;
  }
  const format = n.s.format;
  const hasNum = t.includes('number');
  const hasInt = t.includes('integer');
  const dataFormat = kind === 'integer' ? 'int64' : kind === 'number' ? 'float64' : '';
  const isIntFloat = kind === 'integer' && hasNum;
  if (kind !== 'string' && kind !== 'array' && format !== undefined) {
    const ok = t.includes(kind) || format === dataFormat || isIntFloat;
    if (!ok) {
      fail(errs, () =>
        typeInvalid(fieldOf(name), dataFormat, `${name} ${IN} must be of type ${format}: ${goQuote(dataFormat)}`),
      );
      return 0;
    }
  }
  if (!(hasNum || hasInt) && format !== undefined && (kind === 'string' || kind === 'array')) return 1;
  if (!(t.includes(kind) || isIntFloat)) {
    fail(errs, () =>
      typeInvalid(fieldOf(name), kind, `${name} ${IN} must be of type ${n.typeLabel}: ${goQuote(kind)}`),
    );
    return 0;
  }
  return 1;
}

function combinators(n: Node, data: unknown, name: string, errs: FieldError[], old: unknown): number {
  let count = 0;
  // Branches are first tried without building messages; only the reported branch is re-run for them.
  if (n.anyOf.length) {
    let best = -1;
    let bestCount = -1;
    let ok = false;
    for (let i = 0; i < n.anyOf.length; i++) {
      const [c, failed] = probe(n.anyOf[i], data, name, old);
      if (!failed) {
        ok = true;
        count += c;
        break;
      }
      if (c > bestCount) [best, bestCount] = [i, c];
    }
    if (!ok) {
      fail(errs, () => invalid(ROOT_FIELD, '', `${goQuote(name)} must validate at least one schema (anyOf)`));
      count += validateOpenAPI(n.anyOf[best], data, name, errs, old);
    }
  }
  if (n.oneOf.length) {
    let best = -1;
    let bestCount = -1;
    let validated = 0;
    let firstSuccess = -1;
    for (let i = 0; i < n.oneOf.length; i++) {
      const [c, failed] = probe(n.oneOf[i], data, name, old);
      if (!failed) {
        validated++;
        best = -1;
        if (firstSuccess < 0) firstSuccess = c;
        continue;
      }
      if (validated === 0 && c > bestCount) [best, bestCount] = [i, c];
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      fail(errs, () =>
        invalid(ROOT_FIELD, '', `${goQuote(name)} must validate one and only one schema (oneOf). ${more}`),
      );
      if (best >= 0) count += validateOpenAPI(n.oneOf[best], data, name, errs, old);
    } else {
      count += firstSuccess;
    }
  }
  if (n.allOf.length) {
    let validated = 0;
    for (const b of n.allOf) {
      const before = errs.length;
      count += validateOpenAPI(b, data, name, errs, old);
      if (errs.length === before) validated++;
    }
    if (validated !== n.allOf.length) {
      fail(errs, () =>
        invalid(
          ROOT_FIELD,
          '',
          `${goQuote(name)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`,
        ),
      );
    }
  }
  if (n.not) {
    const [, failed] = probe(n.not, data, name, NO_OLD);
    if (!failed) fail(errs, () => invalid(ROOT_FIELD, '', `${goQuote(name)} must not validate the schema (not)`));
  }
  return count;
}

/** Validates without building messages: [MatchCount, whether it failed]. */
function probe(n: Node, data: unknown, name: string, old: unknown): [number, boolean] {
  const e: FieldError[] = [];
  dry++;
  try {
    return [validateOpenAPI(n, data, name, e, old), e.length > 0];
  } finally {
    dry--;
  }
}

function stringCheck(n: Node, data: string, name: string, errs: FieldError[]): number {
  const s = n.s;
  if (s.maxLength !== undefined || s.minLength !== undefined) {
    const len = runeCount(data);
    if (s.maxLength !== undefined && len > s.maxLength) {
      fail(errs, () => tooLong(fieldOf(name), s.maxLength!));
      return 0;
    }
    if (s.minLength !== undefined && len < s.minLength) {
      fail(errs, () => invalid(fieldOf(name), data, `${name} ${IN} should be at least ${s.minLength} chars long`));
      return 0;
    }
  }
  if (n.pattern && !n.pattern.test(data)) {
    fail(errs, () => invalid(fieldOf(name), data, `${name} ${IN} should match '${s.pattern}'`));
    return 0;
  }
  return 0;
}

function formatCheck(n: Node, data: string, name: string, errs: FieldError[]): number {
  if (!n.formatCheck!(data)) {
    fail(errs, () => typeInvalid(fieldOf(name), data, `${name} ${IN} must be of type ${n.s.format}: ${goQuote(data)}`));
  }
  return 0;
}

/**
 * kube-openapi's IsValueValidAgainstRange: a value (or a bound) of an `integer` with format
 * int32/int64 must be an integer of that size, of a `number` with format float a float32. Its
 * error is a plain error, which the apiserver reports at the validated value's root, value "".
 */
function rangeError(n: Node, v: number, prefix: string, name: string): FieldError | undefined {
  const t = n.types.length === 1 ? n.types[0] : undefined;
  const f = n.s.format;
  let ok = true;
  if (t === 'integer' && (f === 'int32' || f === 'int64')) {
    const limit = f === 'int32' ? 2 ** 31 : 2 ** 63;
    ok = Number.isInteger(v) && v >= -limit && v < limit;
  } else if (t === 'number' && f === 'float') ok = !(Math.abs(v) > 3.4028234663852886e38) || !Number.isFinite(v);
  else return undefined;
  return ok ? undefined : invalid(ROOT_FIELD, '', `${prefix} value must be of type ${t} with format ${f} in ${name}`);
}

function numberCheck(n: Node, data: number, name: string, errs: FieldError[]): number {
  const s = n.s;
  const checked = rangeError(n, data, 'Checked', name);
  if (checked) fail(errs, () => checked);
  const isInt = Number.isInteger(data);
  // kube-openapi compares integers as int64 against the truncated bound, floats as float64.
  const bound = (b: number) => (isInt && Math.trunc(b) !== 0 ? Math.trunc(b) : b);
  const show = (b: number) => (isInt ? goNumber(Math.trunc(b)) : goFloat(b));
  if (s.multipleOf !== undefined) {
    const f = s.multipleOf;
    const boundary = rangeError(n, f, 'MultipleOf', name);
    if (boundary) fail(errs, () => boundary);
    // a multipleOf of 0 the apiserver accepts in a CRD: every number fails it (x / 0 is not an integer)
    const bad = isInt && Math.trunc(f) !== 0 ? data % Math.trunc(f) !== 0 : !Number.isInteger(data / f);
    if (bad)
      fail(errs, () =>
        invalid(
          fieldOf(name),
          data,
          `${name} ${IN} should be a multiple of ${isInt && Math.trunc(f) !== 0 ? show(f) : goFloat(f)}`,
        ),
      );
  }
  if (s.maximum !== undefined) {
    const boundary = rangeError(n, s.maximum, 'Maximum boundary', name);
    if (boundary) fail(errs, () => boundary);
    const m = bound(s.maximum);
    const bad = s.exclusiveMaximum ? data >= m : data > m;
    if (bad) {
      const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      fail(errs, () => invalid(fieldOf(name), data, `${name} ${IN} should be ${rel} ${show(s.maximum!)}`));
    }
  }
  if (s.minimum !== undefined) {
    const boundary = rangeError(n, s.minimum, 'Minimum boundary', name);
    if (boundary) fail(errs, () => boundary);
    const m = bound(s.minimum);
    const bad = s.exclusiveMinimum ? data <= m : data < m;
    if (bad) {
      const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      fail(errs, () => invalid(fieldOf(name), data, `${name} ${IN} should be ${rel} ${show(s.minimum!)}`));
    }
  }
  return 0;
}

function sliceCheck(n: Node, data: unknown[], name: string, errs: FieldError[], old: unknown): number {
  const s = n.s;
  let count = 0;
  if (n.items) {
    const corr = old !== NO_OLD ? correlateItems(n, old) : undefined;
    for (let i = 0; i < data.length; i++)
      count += validateOpenAPI(n.items, data[i], `${name}[${i}]`, errs, corr ? corr(data[i]) : NO_OLD);
  }
  if (s.minItems !== undefined && data.length < s.minItems) {
    fail(errs, () => invalid(fieldOf(name), data.length, `${name} ${IN} should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && data.length > s.maxItems)
    fail(errs, () => tooMany(fieldOf(name), data.length, s.maxItems!));
  if (s.uniqueItems) {
    const seen = new Set<string>();
    for (const v of data) {
      const k = JSON.stringify(v);
      if (seen.has(k)) {
        fail(errs, () => invalid(fieldOf(name), '', `${name} ${IN} shouldn't contain duplicates`));
        break;
      }
      seen.add(k);
    }
  }
  return count;
}

function enumCheck(n: Node, data: unknown, name: string, errs: FieldError[]): number {
  const e = n.s.enum;
  if (!e || e.length === 0) return 0;
  if (typeof data === 'string') {
    if (n.enumStrings!.has(data)) return 0;
  } else if (data !== null && data !== undefined) {
    for (const v of e) if (v !== null && jsonEqual(data, v)) return 0;
  }
  fail(errs, () => notSupported(fieldOf(name), data ?? null, n.enumLabels!));
  return 0;
}

function objectCheck(n: Node, data: Record<string, unknown>, name: string, errs: FieldError[], old: unknown): number {
  const s = n.s;
  if (s.minProperties !== undefined || s.maxProperties !== undefined) {
    const numKeys = Object.keys(data).length;
    if (s.minProperties !== undefined && numKeys < s.minProperties) {
      fail(errs, () =>
        invalid(fieldOf(name), numKeys, `${name} ${IN} should have at least ${s.minProperties} properties`),
      );
      return 0;
    }
    if (s.maxProperties !== undefined && numKeys > s.maxProperties) {
      fail(errs, () => tooMany(fieldOf(name), numKeys, s.maxProperties!));
      return 0;
    }
  }
  let count = 0;
  const props = n.props;
  if (n.addlForbidden) {
    for (const k in data) {
      if (!props?.has(k)) fail(errs, () => invalid(fieldOf(name), k, `${name}.${k} ${IN} is a forbidden property`));
    }
  } else if (n.addl) {
    for (const k in data) {
      if (!props?.has(k)) count += validateOpenAPI(n.addl, data[k], `${name}.${k}`, errs, oldChild(old, k));
    }
  }
  if (props) {
    for (const p in data) {
      const child = props.get(p);
      if (child) count += validateOpenAPI(child, data[p], name ? `${name}.${p}` : p, errs, oldChild(old, p));
    }
  }
  const req = s.required;
  if (req) {
    for (const k of req) {
      if (!Object.prototype.hasOwnProperty.call(data, k)) fail(errs, () => required(fieldOf(`${name}.${k}`)));
    }
  }
  return count;
}
