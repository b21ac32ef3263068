// Queue: client-go's workqueue.Interface — a de-duplicating work queue in which an item
// is never processed by two workers at once.
import { realClock, type Clock } from './clock.js';
import { QueueMetrics } from './queue-metrics.js';
import { RingBuffer } from './ring-buffer.js';
import { getWorkqueueMetricsProvider, type WorkqueueMetricsProvider } from '../metrics/workqueue.js';

/** What `get()` resolves to: an item to process, or the news that the queue shut down. */
export type QueueGetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

/**
 * A work queue with client-go's contract. Items are compared with SameValueZero (use
 * strings such as `namespace/name` keys, as client-go controllers do).
 * - `add` of an item already waiting is a no-op;
 * - `add` of an item being processed marks it dirty; it is queued again (once) on `done`;
 * - `get` hands an item to exactly one worker until that worker calls `done`.
 */
export interface Queue<T> {
  /** Queues `item` unless it is already waiting; ignored after shutdown. */
  add(item: T): void;
  /** Number of items waiting (not counting those being processed). */
  len(): number;
  /**
   * Resolves with the next item, waiting until one is available; resolves
   * `{ shutdown: true }` once the queue is shut down and empty. Items queued before
   * shutdown are still handed out.
   */
  get(): Promise<QueueGetResult<T>>;
  /** Marks `item` as processed; if it was re-added meanwhile, it is queued again. */
  done(item: T): void;
  /** Stops accepting items; pending and future `get`s resolve shutdown once the queue is empty. */
  shutDown(): void;
  /**
   * Like `shutDown`, then resolves once no item is being processed (every `get` so far
   * has had its `done`), as client-go's ShutDownWithDrain.
   */
  shutDownWithDrain(): Promise<void>;
  /** True once `shutDown` or `shutDownWithDrain` was called. */
  shuttingDown(): boolean;
}

/** Options of every queue. */
export interface QueueConfig {
  /** Metrics name; metrics are recorded only for named queues. */
  name?: string;
  /** Metrics provider; default: the one set by `setWorkqueueMetricsProvider`. */
  metricsProvider?: WorkqueueMetricsProvider;
  /** Time source (tests inject a FakeClock). */
  clock?: Clock;
}

const SHUTDOWN: QueueGetResult<never> = Object.freeze({ item: undefined, shutdown: true as const });
const SHUTDOWN_PROMISE: Promise<QueueGetResult<never>> = Promise.resolve(SHUTDOWN);

/**
 * The basic queue. Invariants:
 * - `queue` has no duplicates; each of its items is in `dirty` and not in `processing`;
 * - an item in both `dirty` and `processing` was re-added while being processed:
 *   `done` puts it back in `queue`;
 * - `waiters` is non-empty only while `queue` is empty and the queue is not shut down.
 */
export class BasicQueue<T> implements Queue<T> {
  /** The time source. */
  protected readonly clock: Clock;
  private readonly queue = new RingBuffer<T>();
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiters = new RingBuffer<(r: QueueGetResult<T>) => void>(4);
  private drainWaiters: (() => void)[] = [];
  private shutdownFlag = false;
  /** Metrics recorder; undefined for unnamed queues. */
  protected readonly metrics: QueueMetrics<T> | undefined;

  /** Creates an empty queue. */
  constructor(config: QueueConfig = {}) {
    this.clock = config.clock ?? realClock;
    const provider = config.metricsProvider ?? getWorkqueueMetricsProvider();
    this.metrics = config.name ? new QueueMetrics<T>(config.name, provider, this.clock) : undefined;
  }

  /** See {@link Queue.add}. */
  add(item: T): void {
    if (this.shutdownFlag || this.dirty.has(item)) return;
    this.metrics?.add(item);
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  /** See {@link Queue.len}. */
  len(): number {
    return this.queue.size;
  }

  /** See {@link Queue.get}. */
  get(): Promise<QueueGetResult<T>> {
    if (this.queue.size > 0) return Promise.resolve(this.take(this.queue.shift() as T));
    if (this.shutdownFlag) return SHUTDOWN_PROMISE;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** See {@link Queue.done}. */
  done(item: T): void {
    this.metrics?.done(item);
    if (!this.processing.delete(item)) return;
    if (this.dirty.has(item)) {
      this.enqueue(item);
    } else if (this.processing.size === 0 && this.drainWaiters.length > 0) {
      this.releaseDrainWaiters();
    }
  }

  /** See {@link Queue.shutDown}. */
  shutDown(): void {
    this.shutdownFlag = true;
    this.metrics?.stop();
    let w: ((r: QueueGetResult<T>) => void) | undefined;
    while ((w = this.waiters.shift())) w(SHUTDOWN);
    // client-go: ShutDown after ShutDownWithDrain stops waiting for the drain.
    this.releaseDrainWaiters();
  }

  /** See {@link Queue.shutDownWithDrain}. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** See {@link Queue.shuttingDown}. */
  shuttingDown(): boolean {
    return this.shutdownFlag;
  }

  /** Number of items handed out and not yet done. */
  processingCount(): number {
    return this.processing.size;
  }

  /** Puts a dirty item in line, or straight into a waiting worker's hands. */
  private enqueue(item: T): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.take(item));
    else this.queue.push(item);
  }

  /** Moves an item from dirty to processing and wraps it for `get`. */
  private take(item: T): QueueGetResult<T> {
    this.metrics?.get(item);
    this.processing.add(item);
    this.dirty.delete(item);
    return { item, shutdown: false };
  }

  private releaseDrainWaiters(): void {
    const ws = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of ws) w();
  }
}

/** Creates a work queue (client-go's `workqueue.NewTypedWithConfig`). */
export function newQueue<T>(config: QueueConfig = {}): Queue<T> {
  return new BasicQueue<T>(config);
}
