// Clock: the time source and timers of the workqueue and cache, injectable so that
// tests drive backoffs and delays without waiting (k8s.io/utils/clock's role).

/** A scheduled callback; `cancel()` is idempotent. */
export interface Timer {
  /** Prevents the callback from running if it has not run yet. */
  cancel(): void;
}

/**
 * A monotonic time source with timers. Times and durations are milliseconds.
 * Invariant: `now()` never decreases.
 */
export interface Clock {
  /** Milliseconds since an arbitrary origin; monotonic. */
  now(): number;
  /**
   * Runs `fn` once, `ms` milliseconds from now (0 or less: as soon as possible).
   * `unref: true` lets the process exit while the timer is pending (real clock only).
   */
  setTimer(fn: () => void, ms: number, options?: { unref?: boolean }): Timer;
}

/** The longest delay one node timer takes (2^31 − 1 ms, ~24.8 days); longer ones fire at once with a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The real clock: `performance.now()` and node timers. A timer further away than
 * {@link MAX_TIMER_MS} is re-armed in steps until it is due (a `requeueAfter` of 30 days
 * waits 30 days; node alone would fire it after 1 ms).
 */
export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms, options) {
    const due = performance.now() + Math.max(0, ms);
    let t: ReturnType<typeof setTimeout>;
    const arm = (left: number): void => {
      t = setTimeout(
        left > MAX_TIMER_MS ? () => arm(due - performance.now()) : fn,
        Math.min(Math.max(0, left), MAX_TIMER_MS),
      );
      if (options?.unref) t.unref();
    };
    arm(Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * Waits `ms` milliseconds on `clock`. Resolves `true` when the time has passed and
 * `false` at once if (or as soon as) `signal` aborts. Never rejects.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      timer.cancel();
      resolve(false);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface FakeTimerEntry {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A manual clock for tests: time moves only through `step`/`setTime`, which run the
 * timers that fall due, in due-time order (ties in creation order).
 */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  /** Pending timers; invariant: no cancelled or fired entry stays here after `step`. */
  private timers: FakeTimerEntry[] = [];

  /** Starts at `start` milliseconds (default 0). */
  constructor(start = 0) {
    this.time = start;
  }

  /** The current fake time. */
  now(): number {
    return this.time;
  }

  /** Schedules `fn` at `now() + max(0, ms)`. */
  setTimer(fn: () => void, ms: number): Timer {
    const entry: FakeTimerEntry = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
        this.timers = this.timers.filter((e) => e !== entry);
      },
    };
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Due time of the earliest pending timer, or undefined. */
  nextTimerAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  /** Advances time by `ms`, firing each timer due on the way at its due time. */
  step(ms: number): void {
    this.setTime(this.time + ms);
  }

  /** Moves time forward to `t` (never backwards), firing due timers in order. */
  setTime(t: number): void {
    if (t < this.time) throw new Error(`FakeClock: time cannot go backwards (${this.time} → ${t})`);
    for (;;) {
      let next: FakeTimerEntry | undefined;
      for (const e of this.timers) {
        if (e.at <= t && (!next || e.at < next.at || (e.at === next.at && e.seq < next.seq))) next = e;
      }
      if (!next) break;
      this.timers = this.timers.filter((e) => e !== next);
      this.time = Math.max(this.time, next.at);
      if (!next.cancelled) next.fn();
    }
    this.time = t;
  }
}
