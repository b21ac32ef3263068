import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newSharedIndexInformer,
  POP_BATCH,
  ExponentialBackoffManager,
  DeletedFinalStateUnknown,
  filteringResourceEventHandler,
  type ResourceEventHandler,
  NAMESPACE_INDEX,
  waitForCacheSync,
  waitForCacheSyncWithClock,
  FakeClock,
} from '../../../../src/runtime/index.js';
import { FakeServer, type Obj } from './fake-server.js';

async function flush(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
}

/** A handler that logs what it sees. */
function recorder(log: string[], tag = ''): ResourceEventHandler<Obj> {
  const n = (o: Obj): string => `${o.metadata?.name}@${o.metadata?.resourceVersion}`;
  return {
    onAdd: (o, initial) => void log.push(`${tag}add ${n(o)}${initial ? ' initial' : ''}`),
    onUpdate: (a, b) => void log.push(`${tag}update ${n(a)}->${n(b)}`),
    onDelete: (o) =>
      void log.push(o instanceof DeletedFinalStateUnknown ? `${tag}delete tombstone ${o.key}` : `${tag}delete ${n(o)}`),
  };
}

function setup() {
  const clock = new FakeClock();
  const server = new FakeServer();
  const informer = newSharedIndexInformer<Obj>(server, {
    clock,
    backoff: new ExponentialBackoffManager({ clock, random: () => 0 }),
    random: () => 0,
  });
  informer.setWatchErrorHandler(() => {});
  const ac = new AbortController();
  return { clock, server, informer, ac };
}

test('handler added before run: initial adds, then updates and deletes; cache, namespace index and hasSynced', async () => {
  const { server, informer, ac } = setup();
  server.upsert('a', 1);
  server.upsert('b', 1, 'other');
  const log: string[] = [];
  const reg = informer.addEventHandler(recorder(log));
  assert.equal(informer.hasSynced(), false);
  assert.equal(reg.hasSynced(), false);
  const run = informer.run(ac.signal);
  await flush();
  assert.equal(informer.hasSynced(), true);
  assert.equal(reg.hasSynced(), true);
  assert.equal(informer.lastSyncResourceVersion(), '102');
  server.upsert('a', 2);
  server.remove('other/b');
  await flush();
  assert.deepEqual(log, ['add a@101 initial', 'add b@102 initial', 'update a@101->a@103', 'delete b@104']);
  assert.deepEqual(informer.getStore().listKeys(), ['default/a']);
  assert.equal(informer.getIndexer().byIndex(NAMESPACE_INDEX, 'default').length, 1);
  assert.equal(informer.getIndexer().byIndex(NAMESPACE_INDEX, 'other').length, 0);
  ac.abort();
  await run;
  assert.equal(informer.isStopped(), true);
  assert.throws(() => informer.addEventHandler({}), /stopped/);
});

test('a late handler first receives the cached objects as adds; its registration syncs once they are delivered', async () => {
  const { server, informer, ac } = setup();
  server.upsert('a', 1);
  server.upsert('b', 1);
  const run = informer.run(ac.signal);
  await flush();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const log: string[] = [];
  const rec = recorder(log);
  const reg = informer.addEventHandler({
    ...rec,
    onAdd: async (o, initial) => {
      await gate;
      void rec.onAdd?.(o, initial);
    },
  });
  await flush();
  assert.equal(reg.hasSynced(), false, 'initial adds not delivered yet');
  release();
  await flush();
  assert.equal(reg.hasSynced(), true);
  assert.deepEqual(log.sort(), ['add a@101 initial', 'add b@102 initial']);
  server.upsert('c', 1);
  await flush();
  assert.equal(log.at(-1), 'add c@103');
  ac.abort();
  await run;
});

test('removeEventHandler stops notifications to that handler only', async () => {
  const { server, informer, ac } = setup();
  const a: string[] = [];
  const b: string[] = [];
  const ra = informer.addEventHandler(recorder(a));
  informer.addEventHandler(recorder(b));
  const run = informer.run(ac.signal);
  await flush();
  server.upsert('x', 1);
  await flush();
  informer.removeEventHandler(ra);
  informer.removeEventHandler(ra); // unknown now: ignored
  server.upsert('y', 1);
  await flush();
  assert.deepEqual(a, ['add x@101']);
  assert.deepEqual(b, ['add x@101', 'add y@102']);
  ac.abort();
  await run;
});

test('transform runs before caching (drop managedFields); cannot be set after start', async () => {
  const { server, informer, ac } = setup();
  informer.setTransform((o) => {
    const { managedFields: _m, ...meta } = o.metadata ?? {};
    return { ...o, metadata: meta };
  });
  const withFields = server.upsert('a', 1);
  withFields.metadata!.managedFields = [{ manager: 'kubectl', operation: 'Apply' }];
  const run = informer.run(ac.signal);
  await flush();
  assert.equal(informer.getStore().getByKey('default/a')?.metadata?.managedFields, undefined);
  assert.throws(() => informer.setTransform((o) => o), /already started/);
  await assert.rejects(informer.run(ac.signal), /already been started/);
  ac.abort();
  await run;
});

test('resync: only handlers with a resync period get periodic updates; 1 s minimum', async () => {
  const { server, informer, ac, clock } = setup();
  server.upsert('a', 1);
  const withResync: string[] = [];
  const without: string[] = [];
  informer.addEventHandler(recorder(withResync), { resyncPeriodMs: 10 }); // raised to 1 s
  informer.addEventHandler(recorder(without));
  const run = informer.run(ac.signal);
  await flush();
  for (let i = 0; i < 3; i++) {
    clock.step(1000);
    await flush();
  }
  assert.deepEqual(withResync, [
    'add a@101 initial',
    'update a@101->a@101',
    'update a@101->a@101',
    'update a@101->a@101',
  ]);
  assert.deepEqual(without, ['add a@101 initial']);
  ac.abort();
  await run;
});

test('a relist after missed events: unchanged objects are not re-announced, changed ones update, vanished ones arrive as tombstones', async () => {
  const { server, informer, ac, clock } = setup();
  server.upsert('same', 1);
  server.upsert('changes', 1);
  server.upsert('vanishes', 1);
  const log: string[] = [];
  informer.addEventHandler(recorder(log));
  const run = informer.run(ac.signal);
  await flush();
  clock.step(5000);
  server.dropWatches();
  server.upsert('changes', 2); // missed: the watch is down…
  server.remove('default/vanishes');
  server.compact(); // …and the history is gone: 410
  for (let i = 0; i < 5; i++) {
    clock.step(2000);
    await flush();
  }
  assert.deepEqual(log.slice(3).sort(), ['delete tombstone default/vanishes', 'update changes@102->changes@104']);
  assert.deepEqual(informer.getStore().listKeys().sort(), ['default/changes', 'default/same']);
  ac.abort();
  await run;
});

test('a throwing handler is reported and does not stop delivery; a slow handler does not hold up others', async () => {
  const errors: unknown[] = [];
  const server = new FakeServer();
  const informer = newSharedIndexInformer<Obj>(server, { onHandlerError: (e) => errors.push(e) });
  const fast: string[] = [];
  let slowCalls = 0;
  informer.addEventHandler({
    onAdd: (o) => {
      if (o.metadata?.name === 'bad') throw new Error('boom');
    },
  });
  informer.addEventHandler({ onAdd: () => new Promise<void>(() => void slowCalls++) }); // never settles
  informer.addEventHandler(recorder(fast));
  const ac = new AbortController();
  const run = informer.run(ac.signal);
  await flush();
  server.upsert('bad', 1);
  server.upsert('good', 1);
  await flush();
  assert.deepEqual(fast, ['add bad@101', 'add good@102']);
  assert.equal(slowCalls, 1);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /boom/);
  ac.abort();
  await Promise.race([run, new Promise((r) => setTimeout(r, 100))]);
});

test('filteringResourceEventHandler turns updates crossing the filter into adds and deletes', async () => {
  const log: string[] = [];
  const h = filteringResourceEventHandler<Obj>(
    (o) => !(o instanceof DeletedFinalStateUnknown) && o.spec.replicas > 1,
    recorder(log),
  );
  const mk = (r: number): Obj => ({ metadata: { name: 'x', resourceVersion: String(r) }, spec: { replicas: r } });
  await h.onAdd?.(mk(1), false);
  await h.onUpdate?.(mk(1), mk(2));
  await h.onUpdate?.(mk(2), mk(3));
  await h.onUpdate?.(mk(3), mk(1));
  assert.deepEqual(log, ['add x@2', 'update x@2->x@3', 'delete x@3']);
});

test('waitForCacheSync: true once all synced, false when aborted first', async () => {
  const clock = new FakeClock();
  let synced = false;
  const ac = new AbortController();
  const p = waitForCacheSyncWithClock(
    clock,
    ac.signal,
    () => true,
    () => synced,
  );
  await flush();
  synced = true;
  clock.step(100);
  assert.equal(await p, true);
  const ac2 = new AbortController();
  const never = waitForCacheSyncWithClock(clock, ac2.signal, () => false);
  clock.step(1000);
  ac2.abort();
  assert.equal(await never, false);
  assert.equal(clock.pendingTimers(), 0);
  assert.equal(await waitForCacheSync(AbortSignal.abort(), () => true), false);
  assert.equal(await waitForCacheSync(new AbortController().signal, () => true), true);
});

test('a handler added after start cannot resync faster than the informer checks (client-go determineResyncPeriod)', async () => {
  const clock = new FakeClock();
  const server = new FakeServer();
  server.upsert('a', 1);
  const informer = newSharedIndexInformer<Obj>(server, { clock, resyncPeriodMs: 5000, random: () => 0 });
  const ac = new AbortController();
  const run = informer.run(ac.signal);
  await flush();
  const log: string[] = [];
  informer.addEventHandler(recorder(log), { resyncPeriodMs: 2000 });
  await flush();
  assert.deepEqual(log, ['add a@101 initial']);
  clock.step(2000);
  await flush();
  assert.equal(log.length, 1, 'no resync at 2 s: the period was raised to the 5 s check period');
  clock.step(3000);
  await flush();
  assert.deepEqual(log.slice(1), ['update a@101->a@101']);
  ac.abort();
  await run;
});

test('a list longer than one pop batch is applied in batches with event-loop turns in between', async () => {
  const { server, informer, ac } = setup();
  const total = POP_BATCH * 2 + 500;
  for (let i = 0; i < total; i++) server.upsert(`o${i}`, 1);
  let adds = 0;
  let seenByIo: number | undefined;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  informer.addEventHandler({
    onAdd: () => {
      // An I/O-phase callback queued at the first add runs before the list is through.
      if (adds++ === 0) setImmediate(() => (seenByIo = adds));
      if (adds === total) done();
    },
  });
  const run = informer.run(ac.signal);
  await all;
  assert.ok(seenByIo !== undefined && seenByIo < total, `the event loop ran after ${seenByIo} of ${total} adds`);
  assert.equal(informer.hasSynced(), true);
  assert.equal(informer.getStore().listKeys().length, total);
  ac.abort();
  await run;
});
