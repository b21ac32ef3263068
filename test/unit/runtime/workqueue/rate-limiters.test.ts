import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClock,
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../../../../src/runtime/index.js';

test('per-item exponential: 5 ms · 2^n, capped at 1000 s, per item, reset by forget', () => {
  const rl = new ItemExponentialFailureRateLimiter<string>(5, 1000_000);
  const got = Array.from({ length: 6 }, () => rl.when('a'));
  assert.deepEqual(got, [5, 10, 20, 40, 80, 160]);
  assert.equal(rl.numRequeues('a'), 6);
  assert.equal(rl.when('b'), 5, 'items are independent');
  for (let i = 6; i < 17; i++) rl.when('a');
  // 5 · 2^17 = 655 360 ms; 5 · 2^18 = 1 310 720 ms > cap
  assert.equal(rl.when('a'), 655_360);
  assert.equal(rl.when('a'), 1000_000);
  for (let i = 0; i < 2000; i++) rl.when('a'); // 2^n overflows to Infinity: still the cap
  assert.equal(rl.when('a'), 1000_000);
  rl.forget('a');
  assert.equal(rl.numRequeues('a'), 0);
  assert.equal(rl.when('a'), 5);
});

test('fast-slow: fast for maxFastAttempts, then slow', () => {
  const rl = new ItemFastSlowRateLimiter<string>(5, 10_000, 3);
  assert.deepEqual([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')], [5, 5, 5, 10_000, 10_000]);
  assert.equal(rl.numRequeues('a'), 5);
  rl.forget('a');
  assert.equal(rl.when('a'), 5);
});

test('token bucket: burst of 100 free, then one token per 100 ms at 10 qps, refilling with time', () => {
  const clock = new FakeClock();
  const rl = new BucketRateLimiter<string>(10, 100, clock);
  for (let i = 0; i < 100; i++) assert.equal(rl.when(`i${i}`), 0);
  // The 101st reserves the next token: 100 ms away; the 102nd 200 ms.
  assert.ok(Math.abs(rl.when('x') - 100) < 1e-6);
  assert.ok(Math.abs(rl.when('y') - 200) < 1e-6);
  assert.equal(rl.numRequeues('x'), 0);
  clock.step(300); // +3 tokens: back to +1
  assert.equal(rl.when('z'), 0);
  assert.ok(Math.abs(rl.when('z') - 100) < 1e-6);
  clock.step(3600_000); // refills to the burst, not beyond
  for (let i = 0; i < 100; i++) assert.equal(rl.when('w'), 0);
  assert.ok(rl.when('w') > 0);
});

test('max-of: the largest delay; requeues and forget across limiters', () => {
  const rl = new MaxOfRateLimiter<string>(
    new ItemFastSlowRateLimiter<string>(5, 3000, 3),
    new ItemExponentialFailureRateLimiter<string>(1, 1000),
  );
  assert.deepEqual(
    Array.from({ length: 5 }, () => rl.when('one')),
    [5, 5, 5, 3000, 3000],
  );
  assert.equal(rl.numRequeues('one'), 5);
  for (let i = 0; i < 10; i++) rl.when('one');
  assert.equal(rl.when('one'), 3000);
  rl.forget('one');
  assert.equal(rl.numRequeues('one'), 0);
  assert.equal(rl.when('one'), 5);
});

test('defaultControllerRateLimiter: exponential 5 ms..1000 s combined with a 10 qps / 100 burst bucket', () => {
  const clock = new FakeClock();
  const rl = defaultControllerRateLimiter<string>(clock);
  assert.deepEqual([rl.when('a'), rl.when('a'), rl.when('a')], [5, 10, 20]);
  assert.equal(rl.numRequeues('a'), 3);
  for (let i = 0; i < 97; i++) rl.when(`k${i}`); // 100 tokens used in all
  assert.ok(Math.abs(rl.when('fresh') - 100) < 1e-6, 'bucket exhausted: 100 ms beats the 5 ms exponential');
  rl.forget('a');
  assert.equal(rl.numRequeues('a'), 0);
  for (let i = 0; i < 40; i++) rl.when('hot');
  assert.equal(rl.when('hot'), 1000_000);
});

test('rate limiters reject nonsense parameters with a clear error', () => {
  assert.throws(() => new BucketRateLimiter(0, 10), /qps > 0/);
  assert.throws(() => new ItemExponentialFailureRateLimiter(-1, 10), /≥ 0/);
  assert.throws(() => new MaxOfRateLimiter(), /at least one/);
});
