// Status bodies and the ApiError that carries them, worded as the apiserver's
// k8s.io/apimachinery/pkg/api/errors writes them.
import type { Status, StatusCause, StatusDetails } from '../runtime/meta/types.js';
import { ApiError as ClientApiError } from '../runtime/client/errors.js';

/**
 * An error answered to the client as a metav1.Status with an HTTP code: the runtime's ApiError
 * (so crdgen/runtime's isNotFound, isConflict… hold for it), with what the server sends besides
 * the Status.
 */
export class ApiError extends ClientApiError {
  /** The HTTP status code: Status.code, 500 when the Status has none. */
  override readonly code: number;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string>;
  /** A plain-text body sent instead of the Status (the apiserver's mux answers unknown paths so). */
  readonly text?: string;
  constructor(status: Status, headers: Record<string, string> = {}, text?: string) {
    super(status, headers['Retry-After'] !== undefined ? { retryAfterHeader: headers['Retry-After'] } : {});
    this.code = status.code ?? 500;
    this.headers = headers;
    if (text !== undefined) this.text = text;
  }
}

/** A group-qualified resource, e.g. `{group: 'coolops.cn', resource: 'databasemanagers'}`. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** `databasemanagers.coolops.cn`, or `namespaces` for the core group. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** Builds a Failure Status. */
export function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  if (details) s.details = details;
  s.code = code;
  return s;
}

/** A Success Status (what some deletes answer). */
export function success(details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
  if (details) s.details = details;
  return s;
}

/** 404 `databasemanagers.coolops.cn "x" not found`. */
export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(
    failure(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    }),
  );
}

/** 409 `databasemanagers.coolops.cn "x" already exists`. */
export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(
    failure(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    }),
  );
}

/** 409 Conflict: `Operation cannot be fulfilled on <gr> "x": <why>`. */
export function conflict(gr: GroupResource, name: string, why: string): ApiError {
  return new ApiError(
    failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    }),
  );
}

/** The optimistic-concurrency failure message of the apiserver. */
export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

/** One field error, as k8s.io/apimachinery/pkg/util/validation/field.Error. */
export interface FieldCause {
  /** e.g. `FieldValueInvalid`. */
  reason: string;
  /** Path, e.g. `spec.replicas`. */
  field: string;
  /** The error body without the field, e.g. `Invalid value: 11: ...`. */
  message: string;
}

/**
 * 422 Invalid: `DatabaseManager.coolops.cn "x" is invalid: spec.replicas: Invalid value: …`,
 * several errors as `[a, b]`, one cause per error.
 */
export function invalid(group: string, kind: string, name: string, errors: FieldCause[]): ApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const seen = new Set<string>();
  const uniq: FieldCause[] = [];
  for (const e of errors) {
    const k = `${e.field}\u0000${e.message}`;
    if (!seen.has(k)) {
      seen.add(k);
      uniq.push(e);
    }
  }
  const texts = uniq.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message));
  const agg = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  // the message deduplicates (ErrorList.ToAggregate), the causes do not (NewInvalid lists every error)
  const causes: StatusCause[] = errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
  return new ApiError(
    failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${agg}`, {
      name: name || undefined,
      group: group || undefined,
      kind,
      causes,
    }),
  );
}

/** 400 BadRequest with the given message. */
/**
 * 422 for bad request options (`ListOptions`, `CreateOptions`, `UpdateOptions`,
 * `PatchOptions`, `DeleteOptions` of meta.k8s.io), as the apiserver validates them.
 */
export function invalidOptions(kind: string, errors: FieldCause[]): ApiError {
  return invalid('meta.k8s.io', kind, '', errors);
}

export function badRequest(message: string): ApiError {
  return new ApiError(failure(400, 'BadRequest', message));
}

/** 405 MethodNotAllowed. */
export function methodNotSupported(gr: GroupResource, action: string): ApiError {
  return new ApiError(
    failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${qualifiedResource(gr)}"`, {
      group: gr.group || undefined,
      kind: gr.resource,
    }),
  );
}

/** 415 for a patch type the resource does not accept. */
export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  );
}

/** 410 Gone / Expired: `too old resource version: 5 (12)`. */
export function expired(requested: number, oldest: number): ApiError {
  return new ApiError(failure(410, 'Expired', `too old resource version: ${requested} (${oldest})`));
}

/** 500 InternalError. */
export function internalError(message: string): ApiError {
  return new ApiError(failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));
}

/** 429 TooManyRequests with `Retry-After`. */
export function tooManyRequests(retryAfterSeconds: number): ApiError {
  return new ApiError(
    failure(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds }),
    { 'Retry-After': String(retryAfterSeconds) },
  );
}

/** 403 Forbidden. */
export function forbidden(gr: GroupResource, name: string, why: string): ApiError {
  return new ApiError(
    failure(403, 'Forbidden', `${qualifiedResource(gr)} "${name}" is forbidden: ${why}`, {
      name,
      group: gr.group || undefined,
      kind: gr.resource,
    }),
  );
}

/** 413 RequestEntityTooLarge. */
export function tooLarge(limit: number): ApiError {
  return new ApiError(failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`));
}

/** 404 for a path the server does not serve (the apiserver answers `the server could not find the requested resource`). */
/** 404 for a path no API serves: the apiserver's mux answers `404 page not found` as text. */
export function pathNotFound(): ApiError {
  return new ApiError(
    failure(404, 'NotFound', 'the server could not find the requested resource', {}),
    {},
    '404 page not found\n',
  );
}

/** 504 for a resourceVersion newer than the store's. */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError(
    failure(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    }),
  );
}

/** Removes `undefined` values from details so JSON output matches the apiserver's (no `group: ""`). */
export function cleanStatus(s: Status): Status {
  return JSON.parse(JSON.stringify(s)) as Status;
}
