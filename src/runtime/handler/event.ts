// Events a controller's watches see (controller-runtime's pkg/event): what predicates filter
// and event handlers turn into reconcile requests.

/** An object appeared (or was in the informer's first list: `isInInitialList`). */
export interface CreateEvent<T> {
  object: T;
  /** True for objects of the informer's initial list (or of its cache, for a late watch). */
  isInInitialList: boolean;
}

/** An object changed; a periodic resync also arrives as one (the same resourceVersion on both sides). */
export interface UpdateEvent<T> {
  objectOld: T;
  objectNew: T;
}

/** An object was deleted. */
export interface DeleteEvent<T> {
  /** The object as last seen; possibly stale when `deleteStateUnknown`. */
  object: T;
  /** True when the deletion was found by a relist (the watch missed it): `object` may be stale. */
  deleteStateUnknown: boolean;
}
