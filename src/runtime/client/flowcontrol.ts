// Client-side request throttling (client-go's flowcontrol.NewTokenBucketRateLimiter):
// a token bucket that makes callers wait for a permit instead of failing.
import type { ClientRateLimiter } from './config.js';
import { realClock as realTimers, sleep as clockSleep } from '../workqueue/clock.js';

/** Clock and timer, injectable for tests. */
export interface LimiterClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Sleeps `ms` (the workqueue clock's sleep on the real clock), rejecting with the signal's reason when it aborts. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!(await clockSleep(realTimers, ms, signal))) throw signal?.reason;
}

const realClock: LimiterClock = { now: () => performance.now(), sleep };

/**
 * Token bucket: holds up to `burst` tokens, refilled at `qps` per second, starting full.
 * Each `wait()` takes one token, waiting (in arrival order) until it is available; an
 * aborted wait gives its token back.
 */
export class TokenBucketRateLimiter implements ClientRateLimiter {
  private tokens: number;
  private last: number;

  /** `qps` > 0 tokens per second, at most `burst` >= 1 at once. */
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: LimiterClock = realClock,
  ) {
    if (!(qps > 0) || !Number.isFinite(qps))
      throw new RangeError(`rate limiter qps must be a positive number, got ${qps}`);
    if (!(burst >= 1) || !Number.isInteger(burst))
      throw new RangeError(`rate limiter burst must be an integer >= 1, got ${burst}`);
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes a token if one is available now, without waiting. */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Waits for a token; rejects with the signal's reason if it aborts first. */
  async wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.refill();
    // Reserve now (tokens may go negative): later callers queue behind earlier ones.
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    const delayMs = (-this.tokens / this.qps) * 1000;
    try {
      await this.clock.sleep(delayMs, signal);
    } catch (e) {
      this.tokens += 1;
      throw e;
    }
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.last) / 1000;
    this.last = now;
    this.tokens = Math.min(this.burst, this.tokens + elapsed * this.qps);
  }
}

/** A limiter that never waits (qps <= 0 in the config). */
export const noClientRateLimit: ClientRateLimiter = {
  wait: (signal?: AbortSignal) => (signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve()),
};
