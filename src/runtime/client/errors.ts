// Typed API errors built from the apiserver's metav1.Status body, and client-go's
// `k8s.io/apimachinery/pkg/api/errors` predicates (IsNotFound, IsConflict, …).
import type { Status, StatusCause, StatusDetails } from '../meta/types.js';

/** Status reasons (metav1.StatusReason) the predicates below look at. */
export const StatusReason = {
  Unknown: '',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Gone: 'Gone',
  Invalid: 'Invalid',
  ServerTimeout: 'ServerTimeout',
  Timeout: 'Timeout',
  TooManyRequests: 'TooManyRequests',
  BadRequest: 'BadRequest',
  MethodNotAllowed: 'MethodNotAllowed',
  NotAcceptable: 'NotAcceptable',
  RequestEntityTooLarge: 'RequestEntityTooLarge',
  UnsupportedMediaType: 'UnsupportedMediaType',
  InternalError: 'InternalError',
  Expired: 'Expired',
  ServiceUnavailable: 'ServiceUnavailable',
} as const;

/** The reason client-go assumes for a bare HTTP code when the body is not a Status. */
function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return StatusReason.BadRequest;
    case 401:
      return StatusReason.Unauthorized;
    case 403:
      return StatusReason.Forbidden;
    case 404:
      return StatusReason.NotFound;
    case 405:
      return StatusReason.MethodNotAllowed;
    case 406:
      return StatusReason.NotAcceptable;
    case 409:
      return StatusReason.Conflict;
    case 410:
      return StatusReason.Gone;
    case 413:
      return StatusReason.RequestEntityTooLarge;
    case 415:
      return StatusReason.UnsupportedMediaType;
    case 422:
      return StatusReason.Invalid;
    case 429:
      return StatusReason.TooManyRequests;
    case 500:
      return StatusReason.InternalError;
    case 503:
      return StatusReason.ServiceUnavailable;
    case 504:
      return StatusReason.Timeout;
    default:
      return StatusReason.Unknown;
  }
}

/** Options of the ApiError constructor. */
export interface ApiErrorOptions {
  /** Value of the response's Retry-After header, if any (seconds or HTTP-date). */
  retryAfterHeader?: string | null;
  /** HTTP method and path of the failed request, for the message. */
  request?: { method: string; path: string };
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * An error answered by the API server. Built from the response's metav1.Status body
 * (or a synthesised one when the body is not a Status, as client-go does).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status code (Status.code, or the response code). 0 when unknown. */
  readonly code: number;
  /** metav1.StatusReason, e.g. `NotFound`; `''` when the server gave none. */
  readonly reason: string;
  /** The full Status as received (or synthesised). */
  readonly status: Status;
  /** Status.details (name, kind, causes, retryAfterSeconds), if any. */
  readonly details: StatusDetails | undefined;
  /** Seconds the server asked us to wait: the Retry-After header, else details.retryAfterSeconds. */
  readonly retryAfterSeconds: number | undefined;

  /** Builds an error from a Status; `code` is Status.code unless the Status lacks it. */
  constructor(status: Status, options: ApiErrorOptions = {}) {
    const code = typeof status.code === 'number' ? status.code : 0;
    const reason = typeof status.reason === 'string' ? status.reason : '';
    const where = options.request ? `${options.request.method} ${options.request.path}: ` : '';
    const msg = status.message || reason || (code ? `HTTP ${code}` : 'unknown API error');
    super(
      `${where}${msg}${code ? ` (${code}${reason ? ` ${reason}` : ''})` : ''}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.reason = reason;
    this.status = status;
    this.details = status.details;
    this.retryAfterSeconds =
      parseRetryAfter(options.retryAfterHeader) ??
      (typeof status.details?.retryAfterSeconds === 'number' && status.details.retryAfterSeconds > 0
        ? status.details.retryAfterSeconds
        : undefined);
  }

  /** details.causes, or `[]`: the per-field problems of an Invalid error. */
  get causes(): StatusCause[] {
    return this.details?.causes ?? [];
  }

  /**
   * Builds an error from an HTTP response code and body text. A JSON Status body is used
   * as is; anything else becomes a Status whose reason is derived from the code and whose
   * message is the (truncated) body.
   */
  static fromResponse(code: number, body: string, options: ApiErrorOptions = {}): ApiError {
    const parsed = parseStatus(body);
    if (parsed) {
      if (typeof parsed.code !== 'number' || parsed.code === 0) parsed.code = code;
      if (!parsed.reason) parsed.reason = reasonForCode(code);
      return new ApiError(parsed, options);
    }
    const text = body.trim();
    const message = text
      ? `the server responded with HTTP ${code}: ${text.length > 512 ? `${text.slice(0, 512)}…` : text}`
      : `the server responded with HTTP ${code} and no body`;
    return new ApiError(
      { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason: reasonForCode(code), message },
      options,
    );
  }

  /** Builds an error from the Status object of a watch `ERROR` event. */
  static fromStatus(status: Status): ApiError {
    return new ApiError(status);
  }
}

/** Parses `body` as a metav1.Status; undefined when it is not one. */
function parseStatus(body: string): Status | undefined {
  if (!body || body[0] !== '{') return undefined;
  try {
    const v = JSON.parse(body) as unknown;
    if (isStatusObject(v)) return v;
  } catch {
    /* not JSON */
  }
  return undefined;
}

/** True when `v` looks like a metav1.Status object. */
export function isStatusObject(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/**
 * Parses a Retry-After header: delta-seconds, or an HTTP-date (seconds from now, at least 1).
 * Returns undefined for a missing or malformed value.
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined || header === null) return undefined;
  const h = header.trim();
  if (/^\d+$/.test(h)) {
    const n = Number(h);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  // An HTTP-date always names a weekday/month; this also rejects '-3', which Date.parse accepts.
  if (!/[a-z]/i.test(h)) return undefined;
  const t = Date.parse(h);
  if (Number.isNaN(t)) return undefined;
  return Math.max(1, Math.ceil((t - now) / 1000));
}

/** Code and reason of an ApiError or a raw Status; undefined for anything else. */
function codeAndReason(err: unknown): { code: number; reason: string } | undefined {
  if (err instanceof ApiError) return { code: err.code, reason: err.reason };
  if (isStatusObject(err)) return { code: typeof err.code === 'number' ? err.code : 0, reason: err.reason ?? '' };
  return undefined;
}

/** client-go's pattern: the reason matches, or the reason is unknown and the code matches. */
function matches(err: unknown, reason: string, code: number): boolean {
  const cr = codeAndReason(err);
  if (!cr) return false;
  if (cr.reason === reason) return true;
  return cr.reason === StatusReason.Unknown && cr.code === code;
}

/** The StatusReason of an ApiError or Status; `''` for anything else (metav1.StatusReasonUnknown). */
export function reasonForError(err: unknown): string {
  return codeAndReason(err)?.reason ?? '';
}

/** True for an ApiError or Status with reason NotFound (or no reason and code 404). */
export function isNotFound(err: unknown): boolean {
  return matches(err, StatusReason.NotFound, 404);
}

/** True for reason AlreadyExists (the create of an existing name). */
export function isAlreadyExists(err: unknown): boolean {
  return reasonForError(err) === StatusReason.AlreadyExists;
}

/** True for reason Conflict (or no reason and code 409): an update with a stale resourceVersion. */
export function isConflict(err: unknown): boolean {
  return matches(err, StatusReason.Conflict, 409);
}

/** True for reason Invalid (or no reason and code 422); see `ApiError.causes` for the fields. */
export function isInvalid(err: unknown): boolean {
  return matches(err, StatusReason.Invalid, 422);
}

/** True for reason Gone (or no reason and code 410). */
export function isGone(err: unknown): boolean {
  return matches(err, StatusReason.Gone, 410);
}

/**
 * True when a list/watch resourceVersion is too old: code 410 (any reason) or reason Expired.
 * This is the reflector's "relist" signal.
 */
export function isResourceExpired(err: unknown): boolean {
  const cr = codeAndReason(err);
  return cr !== undefined && (cr.code === 410 || cr.reason === StatusReason.Expired);
}

/** True for reason TooManyRequests or code 429; honour `ApiError.retryAfterSeconds`. */
export function isTooManyRequests(err: unknown): boolean {
  const cr = codeAndReason(err);
  return cr !== undefined && (cr.reason === StatusReason.TooManyRequests || cr.code === 429);
}

/** True for reason Unauthorized (or no reason and code 401). */
export function isUnauthorized(err: unknown): boolean {
  return matches(err, StatusReason.Unauthorized, 401);
}

/** True for reason Forbidden (or no reason and code 403). */
export function isForbidden(err: unknown): boolean {
  return matches(err, StatusReason.Forbidden, 403);
}

/** True for a 5xx code, or reason InternalError, ServerTimeout or ServiceUnavailable. */
export function isServerError(err: unknown): boolean {
  const cr = codeAndReason(err);
  if (!cr) return false;
  return (
    cr.code >= 500 ||
    cr.reason === StatusReason.InternalError ||
    cr.reason === StatusReason.ServerTimeout ||
    cr.reason === StatusReason.ServiceUnavailable
  );
}

/** True for reason Timeout or ServerTimeout (or no reason and code 504). */
export function isTimeout(err: unknown): boolean {
  return reasonForError(err) === StatusReason.ServerTimeout || matches(err, StatusReason.Timeout, 504);
}

/** True for reason BadRequest (or no reason and code 400). */
export function isBadRequest(err: unknown): boolean {
  return matches(err, StatusReason.BadRequest, 400);
}
