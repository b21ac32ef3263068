// crdgen/types: the type-only module that annotated TypeScript API files import.
//
// Every name here is a plain TypeScript type, so annotated API files typecheck with
// `tsc` like any other code. The TypeScript reader (src/input/ts/) recognises these
// names by their import from `crdgen/types` and maps each to a schema node; it never
// loads this module. See docs/typescript-input.md.

export type { ObjectMeta, ListMeta } from '../runtime/meta/types.js';

/** A 32-bit integer: `type: integer, format: int32`. */
export type int32 = number;

/** A 64-bit integer: `type: integer, format: int64`. */
export type int64 = number;

/** An integer with no format: `type: integer`. */
export type integer = number;

/** A floating-point number with `format: float`. */
export type float = number;

/** A floating-point number with `format: double`. */
export type double = number;

/** An int or a string (`x-kubernetes-int-or-string: true`), e.g. a port number or name, or `25%`. */
export type IntOrString = number | string;

/** A resource quantity such as `500m` or `2Gi` (int-or-string, like resource.Quantity). */
export type Quantity = number | string;

/** An RFC 3339 date-time string (`format: date-time`), like metav1.Time. */
export type Time = string;

/** An RFC 3339 date-time string with microseconds (`format: date-time`), like metav1.MicroTime. */
export type MicroTime = string;

/** A Go duration string such as `1h30m` (`type: string`), like metav1.Duration. */
export type Duration = string;

/**
 * Any JSON object, kept as is (`type: object, x-kubernetes-preserve-unknown-fields: true`),
 * like runtime.RawExtension.
 */
export type RawExtension = { [key: string]: unknown };

/** Any JSON value, kept as is (`x-kubernetes-preserve-unknown-fields: true`), like apiextensions JSON. */
export type JSONValue = unknown;
