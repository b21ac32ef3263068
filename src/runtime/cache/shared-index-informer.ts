// The shared index informer: a reflector feeding a DeltaFIFO, a loop popping deltas into
// the indexer, and listeners fanning notifications out to handlers (client-go's
// sharedIndexInformer + sharedProcessor + controller.processLoop).
import type { KubeObject } from '../meta/types.js';
import type { ListerWatcher } from '../client/types.js';
import { realClock, type Clock } from '../workqueue/clock.js';
import type { ReflectorMetrics } from '../metrics/reflector.js';
import type { BackoffManager } from './backoff.js';
import { DeltaFIFO, FIFOClosedError, type Deltas } from './delta-fifo.js';
import type { ResourceEventHandler } from './event-handler.js';
import type { IndexerReader, Indexers } from './indexer.js';
import { ProcessorListener, type Notification } from './processor-listener.js';
import { Reflector } from './reflector.js';
import type {
  HandlerOptions,
  ResourceEventHandlerRegistration,
  SharedIndexInformer,
  WatchErrorHandler,
} from './shared-informer.js';
import type { StoreReader } from './store.js';
import { newIndexer, type ThreadSafeStore } from './thread-safe-store.js';

/**
 * Keys the informer pops and applies in a row before it lets other work (I/O, timers)
 * run: large enough that a list costs a handful of event-loop turns, small enough that
 * a list of 100k objects does not hold the event loop for its whole length.
 */
export const POP_BATCH = 1000;

/** Handlers cannot ask for resyncs more often than this (client-go: 1 s). */
export const MINIMUM_RESYNC_PERIOD_MS = 1000;

/** Options of `newSharedIndexInformer`. Durations are milliseconds. */
export interface SharedIndexInformerOptions<T> {
  /** Default resync period of handlers (0: none; default 0). */
  resyncPeriodMs?: number;
  /** Extra indices (the namespace index is always there). */
  indexers?: Indexers<T>;
  /** Name in messages and metrics (default 'informer'). */
  name?: string;
  /** Time source (resync and backoff). */
  clock?: Clock;
  /** Reflector backoff (default: client-go's 800 ms → 30 s). */
  backoff?: BackoffManager;
  /** Random source for watch timeouts. */
  random?: () => number;
  /** Reflector list page size (see ReflectorOptions.pageSize). */
  pageSize?: number;
  /** Lower bound of watch timeouts (default 5 min). */
  minWatchTimeoutMs?: number;
  /** Reflector metrics hooks. */
  metrics?: ReflectorMetrics;
  /** Called when a handler throws or rejects (default: stderr). */
  onHandlerError?: (err: unknown) => void;
  /** Called with each failed list or watch (default: stderr); {@link SharedIndexInformer.setWatchErrorHandler} overrides it. */
  watchErrorHandler?: WatchErrorHandler;
}

function determineResyncPeriod(desired: number, check: number): number {
  if (desired <= 0 || check <= 0) return 0;
  return desired < check ? check : desired;
}

/**
 * The informer. Invariants: the indexer is only written by the pop loop (and nothing
 * else runs between a pop and its processing); every notification is handed to the
 * listeners in the order the indexer changed.
 */
class DefaultSharedIndexInformer<T extends KubeObject> implements SharedIndexInformer<T> {
  /** The cache (a ThreadSafeStore keyed like the queue, so popped keys can be used as is). */
  private readonly indexer: ThreadSafeStore<T>;
  private readonly indexerReader: IndexerReader<T>;
  private readonly listeners = new Set<ProcessorListener<T>>();
  private syncingListeners: ProcessorListener<T>[] = [];
  private readonly clock: Clock;
  private readonly defaultResyncMs: number;
  private resyncCheckPeriodMs: number;
  private transform: ((obj: T) => T) | undefined;
  private watchErrorHandler: WatchErrorHandler | undefined;
  private fifo: DeltaFIFO<T> | undefined;
  private reflector: Reflector<T> | undefined;
  private started = false;
  private stopped = false;
  private readonly onHandlerError: (err: unknown) => void;

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly options: SharedIndexInformerOptions<T>,
  ) {
    this.indexer = newIndexer<T>(options.indexers ?? {});
    this.indexerReader = this.indexer.reader();
    this.clock = options.clock ?? realClock;
    this.defaultResyncMs = options.resyncPeriodMs ?? 0;
    this.resyncCheckPeriodMs = this.defaultResyncMs;
    const name = options.name ?? 'informer';
    this.onHandlerError =
      options.onHandlerError ??
      ((err) => console.error(`${name}: event handler failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  addEventHandler(handler: ResourceEventHandler<T>, options: HandlerOptions = {}): ResourceEventHandlerRegistration {
    if (this.stopped) throw new Error('handler was not added: the informer has stopped');
    let resync = options.resyncPeriodMs ?? this.defaultResyncMs;
    if (resync > 0) {
      if (resync < MINIMUM_RESYNC_PERIOD_MS) resync = MINIMUM_RESYNC_PERIOD_MS;
      if (resync < this.resyncCheckPeriodMs) {
        if (this.started) {
          resync = this.resyncCheckPeriodMs;
        } else {
          this.resyncCheckPeriodMs = resync;
          for (const l of this.listeners) l.resyncPeriodMs = determineResyncPeriod(l.resyncPeriodMs, resync);
        }
      } else if (this.resyncCheckPeriodMs === 0 && !this.started) {
        this.resyncCheckPeriodMs = resync;
      }
    }
    const listener = new ProcessorListener<T>(
      handler,
      determineResyncPeriod(resync, this.resyncCheckPeriodMs),
      () => this.hasSynced(),
      this.onHandlerError,
    );
    listener.nextResync = this.clock.now() + listener.resyncPeriodMs;
    this.listeners.add(listener);
    if (this.started) {
      listener.start();
      // A late handler first sees the cache's current content, as adds. Nothing can
      // change the indexer while this synchronous loop runs.
      for (const obj of this.indexer.list()) listener.add({ kind: 'Add', obj, isInInitialList: true });
    }
    return listener;
  }

  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    const l = registration as ProcessorListener<T>;
    if (!this.listeners.delete(l)) return;
    this.syncingListeners = this.syncingListeners.filter((x) => x !== l);
    void l.stop();
  }

  getStore(): StoreReader<T> {
    return this.indexerReader;
  }

  getIndexer(): IndexerReader<T> {
    return this.indexerReader;
  }

  addIndexers(indexers: Indexers<T>): void {
    this.indexer.addIndexers(indexers);
  }

  hasSynced(): boolean {
    return this.fifo?.hasSynced() ?? false;
  }

  lastSyncResourceVersion(): string {
    return this.reflector?.lastSyncResourceVersion() ?? '';
  }

  setWatchErrorHandler(handler: WatchErrorHandler): void {
    if (this.started) throw new Error('setWatchErrorHandler: the informer has already started');
    this.watchErrorHandler = handler;
  }

  setTransform(transform: (obj: T) => T): void {
    if (this.started) throw new Error('setTransform: the informer has already started');
    this.transform = transform;
  }

  isStopped(): boolean {
    return this.stopped;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error('the informer has already been started; an informer runs once');
    this.started = true;
    const fifo = new DeltaFIFO<T>({
      knownObjects: this.indexer,
      emitDeltaTypeReplaced: true,
      ...(this.transform ? { transformer: this.transform } : {}),
    });
    this.fifo = fifo;
    const o = this.options;
    this.reflector = new Reflector<T>(this.lw, fifo, {
      name: o.name ?? 'informer',
      resyncPeriodMs: this.resyncCheckPeriodMs,
      shouldResync: () => this.shouldResync(),
      clock: this.clock,
      ...(o.backoff ? { backoff: o.backoff } : {}),
      ...(o.random ? { random: o.random } : {}),
      ...(o.pageSize !== undefined ? { pageSize: o.pageSize } : {}),
      ...(o.minWatchTimeoutMs !== undefined ? { minWatchTimeoutMs: o.minWatchTimeoutMs } : {}),
      ...(o.metrics ? { metrics: o.metrics } : {}),
      ...((this.watchErrorHandler ?? o.watchErrorHandler)
        ? { watchErrorHandler: this.watchErrorHandler ?? o.watchErrorHandler }
        : {}),
    });
    for (const l of this.listeners) l.start();
    const onAbort = (): void => fifo.close();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) fifo.close();
    const reflectorDone = this.reflector.run(signal);
    const process = (deltas: Deltas<T>, initial: boolean, key: string): void => this.handleDeltas(deltas, initial, key);
    try {
      while (!signal.aborted) {
        try {
          // A batch of keys at a time, then one macrotask turn so I/O and timers interleave.
          if ((await fifo.popBatch(process, POP_BATCH)) === POP_BATCH) await yieldToEventLoop();
        } catch (err) {
          if (err instanceof FIFOClosedError) break;
          this.onHandlerError(err);
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      await reflectorDone;
      this.stopped = true;
      await Promise.all(Array.from(this.listeners, (l) => l.stop()));
    }
  }

  /** Applies one key's deltas to the indexer and notifies (client-go's processDeltas). */
  private handleDeltas(deltas: Deltas<T>, isInInitialList: boolean, key: string): void {
    for (const d of deltas) {
      if (d.type === 'Deleted') {
        this.indexer.deleteByKey(key);
        this.distribute({ kind: 'Delete', obj: d.object }, false);
        continue;
      }
      const obj = d.object as T;
      const old = this.indexer.putByKey(key, obj);
      if (old !== undefined) {
        // A relist that did not change an object is a resync, not an update.
        const isSync =
          d.type === 'Sync' ||
          (d.type === 'Replaced' && old.metadata?.resourceVersion === obj.metadata?.resourceVersion);
        this.distribute({ kind: 'Update', oldObj: old, newObj: obj }, isSync);
      } else {
        this.distribute({ kind: 'Add', obj, isInInitialList }, false);
      }
    }
  }

  private distribute(n: Notification<T>, sync: boolean): void {
    if (sync) for (const l of this.syncingListeners) l.add(n);
    else for (const l of this.listeners) l.add(n);
  }

  /** Called by the reflector at each resync tick: picks the listeners due for one. */
  private shouldResync(): boolean {
    const now = this.clock.now();
    const due: ProcessorListener<T>[] = [];
    for (const l of this.listeners) {
      if (l.resyncPeriodMs > 0 && now >= l.nextResync) {
        due.push(l);
        l.nextResync = now + l.resyncPeriodMs;
      }
    }
    this.syncingListeners = due;
    return due.length > 0;
  }
}

/** Resolves after the event loop has run its pending I/O callbacks and timers. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Creates a shared index informer over `lw` (client-go's `NewSharedIndexInformer`).
 * Objects are keyed `namespace/name`; the namespace index is built in.
 */
export function newSharedIndexInformer<T extends KubeObject>(
  lw: ListerWatcher<T>,
  options: SharedIndexInformerOptions<T> = {},
): SharedIndexInformer<T> {
  return new DefaultSharedIndexInformer<T>(lw, options);
}
