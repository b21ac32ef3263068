// InFlightKeys (the overlap counter of generated controllers) and its Prometheus counter
// `<controller>_reconcile_overlaps_total`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InFlightKeys } from '../../../../src/runtime/controller/in-flight.js';
import {
  newPrometheusMetrics,
  noopReconcileMetrics,
  overlapsMetricName,
  newQueue,
} from '../../../../src/runtime/index.js';

function countingMetric(): { inc(): void; count: number } {
  const m = { count: 0, inc: () => void m.count++ };
  return m;
}

test('one reconcile after another of one key is no overlap', () => {
  const metric = countingMetric();
  const keys = new InFlightKeys(metric);
  for (let i = 0; i < 3; i++) {
    assert.equal(keys.begin('ns/a'), false);
    assert.equal(keys.has('ns/a'), true);
    keys.end('ns/a');
    assert.equal(keys.has('ns/a'), false);
  }
  assert.equal(keys.overlaps, 0);
  assert.equal(metric.count, 0);
});

test('two keys in flight at once are no overlap; the same key twice is one, counted in the metric', () => {
  const metric = countingMetric();
  const keys = new InFlightKeys(metric);
  assert.equal(keys.begin('ns/a'), false);
  assert.equal(keys.begin('ns/b'), false);
  assert.equal(keys.size, 2);
  assert.equal(keys.overlaps, 0);
  assert.equal(keys.begin('ns/a'), true);
  assert.equal(keys.overlaps, 1);
  assert.equal(metric.count, 1);
  // the key stays in flight until both reconciles ended
  keys.end('ns/a');
  assert.equal(keys.has('ns/a'), true);
  keys.end('ns/a');
  assert.equal(keys.has('ns/a'), false);
  keys.end('ns/b');
  assert.equal(keys.size, 0);
  // ending a key that is not in flight changes nothing
  keys.end('ns/c');
  assert.equal(keys.size, 0);
  assert.equal(keys.overlaps, 1);
});

test('workers on a real workqueue, one key re-added while processed: never an overlap', async () => {
  const queue = newQueue<string>();
  const keys = new InFlightKeys();
  let processed = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      keys.begin(next.item);
      await new Promise((r) => setImmediate(r));
      // re-added while in flight: the queue holds it back until done
      if (processed++ < 20) queue.add(next.item);
      await new Promise((r) => setImmediate(r));
      keys.end(next.item);
      queue.done(next.item);
    }
  };
  queue.add('ns/a');
  queue.add('ns/b');
  const workers = Promise.all([worker(), worker(), worker(), worker()]);
  while (processed < 20) await new Promise((r) => setImmediate(r));
  await queue.shutDownWithDrain();
  await workers;
  assert.ok(processed >= 20);
  assert.equal(keys.overlaps, 0);
});

test('the same key handed to two workers at once (a broken queue) is counted', async () => {
  const keys = new InFlightKeys();
  const reconcile = async (key: string): Promise<void> => {
    keys.begin(key);
    await new Promise((r) => setImmediate(r));
    keys.end(key);
  };
  await Promise.all([reconcile('ns/a'), reconcile('ns/a'), reconcile('ns/a')]);
  assert.equal(keys.overlaps, 2);
  assert.equal(keys.size, 0);
});

test('metric name: the controller name with _ for other characters, then _reconcile_overlaps_total', () => {
  assert.equal(overlapsMetricName('databasemanager-controller'), 'databasemanager_controller_reconcile_overlaps_total');
  assert.equal(overlapsMetricName('a.b/c'), 'a_b_c_reconcile_overlaps_total');
  assert.equal(overlapsMetricName('9lives'), '_9lives_reconcile_overlaps_total');
});

test('Prometheus: the counter is exposed at 0, then counts; asking twice gives the same counter', async () => {
  const metrics = await newPrometheusMetrics({ processMetrics: false });
  const a = metrics.reconcile.newOverlapsMetric('databasemanager-controller');
  assert.match(await metrics.scrape(), /^databasemanager_controller_reconcile_overlaps_total 0$/m);
  const keys = new InFlightKeys(a);
  keys.begin('ns/a');
  keys.begin('ns/a');
  const b = metrics.reconcile.newOverlapsMetric('databasemanager-controller');
  b.inc();
  const text = await metrics.scrape();
  assert.match(text, /^# TYPE databasemanager_controller_reconcile_overlaps_total counter$/m);
  assert.match(text, /^databasemanager_controller_reconcile_overlaps_total 2$/m);
  // the no-op metrics accept the call too
  noopReconcileMetrics.newOverlapsMetric('x').inc();
});
