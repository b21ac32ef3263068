// Store: the cache's key/value contract (client-go tools/cache Store), split into a
// reader (what listers see) and a writer (what a reflector feeds), plus the key functions.
import type { KubeObject } from '../meta/types.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';

/** Computes an object's store key; throws a KeyError when it cannot. */
export type KeyFunc = (obj: unknown) => string;

/** An object has no usable key (no metadata, or no name). */
export class KeyError extends Error {
  override readonly name = 'KeyError';
}

/**
 * Read side of a store. Returned objects are the cached ones, shared with every other
 * reader: never mutate them (deep-copy first), as client-go's lister contract says.
 */
export interface StoreReader<T> {
  /** The object stored under `key`, or undefined. */
  getByKey(key: string): T | undefined;
  /** The stored object with the same key as `obj`, or undefined. */
  get(obj: T): T | undefined;
  /** Every stored object (a fresh array; order unspecified). */
  list(): T[];
  /** Every key (a fresh array; order unspecified). */
  listKeys(): string[];
}

/** Write side of a store: what a Reflector drives. */
export interface StoreWriter<T> {
  /** Inserts an object (ADDED). */
  add(obj: T): void;
  /** Replaces an object (MODIFIED). */
  update(obj: T): void;
  /** Removes an object (DELETED); tombstones are accepted. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void;
  /** Replaces the whole content with a fresh list taken at `resourceVersion` (a relist). */
  replace(list: T[], resourceVersion: string): void;
  /** Re-delivers the current content as Sync (meaningful for queues; no-op for caches). */
  resync(): void;
}

/**
 * A key/value store of objects. In an async world "thread-safe" means: every method is
 * synchronous and applies its whole change at once, so a reader never sees half of one.
 */
export interface Store<T> extends StoreReader<T>, StoreWriter<T> {}

/**
 * client-go's MetaNamespaceKeyFunc: `namespace/name`, or `name` for cluster-scoped
 * objects. A string is taken to be a key already.
 */
export function metaNamespaceKeyFunc(obj: unknown): string {
  if (typeof obj === 'string') return obj;
  const meta = (obj as KubeObject | null | undefined)?.metadata;
  if (typeof obj !== 'object' || obj === null || typeof meta !== 'object' || meta === null) {
    throw new KeyError('object has no metadata: cannot compute its key');
  }
  if (typeof meta.name !== 'string' || meta.name === '') {
    throw new KeyError('object has no metadata.name: cannot compute its key');
  }
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** Like metaNamespaceKeyFunc, but a DeletedFinalStateUnknown yields its recorded key. */
export function deletionHandlingMetaNamespaceKeyFunc(obj: unknown): string {
  if (obj instanceof DeletedFinalStateUnknown) return obj.key;
  return metaNamespaceKeyFunc(obj);
}

/** Splits a `namespace/name` or `name` key; throws a KeyError on any other shape. */
export function splitMetaNamespaceKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1 && parts[0] !== '') return { namespace: '', name: parts[0] };
  if (parts.length === 2 && parts[1] !== '') return { namespace: parts[0], name: parts[1] };
  throw new KeyError(`unexpected key format: ${JSON.stringify(key)}`);
}
