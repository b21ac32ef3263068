// SharedInformer / SharedIndexInformer: the public face of an informer (client-go's
// tools/cache/shared_informer.go interfaces) and the contract it keeps, stated on
// {@link SharedInformer}. The implementation is in shared-index-informer.ts.
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
 * A shared informer: one list/watch of a resource (in one namespace or all, optionally narrowed
 * by label and field selectors) feeding a local cache and any number of handlers.
 *
 * **Identity.** An object is its key, `namespace/name` (`name` when cluster-scoped); the uid is
 * not part of it. An object deleted and created again under the same name while the informer was
 * not watching (it learns of both from one relist) reaches handlers as one update from the old
 * object to the new; compare `metadata.uid` in `onUpdate` to tell.
 *
 * **The cache is eventually consistent with the server.** It starts empty and fills while `run`
 * runs. Unless the informer stops or it cannot reach the server for good, every state the server
 * gives an object is eventually in the cache, or a later state of it; an object deleted on the
 * server is eventually gone from the cache. The states the cache holds of one object are some
 * of the server's states of it, in the server's order (states may be skipped); nothing is
 * promised about the order between different objects. A read of the cache (a get, a list, an
 * index query) sees one moment of it: JavaScript runs it to the end before the cache changes.
 *
 * **Notifications.** Every change of the cache is offered to every handler, after the cache and
 * its indices have changed: by the time a handler runs, the cache may already hold a later
 * state. Each handler has its own unbounded buffer and gets its notifications one at a time, in
 * the order the cache changed; a handler that returns a promise gets the next one when it
 * settles. Handlers do not wait for each other and nothing orders one handler's notifications
 * against another's. A slow handler only grows its own buffer: handle each notification quickly
 * and hand real work to a workqueue (what a controller's event handlers do). A handler that
 * throws or rejects is reported (`onHandlerError`) and gets the next notification as usual.
 *
 * **Added late.** A handler added before `run` receives the first list as adds with
 * `isInInitialList` true, then every change. A handler added while the informer runs first
 * receives every object in the cache at that moment as an add (`isInInitialList` true), then
 * every later change; its registration's `hasSynced` turns true once those adds are delivered.
 *
 * **Deletes.** A delete carries the last state the cache held; when the informer learned of the
 * deletion from a relist rather than a watch event, it carries a `DeletedFinalStateUnknown`
 * tombstone holding that state instead.
 *
 * **Resync.** A handler with a resync period receives, at that period, an update for every object
 * in the cache with the cached object as both old and new (same resource version). A resync reads
 * the cache only, never the server. Its period is at least 1 s and at least the informer's resync
 * check period (see {@link HandlerOptions}); the time between two resyncs may be longer under load.
 *
 * **Objects are shared.** Every notification and every read hands out the cache's own object,
 * shared with every other handler and reader: never change it. Copy it first (the generated
 * `deepCopy<Kind>`, `copyJson`, `structuredClone`) and write changes to the server, not the cache.
 */
export interface SharedInformer<T> {
  /**
   * Adds a handler, before or after `run` (not after the informer stopped: that throws). Its
   * notifications follow the contract above; `options.resyncPeriodMs` asks for resyncs.
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
  /**
   * True once the first list has been fully delivered to the cache (not to the handlers: a
   * handler's own registration says when it has seen every object of that list).
   */
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
