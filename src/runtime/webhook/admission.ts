// admission.k8s.io/v1 AdmissionReview: the types, and handlers that turn a defaulting or a
// validating function into the review's answer (controller-runtime's admission.Defaulter and
// admission.Validator): a mutation is answered as a JSON patch from the object received to the
// object changed, a validation as allowed or denied with the apiserver's 422 Status (field
// errors as causes) and warnings.
import type { KubeObject } from '../meta/types.js';
import { formatInvalidMessage, type FieldError } from '../validation/field-error.js';
import { diffJson } from './json-patch.js';

/** The operation of an admission request. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** metav1.Status as an admission response carries it. */
export interface AdmissionStatus {
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

/** admission/v1 AdmissionRequest. */
export interface AdmissionRequest<T = KubeObject> {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: { group: string; version: string; kind: string };
  requestResource?: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: T | null;
  oldObject?: T | null;
  dryRun?: boolean;
  options?: Record<string, unknown> | null;
}

/** admission/v1 AdmissionResponse. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** base64 of a JSON patch (RFC 6902). */
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/** admission/v1 AdmissionReview. */
export interface AdmissionReview<T = KubeObject> {
  apiVersion: 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest<T>;
  response?: AdmissionResponse;
}

/** Answers one admission request. */
export type AdmissionHandler = (request: AdmissionRequest) => AdmissionResponse | Promise<AdmissionResponse>;

/** What a validating function returns: field errors (refused when any), warnings, or a message to refuse with. */
export interface ValidationOutcome {
  errors?: FieldError[];
  warnings?: string[];
  /** Refuses with this message (403 Forbidden) when set and there are no field errors. */
  denied?: string;
}

/**
 * Thrown (or returned as a rejection) by a hook to refuse with a given Status: the apiserver
 * shows `admission webhook "<name>" denied the request: <message>`.
 */
export class AdmissionDenied extends Error {
  override name = 'AdmissionDenied';
  constructor(
    message: string,
    readonly code = 403,
    readonly reason = 'Forbidden',
  ) {
    super(message);
  }
}

/** The kind a handler's messages name (`DatabaseManager.coolops.cn "x" is invalid: …`). */
export interface AdmissionKind {
  group: string;
  kind: string;
}

/** An allowed response with no change. */
export function allowed(uid: string, warnings?: string[]): AdmissionResponse {
  return { uid, allowed: true, ...(warnings?.length ? { warnings } : {}) };
}

/** A denied response with a Status. */
export function denied(uid: string, status: AdmissionStatus, warnings?: string[]): AdmissionResponse {
  return { uid, allowed: false, status: { status: 'Failure', ...status }, ...(warnings?.length ? { warnings } : {}) };
}

/** controller-runtime's `admission.Errored`: a denial that says the webhook failed (code and message). */
export function errored(uid: string, code: number, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { status: 'Failure', code, message } };
}

/**
 * An allowed response whose patch turns `original` into `changed` (a base64 JSON patch, patchType
 * JSONPatch); without a difference, no patch.
 */
export function patchResponse(
  uid: string,
  original: unknown,
  changed: unknown,
  warnings?: string[],
): AdmissionResponse {
  const ops = diffJson(original, changed);
  const out = allowed(uid, warnings);
  if (ops.length === 0) return out;
  return { ...out, patch: Buffer.from(JSON.stringify(ops)).toString('base64'), patchType: 'JSONPatch' };
}

/** The 422 Status the apiserver would answer for these field errors (`<Kind>.<group> "<name>" is invalid: …`). */
export function invalidStatus(kind: AdmissionKind, name: string, errors: readonly FieldError[]): AdmissionStatus {
  const qualified = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  return {
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: formatInvalidMessage(qualified, name, errors),
    details: {
      name,
      group: kind.group,
      kind: kind.kind,
      causes: errors.map((e) => ({ reason: e.reason, message: e.message, field: e.field })),
    },
  };
}

/** Options of {@link defaultingHandler}. */
export interface DefaultingOptions<T> {
  /** Runs first: the schema's defaults (generated `default<Kind>`). */
  schemaDefaults?: (obj: T) => unknown;
  /** Operations to default (default CREATE and UPDATE). */
  operations?: AdmissionOperation[];
}

/**
 * A mutating handler: `hook(obj, request)` changes the object in place (or returns the new one);
 * the answer is the JSON patch from the object received to the result. A hook that throws
 * {@link AdmissionDenied} refuses; any other error is answered as a 500 denial, never a crash.
 */
export function defaultingHandler<T extends KubeObject = KubeObject>(
  hook: (obj: T, request: AdmissionRequest<T>) => T | void | Promise<T | void>,
  options: DefaultingOptions<T> = {},
): AdmissionHandler {
  const ops = options.operations ?? ['CREATE', 'UPDATE'];
  return async (request) => {
    const req = request as AdmissionRequest<T>;
    if (!ops.includes(req.operation)) return allowed(req.uid);
    const original = req.object;
    if (!isObject(original)) return errored(req.uid, 400, `the ${req.operation} request has no object to default`);
    try {
      let obj = structuredClone<T>(original);
      options.schemaDefaults?.(obj);
      const returned = await hook(obj, { ...req, object: structuredClone<T>(original) });
      if (returned !== undefined) obj = returned;
      return patchResponse(req.uid, original, obj);
    } catch (e) {
      return answerError(req.uid, e);
    }
  };
}

/** Options of {@link validatingHandler}. */
export interface ValidatingOptions<T> {
  /** The kind its 422s name. */
  kind: AdmissionKind;
  /** Runs first: the schema's validation (generated `validate<Kind>`); its errors refuse before the hook runs. */
  schemaValidate?: (obj: T, old?: T) => FieldError[];
  /** Operations to validate (default CREATE, UPDATE and DELETE). */
  operations?: AdmissionOperation[];
}

/**
 * A validating handler: `hook(obj, old, operation, request)` returns field errors and warnings
 * (or an array of field errors). For DELETE, `obj` is the object being deleted and `old` is
 * undefined. Field errors refuse with the apiserver's 422 (`<Kind>.<group> "<name>" is invalid: …`).
 */
export function validatingHandler<T extends KubeObject = KubeObject>(
  hook: (
    obj: T,
    old: T | undefined,
    operation: AdmissionOperation,
    request: AdmissionRequest<T>,
  ) => ValidationOutcome | FieldError[] | void | Promise<ValidationOutcome | FieldError[] | void>,
  options: ValidatingOptions<T>,
): AdmissionHandler {
  const ops = options.operations ?? ['CREATE', 'UPDATE', 'DELETE'];
  return async (request) => {
    const req = request as AdmissionRequest<T>;
    if (!ops.includes(req.operation)) return allowed(req.uid);
    const obj = req.operation === 'DELETE' ? req.oldObject : req.object;
    const old = req.operation === 'UPDATE' ? (req.oldObject ?? undefined) : undefined;
    if (!isObject(obj)) return errored(req.uid, 400, `the ${req.operation} request has no object to validate`);
    if (req.operation === 'UPDATE' && !isObject(old))
      return errored(req.uid, 400, 'the UPDATE request has no oldObject to validate against');
    const name = obj.metadata?.name ?? req.name ?? '';
    try {
      if (options.schemaValidate && req.operation !== 'DELETE') {
        const errs = options.schemaValidate(
          structuredClone<T>(obj),
          old === undefined ? undefined : structuredClone<T>(old),
        );
        if (errs.length) return denied(req.uid, invalidStatus(options.kind, name, errs));
      }
      const out = await hook(
        structuredClone<T>(obj),
        old === undefined ? undefined : structuredClone<T>(old),
        req.operation,
        req,
      );
      const outcome: ValidationOutcome = Array.isArray(out) ? { errors: out } : (out ?? {});
      const warnings = outcome.warnings?.filter((w) => typeof w === 'string' && w !== '');
      if (outcome.errors?.length) return denied(req.uid, invalidStatus(options.kind, name, outcome.errors), warnings);
      if (outcome.denied) return denied(req.uid, { code: 403, reason: 'Forbidden', message: outcome.denied }, warnings);
      return allowed(req.uid, warnings);
    } catch (e) {
      return answerError(req.uid, e);
    }
  };
}

function answerError(uid: string, e: unknown): AdmissionResponse {
  if (e instanceof AdmissionDenied) return denied(uid, { code: e.code, reason: e.reason, message: e.message });
  return errored(uid, 500, e instanceof Error ? e.message : String(e));
}

function isObject(v: unknown): v is KubeObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks a decoded body as an AdmissionReview; returns the request or the reason it is not one
 * (answered as a 400 review by the server).
 */
export function parseAdmissionReview(
  body: unknown,
):
  | { review: AdmissionReview; request: AdmissionRequest }
  | { error: string; apiVersion: AdmissionReview['apiVersion'] } {
  const fallback = 'admission.k8s.io/v1' as const;
  if (!isObject(body))
    return {
      error: 'the body is not a JSON object (expected an admission.k8s.io/v1 AdmissionReview)',
      apiVersion: fallback,
    };
  const b = body as unknown as Record<string, unknown>;
  const apiVersion = b.apiVersion === 'admission.k8s.io/v1beta1' ? 'admission.k8s.io/v1beta1' : fallback;
  if (
    b.kind !== 'AdmissionReview' ||
    (b.apiVersion !== 'admission.k8s.io/v1' && b.apiVersion !== 'admission.k8s.io/v1beta1')
  ) {
    return {
      error: `expected an admission.k8s.io/v1 AdmissionReview, got apiVersion ${JSON.stringify(b.apiVersion ?? '')} kind ${JSON.stringify(b.kind ?? '')}`,
      apiVersion,
    };
  }
  const r = b.request;
  if (!isObject(r)) return { error: 'the AdmissionReview has no request', apiVersion };
  const req = r as unknown as Record<string, unknown>;
  if (typeof req.uid !== 'string' || req.uid === '')
    return { error: 'the AdmissionReview request has no uid', apiVersion };
  if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(req.operation as string)) {
    return {
      error: `the AdmissionReview request has an unknown operation ${JSON.stringify(req.operation ?? '')}`,
      apiVersion,
    };
  }
  for (const k of ['object', 'oldObject'] as const) {
    if (req[k] !== undefined && req[k] !== null && !isObject(req[k]))
      return { error: `the AdmissionReview request's ${k} is not an object`, apiVersion };
  }
  return { review: body as unknown as AdmissionReview, request: r as unknown as AdmissionRequest };
}
