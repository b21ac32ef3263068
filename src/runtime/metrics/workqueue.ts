// Workqueue metrics hooks (client-go's workqueue.MetricsProvider): plain callback
// objects the controller layer can back with prom-client (workqueue_depth, …).

/** A value that goes up and down (e.g. queue depth). */
export interface GaugeMetric {
  /** Adds one. */
  inc(): void;
  /** Subtracts one. */
  dec(): void;
}

/** A value that is set outright (e.g. unfinished work seconds). */
export interface SettableGaugeMetric {
  /** Sets the current value. */
  set(value: number): void;
}

/** A monotonic count (e.g. adds, retries). */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}

/** A gauge with a priority label (a priority queue's depth per priority). */
export interface PriorityGaugeMetric {
  /** Adds one at `priority`. */
  inc(priority: number): void;
  /** Subtracts one at `priority`. */
  dec(priority: number): void;
}

/** A distribution of observations, in seconds (e.g. queue latency). */
export interface HistogramMetric {
  /** Records one observation. */
  observe(value: number): void;
}

/**
 * Builds the metrics of a named queue; called once per metric when a queue with a
 * non-empty `name` is created. Metric meanings follow client-go:
 * depth = items waiting; adds = `add` calls that were not no-ops (the item was not
 * already queued); latency = seconds an item waited before `get`; workDuration =
 * seconds between `get` and `done`; unfinishedWork = seconds of work in progress not yet
 * observed by workDuration; longestRunningProcessor = age in seconds of the oldest
 * in-flight item; retries = `addRateLimited` calls.
 */
export interface WorkqueueMetricsProvider {
  /** Gauge of the queue's depth. */
  newDepthMetric(name: string): GaugeMetric;
  /** Counter of adds. */
  newAddsMetric(name: string): CounterMetric;
  /** Histogram of seconds spent queued. */
  newLatencyMetric(name: string): HistogramMetric;
  /** Histogram of seconds spent processing. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** Gauge of seconds of unfinished work. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** Gauge of the longest running processor's age, in seconds. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** Counter of rate-limited re-adds. */
  newRetriesMetric(name: string): CounterMetric;
  /**
   * Gauge of a priority queue's depth per priority (controller-runtime's `workqueue_depth` with
   * a `priority` label), besides the total depth. Optional: providers without it record the total only.
   */
  newDepthByPriorityMetric?(name: string): PriorityGaugeMetric;
}

const noopGauge: GaugeMetric & SettableGaugeMetric = { inc() {}, dec() {}, set() {} };
const noopCounter: CounterMetric = { inc() {} };
const noopHistogram: HistogramMetric = { observe() {} };

/** A provider whose metrics do nothing (the default). */
export const noopWorkqueueMetricsProvider: WorkqueueMetricsProvider = {
  newDepthMetric: () => noopGauge,
  newAddsMetric: () => noopCounter,
  newLatencyMetric: () => noopHistogram,
  newWorkDurationMetric: () => noopHistogram,
  newUnfinishedWorkSecondsMetric: () => noopGauge,
  newLongestRunningProcessorSecondsMetric: () => noopGauge,
  newRetriesMetric: () => noopCounter,
};

let globalProvider: WorkqueueMetricsProvider = noopWorkqueueMetricsProvider;

/**
 * Sets the provider used by queues created afterwards without an explicit
 * `metricsProvider` (client-go's `workqueue.SetProvider`). Queues that already exist
 * keep theirs.
 */
export function setWorkqueueMetricsProvider(provider: WorkqueueMetricsProvider): void {
  globalProvider = provider;
}

/** The provider set by `setWorkqueueMetricsProvider` (no-op by default). */
export function getWorkqueueMetricsProvider(): WorkqueueMetricsProvider {
  return globalProvider;
}
