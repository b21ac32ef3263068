// A warm standby (Manager.warmUp before start, as runOperator does with --leader-elect): its
// informers list and its controllers' handlers fill their queues while another replica leads,
// without a single reconcile; once it leads (start), the workers take the queue as it is, the
// object created while it stood by (a watch event, normal priority) first, then the initial list's
// keys (low priority), each once. What the leading replica writes meanwhile (a status or label, an
// owned object it creates) stays in the backlog; a user's change (a new generation) goes first.
// On the fake clientset's backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigMapResource,
  SecretResource,
  FakeClientBackend,
  newControllerManagedBy,
  newManager,
  type ConfigMap,
  type Secret,
} from '../../src/runtime/index.js';

const N = 200;
const cm = (name: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

async function until(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('a warm standby fills its queue before it leads, and reconciles what came while it stood by first', async () => {
  const backend = new FakeClientBackend(
    [ConfigMapResource],
    Array.from({ length: N }, (_, i) => cm(`cm-${i}`)),
  );
  const manager = newManager({ client: backend, namespace: 'default', maxConcurrentReconciles: 1 });
  const order: string[] = [];
  const controller = newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .complete(async (r) => {
      order.push(r.name);
    });
  const standby = new AbortController();
  manager.warmUp(standby.signal);
  await until('the initial list queued while standing by', () => controller.queue.len() === N);
  // created while another replica leads: a watch event, queued at normal priority
  await backend.resource<ConfigMap>(ConfigMapResource, 'default').create(cm('fresh'));
  await until('the new object queued', () => controller.queue.len() === N + 1);
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(order, [], 'a standby reconciles nothing');
  assert.equal(manager.hasSynced(), false, 'not running before it leads');

  const lead = new AbortController();
  const done = manager.start(AbortSignal.any([standby.signal, lead.signal]));
  try {
    await until('the queue through', () => order.length >= N + 1);
    assert.equal(order[0], 'fresh', 'the object created while standing by comes first');
    assert.equal(new Set(order).size, N + 1, 'each key once');
    assert.equal(order.length, N + 1);
  } finally {
    lead.abort();
    await done;
  }
});

test("standing by, the leader's writes join the backlog at low priority; a user's new generation and new object come first", async () => {
  const backend = new FakeClientBackend(
    [ConfigMapResource, SecretResource],
    Array.from({ length: N }, (_, i) => ({ ...cm(`cm-${i}`), data: { v: '0' } })),
  );
  const manager = newManager({ client: backend, namespace: 'default', maxConcurrentReconciles: 1 });
  const order: string[] = [];
  const controller = newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .owns(SecretResource)
    .complete(async (r) => {
      order.push(r.name);
    });
  const configMaps = backend.resource<ConfigMap>(ConfigMapResource, 'default');
  const standby = new AbortController();
  manager.warmUp(standby.signal);
  await until('the initial list queued while standing by', () => controller.queue.len() === N);
  // the leading replica's writes: a label on cm-150 (no new generation), a Secret owned by cm-180
  const labelled = await configMaps.get('cm-150');
  await configMaps.update({ ...labelled, metadata: { ...labelled.metadata, labels: { seen: 'yes' } } });
  const owner = await configMaps.get('cm-180');
  await backend.resource<Secret>(SecretResource, 'default').create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'owned',
      namespace: 'default',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-180', uid: owner.metadata!.uid!, controller: true },
      ],
    },
  });
  // a user's change of cm-100 (a new generation), then a new object
  const changed = await configMaps.get('cm-100');
  const bumped = await configMaps.update({ ...changed, data: { v: '1' } });
  assert.equal(
    bumped.metadata!.generation,
    (changed.metadata!.generation ?? 1) + 1,
    'a data change is a new generation here',
  );
  await configMaps.create(cm('fresh'));
  await until('the new object queued', () => controller.queue.len() === N + 1);
  await new Promise((r) => setTimeout(r, 50));

  const lead = new AbortController();
  const done = manager.start(AbortSignal.any([standby.signal, lead.signal]));
  try {
    await until('the queue through', () => order.length >= N + 1);
    assert.deepEqual(order.slice(0, 2), ['cm-100', 'fresh'], "the user's changes first, in the order they came");
    const backlog = order.slice(2);
    assert.deepEqual(
      backlog,
      // the initial list's order: the fake lists by name
      Array.from({ length: N }, (_, i) => `cm-${i}`)
        .filter((k) => k !== 'cm-100')
        .sort(),
      "the leader's writes (cm-150's label, cm-180's Secret) left the backlog in its order",
    );
  } finally {
    lead.abort();
    await done;
  }
});
