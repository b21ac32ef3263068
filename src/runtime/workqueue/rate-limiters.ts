// Rate limiters of the workqueue (client-go's util/workqueue/default_rate_limiters.go):
// per-item exponential, token bucket, fast-slow, max-of, and the controller default.
import { realClock, type Clock } from './clock.js';

/** Decides how long an item waits before it is retried. Durations are milliseconds. */
export interface RateLimiter<T> {
  /** How long `item` should wait now; counts as one more failure for per-item limiters. */
  when(item: T): number;
  /** Stops tracking `item` (it succeeded): its next `when` starts from scratch. */
  forget(item: T): void;
  /** How many times `item` has been rate limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * Per-item exponential backoff: `baseDelayMs · 2^failures`, capped at `maxDelayMs`
 * (client-go's ItemExponentialFailureRateLimiter; the controller default is 5 ms → 1000 s).
 */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  /** Failures per item; invariant: absent means 0. */
  private readonly failures = new Map<T, number>();

  /** `baseDelayMs` for the first failure, doubling, never above `maxDelayMs`. */
  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {
    if (!(baseDelayMs >= 0) || !(maxDelayMs >= 0)) throw new RangeError('rate limiter delays must be ≥ 0');
  }

  /** See {@link RateLimiter.when}. */
  when(item: T): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    const backoff = this.baseDelayMs * 2 ** exp;
    return Number.isFinite(backoff) && backoff <= this.maxDelayMs ? backoff : this.maxDelayMs;
  }

  /** See {@link RateLimiter.forget}. */
  forget(item: T): void {
    this.failures.delete(item);
  }

  /** See {@link RateLimiter.numRequeues}. */
  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/**
 * `fastDelayMs` for the first `maxFastAttempts` tries of an item, then `slowDelayMs`
 * (client-go's ItemFastSlowRateLimiter).
 */
export class ItemFastSlowRateLimiter<T> implements RateLimiter<T> {
  private readonly attempts = new Map<T, number>();

  /** See the class description. */
  constructor(
    private readonly fastDelayMs: number,
    private readonly slowDelayMs: number,
    private readonly maxFastAttempts: number,
  ) {}

  /** See {@link RateLimiter.when}. */
  when(item: T): number {
    const n = (this.attempts.get(item) ?? 0) + 1;
    this.attempts.set(item, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }

  /** See {@link RateLimiter.forget}. */
  forget(item: T): void {
    this.attempts.delete(item);
  }

  /** See {@link RateLimiter.numRequeues}. */
  numRequeues(item: T): number {
    return this.attempts.get(item) ?? 0;
  }
}

/**
 * An overall token bucket shared by all items (client-go's BucketRateLimiter over
 * `rate.Limiter`): `qps` tokens per second, at most `burst` saved up, starting full.
 * Each `when` takes a token, reserving a future one when none is left, and returns
 * the wait until that token exists. Items are not tracked: `numRequeues` is 0.
 */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  /** Tokens available at `last`; negative when future tokens are reserved. */
  private tokens: number;
  private last: number;

  /** A bucket of `burst` tokens refilled at `qps` per second. */
  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (!(qps > 0) || !(burst >= 1)) throw new RangeError('token bucket needs qps > 0 and burst ≥ 1');
    this.tokens = burst;
    this.last = clock.now();
  }

  /** See {@link RateLimiter.when}. */
  when(_item: T): number {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** No-op: the bucket does not track items. */
  forget(_item: T): void {}

  /** Always 0. */
  numRequeues(_item: T): number {
    return 0;
  }
}

/**
 * The longest wait of several limiters (client-go's MaxOfRateLimiter): every limiter is
 * consulted on each `when`, `numRequeues` is the largest count, `forget` forgets in all.
 */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  /** Combines `limiters` (at least one). */
  constructor(...limiters: RateLimiter<T>[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }

  /** See {@link RateLimiter.when}. */
  when(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(item));
    return max;
  }

  /** See {@link RateLimiter.forget}. */
  forget(item: T): void {
    for (const l of this.limiters) l.forget(item);
  }

  /** See {@link RateLimiter.numRequeues}. */
  numRequeues(item: T): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(item));
    return max;
  }
}

/**
 * client-go's `DefaultControllerRateLimiter()`: the max of a per-item exponential limiter
 * (5 ms, doubling, capped at 1000 s) and an overall 10 qps / 100 burst token bucket.
 */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
