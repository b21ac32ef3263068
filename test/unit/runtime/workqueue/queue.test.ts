import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newQueue } from '../../../../src/runtime/index.js';
import { RingBuffer } from '../../../../src/runtime/workqueue/ring-buffer.js';

/** Resolves after pending promise callbacks have run. */
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('add de-duplicates items that are waiting', async () => {
  const q = newQueue<string>();
  q.add('a');
  q.add('b');
  q.add('a');
  q.add('a');
  assert.equal(q.len(), 2);
  assert.deepEqual(await q.get(), { item: 'a', shutdown: false });
  assert.deepEqual(await q.get(), { item: 'b', shutdown: false });
  assert.equal(q.len(), 0);
});

test('an item re-added while processing is queued once again after done, never handed out twice', async () => {
  const q = newQueue<string>();
  q.add('x');
  const first = await q.get();
  assert.equal(first.item, 'x');
  q.add('x');
  q.add('x');
  assert.equal(q.len(), 0, 'not queued while being processed');
  // A second worker waits: it must not get 'x' while the first still holds it.
  let second: string | undefined;
  void q.get().then((r) => (second = r.item));
  await tick();
  assert.equal(second, undefined);
  q.done('x');
  await tick();
  assert.equal(second, 'x', 'x was re-queued exactly once on done');
  assert.equal(q.len(), 0);
  q.done('x');
  q.add('y');
  assert.equal(q.len(), 1);
});

test('done without a re-add does not re-queue', async () => {
  const q = newQueue<number>();
  q.add(1);
  const r = await q.get();
  q.done(r.item as number);
  assert.equal(q.len(), 0);
});

test('get waits for an item; waiters are served in order', async () => {
  const q = newQueue<string>();
  const got: string[] = [];
  const p1 = q.get().then((r) => got.push(`w1:${r.item}`));
  const p2 = q.get().then((r) => got.push(`w2:${r.item}`));
  await tick();
  assert.deepEqual(got, []);
  q.add('a');
  q.add('b');
  await Promise.all([p1, p2]);
  assert.deepEqual(got, ['w1:a', 'w2:b']);
});

test('shutDown: pending gets resolve shutdown; queued items are still handed out; adds are ignored', async () => {
  const q = newQueue<string>();
  const waiting = q.get();
  q.shutDown();
  assert.deepEqual(await waiting, { item: undefined, shutdown: true });
  assert.equal(q.shuttingDown(), true);

  const q2 = newQueue<string>();
  q2.add('a');
  q2.shutDown();
  q2.add('b');
  assert.equal(q2.len(), 1);
  assert.deepEqual(await q2.get(), { item: 'a', shutdown: false });
  assert.deepEqual(await q2.get(), { item: undefined, shutdown: true });
});

test('shutDownWithDrain waits until in-flight items are done', async () => {
  const q = newQueue<string>();
  q.add('a');
  q.add('b');
  const a = await q.get();
  const b = await q.get();
  let drained = false;
  const p = q.shutDownWithDrain().then(() => (drained = true));
  await tick();
  assert.equal(drained, false);
  q.done(a.item as string);
  await tick();
  assert.equal(drained, false, 'b still in flight');
  q.done(b.item as string);
  await p;
  assert.equal(drained, true);
});

test('shutDownWithDrain resolves at once when nothing is in flight', async () => {
  const q = newQueue<string>();
  await q.shutDownWithDrain();
  assert.equal(q.shuttingDown(), true);
});

test('shutDown after shutDownWithDrain stops waiting for the drain', async () => {
  const q = newQueue<string>();
  q.add('a');
  await q.get();
  const p = q.shutDownWithDrain();
  q.shutDown();
  await p;
});

test('no item is ever processed by two workers at once (concurrent workers, random re-adds)', async () => {
  const q = newQueue<number>();
  const inFlight = new Set<number>();
  let processed = 0;
  let seed = 7;
  const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
  for (let i = 0; i < 50; i++) q.add(rnd(10));
  const worker = async (): Promise<void> => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      assert.equal(inFlight.has(r.item), false, `item ${r.item} handed to two workers`);
      inFlight.add(r.item);
      if (processed < 400) q.add(rnd(10));
      q.add(r.item); // re-add while processing
      await tick();
      inFlight.delete(r.item);
      processed++;
      q.done(r.item);
      if (processed >= 500) q.shutDown();
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  assert.ok(processed >= 500);
});

test('RingBuffer grows and keeps FIFO order across wrap-around', () => {
  const r = new RingBuffer<number>(2);
  const expected: number[] = [];
  let next = 0;
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 3; i++) {
      r.push(next);
      expected.push(next++);
    }
    for (let i = 0; i < 2; i++) assert.equal(r.shift(), expected.shift());
  }
  assert.deepEqual(r.toArray(), expected);
  assert.equal(r.size, expected.length);
  r.clear();
  assert.equal(r.shift(), undefined);
});

test("RingBuffer gives back a burst's memory once drained, and keeps small arrays", () => {
  const r = new RingBuffer<number>(16);
  for (let i = 0; i < 50_000; i++) r.push(i);
  assert.equal(r.capacity, 65_536);
  for (let i = 0; i < 49_999; i++) assert.equal(r.shift(), i);
  assert.equal(r.capacity, 65_536, 'not while items remain');
  assert.equal(r.shift(), 49_999);
  assert.equal(r.capacity, 16);
  r.push(1);
  assert.deepEqual(r.toArray(), [1]);
  for (let i = 0; i < 600; i++) r.push(i);
  while (r.size > 0) r.shift();
  assert.equal(r.capacity, 1024, 'a small buffer keeps its array');
  for (let i = 0; i < 5000; i++) r.push(i);
  r.clear();
  assert.equal(r.capacity, 16);
  assert.equal(r.shift(), undefined);
});

test("property: the queue behaves as client-go's model (queue, dirty, processing) for any sequence of add/get/done", async () => {
  const fc = await import('fast-check');
  type Op = { op: 'add'; x: number } | { op: 'get' } | { op: 'done'; i: number };
  const opArb: import('fast-check').Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constant('add' as const), x: fc.integer({ min: 0, max: 5 }) }),
    fc.record({ op: fc.constant('get' as const) }),
    fc.record({ op: fc.constant('done' as const), i: fc.nat() }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
      const q = newQueue<number>();
      const mq: number[] = [];
      const dirty = new Set<number>();
      const processing = new Set<number>();
      for (const o of ops) {
        if (o.op === 'add') {
          q.add(o.x);
          if (!dirty.has(o.x)) {
            dirty.add(o.x);
            if (!processing.has(o.x)) mq.push(o.x);
          }
        } else if (o.op === 'get') {
          if (mq.length === 0) continue; // would wait
          const want = mq.shift() as number;
          const got = await q.get();
          assert.deepEqual(got, { item: want, shutdown: false });
          processing.add(want);
          dirty.delete(want);
        } else {
          const inFlight = [...processing];
          if (inFlight.length === 0) continue;
          const x = inFlight[o.i % inFlight.length];
          q.done(x);
          processing.delete(x);
          if (dirty.has(x)) mq.push(x);
        }
        assert.equal(q.len(), mq.length);
        assert.equal((q as unknown as { processingCount(): number }).processingCount(), processing.size);
      }
    }),
    { numRuns: 300, seed: 3 },
  );
});
