// The finalizer helper (kube-rs's `finalizer`, on controller-runtime's controllerutil
// finalizer functions): a reconciler for a kind that owns something outside the cluster puts
// its finalizer on every object first, and when the object is deleted, cleans up and only
// then takes the finalizer off, so the object cannot vanish before its cleanup ran.
import type { KubeObject } from '../meta/types.js';
import type { TypedResource } from '../client/resource.js';
import { hasFinalizer } from '../meta/finalizers.js';
import type { Result } from './reconcile.js';
import { checkFinalizerName, type Client } from '../cluster/client.js';

/** The two halves of a reconciler with a finalizer. */
export interface FinalizerHandlers<T> {
  /** The object is live and carries the finalizer: bring the world in line with it. */
  apply(obj: T): Promise<Result | void>;
  /**
   * The object is being deleted: remove what it stands for outside the cluster. Resolve
   * when done: the finalizer is then removed and the deletion completes. Throw to retry with
   * backoff (the finalizer stays). Resolve with `{ requeueAfterMs }` (or `{ requeue: true }`)
   * when the cleanup is under way but not finished: the finalizer stays, and `cleanup` runs
   * again then. Must be idempotent: it may run again after a crash.
   */
  cleanup(obj: T): Promise<Result | void>;
}

function wantsRequeue(r: Result | void): r is Result {
  return r != null && (r.requeue === true || (r.requeueAfterMs ?? 0) > 0);
}

/**
 * Runs the right half of `handlers` for `obj` (read from the cache in this reconcile):
 * - live, without the finalizer: adds it (a merge patch; see `Client.addFinalizer`), then
 *   `apply` on the patched object;
 * - live, with it: `apply`;
 * - being deleted, with it: `cleanup`, then removes the finalizer (see `Client.removeFinalizer`);
 * - being deleted, without it: nothing (another finalizer holds the object).
 * Resolves with the result of `apply` or `cleanup` (`{}` once the finalizer is removed).
 *
 * The finalizer is written by patch — an update, not a server-side apply — so the reconciler
 * may server-side apply the object itself (labels, annotations, status) with configurations that
 * leave the finalizer out: apply removes only fields its own apply configurations set.
 */
export async function finalizer<T extends KubeObject>(
  client: Client,
  resource: TypedResource<T>,
  name: string,
  obj: T,
  handlers: FinalizerHandlers<T>,
): Promise<Result> {
  checkFinalizerName(name);
  if (obj.metadata?.deletionTimestamp) {
    if (!hasFinalizer(obj, name)) return {};
    const r = await handlers.cleanup(obj);
    if (wantsRequeue(r)) return r;
    await client.removeFinalizer(resource, obj, name);
    return {};
  }
  const live = hasFinalizer(obj, name) ? obj : await client.addFinalizer(resource, obj, name);
  return (await handlers.apply(live)) ?? {};
}
