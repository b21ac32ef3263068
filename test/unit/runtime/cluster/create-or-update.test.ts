// createOrUpdate reads the cached object without copying it: what it hands `mutate` and what it
// returns are the caller's copies, and nothing a caller does to them reaches the cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigMapResource,
  FakeClientBackend,
  newManager,
  type ConfigMap,
  type ClientBackend,
} from '../../../../src/runtime/index.js';

const cm = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', labels: { app: 'a' } },
  data,
});

async function until(p: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !p(); await new Promise((r) => setTimeout(r, 5)))
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

async function started(fake: ClientBackend) {
  const manager = newManager({ client: fake, name: 'unit' });
  const informer = manager.informer(ConfigMapResource);
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  await until(() => informer.getIndexer().getByKey('ns/c') !== undefined, 'the cache to hold c');
  return { manager, informer, stop: async () => (ac.abort(), await done) };
}

test('createOrUpdate: mutate gets a copy of the cached object; changing it in place leaves the cache as it was', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('c', { a: '1' })]);
  const { manager, informer, stop } = await started(fake);
  try {
    const cached = informer.getIndexer().getByKey('ns/c')!;
    const before = structuredClone(cached);
    const r = await manager.client.createOrUpdate(ConfigMapResource, { namespace: 'ns', name: 'c' }, (o) => {
      assert.notEqual(o, cached, 'not the cached object');
      o.metadata!.labels!['app'] = 'changed in place';
      o.data!['a'] = '2';
    });
    assert.equal(r.operation, 'updated');
    assert.deepEqual(cached, before, 'the cached object is untouched');
    assert.equal(r.object.data?.['a'], '2');
  } finally {
    await stop();
  }
});

test('createOrUpdate: an unchanged result equals the cached object and is a copy of it', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('c', { a: '1' })]);
  const { manager, informer, stop } = await started(fake);
  try {
    const cached = informer.getIndexer().getByKey('ns/c')!;
    const before = structuredClone(cached);
    const writes = fake.actions().filter((a) => a.verb !== 'list' && a.verb !== 'watch').length;
    const r = await manager.client.createOrUpdate(
      ConfigMapResource,
      { namespace: 'ns', name: 'c' },
      (o) => void (o.data = { a: '1' }),
    );
    assert.equal(r.operation, 'unchanged');
    assert.equal(fake.actions().filter((a) => a.verb !== 'list' && a.verb !== 'watch').length, writes, 'nothing sent');
    // apiVersion and kind filled in (a cached built-in may lack them), the rest as cached
    assert.deepEqual(r.object, { ...before, apiVersion: 'v1', kind: 'ConfigMap' });
    assert.notEqual(r.object, cached);
    r.object.data!['a'] = 'changed by the caller';
    r.object.metadata!.labels!['app'] = 'changed by the caller';
    assert.deepEqual(cached, before, 'the cached object is untouched');
  } finally {
    await stop();
  }
});
