import { test } from 'node:test';
import assert from 'node:assert/strict';
import { informers } from '../../../src/generate/informers.js';
import {
  FakeClientBackend,
  SharedInformerFactoryBase,
  type KubeObject,
  type ResourceDescriptor,
  type TrackedResource,
} from '../../../src/runtime/index.js';
import { crdYaml, ctxWith, file, fixtureModel, yamlModel } from './client-helpers.js';

test('DatabaseManager: factory → coolops() → v1alpha1() → databaseManagers() → {informer, lister}', () => {
  const files = informers(fixtureModel('fixtures/databasemanager/crd.yaml'), ctxWith());
  assert.deepEqual(files.map((f) => f.path).sort(), [
    'informers/coolops.cn/interface.ts',
    'informers/coolops.cn/v1alpha1/databasemanager.ts',
    'informers/coolops.cn/v1alpha1/interface.ts',
    'informers/factory.ts',
  ]);
  const factory = file(files, 'informers/factory.ts');
  assert.match(factory, /export class SharedInformerFactory extends SharedInformerFactoryBase/);
  assert.match(factory, /coolops\(\): CoolopsInformers \{/);
  assert.match(factory, /return \[coolopsV1alpha1DatabaseManagerResource\];/);
  assert.match(file(files, 'informers/coolops.cn/interface.ts'), /v1alpha1\(\): CoolopsV1alpha1Informers;/);
  assert.match(
    file(files, 'informers/coolops.cn/v1alpha1/interface.ts'),
    /databaseManagers\(\): DatabaseManagerInformer;/,
  );
  const inf = file(files, 'informers/coolops.cn/v1alpha1/databasemanager.ts');
  assert.match(inf, /informer\(\): SharedIndexInformer<Stored<DatabaseManager, "Namespaced">>;/);
  assert.match(
    inf,
    /function informer\(\): SharedIndexInformer<\n {4}Stored<DatabaseManager, "Namespaced">\n {2}> \{\n {4}return factory\.informerFor\(DatabaseManagerResource\);/,
  );
  assert.match(inf, /lister\(\): DatabaseManagerLister;/);
  assert.match(inf, /from "\.\.\/\.\.\/\.\.\/listers\/coolops\.cn\/v1alpha1\/databasemanager\.js"/);
});

test('a group whose accessor would shadow a factory member is renamed; models without clients emit nothing', () => {
  const files = informers(yamlModel(crdYaml({ group: 'start.example.com', kind: 'Thing' })), ctxWith());
  assert.match(file(files, 'informers/factory.ts'), /startGroup\(\): StartInformers \{/);
  assert.deepEqual(
    informers(
      fixtureModel('fixtures/databasemanager/crd.yaml'),
      ctxWith({ kinds: { DatabaseManager: { onlyVerbs: ['get'] } } }),
    ),
    [],
  );
});

const DM: TrackedResource = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
  subresources: { status: true },
};
const OTHER: ResourceDescriptor = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'others',
  kind: 'Other',
  listKind: 'OtherList',
  namespaced: false,
};

class Factory extends SharedInformerFactoryBase {
  protected override knownResources(): readonly ResourceDescriptor[] {
    return [DM, OTHER];
  }
}

function dm(ns: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { namespace: ns, name, labels, managedFields: [{ manager: 'x' }] },
  };
}

test('factory options: namespace, tweakListOptions, transform; start is idempotent and starts informers added later', async () => {
  const backend = new FakeClientBackend(
    [DM, OTHER],
    [dm('a', 'one', { keep: 'y' }), dm('a', 'two'), dm('b', 'three', { keep: 'y' })],
  );
  const factory = new Factory({ backend }, 0, {
    namespace: 'a',
    tweakListOptions: (o) => ({ ...o, labelSelector: 'keep=y' }),
    transform: (o) => ({ ...o, metadata: { ...o.metadata, managedFields: [] } }),
  });
  const ac = new AbortController();
  try {
    const dmInf = factory.informerFor<KubeObject>(DM);
    assert.equal(factory.informerFor(DM), dmInf, 'one informer per resource');
    factory.start(ac.signal);
    factory.start(ac.signal);
    const synced = await factory.waitForCacheSync(AbortSignal.timeout(5000));
    assert.deepEqual([...synced], [['databasemanagers.v1alpha1.coolops.cn', true]]);
    assert.deepEqual(dmInf.getStore().listKeys(), ['a/one']);
    assert.deepEqual(dmInf.getStore().getByKey('a/one')?.metadata?.managedFields, []);
    const lists = backend.actions().filter((a) => a.verb === 'list');
    assert.equal(lists.length, 1);
    assert.equal(lists[0].namespace, 'a');
    assert.equal(lists[0].listOptions?.labelSelector, 'keep=y');
    assert.ok(backend.actions().some((a) => a.verb === 'watch' && a.listOptions?.labelSelector === 'keep=y'));
    // an informer asked for after start runs only after the next start
    const other = factory.forResource({ group: 'coolops.cn', version: 'v1alpha1', resource: 'others' });
    assert.equal((await factory.waitForCacheSync(AbortSignal.timeout(5000))).size, 1);
    factory.start(ac.signal);
    const again = await factory.waitForCacheSync(AbortSignal.timeout(5000));
    assert.deepEqual([...again.keys()].sort(), ['databasemanagers.v1alpha1.coolops.cn', 'others.v1alpha1.coolops.cn']);
    assert.deepEqual(other.lister().list(), []);
    assert.equal(
      backend.actions().filter((a) => a.verb === 'list' && a.resource.resource === 'databasemanagers').length,
      1,
      'a running informer is not started twice',
    );
  } finally {
    ac.abort();
    await factory.shutdown();
  }
  assert.ok(factory.informerFor(DM).isStopped());
});

test('shutdown stops every informer and later starts do nothing; customResync and bad resync values', async () => {
  const backend = new FakeClientBackend([DM], [dm('a', 'one')]);
  const factory = new Factory(backend, 0, { customResync: { 'databasemanagers.v1alpha1.coolops.cn': 1000 } });
  const inf = factory.informerFor<KubeObject>(DM);
  let resyncs = 0;
  inf.addEventHandler({ onUpdate: (o, n) => void (o === n && resyncs++) });
  factory.start();
  assert.equal(
    (await factory.waitForCacheSync(AbortSignal.timeout(5000))).get('databasemanagers.v1alpha1.coolops.cn'),
    true,
  );
  for (let i = 0; i < 150 && resyncs === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(resyncs > 0, 'the custom resync period (1 s; the default is none) re-delivered the cached object');
  await factory.shutdown();
  assert.ok(inf.isStopped());
  const late = factory.informerFor<KubeObject>({ ...DM, resource: 'late' });
  factory.start();
  assert.equal(late.isStopped(), false);
  assert.equal(late.hasSynced(), false);
  assert.throws(() => new Factory(backend, -1), /non-negative/);
});
