// controlledObjects (what a generated operator hands its reconciler as context.owned): the
// objects of an informer's cache whose controller reference is the owner — not those it only
// owns, not another controller's, not another namespace's — as sorted copies, through an index
// that follows the cache (an added, changed or deleted object is seen at once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClientBackend,
  SharedInformerFactoryBase,
  DeploymentResource,
  type Deployment,
  CONTROLLER_UID_INDEX,
  controlledObjects,
  type KubeObject,
  type OwnerReference,
} from '../../src/runtime/index.js';

const owner: KubeObject = {
  apiVersion: 'test.crdgen.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'a', uid: 'uid-w' },
};
const ref = (uid: string, controller: boolean): OwnerReference => ({
  apiVersion: 'test.crdgen.dev/v1',
  kind: 'Widget',
  name: 'w',
  uid,
  controller,
});
const dep = (namespace: string, name: string, refs: OwnerReference[]): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, ownerReferences: refs },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  },
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'condition not reached');
}

test("controlledObjects: the owner's controlled objects of its namespace, sorted copies, following the cache", async () => {
  const fake = new FakeClientBackend([{ ...DeploymentResource, subresources: { status: true, scale: true } }]);
  for (const d of [
    dep('a', 'z-mine', [ref('uid-w', true)]),
    dep('a', 'b-mine', [ref('uid-w', true)]),
    dep('a', 'owned-only', [ref('uid-w', false)]),
    dep('a', 'other', [ref('uid-x', true)]),
    dep('b', 'elsewhere', [ref('uid-w', true)]),
    dep('a', 'plain', []),
  ]) {
    await fake.resource(DeploymentResource, d.metadata!.namespace).create(d);
  }
  const factory = new SharedInformerFactoryBase(fake, 0);
  const informer = factory.informerFor<Deployment>(DeploymentResource);
  const ac = new AbortController();
  factory.start(ac.signal);
  try {
    await until(() => informer.hasSynced());
    const names = () => controlledObjects(informer, owner).map((o) => o.metadata?.name);
    assert.deepEqual(names(), ['b-mine', 'z-mine']);
    assert.ok(CONTROLLER_UID_INDEX in informer.getIndexer().getIndexers(), 'the index is added once, on first use');
    assert.deepEqual(names(), ['b-mine', 'z-mine'], 'a second call reuses the index');
    const copy = controlledObjects(informer, owner)[0];
    copy.metadata!.name = 'changed';
    assert.equal(
      informer.getIndexer().getByKey('a/b-mine')?.metadata?.name,
      'b-mine',
      'copies: the cache is not changed',
    );
    await fake.resource(DeploymentResource, 'a').create(dep('a', 'm-new', [ref('uid-w', true)]));
    await fake.resource(DeploymentResource, 'a').delete('z-mine');
    await until(() => names().join() === 'b-mine,m-new');
    // a cluster-scoped owner controls objects of every namespace; an owner without a uid controls nothing
    const clusterOwner: KubeObject = { ...owner, metadata: { name: 'w', uid: 'uid-w' } };
    assert.deepEqual(
      controlledObjects(informer, clusterOwner).map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`),
      ['a/b-mine', 'a/m-new', 'b/elsewhere'],
    );
    assert.deepEqual(controlledObjects(informer, { metadata: { name: 'w', namespace: 'a' } }), []);
  } finally {
    ac.abort();
    await factory.shutdown();
  }
});
