// Operator metrics in the Prometheus text format, backed by prom-client (loaded on
// demand): controller-runtime's reconcile metrics and client-go's workqueue metrics,
// under the same names so existing dashboards work.
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
  WorkqueueMetricsProvider,
} from './workqueue.js';
import { noopWorkqueueMetricsProvider } from './workqueue.js';
import type { ShardingMetrics } from './sharding.js';

/**
 * How one reconcile ended (controller-runtime's `result` label). `requeue`: no error, but to
 * run again after the rate limiter's backoff (or a Conflict, retried the same way);
 * `requeue_after`: asked to run again after a delay.
 */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

/** What a controller records per reconcile. */
export interface ReconcileMetrics {
  /** One reconcile of `controller` ended with `result` after `seconds`. */
  observeReconcile(controller: string, result: ReconcileResult, seconds: number): void;
  /** The number of workers of `controller` (gauge). */
  setWorkers(controller: string, workers: number): void;
  /**
   * The counter of overlapping reconciles of one key in `controller` (see `InFlightKeys`),
   * exposed as {@link overlapsMetricName}(controller). Called once per controller.
   */
  newOverlapsMetric(controller: string): CounterMetric;
  /** One reconcile of `controller` failed with a terminal error (not retried); also counted as an `error` result. */
  observeTerminalError?(controller: string): void;
}

/** Records nothing. */
export const noopReconcileMetrics: ReconcileMetrics = {
  observeReconcile: () => undefined,
  setWorkers: () => undefined,
  newOverlapsMetric: () => ({ inc: () => undefined }),
  observeTerminalError: () => undefined,
};

/**
 * The Prometheus name of a controller's overlap counter: the controller name with every
 * character outside `[a-zA-Z0-9_]` as `_`, then `_reconcile_overlaps_total`
 * (`databasemanager-controller` → `databasemanager_controller_reconcile_overlaps_total`).
 */
export function overlapsMetricName(controller: string): string {
  const base = controller.replace(/[^a-zA-Z0-9_]/g, '_');
  return `${/^[0-9]/.test(base) ? `_${base}` : base}_reconcile_overlaps_total`;
}

/** The metrics a generated controller takes: reconcile metrics and a workqueue metrics provider. */
export interface ControllerMetrics {
  reconcile: ReconcileMetrics;
  workqueue: WorkqueueMetricsProvider;
  /** A sharded replica's and its sharder's metrics (runOperator's `--sharded`). */
  sharding?: ShardingMetrics;
}

/** No metrics at all (tests, or `--metrics-bind-address 0`). */
export const noopControllerMetrics: ControllerMetrics = {
  reconcile: noopReconcileMetrics,
  workqueue: noopWorkqueueMetricsProvider,
};

/** Controller metrics over a prom-client registry, and the scrape output. */
export interface PrometheusControllerMetrics extends ControllerMetrics {
  /** The exposition text of every metric (for `/metrics`). */
  scrape(): Promise<string>;
  /** The content type of {@link scrape}'s text. */
  readonly contentType: string;
}

/** Options of {@link newPrometheusMetrics}. */
export interface PrometheusMetricsOptions {
  /** Also record Node's process metrics (CPU, RSS, event loop lag, GC). Default true. */
  processMetrics?: boolean;
}

/**
 * A fresh prom-client registry with:
 * `controller_runtime_reconcile_total{controller,result}`,
 * `controller_runtime_reconcile_errors_total{controller}`,
 * `controller_runtime_terminal_reconcile_errors_total{controller}`,
 * `controller_runtime_reconcile_time_seconds{controller}` (histogram),
 * `controller_runtime_active_workers{controller}`, `<controller>_reconcile_overlaps_total`
 * (one per controller that asks, see {@link overlapsMetricName}), and the workqueue family
 * `workqueue_depth`, `workqueue_adds_total`, `workqueue_retries_total`,
 * `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds`,
 * `workqueue_unfinished_work_seconds`, `workqueue_longest_running_processor_seconds` (label `name`).
 */
export async function newPrometheusMetrics(
  options: PrometheusMetricsOptions = {},
): Promise<PrometheusControllerMetrics> {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  if (options.processMetrics ?? true) prom.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const total = new prom.Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'],
    registers,
  });
  const errors = new prom.Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
    registers,
  });
  const terminal = new prom.Counter({
    name: 'controller_runtime_terminal_reconcile_errors_total',
    help: 'Total number of terminal reconciliation errors per controller',
    labelNames: ['controller'],
    registers,
  });
  const duration = new prom.Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const shardObjects = new prom.Gauge({
    name: 'crdgen_shard_objects',
    help: "Objects this shard's cache holds, per kind",
    labelNames: ['kind'],
    registers,
  });
  const shardMoves = new prom.Counter({
    name: 'crdgen_shard_moves_total',
    help: 'Objects that came to this shard (in) or that it let go of through a drain (out)',
    labelNames: ['direction'],
    registers,
  });
  const shardDrains = new prom.Histogram({
    name: 'crdgen_shard_drain_duration_seconds',
    help: 'Seconds from the drain label seen to the drain acknowledged (count: drains)',
    buckets: prom.exponentialBuckets(0.001, 4, 10),
    registers,
  });
  const ringSize = new prom.Gauge({
    name: 'crdgen_sharder_ring_size',
    help: "Live shards in the sharder's ring (0 on replicas that are not the sharder)",
    registers,
  });
  const assignmentLag = new prom.Histogram({
    name: 'crdgen_sharder_assignment_lag_seconds',
    help: 'Seconds an object waited from needing a shard (new, on a dead shard, or on a shard the ring no longer gives it) to its assignment',
    buckets: prom.exponentialBuckets(0.001, 4, 10),
    registers,
  });
  const workers = new prom.Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of workers per controller',
    labelNames: ['controller'],
    registers,
  });
  const wq = {
    depth: new prom.Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      registers,
    }),
    adds: new prom.Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    }),
    latency: new prom.Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: prom.exponentialBuckets(1e-8, 10, 10),
      registers,
    }),
    work: new prom.Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'],
      buckets: prom.exponentialBuckets(1e-8, 10, 10),
      registers,
    }),
    unfinished: new prom.Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration',
      labelNames: ['name'],
      registers,
    }),
    longest: new prom.Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name'],
      registers,
    }),
    retries: new prom.Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    }),
    depthByPriority: new prom.Gauge({
      name: 'workqueue_depth_by_priority',
      help: 'Current depth of a priority workqueue, per priority (low: -100, normal: 0)',
      labelNames: ['name', 'priority'],
      registers,
    }),
  };
  const gauge = (g: typeof wq.depth, name: string): GaugeMetric & SettableGaugeMetric => {
    const child = g.labels(name);
    child.set(0);
    return { inc: () => child.inc(), dec: () => child.dec(), set: (v) => child.set(v) };
  };
  const counter = (c: typeof wq.adds, name: string): CounterMetric => {
    const child = c.labels(name);
    return { inc: () => child.inc() };
  };
  const histogram = (h: typeof wq.latency, name: string): HistogramMetric => {
    const child = h.labels(name);
    return { observe: (v) => child.observe(v) };
  };
  return {
    sharding: {
      setObjects: (kind, n) => shardObjects.labels(kind).set(n),
      moved: (direction) => shardMoves.labels(direction).inc(),
      observeDrain: (seconds) => shardDrains.observe(seconds),
      setRingSize: (n) => ringSize.set(n),
      observeAssignmentLag: (seconds) => assignmentLag.observe(seconds),
    },
    reconcile: {
      observeReconcile: (controller, result, seconds) => {
        total.labels(controller, result).inc();
        if (result === 'error') errors.labels(controller).inc();
        duration.labels(controller).observe(seconds);
      },
      setWorkers: (controller, n) => workers.labels(controller).set(n),
      observeTerminalError: (controller) => terminal.labels(controller).inc(),
      newOverlapsMetric: (controller) => {
        const name = overlapsMetricName(controller);
        const existing = registry.getSingleMetric(name) as InstanceType<typeof prom.Counter> | undefined;
        const c =
          existing ??
          new prom.Counter({
            name,
            help: `Reconciles of a key that began while another reconcile of the same key was running in this process (${controller}); 0 unless the workqueue's guarantee breaks`,
            registers,
          });
        return { inc: () => c.inc() };
      },
    },
    workqueue: {
      newDepthMetric: (name) => gauge(wq.depth, name),
      newAddsMetric: (name) => counter(wq.adds, name),
      newLatencyMetric: (name) => histogram(wq.latency, name),
      newWorkDurationMetric: (name) => histogram(wq.work, name),
      newUnfinishedWorkSecondsMetric: (name) => gauge(wq.unfinished, name),
      newLongestRunningProcessorSecondsMetric: (name) => gauge(wq.longest, name),
      newRetriesMetric: (name) => counter(wq.retries, name),
      newDepthByPriorityMetric: (name) => ({
        inc: (priority) => wq.depthByPriority.labels(name, String(priority)).inc(),
        dec: (priority) => wq.depthByPriority.labels(name, String(priority)).dec(),
      }),
    },
    scrape: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
