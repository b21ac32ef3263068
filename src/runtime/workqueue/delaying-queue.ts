// DelayingQueue: client-go's workqueue.DelayingInterface — `addAfter` on a timer heap
// with a single armed timer for the earliest item.
import type { Timer } from './clock.js';
import { BasicQueue, type Queue, type QueueConfig } from './queue.js';
import { TimerHeap } from './timer-heap.js';

/** A queue that can add an item after a delay. */
export interface DelayingQueue<T> extends Queue<T> {
  /**
   * Adds `item` after `delayMs` milliseconds (0 or less: now). An item already waiting
   * keeps the earlier of its two ready times. Ignored after shutdown.
   */
  addAfter(item: T, delayMs: number): void;
}

/**
 * The delaying queue. Invariants: `timer` is armed iff `waiting` is non-empty and the
 * queue is not shut down, and it is due at `armedAt` = the earliest ready time.
 */
export class BasicDelayingQueue<T> extends BasicQueue<T> implements DelayingQueue<T> {
  private readonly waiting = new TimerHeap<T>();
  private timer: Timer | undefined;
  private armedAt = Infinity;

  /** Creates an empty delaying queue. */
  constructor(config: QueueConfig = {}) {
    super(config);
  }

  /** See {@link DelayingQueue.addAfter}. */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    this.waiting.insert(item, this.clock.now() + delayMs);
    this.arm();
  }

  /** Number of items waiting for their delay to pass. */
  waitingCount(): number {
    return this.waiting.size;
  }

  /** Shuts down and drops the waiting items. */
  override shutDown(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.armedAt = Infinity;
    this.waiting.clear();
    super.shutDown();
  }

  /** Arms the timer for the earliest waiting item, unless it already is. */
  private arm(): void {
    const top = this.waiting.peek();
    if (!top) return;
    if (this.timer && this.armedAt <= top.readyAt) return;
    this.timer?.cancel();
    this.armedAt = top.readyAt;
    this.timer = this.clock.setTimer(() => this.fire(), top.readyAt - this.clock.now());
  }

  /** Moves every ready item into the queue, then re-arms. */
  private fire(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.clock.now();
    for (let top = this.waiting.peek(); top && top.readyAt <= now; top = this.waiting.peek()) {
      this.waiting.pop();
      this.add(top.item);
    }
    this.arm();
  }
}

/** Creates a delaying queue (client-go's `NewTypedDelayingQueueWithConfig`). */
export function newDelayingQueue<T>(config: QueueConfig = {}): DelayingQueue<T> {
  return new BasicDelayingQueue<T>(config);
}
