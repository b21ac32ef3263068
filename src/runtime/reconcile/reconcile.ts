// Reconciler, request and result (controller-runtime's pkg/reconcile): what a controller
// built with newControllerManagedBy calls for each key, and how it says what happens next.
import type { Logger } from '../log/logger.js';
import type { EventRecorder } from '../events/recorder.js';
import type { Client } from '../cluster/client.js';

/**
 * Which object to reconcile: its namespace (`''` for a cluster-scoped kind) and name
 * (controller-runtime's reconcile.Request). Only the name — the reconciler reads the object
 * itself (`context.client.get(resource, request)`), so it always sees the latest state, and a
 * deleted object arrives as NotFound.
 */
export interface ReconcileRequest {
  namespace: string;
  name: string;
}

/**
 * What a reconcile asks for next (controller-runtime's reconcile.Result). `{}` (or nothing):
 * done until the next change. An error thrown instead is retried with the rate limiter's
 * backoff, unless it is a {@link TerminalError}; a result returned with an error is ignored.
 */
export interface Result {
  /** Reconcile this key again after this many ms (no backoff; the rate limiter forgets the key). */
  requeueAfterMs?: number;
  /** Reconcile this key again after the rate limiter's backoff (controller-runtime's `Requeue`; prefer `requeueAfterMs`). */
  requeue?: boolean;
}

/** What a reconciler gets besides the request. */
export interface ReconcileContext {
  /** Aborted when the manager stops: pass it to long calls (HTTP to an external API, waits). */
  signal: AbortSignal;
  /** The controller's logger with `controller`, `namespace`, `name` and `reconcileID` bound. */
  logger: Logger;
  /** The manager's client: reads from the shared caches, writes to the API server. */
  client: Client;
  /** Records Events about objects (source component: the manager's name). */
  recorder: EventRecorder;
  /** The controller's name. */
  controller: string;
}

/**
 * A reconciler: brings the world in line with the object `request` names, and resolves with
 * what should happen next. Reconciles of one key never overlap; reconciles of different keys
 * run concurrently up to the controller's `maxConcurrentReconciles`.
 */
export type Reconciler = (request: ReconcileRequest, context: ReconcileContext) => Promise<Result | void>;

/**
 * An error that retrying will not fix (a spec the reconciler cannot act on): the controller
 * logs it and counts it, and does not requeue the key; the next change to the object does.
 * controller-runtime's reconcile.TerminalError. Wrap any error: `throw new TerminalError(err)`.
 */
export class TerminalError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'TerminalError';
  }
}

/** True when `err` is a {@link TerminalError} or has one in its `cause` chain. */
export function isTerminalError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 32; e = e.cause, depth++) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}

/** The workqueue key of a request: `namespace/name`, or `name` for a cluster-scoped object. */
export function requestKey(request: ReconcileRequest): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** The request of a workqueue key made by {@link requestKey}. */
export function requestFromKey(key: string): ReconcileRequest {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
