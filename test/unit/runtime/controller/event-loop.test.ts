// A controller whose reconciles do no I/O (every object already as wanted: cache reads only) still
// lets the event loop run while it works through a backlog: timers (a leader's lease renewal) and
// I/O (health probes) are not held up until the whole queue is through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigMapResource,
  FakeClientBackend,
  newControllerManagedBy,
  newManager,
  type ConfigMap,
} from '../../../../src/runtime/index.js';

const N = 2000;
const cm = (i: number): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `c${i}`, namespace: 'ns' },
  data: { a: '1' },
});

test('workers yield to the event loop during a backlog of reconciles that never wait on I/O', async () => {
  const fake = new FakeClientBackend(
    [ConfigMapResource],
    Array.from({ length: N }, (_, i) => cm(i)),
  );
  const manager = newManager({ client: fake, name: 'unit' });
  let reconciled = 0;
  let timerFiredAfter: number | undefined;
  let allDone!: () => void;
  const done = new Promise<void>((r) => (allDone = r));
  newControllerManagedBy(manager)
    .named('busy')
    .for(ConfigMapResource)
    .complete(async (req, ctx) => {
      if (reconciled === 0) setTimeout(() => (timerFiredAfter ??= reconciled), 0);
      await ctx.client.get(ConfigMapResource, req); // a cache read: no I/O
      // ~50 µs of work each: the backlog takes ≥ 100 ms, whatever the machine
      for (const end = performance.now() + 0.05; performance.now() < end;);
      if (++reconciled === N) allDone();
    });
  const ac = new AbortController();
  const running = manager.start(ac.signal);
  try {
    await done;
    assert.notEqual(timerFiredAfter, undefined, 'the timer fired');
    assert.ok(timerFiredAfter! < N, `a timer set at the first reconcile fired after ${timerFiredAfter} of ${N}`);
  } finally {
    ac.abort();
    await running;
  }
});
