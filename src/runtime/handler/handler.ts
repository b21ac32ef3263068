// Event handlers (controller-runtime's pkg/handler): turn the events of a watch into
// reconcile requests — the object itself (For), its controller owner (Owns), or whatever a
// map function says (Watches).
import type { KubeObject } from '../meta/types.js';
import type { GroupVersionKind } from '../meta/owner.js';
import type { CreateEvent, DeleteEvent, UpdateEvent } from './event.js';
import type { ReconcileRequest } from '../reconcile/reconcile.js';

/** Where an event handler puts requests: the controller's workqueue, by request. */
export interface RequestQueue {
  /** Queues `request` (a request already waiting is not queued twice). */
  add(request: ReconcileRequest): void;
  /** Queues `request` after `delayMs`. */
  addAfter(request: ReconcileRequest, delayMs: number): void;
}

/** Turns a watch's events into requests (controller-runtime's handler.EventHandler). Methods left out ignore their events. */
export interface EventHandler<T = KubeObject> {
  create?(event: CreateEvent<T>, queue: RequestQueue): void | Promise<void>;
  update?(event: UpdateEvent<T>, queue: RequestQueue): void | Promise<void>;
  delete?(event: DeleteEvent<T>, queue: RequestQueue): void | Promise<void>;
}

/** What a map function of `watches` returns for one object: the requests to queue. */
export type MapFunc<T = KubeObject> = (obj: T) => ReconcileRequest[] | Promise<ReconcileRequest[]>;

/** The request naming `obj` itself, or undefined when it has no name. */
function requestFor(obj: KubeObject): ReconcileRequest | undefined {
  const name = obj.metadata?.name;
  if (!name) return undefined;
  return { namespace: obj.metadata?.namespace ?? '', name };
}

/** Queues the object of every event (handler.EnqueueRequestForObject; what `for()` uses). */
export function enqueueRequestForObject<T extends KubeObject = KubeObject>(): EventHandler<T> {
  const add = (obj: T, q: RequestQueue): void => {
    const r = requestFor(obj);
    if (r) q.add(r);
  };
  return {
    create: (e, q) => add(e.object, q),
    update: (e, q) => add(e.objectNew, q),
    delete: (e, q) => add(e.object, q),
  };
}

/** Options of {@link enqueueRequestForOwner}. */
export interface OwnerHandlerOptions {
  /**
   * Only the owner reference with `controller: true` counts (default true, as `owns()`
   * uses it); false: every owner reference of the owner's kind.
   */
  onlyController?: boolean;
}

/**
 * Queues the owner of the event's object when the owner is of `ownerType`'s group and kind
 * (the version is not compared) — handler.EnqueueRequestForOwner; what `owns()` uses. An
 * update queues the owners of both the old and the new object (an owner reference that was
 * removed still tells its former owner). The request's namespace is the object's, or `''`
 * when `ownerType` is cluster-scoped.
 */
export function enqueueRequestForOwner<T extends KubeObject = KubeObject>(
  ownerType: GroupVersionKind & { namespaced: boolean },
  options: OwnerHandlerOptions = {},
): EventHandler<T> {
  const onlyController = options.onlyController ?? true;
  const owners = (obj: T, out: Map<string, ReconcileRequest>): void => {
    const refs = obj.metadata?.ownerReferences ?? [];
    for (const ref of refs) {
      if (onlyController && ref.controller !== true) continue;
      if (ref.kind !== ownerType.kind) continue;
      const slash = ref.apiVersion.indexOf('/');
      const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
      if (group !== ownerType.group) continue;
      const namespace = ownerType.namespaced ? (obj.metadata?.namespace ?? '') : '';
      out.set(`${namespace}/${ref.name}`, { namespace, name: ref.name });
      if (onlyController) break; // metav1.GetControllerOf: the first controller reference
    }
  };
  const enqueue = (objs: T[], q: RequestQueue): void => {
    const out = new Map<string, ReconcileRequest>();
    for (const o of objs) owners(o, out);
    for (const r of out.values()) q.add(r);
  };
  return {
    create: (e, q) => enqueue([e.object], q),
    update: (e, q) => enqueue([e.objectOld, e.objectNew], q),
    delete: (e, q) => enqueue([e.object], q),
  };
}

/**
 * Queues the requests `map` returns for the event's object (handler.EnqueueRequestsFromMapFunc;
 * what `watches(resource, map)` uses). An update maps both the old and the new object. A map
 * function that throws is reported by the informer's handler-error hook; nothing is queued.
 */
export function enqueueRequestsFromMapFunc<T extends KubeObject = KubeObject>(map: MapFunc<T>): EventHandler<T> {
  const enqueue = async (objs: T[], q: RequestQueue): Promise<void> => {
    const out = new Map<string, ReconcileRequest>();
    for (const o of objs) {
      for (const r of await map(o))
        out.set(`${r.namespace ?? ''}/${r.name}`, { namespace: r.namespace ?? '', name: r.name });
    }
    for (const r of out.values()) q.add(r);
  };
  return {
    create: (e, q) => enqueue([e.object], q),
    update: (e, q) => enqueue([e.objectOld, e.objectNew], q),
    delete: (e, q) => enqueue([e.object], q),
  };
}
