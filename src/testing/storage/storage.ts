// The storage interface behind the test API server: what an etcd3 store offers the
// apiserver (get, list, create, update and delete with a revision precondition, and
// watch from a revision). The in-memory store implements it; an etcd backend can too.
import type { KubeObject } from '../../runtime/meta/types.js';

/** Why a storage operation failed. */
export type StorageErrorCode = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired';

/** A failed storage operation; the handlers turn it into the apiserver's Status. */
export class StorageError extends Error {
  /** What went wrong. */
  readonly code: StorageErrorCode;
  /** For `Expired`: the oldest revision still available. */
  readonly oldestRevision: number;
  constructor(code: StorageErrorCode, message: string, oldestRevision = 0) {
    super(message);
    this.code = code;
    this.oldestRevision = oldestRevision;
  }
}

/** One change in the store. `object` is the new state (for DELETED: the last state). */
export interface StorageEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  /** Revision of this change; `object.metadata.resourceVersion` is its string form. */
  revision: number;
  object: KubeObject;
  /** State before the change (MODIFIED and DELETED). */
  prevObject?: KubeObject;
}

/** A running storage watch. */
export interface StorageWatch {
  /** Stops delivering events. Idempotent. */
  stop(): void;
}

/** A list result: items sorted by key (`keys[i]` is the key of `items[i]`), and the revision the list reflects. */
export interface StorageList {
  items: KubeObject[];
  keys: string[];
  revision: number;
  /** With a `limit`: whether keys under the prefix follow the last item (matching the predicate or not). */
  more?: boolean;
  /** When `more`: how many keys follow the last item (as etcd's range count). */
  remaining?: number;
}

/** Which page of a list to return (as the apiserver reads a page from etcd). */
export interface ListPage {
  /** Only keys at or after this one (a continue token's position). */
  start?: string;
  /** At most this many items (0 or absent: all). */
  limit?: number;
  /**
   * Only objects it accepts are returned; skipped ones still count as keys for `more` and
   * `remaining`. It gets the stored object: it must not modify it.
   */
  predicate?: (obj: KubeObject) => boolean;
}

/**
 * Versioned key/value storage of Kubernetes objects. Keys look like
 * `/<group>/<resource>/<namespace>/<name>`. Every write takes the next revision of ONE
 * global counter and sets `metadata.resourceVersion` to it. Objects handed in and out
 * are copies: callers never share state with the store.
 */
export interface Storage {
  /** The revision of the last write (0 when nothing was written). */
  currentRevision(): Promise<number>;
  /** The object at `key`, or undefined. */
  get(key: string): Promise<KubeObject | undefined>;
  /**
   * Objects whose key starts with `prefix`, at the current revision, or at `atRevision`
   * (throws `Expired` when that revision is no longer in the history); `page` narrows it
   * to one page, at a cost proportional to the page (and to the keys its predicate skips).
   */
  list(prefix: string, atRevision?: number, page?: ListPage): Promise<StorageList>;
  /** Stores a new object; throws `AlreadyExists`. */
  create(key: string, obj: KubeObject): Promise<KubeObject>;
  /**
   * Replaces an object; throws `NotFound`, or `Conflict` when `expectedRevision` is given
   * and differs from the stored object's revision.
   */
  update(key: string, obj: KubeObject, expectedRevision?: number): Promise<KubeObject>;
  /** Removes an object; throws `NotFound` or `Conflict` (as update). Returns the last state. */
  delete(key: string, expectedRevision?: number): Promise<KubeObject>;
  /**
   * Delivers every change with revision > `fromRevision` under `prefix`, in order: first
   * the ones still in the history, then new ones as they happen. Throws `Expired` when
   * changes after `fromRevision` were already compacted away. When the store can no longer
   * deliver every change (etcd: its watch lost revisions to a compaction while disconnected)
   * the watch ends and `onExpired` is called once, so the client lists again.
   */
  watch(
    prefix: string,
    fromRevision: number,
    listener: (e: StorageEvent) => void,
    onExpired?: (e: StorageError) => void,
  ): StorageWatch;
  /** Forgets history up to and including `revision`: watches and exact lists from older revisions get `Expired`. */
  compact(revision: number): void;
  /** The oldest revision a watch may start from (the compacted revision). */
  compactedRevision(): number;
}

/**
 * Where a storage keeps its {@link SharedReads} (not part of {@link Storage}: a storage without
 * them is read through its copying methods).
 */
export const SHARED_READS = Symbol('crdgen.testing.sharedReads');

/**
 * Reads that hand out the stored objects themselves instead of copies, for the server's own
 * readers that only look at what they get and serialise it (GET and LIST answers, watch events,
 * existence checks). Stored objects are never changed in place, so what a reader holds stays
 * the state it read. A reader must not modify it.
 */
export interface SharedReads {
  get(key: string): KubeObject | undefined;
  list(prefix: string, atRevision?: number, page?: ListPage): StorageList;
  /** Whether any object's key starts with `prefix` (at the current revision). */
  any(prefix: string): boolean;
  watch(
    prefix: string,
    fromRevision: number,
    listener: (e: StorageEvent) => void,
    onExpired?: (e: StorageError) => void,
  ): StorageWatch;
}

function sharedOf(storage: Storage): SharedReads | undefined {
  return (storage as Storage & { [SHARED_READS]?: SharedReads })[SHARED_READS];
}

/** The object at `key` for a reader that does not modify it (the stored one where the storage shares it, else a copy). */
export async function readShared(storage: Storage, key: string): Promise<KubeObject | undefined> {
  const s = sharedOf(storage);
  return s ? s.get(key) : storage.get(key);
}

/** {@link Storage.list} for a reader that does not modify the items. */
export async function listShared(
  storage: Storage,
  prefix: string,
  atRevision?: number,
  page?: ListPage,
): Promise<StorageList> {
  const s = sharedOf(storage);
  return s ? s.list(prefix, atRevision, page) : storage.list(prefix, atRevision, page);
}

/** Whether any object's key starts with `prefix`. */
export async function anyUnder(storage: Storage, prefix: string): Promise<boolean> {
  const s = sharedOf(storage);
  return s ? s.any(prefix) : (await storage.list(prefix, undefined, { limit: 1 })).items.length > 0;
}

/** {@link Storage.watch} for a listener that does not modify the events. */
export function watchShared(
  storage: Storage,
  prefix: string,
  fromRevision: number,
  listener: (e: StorageEvent) => void,
  onExpired?: (e: StorageError) => void,
): StorageWatch {
  const s = sharedOf(storage);
  return s
    ? s.watch(prefix, fromRevision, listener, onExpired)
    : storage.watch(prefix, fromRevision, listener, onExpired);
}
