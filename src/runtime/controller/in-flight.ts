// The keys a controller is reconciling right now, and a count of overlaps: a second
// reconcile of a key that is already in flight in this process. The workqueue never hands
// out a key that is being processed (client-go's `processing` set), so the count stays 0
// unless that guarantee breaks; the controller's tests and the metrics endpoint watch it. Internal
// to the controller (a test instrument, not public API: `Controller.inFlight` exposes one).
import type { CounterMetric } from '../metrics/workqueue.js';

/** Counts nothing (when no metrics are wanted). */
const noopCounter: CounterMetric = { inc: () => undefined };

/**
 * Keys in flight in one process. Invariants: a key is in `running` while at least one
 * reconcile of it has begun and not ended; `overlaps` only grows, by one for every
 * {@link begin} of a key already in `running`.
 */
export class InFlightKeys {
  /** key → number of reconciles of it running now (1 normally; more only on an overlap). */
  private readonly running = new Map<string, number>();
  private overlapCount = 0;

  /** @param overlapsMetric incremented with every overlap (e.g. a Prometheus counter). */
  constructor(private readonly overlapsMetric: CounterMetric = noopCounter) {}

  /** Marks a reconcile of `key` as started; true when another one of `key` was already running (an overlap). */
  begin(key: string): boolean {
    const n = this.running.get(key) ?? 0;
    this.running.set(key, n + 1);
    if (n === 0) return false;
    this.overlapCount++;
    this.overlapsMetric.inc();
    return true;
  }

  /** Marks one reconcile of `key` as ended; ending a key that is not in flight is a no-op. */
  end(key: string): void {
    const n = this.running.get(key);
    if (n === undefined) return;
    if (n <= 1) this.running.delete(key);
    else this.running.set(key, n - 1);
  }

  /** Overlapping reconciles seen since construction. */
  get overlaps(): number {
    return this.overlapCount;
  }

  /** Number of distinct keys in flight now. */
  get size(): number {
    return this.running.size;
  }

  /** True while a reconcile of `key` is running. */
  has(key: string): boolean {
    return this.running.has(key);
  }
}
