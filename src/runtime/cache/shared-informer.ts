// SharedInformer / SharedIndexInformer: the public face of an informer (client-go's
// tools/cache/shared_informer.go interfaces). The implementation is in
// shared-index-informer.ts.
import type { ResourceEventHandler } from './event-handler.js';
import type { IndexerReader, Indexers } from './indexer.js';
import type { StoreReader } from './store.js';

/** Returned by `addEventHandler`; pass it to `removeEventHandler`. */
export interface ResourceEventHandlerRegistration {
  /**
   * True once the informer has synced and this handler has been delivered every object
   * of the initial list (or, for a late handler, of the cache when it was added).
   */
  hasSynced(): boolean;
}

/** Options of `addEventHandler`. */
export interface HandlerOptions {
  /**
   * Resync period of this handler in ms (0: never). Values under 1 s become 1 s; after
   * the informer started, values under its resync check period become that period.
   * Unlike client-go, when the informer has no resync period and has not started, the
   * first handler asking for one sets it (client-go would silently never resync).
   */
  resyncPeriodMs?: number;
}

/** Called with each error that ends a list/watch cycle (the reflector then backs off and retries). */
export type WatchErrorHandler = (err: unknown, informer: string) => void;

/** A function the cache-sync wait polls (client-go's InformerSynced). */
export type InformerSynced = () => boolean;

/**
 * A shared informer: one list/watch of a resource feeding a local cache and any number
 * of handlers.
 */
export interface SharedInformer<T> {
  /**
   * Adds a handler, before or after `run`. A handler added after the cache is filled
   * first receives every cached object as an add (`isInInitialList` true).
   */
  addEventHandler(handler: ResourceEventHandler<T>, options?: HandlerOptions): ResourceEventHandlerRegistration;
  /** Removes a handler; its undelivered notifications are dropped. Unknown registrations are ignored. */
  removeEventHandler(registration: ResourceEventHandlerRegistration): void;
  /** The informer's cache, read-only. */
  getStore(): StoreReader<T>;
  /**
   * Runs the informer until `signal` aborts; resolves once everything has stopped.
   * An informer runs once: a second call rejects.
   */
  run(signal: AbortSignal): Promise<void>;
  /** True once the first list has been fully delivered to the cache. */
  hasSynced(): boolean;
  /** The resource version of the last list or watch event seen ('' before the first list). */
  lastSyncResourceVersion(): string;
  /** Replaces the default watch error handler (which logs to stderr). Only before `run`. */
  setWatchErrorHandler(handler: WatchErrorHandler): void;
  /**
   * Sets a function applied to every object before it is cached (e.g. drop managedFields). Only
   * before `run`. As in client-go (since 1.27) it sees each listed or watched object before
   * anything else does, so it may change the object in place; it must be idempotent, because a
   * resync passes cached objects to it again. Tombstones (DeletedFinalStateUnknown) skip it.
   */
  setTransform(transform: (obj: T) => T): void;
  /** True once `run` has finished. */
  isStopped(): boolean;
}

/** A shared informer whose cache has indices. */
export interface SharedIndexInformer<T> extends SharedInformer<T> {
  /** Adds indices to the cache (before or after `run`). */
  addIndexers(indexers: Indexers<T>): void;
  /** The informer's indexed cache, read-only. */
  getIndexer(): IndexerReader<T>;
}
