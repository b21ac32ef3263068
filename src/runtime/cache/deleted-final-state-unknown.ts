// DeletedFinalStateUnknown: the tombstone a delete handler receives for an object whose
// deletion was missed (the watch was down) and found out by a relist.

/**
 * An object deleted while we were not watching: `obj` is its last known state, which
 * may be stale. A delete handler receives either the object or one of these.
 */
export class DeletedFinalStateUnknown<T> {
  /** `key` is the store key of the vanished object; `obj` its last state we knew. */
  constructor(
    readonly key: string,
    readonly obj: T,
  ) {}
}

/** True when `v` is a DeletedFinalStateUnknown tombstone. */
export function isDeletedFinalStateUnknown<T>(v: unknown): v is DeletedFinalStateUnknown<T> {
  return v instanceof DeletedFinalStateUnknown;
}

/** The object of a delete notification: the tombstone's last known state, or `obj` itself. */
export function unwrapTombstone<T>(obj: T | DeletedFinalStateUnknown<T>): T {
  return obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
}
