// DeltaFIFO: client-go's queue between a reflector and an informer. Each key holds the
// list of changes (deltas) not yet processed; a key is queued once however many deltas
// it gathers, and relists turn vanished objects into DeletedFinalStateUnknown deletes.
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { deletionHandlingMetaNamespaceKeyFunc, type KeyFunc, type StoreReader, type StoreWriter } from './store.js';
import { RingBuffer } from '../workqueue/ring-buffer.js';

/** The kind of change a delta records. `Replaced` comes from a relist, `Sync` from a resync. */
export type DeltaType = 'Added' | 'Updated' | 'Deleted' | 'Replaced' | 'Sync';

/** One change of one object. `Deleted` deltas may carry a tombstone. */
export interface Delta<T> {
  readonly type: DeltaType;
  readonly object: T | DeletedFinalStateUnknown<T>;
}

/** The pending changes of one object, oldest first; never empty when popped. */
export type Deltas<T> = Delta<T>[];

/**
 * Processes one popped key's deltas; `isInInitialList` is true for the first list's
 * items; `key` is the queue's key of the object.
 */
export type PopProcessFunc<T> = (deltas: Deltas<T>, isInInitialList: boolean, key: string) => void;

/** Thrown by `pop` once the queue is closed. */
export class FIFOClosedError extends Error {
  override readonly name = 'FIFOClosedError';
  /** The queue was closed. */
  constructor() {
    super('DeltaFIFO: queue closed');
  }
}

/** Options of a DeltaFIFO. */
export interface DeltaFIFOOptions<T> {
  /** Key of an object; default `deletionHandlingMetaNamespaceKeyFunc`. */
  keyFunction?: KeyFunc;
  /**
   * The store the consumer keeps (the informer's indexer). Lets deletes of unknown
   * objects be dropped and lets relists find objects that vanished.
   */
  knownObjects?: Pick<StoreReader<T>, 'getByKey' | 'listKeys'>;
  /** Record relisted objects as `Replaced` (true for informers) instead of `Sync`. */
  emitDeltaTypeReplaced?: boolean;
  /** Applied to every object (not to tombstones) as it enters the queue. */
  transformer?: (obj: T) => T;
}

/**
 * The delta queue. Invariants: `queue` holds each key of `items` exactly once, in
 * first-change order; `items` has no empty delta list; `initialPopulationCount` counts
 * the keys of the first `replace` (plus its deletions) not yet popped.
 */
export class DeltaFIFO<T> implements StoreWriter<T> {
  private readonly items = new Map<string, Deltas<T>>();
  private readonly queue = new RingBuffer<string>();
  private populated = false;
  private initialPopulationCount = 0;
  private closed = false;
  private waiters: (() => void)[] = [];
  private readonly keyFunc: KeyFunc;
  private readonly knownObjects: DeltaFIFOOptions<T>['knownObjects'];
  private readonly emitDeltaTypeReplaced: boolean;
  private readonly transformer: ((obj: T) => T) | undefined;

  /** An empty queue. */
  constructor(options: DeltaFIFOOptions<T> = {}) {
    this.keyFunc = options.keyFunction ?? deletionHandlingMetaNamespaceKeyFunc;
    this.knownObjects = options.knownObjects;
    this.emitDeltaTypeReplaced = options.emitDeltaTypeReplaced ?? false;
    this.transformer = options.transformer;
  }

  /** The key of an object or tombstone. */
  keyOf(obj: T | DeletedFinalStateUnknown<T>): string {
    return this.keyFunc(obj);
  }

  /** True once the first `replace`, and every item it queued, has been popped; or after any add. */
  hasSynced(): boolean {
    return this.populated && this.initialPopulationCount === 0;
  }

  /** Queues an Added delta. */
  add(obj: T): void {
    this.populated = true;
    this.queueAction('Added', obj);
  }

  /** Queues an Updated delta. */
  update(obj: T): void {
    this.populated = true;
    this.queueAction('Updated', obj);
  }

  /**
   * Queues a Deleted delta — unless the object is neither queued nor known to the
   * consumer's store (it is already gone: nothing to tell).
   */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const key = this.keyOf(obj);
    this.populated = true;
    const queued = this.items.has(key);
    if (this.knownObjects === undefined) {
      if (!queued) return;
    } else if (!queued && this.knownObjects.getByKey(key) === undefined) {
      return;
    }
    this.queueAction('Deleted', obj);
  }

  /**
   * A relist: queues each object as Replaced (or Sync), then a Deleted tombstone for
   * every key queued or known that is not in `list`.
   */
  replace(list: T[], _resourceVersion: string): void {
    const action: DeltaType = this.emitDeltaTypeReplaced ? 'Replaced' : 'Sync';
    // Only keys queued before this call, or known to the consumer, can have vanished.
    const queuedBefore = this.items.size > 0 ? Array.from(this.items.keys()) : [];
    const known = this.knownObjects ? this.knownObjects.listKeys() : [];
    const keys = queuedBefore.length > 0 || known.length > 0 ? new Set<string>() : undefined;
    let listed = 0;
    for (const obj of list) {
      const key = this.keyOf(obj);
      keys?.add(key);
      if (this.queueAction(action, obj, key)) listed++;
    }
    let queuedDeletions = 0;
    if (keys) {
      // Objects still queued that the new list lacks: deleted while we were not watching.
      for (const key of queuedBefore) {
        if (keys.has(key)) continue;
        const deltas = this.items.get(key) as Deltas<T>;
        let last = deltas[deltas.length - 1].object;
        if (last instanceof DeletedFinalStateUnknown) last = last.obj;
        queuedDeletions++;
        this.queueAction('Deleted', new DeletedFinalStateUnknown(key, last), key);
      }
      for (const key of known) {
        if (keys.has(key) || this.items.has(key)) continue;
        const last = this.knownObjects?.getByKey(key);
        if (last === undefined) continue;
        queuedDeletions++;
        this.queueAction('Deleted', new DeletedFinalStateUnknown(key, last), key);
      }
    }
    if (!this.populated) {
      this.populated = true;
      // Without a key set nothing was queued before, so each distinct key was queued once.
      this.initialPopulationCount = (keys ? keys.size : listed) + queuedDeletions;
    }
  }

  /**
   * Queues a Sync delta for every object of the consumer's store that has no pending
   * delta (a pending one will deliver a fresher state anyway).
   */
  resync(): void {
    if (!this.knownObjects) return;
    for (const key of this.knownObjects.listKeys()) {
      if (this.items.has(key)) continue;
      const obj = this.knownObjects.getByKey(key);
      if (obj !== undefined) this.queueAction('Sync', obj, key);
    }
  }

  /**
   * Waits for a key, removes it with its deltas and calls `process` on them
   * synchronously (so nothing else touches the queue or the consumer's store between
   * the pop and the processing). Rejects with FIFOClosedError once closed.
   */
  async pop(process: PopProcessFunc<T>): Promise<void> {
    await this.popBatch(process, 1);
  }

  /**
   * Like {@link pop}, but once a key is there pops and processes up to `max` keys in a
   * row, one at a time, without an async hop between them; resolves with the number
   * processed. If `process` throws, the batch stops there (later keys stay queued) and
   * the error is thrown. Rejects with FIFOClosedError once closed and empty.
   */
  async popBatch(process: PopProcessFunc<T>, max: number): Promise<number> {
    while (this.queue.size === 0) {
      if (this.closed) throw new FIFOClosedError();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    let n = 0;
    while (n < max && this.queue.size > 0) {
      const key = this.queue.shift() as string;
      const deltas = this.items.get(key) as Deltas<T>;
      this.items.delete(key);
      const isInInitialList = this.initialPopulationCount > 0;
      if (isInInitialList) this.initialPopulationCount--;
      n++;
      process(deltas, isInInitialList, key);
    }
    return n;
  }

  /** Ends the queue: pending and later `pop`s reject with FIFOClosedError once it is empty. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /** True once `close` was called. */
  isClosed(): boolean {
    return this.closed;
  }

  /** The pending deltas of `key` (a copy), or undefined. */
  getByKey(key: string): Deltas<T> | undefined {
    const d = this.items.get(key);
    return d ? d.slice() : undefined;
  }

  /** Keys with pending deltas, in queue order. */
  listKeys(): string[] {
    return this.queue.toArray();
  }

  /** Number of keys waiting. */
  len(): number {
    return this.queue.size;
  }

  /** Appends a delta to the key's list; true when the key was not queued before. */
  private queueAction(type: DeltaType, obj: T | DeletedFinalStateUnknown<T>, key?: string): boolean {
    const id = key ?? this.keyOf(obj);
    if (this.transformer && !(obj instanceof DeletedFinalStateUnknown)) obj = this.transformer(obj);
    const old = this.items.get(id);
    if (old) {
      old.push({ type, object: obj });
      dedupDeltas(old);
      return false;
    }
    this.items.set(id, [{ type, object: obj }]);
    this.queue.push(id);
    this.wake();
    return true;
  }

  private wake(): void {
    const ws = this.waiters;
    if (ws.length === 0) return;
    this.waiters = [];
    for (const w of ws) w();
  }
}

/**
 * Collapses two trailing deletes into one (client-go's dedupDeltas): the one with more
 * information wins — the real object over a DeletedFinalStateUnknown.
 */
function dedupDeltas<T>(deltas: Deltas<T>): void {
  const n = deltas.length;
  if (n < 2) return;
  const a = deltas[n - 2];
  const b = deltas[n - 1];
  if (a.type !== 'Deleted' || b.type !== 'Deleted') return;
  deltas.length = n - 2;
  deltas.push(b.object instanceof DeletedFinalStateUnknown ? a : b);
}
