// QueueMetrics: turns a queue's add/get/done calls into the provider's metrics
// (client-go's defaultQueueMetrics). Only built for queues with a name.
import type { Clock, Timer } from './clock.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  WorkqueueMetricsProvider,
} from '../metrics/workqueue.js';

/** How often unfinished-work gauges are refreshed (client-go: 500 ms). */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/**
 * Records the metrics of one named queue.
 * Invariants: `addTimes` holds exactly the items counted in depth (queued, not yet got);
 * `processingStartTimes` exactly the items between `get` and `done`.
 */
export class QueueMetrics<T> {
  private readonly depth: GaugeMetric;
  private readonly adds: CounterMetric;
  private readonly latency: HistogramMetric;
  private readonly workDuration: HistogramMetric;
  private readonly unfinishedWork: SettableGaugeMetric;
  private readonly longestRunning: SettableGaugeMetric;
  /** Counter of rate-limited re-adds, used by the rate-limiting queue. */
  readonly retries: CounterMetric;
  private readonly addTimes = new Map<T, number>();
  private readonly processingStartTimes = new Map<T, number>();
  private timer: Timer | undefined;

  /** Builds the metrics of queue `name` from `provider`; times come from `clock`. */
  constructor(
    name: string,
    provider: WorkqueueMetricsProvider,
    private readonly clock: Clock,
  ) {
    this.depth = provider.newDepthMetric(name);
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinishedWork = provider.newUnfinishedWorkSecondsMetric(name);
    this.longestRunning = provider.newLongestRunningProcessorSecondsMetric(name);
    this.retries = provider.newRetriesMetric(name);
    this.schedule();
  }

  /** An item entered the queue. */
  add(item: T): void {
    this.adds.inc();
    this.depth.inc();
    if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
  }

  /** An item was handed to a worker. */
  get(item: T): void {
    this.depth.dec();
    const now = this.clock.now();
    this.processingStartTimes.set(item, now);
    const t = this.addTimes.get(item);
    if (t !== undefined) {
      this.latency.observe((now - t) / 1000);
      this.addTimes.delete(item);
    }
  }

  /** A worker finished an item. */
  done(item: T): void {
    const t = this.processingStartTimes.get(item);
    if (t !== undefined) {
      this.workDuration.observe((this.clock.now() - t) / 1000);
      this.processingStartTimes.delete(item);
    }
  }

  /** Refreshes the unfinished-work and longest-running gauges now. */
  updateUnfinishedWork(): void {
    const now = this.clock.now();
    let total = 0;
    let oldest = 0;
    for (const t of this.processingStartTimes.values()) {
      const age = now - t;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinishedWork.set(total / 1000);
    this.longestRunning.set(oldest / 1000);
  }

  /** Stops the periodic refresh (on queue shutdown). */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(): void {
    this.timer = this.clock.setTimer(
      () => {
        this.updateUnfinishedWork();
        this.schedule();
      },
      UNFINISHED_WORK_UPDATE_PERIOD_MS,
      { unref: true },
    );
  }
}
