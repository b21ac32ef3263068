// The informer's "must not lose an event" invariant, checked under random faults: a
// reflector + informer against a server that randomly drops watches, answers 410 (as
// an ERROR event and at watch start), 500 and 429, expires continue tokens, compacts
// its history and mutates objects. After the faults stop, the cache equals the server
// and every handler's view (built only from its notifications) equals the server too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newSharedIndexInformer,
  ExponentialBackoffManager,
  DeletedFinalStateUnknown,
  type ResourceEventHandler,
  metaNamespaceKeyFunc,
  ReflectorCounters,
} from '../../../../src/runtime/index.js';
import { FakeServer, prng, type Fault, type Obj } from './fake-server.js';

const SEEDS = [1, 2, 3, 42, 1337, 20240607];
const STEPS = 400;

/** A handler keeping its own view of the objects, checking the notification sequence is coherent. */
function viewHandler(name: string, problems: string[]): { view: Map<string, Obj>; handler: ResourceEventHandler<Obj> } {
  const view = new Map<string, Obj>();
  const rv = (o: Obj | undefined): number => Number(o?.metadata?.resourceVersion ?? NaN);
  return {
    view,
    handler: {
      onAdd(o) {
        const k = metaNamespaceKeyFunc(o);
        if (view.has(k)) problems.push(`${name}: add of ${k} which it already has`);
        view.set(k, o);
      },
      onUpdate(oldObj, newObj) {
        const k = metaNamespaceKeyFunc(newObj);
        const seen = view.get(k);
        if (!seen) problems.push(`${name}: update of ${k} it never saw added`);
        else if (rv(seen) !== rv(oldObj))
          problems.push(`${name}: update of ${k}: old ${rv(oldObj)} ≠ last seen ${rv(seen)}`);
        if (rv(newObj) < rv(oldObj)) problems.push(`${name}: ${k} went back in time ${rv(oldObj)} → ${rv(newObj)}`);
        view.set(k, newObj);
      },
      onDelete(o) {
        const k = o instanceof DeletedFinalStateUnknown ? o.key : metaNamespaceKeyFunc(o);
        if (!view.has(k)) problems.push(`${name}: delete of ${k} it does not have`);
        view.delete(k);
      },
    },
  };
}

const snapshot = (m: Iterable<Obj>): string[] =>
  Array.from(m, (o) => `${metaNamespaceKeyFunc(o)}@${o.metadata?.resourceVersion}`).sort();

async function runSeed(seed: number): Promise<void> {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const server = new FakeServer();
  server.chance = (p) => r() < p;
  const names = Array.from({ length: 12 }, (_, i) => `db${i}`);
  for (const n of names.slice(0, 6)) server.upsert(n, 1, pick(['default', 'prod']));

  const problems: string[] = [];
  const metrics = new ReflectorCounters();
  // The informer draws from a generator of its own: how often it draws depends on timing,
  // which must not change the test's fault schedule.
  const ri = prng(seed + 0x9e3779b9);
  const informer = newSharedIndexInformer<Obj>(server, {
    name: `seed-${seed}`,
    backoff: new ExponentialBackoffManager({ initialMs: 1, capMs: 8, random: ri }),
    random: ri,
    pageSize: 4,
    metrics,
    onHandlerError: (e) => problems.push(`handler threw: ${String(e)}`),
  });
  informer.setWatchErrorHandler(() => {});
  const early = viewHandler('early', problems);
  informer.addEventHandler(early.handler);
  let late: ReturnType<typeof viewHandler> | undefined;

  const ac = new AbortController();
  const run = informer.run(ac.signal);
  const faults: Fault[] = [
    { kind: 'status', code: 500, reason: 'InternalError' },
    { kind: 'status', code: 429, reason: 'TooManyRequests', retryAfter: '0' },
    { kind: 'status', code: 410, reason: 'Expired' },
    { kind: 'network' },
  ];
  try {
    for (let step = 0; step < STEPS; step++) {
      const x = r();
      if (x < 0.3) server.upsert(pick(names), Math.floor(r() * 10) + 1, pick(['default', 'prod']));
      else if (x < 0.45) {
        const keys = Array.from(server.objects.keys());
        if (keys.length) server.remove(pick(keys));
      } else if (x < 0.53) server.dropWatches();
      else if (x < 0.59) server.expireWatches();
      else if (x < 0.64) server.compact();
      else if (x < 0.69) server.bookmark();
      else if (x < 0.73) {
        if (server.listFaults.length === 0) server.listFaults.push(pick(faults.slice(0, 3)));
      } else if (x < 0.78) {
        if (server.watchFaults.length === 0) server.watchFaults.push(pick(faults));
      } else if (x < 0.81) server.continueExpiry = server.continueExpiry ? 0 : 0.5;
      if (step === Math.floor(STEPS / 2)) {
        late = viewHandler('late', problems);
        informer.addEventHandler(late.handler);
      }
      if (r() < 0.5) await new Promise((res) => setImmediate(res));
      else await new Promise((res) => setTimeout(res, Math.floor(r() * 3)));
    }
    // Faults stop; the state must converge.
    server.listFaults = [];
    server.watchFaults = [];
    server.continueExpiry = 0;
    const want = snapshot(server.objects.values());
    const deadline = Date.now() + 10_000;
    const converged = (): boolean =>
      JSON.stringify(snapshot(informer.getStore().list())) === JSON.stringify(want) &&
      JSON.stringify(snapshot(early.view.values())) === JSON.stringify(want) &&
      JSON.stringify(snapshot(late?.view.values() ?? [])) === JSON.stringify(want);
    while (!converged() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    assert.deepEqual(problems, [], `seed ${seed}: incoherent notifications`);
    assert.deepEqual(snapshot(informer.getStore().list()), want, `seed ${seed}: cache ≠ server`);
    assert.deepEqual(snapshot(early.view.values()), want, `seed ${seed}: early handler's view ≠ server`);
    assert.deepEqual(snapshot(late?.view.values() ?? []), want, `seed ${seed}: late handler's view ≠ server`);
    // After the faults, the informer is live: a new change arrives through its watch (the
    // metric counts a watch's events when that watch ends, so end it), and a 410 on the
    // watch makes it list again. Waits are for conditions, not for time.
    const waitUntil = async (what: string, cond: () => boolean): Promise<void> => {
      const until = Date.now() + 20_000;
      while (!cond()) {
        assert.ok(Date.now() < until, `seed ${seed}: timed out waiting for ${what}`);
        await new Promise((res) => setTimeout(res, 2));
      }
    };
    await waitUntil('an open watch', () => server.openWatches() > 0);
    const probe = server.upsert('probe', 1);
    await waitUntil(
      'the probe in the cache',
      () =>
        informer.getStore().getByKey('default/probe')?.metadata?.resourceVersion === probe.metadata?.resourceVersion,
    );
    const { watches, watchEvents, lists } = metrics;
    server.dropWatches();
    await waitUntil('the dropped watch to be counted', () => metrics.watches > watches);
    assert.ok(metrics.watchEvents > watchEvents, `seed ${seed}: the probe came through the watch`);
    await waitUntil('a new watch', () => server.openWatches() > 0);
    server.expireWatches();
    await waitUntil('a relist after 410', () => metrics.lists > lists);
    if (process.env.H3_DEBUG) console.log(seed, JSON.stringify(metrics));
  } finally {
    ac.abort();
    await run;
  }
  assert.equal(server.openWatches(), 0, 'every watch stopped');
}

for (const seed of SEEDS) {
  test(`randomized faults, seed ${seed}: cache and every handler converge to the server's state`, async () => {
    await runSeed(seed);
  });
}
