// PriorityQueue: a rate-limiting work queue whose ready items come out highest priority first,
// first-in first-out within a priority (controller-runtime's priorityqueue). A controller adds
// what an informer's initial list or a resync brings at LOW_PRIORITY, and watch events,
// requeues and explicit enqueues at NORMAL_PRIORITY: after a restart with a large backlog, a
// change made now is reconciled before the backlog is through.
import { realClock, type Clock, type Timer } from './clock.js';
import type { QueueConfig, QueueGetResult } from './queue.js';
import { QueueMetrics } from './queue-metrics.js';
import type { RateLimiter } from './rate-limiters.js';
import type { RateLimitingQueue } from './rate-limiting-queue.js';
import { TimerHeap } from './timer-heap.js';
import { getWorkqueueMetricsProvider, type PriorityGaugeMetric } from '../metrics/workqueue.js';

/** The priority of watch events, requeues and explicit enqueues (controller-runtime's default, 0). */
export const NORMAL_PRIORITY = 0;
/** The priority of adds from an informer's initial list and from resyncs (controller-runtime's LowPriority). */
export const LOW_PRIORITY = -100;

/** How an item is added. */
export interface AddOptions {
  /** Ready after this many ms (0 or less: now). */
  afterMs?: number;
  /** Ready after the rate limiter's delay for the item (the smaller of it and `afterMs` when both). */
  rateLimited?: boolean;
  /** Higher comes out first (default NORMAL_PRIORITY). */
  priority?: number;
}

/** What `getWithPriority` resolves to. */
export type PriorityGetResult<T> = QueueGetResult<T> & { priority: number };

const SHUTDOWN: PriorityGetResult<never> = Object.freeze({ item: undefined, shutdown: true as const, priority: 0 });

/**
 * The queue. Every item is in at most one of: a ready bucket (by priority), the waiting heap
 * (delayed), `processing` (handed out, not done), and then maybe `dirty` too (added again while
 * processed: ready again on `done`). An item added several times keeps the highest priority
 * and the earliest ready time. Invariants: `ready`'s buckets hold no processing item;
 * `waiters` is non-empty only while no bucket has an item.
 */
export class PriorityQueue<T> implements RateLimitingQueue<T> {
  private readonly clock: Clock;
  private readonly metrics: QueueMetrics<T> | undefined;
  private readonly depthByPriority: PriorityGaugeMetric | undefined;
  /** Ready items by priority; each bucket keeps insertion order. */
  private readonly ready = new Map<number, Set<T>>();
  /** The priorities that have a bucket, highest first. */
  private levels: number[] = [];
  /** The priority of each ready, waiting or dirty item. */
  private readonly priorityOf = new Map<T, number>();
  private readonly waiting = new TimerHeap<T>();
  private readonly processing = new Set<T>();
  /** Items added again while processed, with their priority. */
  private readonly dirty = new Map<T, number>();
  private readonly waiters: ((r: PriorityGetResult<T>) => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private timer: Timer | undefined;
  private armedAt = Infinity;
  private shutdownFlag = false;
  /** Items counted in the depth metrics (ready or dirty), with the priority they were counted at. */
  private readonly counted = new Map<T, number>();

  constructor(
    private readonly rateLimiter: RateLimiter<T>,
    config: QueueConfig = {},
  ) {
    this.clock = config.clock ?? realClock;
    const provider = config.metricsProvider ?? getWorkqueueMetricsProvider();
    if (config.name) {
      this.metrics = new QueueMetrics<T>(config.name, provider, this.clock);
      this.depthByPriority = provider.newDepthByPriorityMetric?.(config.name);
    }
  }

  /** Adds `items` with `options` (see {@link AddOptions}). Ignored after shutdown. */
  addWithOptions(options: AddOptions, ...items: T[]): void {
    if (this.shutdownFlag) return;
    const priority = options.priority ?? NORMAL_PRIORITY;
    for (const item of items) {
      let after = options.afterMs ?? 0;
      if (options.rateLimited) {
        const rl = this.rateLimiter.when(item);
        if (!(after > 0) || rl < after) after = rl;
        this.metrics?.retries.inc();
      }
      if (after > 0) this.addLater(item, priority, this.clock.now() + after);
      else this.addNow(item, priority);
    }
  }

  /** Adds `item` now at NORMAL_PRIORITY. */
  add(item: T): void {
    this.addWithOptions({}, item);
  }

  /** Adds `item` after `delayMs` at NORMAL_PRIORITY. */
  addAfter(item: T, delayMs: number): void {
    this.addWithOptions({ afterMs: delayMs }, item);
  }

  /** Adds `item` after the rate limiter's delay, at NORMAL_PRIORITY. */
  addRateLimited(item: T): void {
    this.addWithOptions({ rateLimited: true }, item);
  }

  /** Tells the rate limiter `item` succeeded. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** How many times `item` was rate limited since it was last forgotten. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Number of ready items (not counting delayed or processing ones). */
  len(): number {
    let n = 0;
    for (const b of this.ready.values()) n += b.size;
    return n;
  }

  /** Ready items per priority (a gauge's view, for tests and status pages). */
  depths(): Map<number, number> {
    return new Map(this.levels.map((p) => [p, this.ready.get(p)!.size]));
  }

  /** Number of items waiting for their delay. */
  waitingCount(): number {
    return this.waiting.size;
  }

  /** Number of items handed out and not yet done. */
  processingCount(): number {
    return this.processing.size;
  }

  /** The next item, highest priority first; `{ shutdown: true }` once shut down and empty. */
  get(): Promise<QueueGetResult<T>> {
    return this.getWithPriority();
  }

  /** Like `get`, with the priority the item came out at. */
  getWithPriority(): Promise<PriorityGetResult<T>> {
    const next = this.takeReady();
    if (next) return Promise.resolve(next);
    if (this.shutdownFlag) return Promise.resolve(SHUTDOWN);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks `item` processed; if it was added meanwhile it is ready again. */
  done(item: T): void {
    this.metrics?.done(item);
    if (!this.processing.delete(item)) return;
    const again = this.dirty.get(item);
    if (again !== undefined) {
      this.dirty.delete(item);
      this.priorityOf.delete(item);
      this.putReady(item, again);
    } else if (this.processing.size === 0 && this.drainWaiters.length > 0) {
      this.releaseDrainWaiters();
    }
  }

  /** Stops accepting items; waiting `get`s resolve shutdown. Delayed items are dropped. */
  shutDown(): void {
    this.shutdownFlag = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.armedAt = Infinity;
    this.waiting.clear();
    this.metrics?.stop();
    for (const w of this.waiters.splice(0)) w(SHUTDOWN);
    this.releaseDrainWaiters();
  }

  /** Like `shutDown`, then resolves once no item is being processed. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** True once shut down. */
  shuttingDown(): boolean {
    return this.shutdownFlag;
  }

  private addNow(item: T, priority: number): void {
    if (this.processing.has(item)) {
      const was = this.dirty.get(item);
      if (this.waiting.remove(item)) this.disarmIfIdle();
      const p = Math.max(priority, was ?? -Infinity, this.priorityOf.get(item) ?? -Infinity);
      this.priorityOf.delete(item);
      if (was === undefined) this.count(item, p);
      else if (p !== was) this.recount(item, p);
      this.dirty.set(item, p);
      return;
    }
    const current = this.priorityOf.get(item);
    if (current !== undefined && this.waiting.remove(item)) {
      // delayed: ready now, at the higher of the two priorities
      this.disarmIfIdle();
      this.priorityOf.delete(item);
      this.putReady(item, Math.max(priority, current));
      return;
    }
    if (current !== undefined) {
      // ready already: only a higher priority moves it
      if (priority > current) {
        this.ready.get(current)!.delete(item);
        this.dropEmpty(current);
        this.priorityOf.delete(item);
        this.recount(item, priority);
        this.insertReady(item, priority);
      }
      return;
    }
    this.putReady(item, priority);
  }

  private addLater(item: T, priority: number, readyAt: number): void {
    if (this.dirty.has(item)) {
      if (priority > this.dirty.get(item)!) {
        this.recount(item, priority);
        this.dirty.set(item, priority);
      }
      return;
    }
    const current = this.priorityOf.get(item);
    if (current !== undefined && !this.waiting.entryOf(item)) {
      // ready already: sooner than any delay; a higher priority still moves it
      if (priority > current) this.addNow(item, priority);
      return;
    }
    this.priorityOf.set(item, Math.max(priority, current ?? -Infinity));
    this.waiting.insert(item, readyAt);
    this.arm();
  }

  /** A ready item: counted (once: a dirty item was counted when added), then handed to a waiting worker or put in its bucket. */
  private putReady(item: T, priority: number): void {
    if (this.counted.has(item)) this.recount(item, priority);
    else this.count(item, priority);
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(this.handOut(item, priority));
      return;
    }
    this.insertReady(item, priority);
  }

  private insertReady(item: T, priority: number): void {
    let bucket = this.ready.get(priority);
    if (!bucket) {
      bucket = new Set();
      this.ready.set(priority, bucket);
      this.levels.push(priority);
      this.levels.sort((a, b) => b - a);
    }
    bucket.add(item);
    this.priorityOf.set(item, priority);
  }

  private dropEmpty(priority: number): void {
    if (this.ready.get(priority)?.size === 0) {
      this.ready.delete(priority);
      this.levels = this.levels.filter((p) => p !== priority);
    }
  }

  /** The first item of the highest non-empty bucket, handed out; undefined when none is ready. */
  private takeReady(): PriorityGetResult<T> | undefined {
    const top = this.levels[0];
    if (top === undefined) return undefined;
    const bucket = this.ready.get(top)!;
    const item = bucket.values().next().value as T;
    bucket.delete(item);
    this.dropEmpty(top);
    this.priorityOf.delete(item);
    return this.handOut(item, top);
  }

  private handOut(item: T, priority: number): PriorityGetResult<T> {
    this.uncount(item);
    this.metrics?.get(item);
    this.processing.add(item);
    return { item, shutdown: false, priority };
  }

  private count(item: T, priority: number): void {
    this.metrics?.add(item);
    this.depthByPriority?.inc(priority);
    this.counted.set(item, priority);
  }

  private recount(item: T, priority: number): void {
    const was = this.counted.get(item);
    if (was === undefined) return this.count(item, priority);
    this.depthByPriority?.dec(was);
    this.depthByPriority?.inc(priority);
    this.counted.set(item, priority);
  }

  private uncount(item: T): void {
    const was = this.counted.get(item);
    if (was === undefined) return;
    this.depthByPriority?.dec(was);
    this.counted.delete(item);
  }

  /** Arms the timer for the earliest delayed item, unless it already is. */
  private arm(): void {
    const top = this.waiting.peek();
    if (!top) return;
    if (this.timer && this.armedAt <= top.readyAt) return;
    this.timer?.cancel();
    this.armedAt = top.readyAt;
    this.timer = this.clock.setTimer(() => this.fire(), top.readyAt - this.clock.now());
  }

  /** Cancels the timer when nothing waits any more. */
  private disarmIfIdle(): void {
    if (this.waiting.size > 0 || !this.timer) return;
    this.timer.cancel();
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  /** Moves every delayed item that is due into the ready buckets, then re-arms. */
  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.clock.now();
    for (let top = this.waiting.peek(); top && top.readyAt <= now; top = this.waiting.peek()) {
      this.waiting.pop();
      const priority = this.priorityOf.get(top.item) ?? NORMAL_PRIORITY;
      this.priorityOf.delete(top.item);
      this.addNow(top.item, priority);
    }
    this.arm();
  }

  private releaseDrainWaiters(): void {
    const ws = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of ws) w();
  }
}
