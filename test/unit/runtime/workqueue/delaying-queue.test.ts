import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClock,
  newDelayingQueue,
  newRateLimitingQueue,
  ItemExponentialFailureRateLimiter,
  type Queue,
} from '../../../../src/runtime/index.js';

async function drain<T>(q: Queue<T>): Promise<T[]> {
  const out: T[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    if (r.shutdown) break;
    out.push(r.item);
    q.done(r.item);
  }
  return out;
}

test('addAfter releases items when due, earliest first, ties in insertion order', async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter('c', 300);
  q.addAfter('a', 100);
  q.addAfter('b1', 200);
  q.addAfter('b2', 200);
  q.addAfter('now', 0);
  assert.deepEqual(await drain(q), ['now']);
  clock.step(99);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.deepEqual(await drain(q), ['a']);
  clock.step(150);
  assert.deepEqual(await drain(q), ['b1', 'b2']);
  clock.step(49);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.deepEqual(await drain(q), ['c']);
  assert.equal(clock.pendingTimers(), 0, 'no timer armed when nothing waits');
  q.shutDown();
});

test('addAfter of a waiting item keeps the earlier ready time', async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter('x', 500);
  q.addAfter('x', 100); // moves earlier
  q.addAfter('x', 900); // ignored: later
  clock.step(100);
  assert.deepEqual(await drain(q), ['x']);
  clock.step(1000);
  assert.equal(q.len(), 0, 'only one entry existed');
  q.shutDown();
});

test('addAfter many items with random delays comes out sorted (timer heap)', async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<number>({ clock });
  let s = 42;
  const delays = new Map<number, number>();
  for (let i = 0; i < 300; i++) {
    s = (s * 48271) % 2147483647;
    const d = (s % 1000) + 1;
    delays.set(i, d);
    q.addAfter(i, d);
  }
  const out: number[] = [];
  for (let t = 0; t <= 1000; t += 7) {
    clock.setTime(t);
    out.push(...(await drain(q)));
  }
  clock.setTime(1001);
  out.push(...(await drain(q)));
  assert.equal(out.length, 300);
  for (let i = 1; i < out.length; i++) {
    const prev = Math.ceil((delays.get(out[i - 1]) as number) / 7);
    const cur = Math.ceil((delays.get(out[i]) as number) / 7);
    assert.ok(prev <= cur, 'released in ready-time order');
  }
  q.shutDown();
});

test('shutDown drops waiting items and cancels the timer', () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<string>({ clock });
  q.addAfter('a', 100);
  assert.equal(clock.pendingTimers(), 1);
  q.shutDown();
  assert.equal(clock.pendingTimers(), 0);
  q.addAfter('b', 10);
  clock.step(1000);
  assert.equal(q.len(), 0);
});

test("rate-limiting queue: addRateLimited waits the limiter's delay; forget and numRequeues", async () => {
  const clock = new FakeClock();
  const q = newRateLimitingQueue<string>(new ItemExponentialFailureRateLimiter<string>(5, 1000), { clock });
  q.addRateLimited('a');
  assert.equal(q.numRequeues('a'), 1);
  clock.step(4);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.deepEqual(await drain(q), ['a']);
  q.addRateLimited('a'); // 10 ms
  clock.step(9);
  assert.equal(q.len(), 0);
  clock.step(1);
  assert.equal(q.len(), 1);
  q.forget('a');
  assert.equal(q.numRequeues('a'), 0);
  assert.deepEqual(await drain(q), ['a'], 'forget does not remove a queued item');
  q.shutDown();
  q.addRateLimited('b');
  assert.equal(q.len(), 0);
});
