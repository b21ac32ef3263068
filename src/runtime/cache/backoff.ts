// Exponential backoff with jitter and reset after a quiet period (client-go's
// wait.ExponentialBackoffManager as the reflector uses it: 800 ms → 30 s, ×2,
// jitter 1.0, reset after 2 min).
import { realClock, type Clock } from '../workqueue/clock.js';

/** Hands out successive waits before retrying. */
export interface BackoffManager {
  /** The next wait in milliseconds; each call is one more step. */
  backoff(): number;
}

/** Options of the exponential backoff; defaults are the reflector's. */
export interface ExponentialBackoffOptions {
  /** First wait before jitter (default 800 ms). */
  initialMs?: number;
  /** Largest wait before jitter (default 30 s). */
  capMs?: number;
  /** Growth per step (default 2). */
  factor?: number;
  /** Each wait is `d + random() · jitter · d` (default 1.0: between d and 2d). */
  jitter?: number;
  /** After this long without a backoff, start again at `initialMs` (default 2 min). */
  resetAfterMs?: number;
  /** Time source. */
  clock?: Clock;
  /** Random source in [0, 1) (tests inject a fixed one). */
  random?: () => number;
}

/** The reflector's defaults. */
export const REFLECTOR_BACKOFF = Object.freeze({
  initialMs: 800,
  capMs: 30_000,
  factor: 2,
  jitter: 1.0,
  resetAfterMs: 120_000,
});

/**
 * Exponential backoff. Invariant: `duration` (the next un-jittered wait) is in
 * [initialMs, capMs]; it returns to `initialMs` when more than `resetAfterMs` passed
 * since the previous `backoff()`.
 */
export class ExponentialBackoffManager implements BackoffManager {
  private readonly initialMs: number;
  private readonly capMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private duration: number;
  private lastBackoffStart: number | undefined;

  /** See {@link ExponentialBackoffOptions}. */
  constructor(options: ExponentialBackoffOptions = {}) {
    this.initialMs = options.initialMs ?? REFLECTOR_BACKOFF.initialMs;
    this.capMs = options.capMs ?? REFLECTOR_BACKOFF.capMs;
    this.factor = options.factor ?? REFLECTOR_BACKOFF.factor;
    this.jitter = options.jitter ?? REFLECTOR_BACKOFF.jitter;
    this.resetAfterMs = options.resetAfterMs ?? REFLECTOR_BACKOFF.resetAfterMs;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    if (!(this.initialMs >= 0) || !(this.capMs >= this.initialMs) || !(this.factor >= 1)) {
      throw new RangeError('backoff needs 0 ≤ initialMs ≤ capMs and factor ≥ 1');
    }
    this.duration = this.initialMs;
  }

  /** See {@link BackoffManager.backoff}. */
  backoff(): number {
    const now = this.clock.now();
    if (this.lastBackoffStart !== undefined && now - this.lastBackoffStart > this.resetAfterMs) {
      this.duration = this.initialMs;
    }
    this.lastBackoffStart = now;
    const d = this.duration;
    this.duration = Math.min(this.capMs, d * this.factor);
    return this.jitter > 0 ? d + this.random() * this.jitter * d : d;
  }
}
