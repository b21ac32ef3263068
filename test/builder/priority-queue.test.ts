// The controller's priority queue: a manager started over N existing objects queues them (its
// informer's initial list) at low priority; an object created while that backlog runs is a watch
// event, queued at normal priority, and reconciled before the backlog is through. Without the
// priority queue (usePriorityQueue: false) it waits behind the whole backlog. On crdgen/testing
// (streaming lists over HTTP) and on the fake clientset's backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import {
  ConfigMapResource,
  FakeClientBackend,
  newControllerManagedBy,
  newManager,
  resourceClient,
  type ClientBackend,
  type ConfigMap,
  type RestConfig,
} from '../../src/runtime/index.js';

const N = 600;
const cm = (name: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

async function until(what: string, cond: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Reconciles in order (one worker, 2 ms each); returns where `fresh`, created once the backlog runs, came. */
async function orderOf(
  client: RestConfig | ClientBackend,
  create: (o: ConfigMap) => Promise<unknown>,
  usePriorityQueue: boolean,
): Promise<{ position: number; total: number }> {
  const manager = newManager({ client, namespace: 'default', maxConcurrentReconciles: 1 });
  const order: string[] = [];
  newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .withOptions({ usePriorityQueue })
    .complete(async (r) => {
      order.push(r.name);
      await new Promise((res) => setTimeout(res, 2));
    });
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  try {
    await until('the backlog to start', () => order.length >= 20);
    await create(cm('fresh'));
    await until('the fresh object reconciled', () => order.includes('fresh'));
    await until('the backlog through', () => order.length >= N + 1);
    return { position: order.indexOf('fresh'), total: order.length };
  } finally {
    ac.abort();
    await done;
  }
}

test('testenv: a restart with a backlog reconciles a new object before the backlog is through; FIFO without the priority queue', async () => {
  const h = await startTestApiServer();
  try {
    const cms = resourceClient<ConfigMap>({ ...h.clientConfig, qps: 0 }, ConfigMapResource).namespace('default');
    for (let i = 0; i < N; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => cms.create(cm(`old-${i + j}`))));
    const prio = await orderOf({ ...h.clientConfig, qps: 0 }, (o) => cms.create(o), true);
    assert.ok(prio.position < N, `reconciled at ${prio.position} of ${prio.total}: before the backlog was through`);
    await cms.delete('fresh');
    const fifo = await orderOf({ ...h.clientConfig, qps: 0 }, (o) => cms.create(o), false);
    assert.equal(fifo.position, N, 'without the priority queue: after the whole backlog');
  } finally {
    await h.stop();
  }
});

test('fake backend: the same order', async () => {
  const fake = new FakeClientBackend(
    [ConfigMapResource],
    Array.from({ length: N }, (_, i) => cm(`old-${i}`)),
  );
  const cms = fake.resource<ConfigMap>(ConfigMapResource, 'default');
  const prio = await orderOf(fake, (o) => cms.create(o), true);
  assert.ok(prio.position < N, `reconciled at ${prio.position} of ${prio.total}`);
});
