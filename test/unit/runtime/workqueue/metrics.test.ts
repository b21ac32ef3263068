import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClock,
  newQueue,
  newRateLimitingQueue,
  getWorkqueueMetricsProvider,
  noopWorkqueueMetricsProvider,
  setWorkqueueMetricsProvider,
  type WorkqueueMetricsProvider,
  ItemExponentialFailureRateLimiter,
} from '../../../../src/runtime/index.js';

interface Recorded {
  depth: number;
  adds: number;
  retries: number;
  latency: number[];
  work: number[];
  unfinished: number;
  longest: number;
}

function recorder(): { provider: WorkqueueMetricsProvider; m: Recorded; names: string[] } {
  const m: Recorded = { depth: 0, adds: 0, retries: 0, latency: [], work: [], unfinished: -1, longest: -1 };
  const names: string[] = [];
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: (n) => (names.push(n), { inc: () => m.depth++, dec: () => m.depth-- }),
    newAddsMetric: () => ({ inc: () => m.adds++ }),
    newLatencyMetric: () => ({ observe: (v) => m.latency.push(v) }),
    newWorkDurationMetric: () => ({ observe: (v) => m.work.push(v) }),
    newUnfinishedWorkSecondsMetric: () => ({ set: (v) => (m.unfinished = v) }),
    newLongestRunningProcessorSecondsMetric: () => ({ set: (v) => (m.longest = v) }),
    newRetriesMetric: () => ({ inc: () => m.retries++ }),
  };
  return { provider, m, names };
}

test('named queue reports depth, adds, latency, work duration, unfinished work and retries', async () => {
  const clock = new FakeClock();
  const { provider, m, names } = recorder();
  const q = newRateLimitingQueue<string>(new ItemExponentialFailureRateLimiter<string>(1000, 10_000), {
    name: 'dbm',
    metricsProvider: provider,
    clock,
  });
  assert.deepEqual(names, ['dbm']);
  q.add('a');
  q.add('a'); // no-op: not counted
  q.add('b');
  assert.equal(m.adds, 2);
  assert.equal(m.depth, 2);
  clock.step(250);
  const a = await q.get();
  assert.equal(m.depth, 1);
  assert.deepEqual(m.latency, [0.25]);
  clock.step(750); // the periodic refresh runs every 500 ms: at 500 and 1000
  assert.equal(m.unfinished, 0.75);
  assert.equal(m.longest, 0.75);
  q.done(a.item as string);
  assert.deepEqual(m.work, [0.75]);
  q.addRateLimited('c');
  assert.equal(m.retries, 1);
  q.shutDown();
  assert.equal(clock.pendingTimers(), 0, 'metrics refresh and delay timers stopped on shutdown');
});

test('unnamed queues record nothing; the global provider applies to queues created after it is set', () => {
  const { provider, m, names } = recorder();
  const before = getWorkqueueMetricsProvider();
  setWorkqueueMetricsProvider(provider);
  try {
    const unnamed = newQueue<string>();
    unnamed.add('x');
    assert.equal(m.adds, 0);
    const named = newQueue<string>({ name: 'global', clock: new FakeClock() });
    named.add('x');
    assert.equal(m.adds, 1);
    assert.deepEqual(names, ['global']);
    named.shutDown();
  } finally {
    setWorkqueueMetricsProvider(before);
  }
  assert.equal(getWorkqueueMetricsProvider(), noopWorkqueueMetricsProvider);
});

test('prom-client metrics satisfy the provider interfaces (client-go metric names)', async () => {
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  const labelNames = ['name'] as const;
  const depth = new prom.Gauge({ name: 'workqueue_depth', help: 'depth', labelNames, registers: [registry] });
  const adds = new prom.Counter({ name: 'workqueue_adds_total', help: 'adds', labelNames, registers: [registry] });
  const latency = new prom.Histogram({
    name: 'workqueue_queue_duration_seconds',
    help: 'latency',
    labelNames,
    registers: [registry],
  });
  const work = new prom.Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'work',
    labelNames,
    registers: [registry],
  });
  const unfinished = new prom.Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: 'u',
    labelNames,
    registers: [registry],
  });
  const longest = new prom.Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'l',
    labelNames,
    registers: [registry],
  });
  const retries = new prom.Counter({
    name: 'workqueue_retries_total',
    help: 'retries',
    labelNames,
    registers: [registry],
  });
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: (name) => depth.labels({ name }),
    newAddsMetric: (name) => adds.labels({ name }),
    newLatencyMetric: (name) => latency.labels({ name }),
    newWorkDurationMetric: (name) => work.labels({ name }),
    newUnfinishedWorkSecondsMetric: (name) => unfinished.labels({ name }),
    newLongestRunningProcessorSecondsMetric: (name) => longest.labels({ name }),
    newRetriesMetric: (name) => retries.labels({ name }),
  };
  const q = newRateLimitingQueue<string>(undefined, { name: 'dbm', metricsProvider: provider, clock: new FakeClock() });
  q.add('a');
  q.add('b');
  const r = await q.get();
  q.done(r.item as string);
  q.addRateLimited('c');
  q.shutDown();
  const text = await registry.metrics();
  assert.match(text, /workqueue_depth\{name="dbm"\} 1/);
  assert.match(text, /workqueue_adds_total\{name="dbm"\} 2/);
  assert.match(text, /workqueue_retries_total\{name="dbm"\} 1/);
  assert.match(text, /workqueue_work_duration_seconds_count\{name="dbm"\} 1/);
});
