// Caches scoped and trimmed (controller-runtime's cache.Options, ByObject, OnlyMetadata): the
// factory's per-kind namespaces, label and field selectors, transforms and managedFields, and its
// metadata-only informers; the manager's cacheOptions and client reads; the builder's per-watch
// scope and metadataOnly. Over HTTP against crdgen's test server (the server filters, and sends
// PartialObjectMetadata), and on the fake backend (metadata cut down on the client).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../../../src/testing/index.js';
import type { TestApiServer } from '../../../../src/testing/index.js';
import {
  ConfigMapResource,
  DeploymentResource,
  FakeClientBackend,
  MultiNamespaceInformer,
  SharedInformerFactoryBase,
  enqueueRequestForObject,
  newControllerManagedBy,
  newManager,
  resourceClient,
  type ConfigMap,
  type KubeObject,
  type ReconcileRequest,
} from '../../../../src/runtime/index.js';

const NAMESPACES = ['a', 'b', 'c'];
const cm = (ns: string, name: string, labels: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: ns,
    labels,
    managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: {} }],
  },
  data: { big: 'x'.repeat(100) },
});

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function server(): Promise<TestApiServer> {
  const h = await startTestApiServer({
    objects: NAMESPACES.map((n) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } })),
  });
  const c = resourceClient<ConfigMap>(h.clientConfig, ConfigMapResource);
  for (const ns of NAMESPACES) {
    await c.namespace(ns).create(cm(ns, 'one', { shard: 'x' }));
    await c.namespace(ns).create(cm(ns, 'two', { shard: 'y' }));
  }
  return h;
}

/** Starts `factory`, waits for its informers, returns the keys each informer caches, then shuts it down. */
async function cachedKeys(
  factory: SharedInformerFactoryBase,
  kinds: { metadataOnly?: boolean }[] = [{}],
): Promise<{ keys: string[][]; objects: KubeObject[][] }> {
  const informers = kinds.map((k) => factory.informerFor<KubeObject>(ConfigMapResource, k));
  const ac = new AbortController();
  factory.start(ac.signal);
  try {
    const synced = await factory.waitForCacheSync(AbortSignal.timeout(20_000));
    assert.ok([...synced.values()].every(Boolean), 'synced');
    // the defaults (kube-public etc.) hold no ConfigMaps but kube-root-ca.crt-less test servers may: keep a, b, c
    const keep = (k: string): boolean => NAMESPACES.includes(k.split('/')[0]);
    return {
      keys: informers.map((i) => i.getStore().listKeys().filter(keep).sort()),
      objects: informers.map((i) =>
        i
          .getStore()
          .list()
          .filter((o) => keep(`${o.metadata?.namespace}/`)),
      ),
    };
  } finally {
    ac.abort();
    await factory.shutdown();
  }
}

test('byObject: a label selector, a field selector and namespaces scope one kind; the server filters', async () => {
  const h = await server();
  try {
    const scoped = (o: ConstructorParameters<typeof SharedInformerFactoryBase>[2]) =>
      cachedKeys(new SharedInformerFactoryBase(h.clientConfig, 0, o));
    const byLabel = await scoped({ byObject: [{ resource: ConfigMapResource, labelSelector: 'shard=x' }] });
    assert.deepEqual(byLabel.keys[0], ['a/one', 'b/one', 'c/one']);
    const byField = await scoped({ byObject: [{ resource: ConfigMapResource, fieldSelector: 'metadata.name=two' }] });
    assert.deepEqual(byField.keys[0], ['a/two', 'b/two', 'c/two']);
    const both = await scoped({
      labelSelector: 'shard=y',
      byObject: [{ resource: ConfigMapResource, namespaces: ['a', 'c'] }],
    });
    assert.deepEqual(both.keys[0], ['a/two', 'c/two'], 'the default label selector and the kind’s namespaces');
    const defaultNs = await scoped({ namespaces: ['b'] });
    assert.deepEqual(defaultNs.keys[0], ['b/one', 'b/two']);
  } finally {
    await h.stop();
  }
});

test('several namespaces are one informer: reads by key, by namespace index and lists merge them', async () => {
  const h = await server();
  const factory = new SharedInformerFactoryBase(h.clientConfig, 0, { namespaces: ['a', 'b'] });
  const informer = factory.informerFor<KubeObject>(ConfigMapResource);
  assert.ok(informer instanceof MultiNamespaceInformer);
  assert.deepEqual(informer.namespaces(), ['a', 'b']);
  const seen: string[] = [];
  const reg = informer.addEventHandler({
    onAdd: (o) => void seen.push(`${o.metadata?.namespace}/${o.metadata?.name}`),
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  try {
    await until('synced', () => reg.hasSynced());
    assert.deepEqual(seen.sort(), ['a/one', 'a/two', 'b/one', 'b/two']);
    const idx = informer.getIndexer();
    assert.equal(idx.getByKey('b/one')?.metadata?.name, 'one');
    assert.equal(idx.getByKey('c/one'), undefined);
    assert.deepEqual(
      idx
        .byIndex('namespace', 'a')
        .map((o) => o.metadata?.name)
        .sort(),
      ['one', 'two'],
    );
    assert.deepEqual(idx.byIndex('namespace', 'c'), []);
    assert.deepEqual(idx.listIndexFuncValues('namespace').sort(), ['a', 'b']);
    assert.match(informer.lastSyncResourceVersion(), /^\d+$/);
    await resourceClient<ConfigMap>(h.clientConfig, ConfigMapResource).namespace('b').create(cm('b', 'three'));
    await until('b/three', () => idx.getByKey('b/three') !== undefined);
  } finally {
    ac.abort();
    await factory.shutdown();
    await h.stop();
  }
});

test('metadata-only informers hold PartialObjectMetadata (over HTTP: the server sends it; on the fake: cut on the client), beside the full one', async () => {
  const h = await server();
  try {
    const factory = new SharedInformerFactoryBase(h.clientConfig, 0, { namespace: 'a' });
    const { keys, objects } = await cachedKeys(factory, [{}, { metadataOnly: true }]);
    assert.deepEqual(keys, [
      ['a/one', 'a/two'],
      ['a/one', 'a/two'],
    ]);
    const [full, meta] = [objects[0][0], objects[1][0]];
    assert.ok((full as ConfigMap).data, 'the full informer has the data');
    assert.equal(meta.kind, 'PartialObjectMetadata');
    assert.equal(meta.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(Object.keys(meta).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.equal(meta.metadata?.managedFields, undefined, 'managedFields dropped here too');
    assert.deepEqual(meta.metadata?.labels, full.metadata?.labels);
  } finally {
    await h.stop();
  }
  const fake = new FakeClientBackend([ConfigMapResource], [cm('a', 'one'), cm('b', 'two')]);
  const { objects } = await cachedKeys(new SharedInformerFactoryBase({ backend: fake }), [{ metadataOnly: true }]);
  assert.deepEqual(objects[0].map((o) => [o.kind, o.metadata?.name, Object.keys(o).length]).sort(), [
    ['PartialObjectMetadata', 'one', 3],
    ['PartialObjectMetadata', 'two', 3],
  ]);
});

test('per-kind transform and keepManagedFields; bad settings are refused with the reason; a kind is scoped once', async () => {
  const fake = new FakeClientBackend([ConfigMapResource], [cm('a', 'one')]);
  const factory = new SharedInformerFactoryBase({ backend: fake }, 0, {
    transform: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { by: 'default' } } }),
    byObject: [{ resource: ConfigMapResource, keepManagedFields: true, transform: (o) => ({ ...o, data: undefined }) }],
  });
  const { objects } = await cachedKeys(factory);
  assert.equal((objects[0][0] as ConfigMap).data, undefined, 'the kind’s transform, not the default');
  assert.equal(objects[0][0].metadata?.annotations, undefined);
  assert.equal(objects[0][0].metadata?.managedFields?.length, 1, 'kept for this kind');

  assert.throws(
    () =>
      new SharedInformerFactoryBase({ backend: fake }, 0, {
        byObject: [{ resource: ConfigMapResource, labelSelector: 'a in (' }],
      }),
    /cache options of configmaps\.v1: labelSelector "a in \(":/,
  );
  assert.throws(
    () => new SharedInformerFactoryBase({ backend: fake }, 0, { namespaces: ['Not_A_Namespace'] }),
    /namespace "Not_A_Namespace" is not a namespace name/,
  );
  assert.throws(
    () =>
      new SharedInformerFactoryBase({ backend: fake }, 0, {
        byObject: [{ resource: ConfigMapResource }, { resource: ConfigMapResource }],
      }),
    /byObject names configmaps\.v1 twice/,
  );
  const f2 = new SharedInformerFactoryBase({ backend: fake });
  f2.scope(ConfigMapResource, { labelSelector: 'shard=x' });
  f2.informerFor(ConfigMapResource);
  f2.scope(ConfigMapResource, { labelSelector: 'shard=x' }); // the same again: fine
  assert.throws(
    () => f2.scope(ConfigMapResource, { labelSelector: 'shard=y' }),
    /the cache of configmaps\.v1 already runs with labelSelector "shard=x"; it cannot also hold labelSelector "shard=y"/,
  );
});

test('the manager: cacheOptions scope what the client reads; getMetadata/listMetadata read the metadata cache; other namespaces are refused', async () => {
  const h = await server();
  const manager = newManager({
    client: h.clientConfig,
    cacheOptions: {
      namespaces: ['a', 'b'],
      byObject: [{ resource: ConfigMapResource, labelSelector: 'shard=x' }],
    },
  });
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  try {
    const listed = await manager.client.list(ConfigMapResource);
    assert.deepEqual(
      listed.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`),
      ['a/one', 'b/one'],
    );
    assert.equal(listed[0].kind, 'ConfigMap');
    const meta = await manager.client.getMetadata(ConfigMapResource, { namespace: 'b', name: 'one' });
    assert.equal(meta.kind, 'PartialObjectMetadata');
    assert.deepEqual(meta.metadata?.labels, { shard: 'x' });
    assert.deepEqual(
      (await manager.client.listMetadata(ConfigMapResource, { namespace: 'a' })).map((o) => o.metadata?.name),
      ['one'],
    );
    await assert.rejects(
      manager.client.get(ConfigMapResource, { namespace: 'c', name: 'one' }),
      /get configmaps in namespace "c": the manager caches only namespaces "a", "b" \(use apiReader to read elsewhere\)/,
    );
    await assert.rejects(
      manager.client.getMetadata(ConfigMapResource, { namespace: 'a', name: 'two' }),
      /configmaps "two" not found/,
    );
  } finally {
    ac.abort();
    await done;
    await h.stop();
  }
});

test('the builder: for() with a label selector reconciles only its shard; owns() metadata-only maps owned changes to the owner', async () => {
  const h = await startTestApiServer({ simulateWorkloads: false });
  const manager = newManager({ client: h.clientConfig, cacheSyncTimeoutMs: 20_000 });
  const seen = new Set<string>();
  newControllerManagedBy(manager)
    .for(ConfigMapResource, { labelSelector: 'shard=x' })
    .owns(DeploymentResource, { metadataOnly: true })
    .complete((r: ReconcileRequest) => Promise.resolve(void seen.add(`${r.namespace}/${r.name}`)));
  // another controller scoping the same kind otherwise is refused when it is built
  assert.throws(
    () =>
      newControllerManagedBy(manager)
        .named('other')
        .watches(ConfigMapResource, enqueueRequestForObject(), { labelSelector: 'shard=y' })
        .complete(() => Promise.resolve()),
    /the cache of configmaps\.v1 already runs with labelSelector "shard=x"/,
  );
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  try {
    const cms = resourceClient<ConfigMap>(h.clientConfig, ConfigMapResource).namespace('default');
    const owner = await cms.create(cm('default', 'owner', { shard: 'x' }));
    await cms.create(cm('default', 'elsewhere', { shard: 'y' }));
    await until('owner reconciled', () => seen.has('default/owner'));
    seen.clear();
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'owned',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true },
        ],
      },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    await resourceClient<KubeObject>(h.clientConfig, DeploymentResource).namespace('default').create(deploy);
    await until('the owner reconciled for its Deployment', () => seen.has('default/owner'));
    assert.ok(!seen.has('default/elsewhere'), 'the other shard is not cached, not reconciled');
    const metaInformer = manager.informer(DeploymentResource, { metadataOnly: true });
    assert.equal(metaInformer.getStore().getByKey('default/owned')?.kind, 'PartialObjectMetadata');
    assert.equal(manager.cache.informerFor(ConfigMapResource).getStore().getByKey('default/elsewhere'), undefined);
  } finally {
    ac.abort();
    await done;
    await h.stop();
  }
});
