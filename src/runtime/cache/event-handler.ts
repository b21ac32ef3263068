// ResourceEventHandler: what an informer calls on changes (client-go's
// ResourceEventHandler / ResourceEventHandlerFuncs / FilteringResourceEventHandler).
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';

/**
 * Notifications of one informer listener, delivered one at a time in order. A handler
 * may return a promise: the next notification for this handler waits for it (other
 * handlers are not held up). Objects are the cache's own: never mutate them.
 */
export interface ResourceEventHandler<T> {
  /** An object appeared; `isInInitialList` is true for objects of the first list (or of the cache when the handler was added late). */
  onAdd?(obj: T, isInInitialList: boolean): void | Promise<void>;
  /** An object changed, or a resync re-delivered it (then `oldObj === newObj` in resource version). */
  onUpdate?(oldObj: T, newObj: T): void | Promise<void>;
  /** An object was deleted; a tombstone when the deletion was found by a relist. */
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): void | Promise<void>;
}

/**
 * Wraps `handler` so that it only sees objects passing `filter` (client-go's
 * FilteringResourceEventHandler): an update that starts passing becomes an add, one
 * that stops passing becomes a delete.
 */
export function filteringResourceEventHandler<T>(
  filter: (obj: T | DeletedFinalStateUnknown<T>) => boolean,
  handler: ResourceEventHandler<T>,
): ResourceEventHandler<T> {
  return {
    onAdd: (obj, initial) => (filter(obj) ? handler.onAdd?.(obj, initial) : undefined),
    onUpdate: (oldObj, newObj) => {
      const o = filter(oldObj);
      const n = filter(newObj);
      if (o && n) return handler.onUpdate?.(oldObj, newObj);
      if (!o && n) return handler.onAdd?.(newObj, false);
      if (o && !n) return handler.onDelete?.(oldObj);
      return undefined;
    },
    onDelete: (obj) => (filter(obj) ? handler.onDelete?.(obj) : undefined),
  };
}
