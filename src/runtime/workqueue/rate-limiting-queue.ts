// RateLimitingQueue: client-go's workqueue.RateLimitingInterface — a delaying queue
// whose re-adds wait as long as a RateLimiter says.
import { BasicDelayingQueue, type DelayingQueue } from './delaying-queue.js';
import type { QueueConfig } from './queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** The queue a controller uses: add, get, done, plus rate-limited retries. */
export interface RateLimitingQueue<T> extends DelayingQueue<T> {
  /** Adds `item` after the rate limiter's delay for it (one more retry). */
  addRateLimited(item: T): void;
  /** Tells the rate limiter `item` succeeded; does not remove it from the queue. */
  forget(item: T): void;
  /** How many times `item` was rate limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/** The rate-limiting queue. */
export class BasicRateLimitingQueue<T> extends BasicDelayingQueue<T> implements RateLimitingQueue<T> {
  /** A queue retrying through `rateLimiter`. */
  constructor(
    private readonly rateLimiter: RateLimiter<T>,
    config: QueueConfig = {},
  ) {
    super(config);
  }

  /** See {@link RateLimitingQueue.addRateLimited}. */
  addRateLimited(item: T): void {
    if (this.shuttingDown()) return;
    this.metrics?.retries.inc();
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** See {@link RateLimitingQueue.forget}. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** See {@link RateLimitingQueue.numRequeues}. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}

/**
 * Creates a rate-limiting queue (client-go's `NewTypedRateLimitingQueueWithConfig`);
 * the limiter defaults to `defaultControllerRateLimiter()` on the queue's clock.
 */
export function newRateLimitingQueue<T>(rateLimiter?: RateLimiter<T>, config: QueueConfig = {}): RateLimitingQueue<T> {
  return new BasicRateLimitingQueue<T>(rateLimiter ?? defaultControllerRateLimiter<T>(config.clock), config);
}
