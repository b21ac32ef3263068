// The manager's client (createOrUpdate, apply, cache reads), the manager's lifecycle and the
// builder's validation, on the fake clientset's backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  FakeClientBackend,
  ConfigMapResource,
  DeploymentResource,
  type ConfigMap,
  isNotFound,
  type KubeList,
  type KubeObject,
  type ResourceClient,
  type ResourceDescriptor,
  type ClientBackend,
  semanticEqual,
  newManager,
  newControllerManagedBy,
  FakeClock,
  type SharedIndexInformer,
  finalizer,
} from '../../src/runtime/index.js';
import { ManagerClient } from '../../src/runtime/cluster/client.js';

const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', ...(labels ? { labels } : {}) },
  data,
});

async function until(p: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!p()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function started(fake: ClientBackend, setup: (m: ReturnType<typeof newManager>) => void = () => undefined) {
  const manager = newManager({ client: fake, name: 'unit' });
  setup(manager);
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  return { manager, client: manager.client, stop: async () => (ac.abort(), await done) };
}

test('createOrUpdate: created, then updated, then unchanged; the cache is read, copies are handed out', async () => {
  const fake = new FakeClientBackend([ConfigMapResource]);
  const m = await started(fake);
  try {
    const key = { namespace: 'ns', name: 'c' };
    const r1 = await m.client.createOrUpdate(ConfigMapResource, key, (o) => void (o.data = { a: '1' }));
    assert.equal(r1.operation, 'created');
    assert.equal(r1.object.metadata?.name, 'c');
    await until(
      () => m.manager.informer(ConfigMapResource).getIndexer().getByKey('ns/c') !== undefined,
      'the cache to see c',
    );
    const r2 = await m.client.createOrUpdate(ConfigMapResource, key, (o) => void (o.data = { a: '2' }));
    assert.equal(r2.operation, 'updated');
    await until(
      () => m.manager.informer(ConfigMapResource).getIndexer().getByKey('ns/c')?.data?.['a'] === '2',
      'the cache to see a=2',
    );
    const writes = fake.actions().filter((a) => a.verb !== 'list' && a.verb !== 'watch').length;
    const r3 = await m.client.createOrUpdate(ConfigMapResource, key, (o) => void (o.data = { a: '2' }));
    assert.equal(r3.operation, 'unchanged');
    assert.equal(
      fake.actions().filter((a) => a.verb !== 'list' && a.verb !== 'watch').length,
      writes,
      'unchanged writes nothing',
    );
    const got = await m.client.get(ConfigMapResource, key);
    got.data!['a'] = 'mutated';
    assert.equal(
      m.manager.informer(ConfigMapResource).getIndexer().getByKey('ns/c')?.data?.['a'],
      '2',
      'get hands out a copy',
    );
    await assert.rejects(
      m.client.createOrUpdate(ConfigMapResource, key, (o) => void (o.metadata!.name = 'other')),
      /must not change the object's name or namespace/,
    );
    await assert.rejects(
      m.client.get(ConfigMapResource, { namespace: 'ns', name: 'missing' }),
      (e: unknown) => isNotFound(e) && /configmaps "missing" not found/.test((e as Error).message),
    );
    await assert.rejects(m.client.get(ConfigMapResource, { name: 'c' }), /namespaced; the key needs a namespace/);
  } finally {
    await m.stop();
  }
});

test('createOrUpdate falls back to an update when the create finds the object (the cache was behind)', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('c', { a: '1' })]);
  const emptyCache = { getIndexer: () => ({ getByKey: () => undefined }) };
  const client = new ManagerClient({
    backend: fake,
    fieldManager: 'unit',
    syncedInformer: async <T>() => emptyCache as unknown as SharedIndexInformer<T>,
  });
  const r = await client.createOrUpdate(
    ConfigMapResource,
    { namespace: 'ns', name: 'c' },
    (o) => void (o.data = { ...o.data, b: '2' }),
  );
  assert.equal(r.operation, 'updated');
  assert.deepEqual(r.object.data, { a: '1', b: '2' });
  assert.deepEqual(
    fake.actions().map((a) => a.verb),
    ['create', 'get', 'update'],
  );
});

test('list reads the cache by namespace and label selector, sorted; reads before start fail clearly', async () => {
  const fake = new FakeClientBackend(
    [ConfigMapResource],
    [
      cm('b', {}, { app: 'x' }),
      cm('a', {}, { app: 'x' }),
      cm('z', {}, { app: 'y' }),
      { ...cm('o', {}, { app: 'x' }), metadata: { name: 'o', namespace: 'other', labels: { app: 'x' } } },
    ],
  );
  const idle = newManager({ client: fake });
  await assert.rejects(
    idle.client.get(ConfigMapResource, { namespace: 'ns', name: 'a' }),
    /cache is not running \(start the manager first\)/,
  );
  const m = await started(fake);
  try {
    assert.deepEqual(
      (await m.client.list(ConfigMapResource, { namespace: 'ns', labelSelector: 'app=x' })).map(
        (o) => o.metadata?.name,
      ),
      ['a', 'b'],
    );
    assert.deepEqual(
      (await m.client.list(ConfigMapResource, { labelSelector: 'app=x' })).map(
        (o) => `${o.metadata?.namespace}/${o.metadata?.name}`,
      ),
      ['ns/a', 'ns/b', 'other/o'],
    );
    const all = await m.client.list(ConfigMapResource);
    assert.equal(all.length, 4);
    assert.ok(
      all.every((o) => o.apiVersion === 'v1' && o.kind === 'ConfigMap'),
      'apiVersion and kind filled in',
    );
    assert.deepEqual(
      (await m.client.apiReader.list(ConfigMapResource, { namespace: 'ns', labelSelector: 'app=y' })).map(
        (o) => o.metadata?.name,
      ),
      ['z'],
    );
  } finally {
    await m.stop();
  }
});

/** `backend` recording the options of every apply. */
function recordingApplies(backend: ClientBackend): { backend: ClientBackend; applies: unknown[][] } {
  const applies: unknown[][] = [];
  return {
    applies,
    backend: {
      scale: (d, ns) => backend.scale(d, ns),
      resource: <T extends KubeObject, L extends KubeList<T> = KubeList<T>>(
        d: ResourceDescriptor,
        ns?: string,
      ): ResourceClient<T, L> => {
        const c = backend.resource<T, L>(d, ns);
        return new Proxy(c, {
          get: (t, p, r) => {
            const v: unknown = Reflect.get(t, p, r);
            if (p !== 'apply' || typeof v !== 'function') return typeof v === 'function' ? v.bind(t) : v;
            return (...a: unknown[]) => (applies.push(a), (v as (...x: unknown[]) => unknown).apply(t, a));
          },
        });
      },
    },
  };
}

test('apply fills apiVersion and kind, forces by default with the manager field manager, and checks the configuration', async () => {
  const fake = new FakeClientBackend([ConfigMapResource, DeploymentResource]);
  const rec = recordingApplies(fake);
  const client = new ManagerClient({
    backend: rec.backend,
    fieldManager: 'my-operator',
    syncedInformer: async () => {
      throw new Error('not used');
    },
  });
  const out = await client.apply(ConfigMapResource, { metadata: { name: 'c', namespace: 'ns' }, data: { a: '1' } });
  assert.equal(out.kind, 'ConfigMap');
  assert.deepEqual(rec.applies[0], [
    { metadata: { name: 'c', namespace: 'ns' }, data: { a: '1' }, apiVersion: 'v1', kind: 'ConfigMap' },
    { fieldManager: 'my-operator', force: true },
  ]);
  await client.apply(
    ConfigMapResource,
    { metadata: { name: 'c', namespace: 'ns' } },
    { force: false, fieldManager: 'someone' },
  );
  assert.deepEqual(rec.applies[1][1], { fieldManager: 'someone', force: false });
  await assert.rejects(
    client.apply(ConfigMapResource, { apiVersion: 'apps/v1', metadata: { name: 'c', namespace: 'ns' } }),
    /apiVersion "apps\/v1" is not "v1"/,
  );
  await assert.rejects(
    client.apply(DeploymentResource, { kind: 'ConfigMap', metadata: { name: 'd', namespace: 'ns' } }),
    /kind "ConfigMap" is not "Deployment"/,
  );
  await assert.rejects(client.apply(ConfigMapResource, { metadata: { name: 'c' } }), /needs a namespace/);
  await assert.rejects(client.addFinalizer(ConfigMapResource, cm('c', {}), 'not a finalizer!'), /not a qualified name/);
});

test('semanticEqual: JSON equality where undefined members count as absent', () => {
  assert.equal(semanticEqual({ a: 1, b: undefined }, { a: 1 }), true);
  assert.equal(semanticEqual({ a: [1, { x: 2 }] }, { a: [1, { x: 2 }] }), true);
  assert.equal(semanticEqual({ a: [1, 2] }, { a: [2, 1] }), false);
  assert.equal(semanticEqual({ a: {} }, { a: [] }), false);
  assert.equal(semanticEqual({ a: null }, {}), false);
});

test('the manager: starts once, fails when a cache does not sync in time, refuses a stopped manager', async () => {
  const fake = new FakeClientBackend([ConfigMapResource]);
  fake.prependReactor('list', 'configmaps', () => ({ error: new Error('the list fails') })); // the cache never syncs
  const manager = newManager({ client: fake, cacheSyncTimeoutMs: 200 });
  newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .complete(async () => undefined);
  const ac = new AbortController();
  const run = manager.start(ac.signal);
  await assert.rejects(manager.start(ac.signal), /starts once/);
  await assert.rejects(run, /controller configmap: the caches of configmaps did not sync within 200 ms/);
  assert.equal(manager.hasSynced(), false);
  assert.throws(
    () =>
      newControllerManagedBy(manager)
        .named('late')
        .for(ConfigMapResource)
        .complete(async () => undefined),
    /the manager has stopped/,
  );
});

test(
  'cache-sync time limits hold through garbage collections: the controller and the client give up in time',
  { timeout: 60_000 },
  async () => {
    // a collection during the wait must not lose the time limit (Node 20 holds the sources of
    // AbortSignal.any() weakly: a combined AbortSignal.timeout() is collected and never fires)
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collecting = setInterval(gc, 20);
    try {
      const fake = new FakeClientBackend([ConfigMapResource, DeploymentResource]);
      fake.prependReactor('list', 'configmaps', () => ({ error: new Error('the list fails') }));
      fake.prependReactor('list', 'deployments', () => ({ error: new Error('the list fails') }));
      const manager = newManager({ client: fake, cacheSyncTimeoutMs: 300 });
      const ac = new AbortController();
      const run = manager.start(ac.signal);
      // the client's first read of a kind waits for its cache, as long as the limit
      await assert.rejects(
        manager.client.get(DeploymentResource, { namespace: 'ns', name: 'd' }),
        /the cache of deployments did not sync within 300 ms/,
      );
      newControllerManagedBy(manager)
        .for(ConfigMapResource)
        .complete(async () => undefined);
      await assert.rejects(run, /controller configmap: the caches of configmaps did not sync within 300 ms/);
    } finally {
      clearInterval(collecting);
    }
  },
);

test('the builder validates the chain', () => {
  const manager = newManager({ client: new FakeClientBackend([ConfigMapResource, DeploymentResource]) });
  const r = async (): Promise<void> => undefined;
  assert.throws(
    () => newControllerManagedBy(manager).owns(DeploymentResource).named('x').complete(r),
    /owns\(\) needs for\(\)/,
  );
  assert.throws(() => newControllerManagedBy(manager).named('x').complete(r), /watches nothing/);
  assert.throws(
    () =>
      newControllerManagedBy(manager)
        .watches(ConfigMapResource, () => [])
        .complete(r),
    /without for\(\) needs named\(\)/,
  );
  assert.throws(
    () => newControllerManagedBy(manager).for(ConfigMapResource).for(DeploymentResource),
    /for\(\) was already called/,
  );
  assert.throws(
    () =>
      newControllerManagedBy(manager)
        .for(ConfigMapResource)
        .complete('nope' as never),
    /reconciler must be a function/,
  );
  assert.throws(() => newControllerManagedBy(manager).for({} as never), /want a resource descriptor/);
  assert.throws(() => newControllerManagedBy(manager).named(''), /non-empty/);
  assert.throws(
    () =>
      newControllerManagedBy(manager).for(ConfigMapResource).withOptions({ maxConcurrentReconciles: 0 }).complete(r),
    /maxConcurrentReconciles must be an integer ≥ 1/,
  );
  const b = newControllerManagedBy(manager).for(ConfigMapResource);
  const c = b.complete(r);
  assert.equal(c.name, 'configmap');
  assert.throws(() => b.complete(r), /already called/);
  assert.throws(() => newControllerManagedBy(manager).for(ConfigMapResource).complete(r), /already in this manager/);
  assert.equal(manager.getControllers().length, 1);
});

test('a reconciler result with a bad requeueAfterMs is an error (retried with backoff), not a timer that fires at once', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('c', {})]);
  const clock = new FakeClock();
  let calls = 0;
  const m = await started(fake, (mgr) => {
    newControllerManagedBy(mgr)
      .for(ConfigMapResource)
      .withOptions({ clock })
      .complete(async () => {
        calls++;
        return { requeueAfterMs: Number.NaN };
      });
  });
  try {
    const ctl = m.manager.getControllers()[0];
    await until(
      () => calls === 1 && ctl.queue.waitingCount() === 1 && ctl.inFlight.size === 0,
      'the first reconcile parked',
    );
    assert.equal(ctl.queue.numRequeues('ns/c'), 1, 'rate limited');
  } finally {
    await m.stop();
  }
});

test('a manager limited to a namespace refuses cache reads of another one', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('a', {})]);
  const manager = newManager({ client: fake, namespace: 'ns' });
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  try {
    assert.equal((await manager.client.get(ConfigMapResource, { namespace: 'ns', name: 'a' })).metadata?.name, 'a');
    assert.equal((await manager.client.list(ConfigMapResource)).length, 1);
    await assert.rejects(
      manager.client.get(ConfigMapResource, { namespace: 'other', name: 'a' }),
      /caches only namespace "ns" \(use apiReader/,
    );
    await assert.rejects(manager.client.list(ConfigMapResource, { namespace: 'other' }), /caches only namespace "ns"/);
  } finally {
    ac.abort();
    await done;
  }
});

test('finalizer(): adds then applies; on deletion keeps the finalizer while cleanup asks to come back, removes it when done', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('c', {})]);
  const client = new ManagerClient({
    backend: fake,
    fieldManager: 'unit',
    syncedInformer: async () => {
      throw new Error('not used');
    },
  });
  const api = fake.resource<ConfigMap>(ConfigMapResource, 'ns');
  const FIN = 'example.com/external';
  const calls: string[] = [];
  const handlers = {
    apply: async (o: ConfigMap) => void calls.push(`apply:${o.metadata?.finalizers?.join(',')}`),
    cleanup: async () => (
      calls.push('cleanup'),
      calls.filter((c) => c === 'cleanup').length === 1 ? { requeueAfterMs: 1000 } : undefined
    ),
  };
  assert.deepEqual(await finalizer(client, ConfigMapResource, FIN, await api.get('c'), handlers), {});
  assert.deepEqual(calls, [`apply:${FIN}`], 'apply sees the object with the finalizer');
  assert.deepEqual((await api.get('c')).metadata?.finalizers, [FIN]);
  await finalizer(client, ConfigMapResource, FIN, await api.get('c'), handlers);
  assert.equal(fake.actions().filter((a) => a.verb === 'patch').length, 1, 'a present finalizer is not written again');
  await api.delete('c');
  const deleting = await api.get('c');
  assert.ok(deleting.metadata?.deletionTimestamp);
  assert.deepEqual(await finalizer(client, ConfigMapResource, FIN, deleting, handlers), { requeueAfterMs: 1000 });
  assert.deepEqual((await api.get('c')).metadata?.finalizers, [FIN], 'kept while the cleanup is under way');
  assert.deepEqual(await finalizer(client, ConfigMapResource, FIN, await api.get('c'), handlers), {});
  await assert.rejects(api.get('c'), (e: unknown) => isNotFound(e));
  assert.deepEqual(calls, [`apply:${FIN}`, `apply:${FIN}`, 'cleanup', 'cleanup']);
  // deleting, without our finalizer (another one holds the object): nothing runs
  const other = await api.create({
    ...cm('d', {}),
    metadata: { name: 'd', namespace: 'ns', finalizers: ['example.com/other'] },
  });
  await api.delete('d');
  assert.deepEqual(await finalizer(client, ConfigMapResource, FIN, await api.get(other.metadata!.name!), handlers), {});
  assert.equal(calls.length, 4);
  // a stale object: the guarded add is a Conflict (retried by the controller)
  await api.create(cm('e', {}));
  const stale = await api.get('e');
  await api.patch('e', 'application/merge-patch+json', { data: { x: '1' } });
  await assert.rejects(
    client.addFinalizer(ConfigMapResource, stale, FIN),
    (e: unknown) => (e as { code?: number }).code === 409,
  );
});
