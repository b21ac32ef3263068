import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Reflector,
  ExponentialBackoffManager,
  type StoreWriter,
  newStore,
  FakeClock,
  ReflectorCounters,
  type DeletedFinalStateUnknown,
} from '../../../../src/runtime/index.js';
import { FakeServer, type Obj } from './fake-server.js';

/** Lets pending promise chains run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
}

/** A store recording its calls, backed by a real one. */
class RecordingStore implements StoreWriter<Obj> {
  readonly inner = newStore<Obj>();
  readonly log: string[] = [];
  add(obj: Obj): void {
    this.log.push(`add ${obj.metadata?.name}@${obj.metadata?.resourceVersion}`);
    this.inner.add(obj);
  }
  update(obj: Obj): void {
    this.log.push(`update ${obj.metadata?.name}@${obj.metadata?.resourceVersion}`);
    this.inner.update(obj);
  }
  delete(obj: Obj | DeletedFinalStateUnknown<Obj>): void {
    this.log.push('delete');
    this.inner.delete(obj);
  }
  replace(list: Obj[], rv: string): void {
    this.log.push(`replace ${list.length}@${rv}`);
    this.inner.replace(list, rv);
  }
  resync(): void {
    this.log.push('resync');
  }
}

function setup(opts: { random?: () => number; pageSize?: number; resyncPeriodMs?: number } = {}) {
  const clock = new FakeClock(1_000_000);
  const server = new FakeServer();
  const store = new RecordingStore();
  const errors: unknown[] = [];
  const metrics = new ReflectorCounters();
  const reflector = new Reflector<Obj>(server, store, {
    clock,
    random: () => 0.5,
    backoff: new ExponentialBackoffManager({ clock, random: opts.random ?? (() => 0) }),
    watchErrorHandler: (e) => errors.push(e),
    metrics,
    ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
    ...(opts.resyncPeriodMs !== undefined ? { resyncPeriodMs: opts.resyncPeriodMs } : {}),
  });
  const ac = new AbortController();
  return { clock, server, store, errors, metrics, reflector, ac };
}

const lists = (s: FakeServer) => s.calls.filter((c) => c.kind === 'list');
const watches = (s: FakeServer) => s.calls.filter((c) => c.kind === 'watch');

test('lists, then watches from the list version with bookmarks and a 5–10 min timeout; events reach the store', async () => {
  const { server, store, reflector, ac, metrics } = setup();
  server.upsert('a', 1);
  server.upsert('b', 1);
  const run = reflector.run(ac.signal);
  await flush();
  assert.deepEqual(lists(server)[0]?.options, { resourceVersion: '0', limit: 500 });
  const w = watches(server)[0]?.options;
  assert.equal(w?.resourceVersion, '102');
  assert.equal(w?.allowWatchBookmarks, true);
  assert.equal(w?.timeoutSeconds, 450, 'random 0.5 → 300 · 1.5 s');
  assert.deepEqual(reflector.state(), { kind: 'Watching', resourceVersion: '102' });
  server.upsert('a', 2);
  server.remove('default/b');
  await flush();
  assert.deepEqual(store.log, ['replace 2@102', 'update a@103', 'delete']);
  assert.equal(reflector.lastSyncResourceVersion(), '104');
  server.bookmark();
  server.upsert('c', 1); // 105
  server.bookmark();
  await flush();
  assert.equal(reflector.lastSyncResourceVersion(), '105');
  assert.equal(metrics.lastResourceVersion, '105');
  await assert.rejects(reflector.run(ac.signal), /runs once/);
  ac.abort();
  await run;
  assert.deepEqual(reflector.state(), { kind: 'Stopped' });
  assert.equal(server.openWatches(), 0);
});

test('watch timeouts are spread over [300, 600) s', async () => {
  for (const [r, want] of [
    [0, 300],
    [0.999, 599],
  ] as const) {
    const clock = new FakeClock();
    const server = new FakeServer();
    const reflector = new Reflector<Obj>(server, newStore<Obj>(), { clock, random: () => r });
    const ac = new AbortController();
    const run = reflector.run(ac.signal);
    await flush();
    assert.equal(watches(server)[0]?.options.timeoutSeconds, want);
    ac.abort();
    await run;
  }
});

test('a watch that ends is re-opened from the last seen version, without a relist', async () => {
  const { server, reflector, ac, clock } = setup();
  server.upsert('a', 1);
  const run = reflector.run(ac.signal);
  await flush();
  server.upsert('a', 2); // 102
  await flush();
  clock.step(5000); // the watch lasted long enough not to count as short
  server.dropWatches();
  await flush();
  assert.equal(lists(server).length, 1);
  assert.equal(watches(server).length, 2);
  assert.equal(watches(server)[1]?.options.resourceVersion, '102');
  ac.abort();
  await run;
});

test('an ERROR 410 Expired event relists at the last seen version (after a backoff), then watches again', async () => {
  const { server, store, reflector, ac, clock } = setup();
  server.upsert('a', 1);
  const run = reflector.run(ac.signal);
  await flush();
  server.upsert('a', 2); // 102
  await flush();
  server.expireWatches();
  await flush();
  assert.equal(reflector.state().kind, 'BackingOff');
  clock.step(800);
  await flush();
  assert.equal(lists(server).length, 2);
  assert.equal(lists(server)[1]?.options.resourceVersion, '102');
  assert.equal(lists(server)[1]?.options.limit, undefined, 'relist at a known version is not paged');
  assert.equal(reflector.state().kind, 'Watching');
  assert.equal(store.log.at(-1), 'replace 1@102');
  ac.abort();
  await run;
});

test('410 at watch start → relist; a list whose version is too old → list the latest (resourceVersion "")', async () => {
  const { server, reflector, ac, clock, errors } = setup();
  server.upsert('a', 1);
  const run = reflector.run(ac.signal);
  await flush();
  server.dropWatches();
  server.upsert('b', 1);
  server.compact();
  server.watchFaults.push({ kind: 'status', code: 410, reason: 'Expired' });
  server.listFaults.push({ kind: 'status', code: 410, reason: 'Expired' });
  clock.step(2000);
  await flush();
  // The short drop counts as a failed cycle, so backoff first; then the watch's 410 too.
  for (let i = 0; i < 6 && lists(server).length < 3; i++) {
    clock.step(60_000);
    await flush();
  }
  const ls = lists(server).map((c) => c.options.resourceVersion);
  assert.deepEqual(ls.slice(-2), ['101', ''], `lists: ${JSON.stringify(ls)}`);
  assert.equal(reflector.lastSyncResourceVersion(), '102');
  assert.ok(errors.length >= 1);
  ac.abort();
  await run;
});

test('paged list: pages of pageSize, continuation without resourceVersion; an expired continue token falls back to one full list', async () => {
  const { server, store, reflector, ac } = setup({ pageSize: 2 });
  for (let i = 0; i < 5; i++) server.upsert(`o${i}`, i);
  const run = reflector.run(ac.signal);
  await flush();
  const ls = lists(server).map((c) => c.options);
  assert.deepEqual(ls, [
    { resourceVersion: '0', limit: 2 },
    { limit: 2, continue: 't1' },
    { limit: 2, continue: 't2' },
  ]);
  assert.deepEqual(store.log, ['replace 5@105']);
  ac.abort();
  await run;

  const s2 = setup({ pageSize: 2 });
  for (let i = 0; i < 5; i++) s2.server.upsert(`o${i}`, i);
  s2.server.continueExpiry = 1;
  s2.server.chance = () => true;
  const run2 = s2.reflector.run(s2.ac.signal);
  await flush();
  assert.deepEqual(
    lists(s2.server).map((c) => c.options),
    [{ resourceVersion: '0', limit: 2 }, { limit: 2, continue: 't1' }, { resourceVersion: '0' }],
  );
  assert.deepEqual(s2.store.log, ['replace 5@105']);
  s2.ac.abort();
  await run2;
});

test('never a tight loop: a server failing every list is retried at 800 ms, 1.6 s, 3.2 s … capped at 30 s', async () => {
  const { server, reflector, ac, clock, errors, metrics } = setup();
  for (let i = 0; i < 100; i++) server.listFaults.push({ kind: 'status', code: 500, reason: 'InternalError' });
  const run = reflector.run(ac.signal);
  const times: number[] = [];
  const start = clock.now();
  let seen = 0;
  for (let t = 0; t <= 200_000; t += 100) {
    clock.setTime(start + t);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    while (lists(server).length > seen) {
      seen++;
      times.push(t);
    }
  }
  // random 0 → no jitter: calls at 0, 0.8, 2.4, 5.6, 12, 24.8, 50.4, 80.4, 110.4, 140.4, 170.4, 200.4
  assert.deepEqual(times, [0, 800, 2400, 5600, 12000, 24800, 50400, 80400, 110400, 140400, 170400]);
  assert.equal(errors.length, times.length);
  assert.equal(metrics.listErrors, times.length);
  ac.abort();
  await run;
  assert.equal(clock.pendingTimers(), 0, 'abort cancels the backoff timer');
});

test('a 429 with Retry-After waits at least that long before the next list', async () => {
  const { server, reflector, ac, clock } = setup();
  server.listFaults.push({ kind: 'status', code: 429, reason: 'TooManyRequests', retryAfter: '10' });
  const run = reflector.run(ac.signal);
  await flush();
  assert.equal(lists(server).length, 1);
  clock.step(9_999);
  await flush();
  assert.equal(lists(server).length, 1, 'Retry-After (10 s) beats the 800 ms backoff');
  clock.step(1);
  await flush();
  assert.equal(lists(server).length, 2);
  ac.abort();
  await run;
});

test('429 or connection refused at watch start retries the watch (not the list) after backoff', async () => {
  const { server, reflector, ac, clock } = setup();
  server.watchFaults.push({ kind: 'status', code: 429, reason: 'TooManyRequests' }, { kind: 'network' });
  const run = reflector.run(ac.signal);
  await flush();
  assert.equal(watches(server).length, 1);
  clock.step(800);
  await flush();
  assert.equal(watches(server).length, 2);
  clock.step(1600);
  await flush();
  assert.equal(watches(server).length, 3);
  assert.equal(lists(server).length, 1);
  assert.equal(reflector.state().kind, 'Watching');
  ac.abort();
  await run;
});

test('a very short watch (no events, under 1 s) counts as a failure: backoff and relist', async () => {
  const { server, reflector, ac, clock, errors, metrics } = setup();
  const run = reflector.run(ac.signal);
  await flush();
  server.dropWatches();
  await flush();
  assert.equal(reflector.state().kind, 'BackingOff');
  assert.match(String((errors[0] as Error).message), /very short watch/);
  assert.equal(metrics.shortWatches, 1);
  clock.step(800);
  await flush();
  assert.equal(lists(server).length, 2);
  ac.abort();
  await run;
});

test('resync calls store.resync every period while watching, when shouldResync agrees', async () => {
  const { reflector, ac, clock, store } = setup({ resyncPeriodMs: 1000 });
  const run = reflector.run(ac.signal);
  await flush();
  clock.step(3500);
  assert.equal(store.log.filter((l) => l === 'resync').length, 3);
  ac.abort();
  await run;
  assert.equal(clock.pendingTimers(), 0, 'resync timer cancelled on stop');
});

test('exponential backoff values: 800 ms ×2 to a 30 s cap, jitter in [d, 2d), reset after 2 min quiet', () => {
  const clock = new FakeClock();
  const b = new ExponentialBackoffManager({ clock, random: () => 0 });
  const got = Array.from({ length: 9 }, () => b.backoff());
  assert.deepEqual(got, [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  clock.step(120_000);
  assert.equal(b.backoff(), 30000, 'exactly 2 min is not "more than" 2 min');
  clock.step(120_001);
  assert.equal(b.backoff(), 800, 'reset after a quiet period');
  const j = new ExponentialBackoffManager({ clock, random: () => 0.5 });
  assert.deepEqual([j.backoff(), j.backoff()], [1200, 2400]);
  const hi = new ExponentialBackoffManager({ clock, random: () => 0.999999 });
  assert.ok(hi.backoff() < 1600);
});

test('a watch the server never closes is stopped client-side 30 s after its timeout, then re-opened', async () => {
  const clock = new FakeClock();
  const server = new FakeServer();
  const reflector = new Reflector<Obj>(server, newStore<Obj>(), { clock, random: () => 0 });
  const ac = new AbortController();
  const run = reflector.run(ac.signal);
  await flush();
  assert.equal(watches(server).length, 1);
  clock.step(300_000 + 29_999);
  await flush();
  assert.equal(watches(server).length, 1, 'still within timeoutSeconds + grace');
  clock.step(1);
  await flush();
  assert.equal(watches(server).length, 2, 'dead watch replaced');
  assert.equal(lists(server).length, 1, 'no relist: it lasted long, so it is not a short watch');
  ac.abort();
  await run;
  assert.equal(clock.pendingTimers(), 0);
});
