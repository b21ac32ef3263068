// Event handlers that turn informer notifications into workqueue keys, as
// sample-controller's enqueueFoo and handleObject do.
import type { KubeObject } from '../meta/types.js';
import type { ResourceEventHandler } from '../cache/event-handler.js';
import { isDeletedFinalStateUnknown, type DeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import { deletionHandlingMetaNamespaceKeyFunc } from '../cache/store.js';
import { getControllerOf } from '../meta/owner.js';

/**
 * Enqueues the `namespace/name` key of every added, updated or deleted object (tombstones
 * included). Resyncs are enqueued too: that is what a resync period is for.
 */
export function enqueueHandler<T extends KubeObject>(enqueue: (key: string) => void): ResourceEventHandler<T> {
  const add = (obj: unknown): void => enqueue(deletionHandlingMetaNamespaceKeyFunc(obj));
  return { onAdd: add, onUpdate: (_old, obj) => add(obj), onDelete: add };
}

/** The owner an owned object maps to. */
export interface OwnerKind {
  /** API group of the owner kind (`coolops.cn`). */
  group: string;
  /** Owner kind (`DatabaseManager`). */
  kind: string;
}

/**
 * For objects a controller owns (e.g. Deployments): enqueues the key of the object's
 * controller owner when that owner is of `owner`'s group and kind. Tombstones are
 * unwrapped; updates with an unchanged resourceVersion (resyncs) are skipped — a periodic
 * resync of the owned object changes nothing the owner's reconcile would see.
 */
export function ownedObjectHandler<T extends KubeObject>(
  owner: OwnerKind,
  enqueue: (key: string) => void,
): ResourceEventHandler<T> {
  const handle = (obj: T | DeletedFinalStateUnknown<T>): void => {
    const o = isDeletedFinalStateUnknown<T>(obj) ? obj.obj : obj;
    if (!o || typeof o !== 'object') return;
    const ref = getControllerOf(o);
    if (!ref || ref.kind !== owner.kind) return;
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.slice(0, ref.apiVersion.indexOf('/')) : '';
    if (group !== owner.group) return;
    const ns = o.metadata?.namespace;
    enqueue(ns ? `${ns}/${ref.name}` : ref.name);
  };
  return {
    onAdd: handle,
    onUpdate: (oldObj, newObj) => {
      if (
        oldObj.metadata?.resourceVersion !== undefined &&
        oldObj.metadata.resourceVersion === newObj.metadata?.resourceVersion
      )
        return;
      handle(newObj);
    },
    onDelete: handle,
  };
}
