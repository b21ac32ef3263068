// FieldError: one validation failure, worded as the apiserver's field.Error and Status cause.
import { goBadValue, goQuote } from './go-format.js';

/** A field error's machine-readable reason; the same strings as metav1.CauseType. */
export type FieldErrorReason =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueDuplicate';

/**
 * One validation failure, shaped as a Status cause of a 422 Invalid answer.
 * `field` is the apiserver's field path (`spec.listeners[1].name`, `<nil>` for the object root);
 * `message` is `ErrorBody()` (`Invalid value: 11: spec.replicas in body should be less than or equal to 10`).
 */
export interface FieldError {
  reason: FieldErrorReason;
  field: string;
  message: string;
}

/** The path the apiserver prints for the root (a nil `*field.Path`). */
export const ROOT_FIELD = '<nil>';

/** `spec.replicas: Invalid value: …` — the apiserver's `field.Error.Error()`. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** The apiserver's aggregate for a 422: `<Kind>.<group> "<name>" is invalid: [a, b]` (brackets only for several). */
export function formatInvalidMessage(qualifiedKind: string, name: string, errors: readonly FieldError[]): string {
  const parts = dedupe(errors).map(formatFieldError);
  const body = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return `${qualifiedKind} ${goQuote(name)} is invalid: ${body}`;
}

/** Drops repeated errors (same field and message), as `ErrorList.ToAggregate` does. */
export function dedupe(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    const k = formatFieldError(e);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(e);
  }
  return out;
}

function withDetail(s: string, detail: string): string {
  return detail ? `${s}: ${detail}` : s;
}

/** `field.Invalid` with the value omitted (`field.OmitValueType`): `Invalid value: <detail>`. */
export function invalidOmitValue(field: string, detail: string): FieldError {
  return { reason: 'FieldValueInvalid', field, message: withDetail('Invalid value', detail) };
}

/** `field.Duplicate` with the value omitted: `Duplicate value`. */
export function duplicateOmitValue(field: string): FieldError {
  return { reason: 'FieldValueDuplicate', field, message: 'Duplicate value' };
}

/** `field.Invalid`: `Invalid value: <value>: <detail>`. */
export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { reason: 'FieldValueInvalid', field, message: withDetail(`Invalid value: ${goBadValue(value)}`, detail) };
}

/** `field.TypeInvalid`: `Invalid value: <value>: <detail>`. */
export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { reason: 'FieldValueTypeInvalid', field, message: withDetail(`Invalid value: ${goBadValue(value)}`, detail) };
}

/** `field.Required`: `Required value[: detail]`. */
export function required(field: string, detail = ''): FieldError {
  return { reason: 'FieldValueRequired', field, message: withDetail('Required value', detail) };
}

/** `field.Forbidden`: `Forbidden[: detail]`. */
export function forbidden(field: string, detail = ''): FieldError {
  return { reason: 'FieldValueForbidden', field, message: withDetail('Forbidden', detail) };
}

/** `field.Duplicate`: `Duplicate value: <value>`. */
export function duplicate(field: string, value: unknown): FieldError {
  return { reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${goBadValue(value)}` };
}

/** `field.NotSupported`: `Unsupported value: <value>: supported values: "a", "b"`. */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return {
    reason: 'FieldValueNotSupported',
    field,
    message: withDetail(`Unsupported value: ${goBadValue(value)}`, detail),
  };
}

/** `field.TooLong` (apimachinery 1.37): `Too long: may not be more than <max> bytes`. */
export function tooLong(field: string, max: number): FieldError {
  return {
    reason: 'FieldValueTooLong',
    field,
    message:
      max >= 0
        ? `Too long: may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}`
        : 'Too long: value is too long',
  };
}

/** `field.TooMany`: `Too many: <actual>: must have at most <max> items`. */
export function tooMany(field: string, actual: number, max: number): FieldError {
  const head = actual >= 0 ? `Too many: ${actual}` : 'Too many';
  return {
    reason: 'FieldValueTooMany',
    field,
    message: `${head}: ${max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items'}`,
  };
}

/** Reasons after which the apiserver skips CEL rules (`hasBlockingErr`). */
export const BLOCKING_REASONS: ReadonlySet<FieldErrorReason> = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** The error the apiserver adds when blocking errors stop CEL evaluation. */
export const RULES_NOT_CHECKED: FieldError = invalid(
  ROOT_FIELD,
  null,
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
);
