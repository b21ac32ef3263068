// The priority queue: highest priority first and first-in first-out within one, one entry per
// item (the highest priority and the earliest ready time win), an item never handed to two
// workers, the rate limiter and the metrics of the other queues plus the depth per priority.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClock,
  ItemExponentialFailureRateLimiter,
  LOW_PRIORITY,
  NORMAL_PRIORITY,
  PriorityQueue,
  newPrometheusMetrics,
  type WorkqueueMetricsProvider,
} from '../../../../src/runtime/index.js';

function queue(clock = new FakeClock(), provider?: WorkqueueMetricsProvider): PriorityQueue<string> {
  return new PriorityQueue<string>(new ItemExponentialFailureRateLimiter<string>(5, 1000), {
    clock,
    ...(provider ? { name: 'q', metricsProvider: provider } : {}),
  });
}

/** Takes every ready item (each marked done at once), in the order they come out. */
async function drain(q: PriorityQueue<string>): Promise<string[]> {
  const out: string[] = [];
  while (q.len() > 0) {
    const r = await q.getWithPriority();
    if (r.shutdown) break;
    out.push(`${r.item}@${r.priority}`);
    q.done(r.item);
  }
  return out;
}

test('normal priority comes out before low, first in first out within a priority', async () => {
  const q = queue();
  q.addWithOptions({ priority: LOW_PRIORITY }, 'a', 'b', 'c');
  q.add('x');
  q.addWithOptions({ priority: LOW_PRIORITY }, 'd');
  q.add('y');
  assert.deepEqual(Object.fromEntries(q.depths()), { [NORMAL_PRIORITY]: 2, [LOW_PRIORITY]: 4 });
  assert.deepEqual(await drain(q), ['x@0', 'y@0', 'a@-100', 'b@-100', 'c@-100', 'd@-100']);
});

test('one entry per item: the highest priority wins, whichever came first', async () => {
  const q = queue();
  q.addWithOptions({ priority: LOW_PRIORITY }, 'a', 'b');
  q.add('b'); // raised
  q.addWithOptions({ priority: LOW_PRIORITY }, 'b'); // not lowered
  q.add('c');
  q.addWithOptions({ priority: LOW_PRIORITY }, 'c');
  assert.equal(q.len(), 3);
  assert.deepEqual(await drain(q), ['b@0', 'c@0', 'a@-100']);
});

test('delays: the earliest ready time wins; an add now makes a delayed item ready at the higher priority', async () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.addWithOptions({ afterMs: 100, priority: LOW_PRIORITY }, 'a');
  q.addWithOptions({ afterMs: 50 }, 'a'); // sooner, and normal
  q.addAfter('b', 200);
  assert.equal(q.len(), 0);
  assert.equal(q.waitingCount(), 2);
  clock.step(49);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.deepEqual(await drain(q), ['a@0']);
  q.addWithOptions({ priority: LOW_PRIORITY }, 'b'); // ready now, not in 150 ms, at the higher of its priorities
  assert.equal(q.waitingCount(), 0);
  assert.deepEqual(await drain(q), ['b@0']);
  q.add('c');
  q.addAfter('c', 10); // already ready: a delay does not hold it back
  assert.deepEqual(await drain(q), ['c@0']);
  assert.equal(clock.pendingTimers(), 0);
});

test('rate-limited adds wait as long as the limiter says; numRequeues and forget are the limiter’s', async () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.addRateLimited('a');
  q.addRateLimited('a');
  assert.equal(q.numRequeues('a'), 2);
  clock.step(4);
  assert.equal(q.len(), 0);
  clock.step(1); // the first delay (5 ms) is the earliest
  assert.deepEqual(await drain(q), ['a@0']);
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
  q.addWithOptions({ rateLimited: true, afterMs: 1 }, 'b'); // the smaller of the two
  clock.step(1);
  assert.deepEqual(await drain(q), ['b@0']);
});

test('an item being processed is not handed out again until done; then it is ready at the priority it was added with', async () => {
  const clock = new FakeClock();
  const q = queue(clock);
  q.addWithOptions({ priority: LOW_PRIORITY }, 'a', 'b');
  const first = await q.get();
  assert.equal(first.item, 'a');
  q.add('a'); // while processing
  q.addAfter('a', 10);
  assert.deepEqual(await drain(q), ['b@-100'], 'a is not handed out while processed');
  clock.step(10);
  assert.equal(q.len(), 0);
  const waiting = q.getWithPriority();
  q.done('a');
  const again = await waiting;
  assert.deepEqual([again.item, again.priority], ['a', NORMAL_PRIORITY]);
  q.done('a');
  assert.equal(q.processingCount(), 0);
});

test('a waiting worker gets the next item at once; shutdown wakes waiting workers and drains', async () => {
  const q = queue();
  const w = q.get();
  q.addWithOptions({ priority: LOW_PRIORITY }, 'a');
  assert.deepEqual(await w, { item: 'a', shutdown: false, priority: LOW_PRIORITY });
  const idle = q.get();
  const drained = q.shutDownWithDrain();
  assert.deepEqual(await idle, { item: undefined, shutdown: true, priority: 0 });
  let done = false;
  void drained.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(done, false, 'a is still being processed');
  q.done('a');
  await drained;
  q.add('b');
  assert.equal(q.len(), 0, 'no adds after shutdown');
});

test('metrics: adds, depth and latency as the other queues, and the depth per priority', async () => {
  const clock = new FakeClock();
  const m = { depth: 0, adds: 0, retries: 0, byPriority: new Map<number, number>(), latency: [] as number[] };
  const bump = (p: number, d: number): void => void m.byPriority.set(p, (m.byPriority.get(p) ?? 0) + d);
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: () => ({ inc: () => m.depth++, dec: () => m.depth-- }),
    newAddsMetric: () => ({ inc: () => m.adds++ }),
    newLatencyMetric: () => ({ observe: (v) => m.latency.push(v) }),
    newWorkDurationMetric: () => ({ observe: () => undefined }),
    newUnfinishedWorkSecondsMetric: () => ({ set: () => undefined }),
    newLongestRunningProcessorSecondsMetric: () => ({ set: () => undefined }),
    newRetriesMetric: () => ({ inc: () => m.retries++ }),
    newDepthByPriorityMetric: () => ({ inc: (p) => bump(p, 1), dec: (p) => bump(p, -1) }),
  };
  const q = queue(clock, provider);
  q.addWithOptions({ priority: LOW_PRIORITY }, 'a', 'b');
  q.add('c');
  assert.deepEqual([m.depth, m.adds], [3, 3]);
  assert.deepEqual(Object.fromEntries(m.byPriority), { [LOW_PRIORITY]: 2, [NORMAL_PRIORITY]: 1 });
  q.add('a'); // raised: moves between priorities, not a new add
  assert.deepEqual([m.depth, m.adds], [3, 3]);
  assert.deepEqual(Object.fromEntries(m.byPriority), { [LOW_PRIORITY]: 1, [NORMAL_PRIORITY]: 2 });
  clock.step(7);
  const got = await q.get();
  assert.equal(got.item, 'c');
  assert.deepEqual(m.latency, [0.007]);
  assert.deepEqual(Object.fromEntries(m.byPriority), { [LOW_PRIORITY]: 1, [NORMAL_PRIORITY]: 1 });
  q.add('c'); // dirty while processed: counted once
  q.add('c');
  q.done('c');
  assert.equal(m.depth, 3);
  q.addRateLimited('d');
  assert.equal(m.retries, 1);
  assert.equal(m.depth, 3, 'a delayed item is not in the depth');
  q.shutDown();
});

test('the operator’s Prometheus metrics: workqueue_depth and workqueue_depth_by_priority', async () => {
  const metrics = await newPrometheusMetrics();
  const q = new PriorityQueue<string>(new ItemExponentialFailureRateLimiter<string>(5, 1000), {
    name: 'pq',
    metricsProvider: metrics.workqueue,
    clock: new FakeClock(),
  });
  q.addWithOptions({ priority: LOW_PRIORITY }, 'a', 'b');
  q.add('c');
  await q.get();
  const text = await metrics.scrape();
  assert.match(text, /workqueue_depth\{name="pq"\} 2/);
  assert.match(text, /workqueue_depth_by_priority\{name="pq",priority="-100"\} 2/);
  assert.match(text, /workqueue_depth_by_priority\{name="pq",priority="0"\} 0/);
  q.shutDown();
});
