// controlledObjects (what a generated operator hands its reconciler as context.owned): the
// objects of an informer's cache whose controller reference is the owner — not those it only
// owns, not another controller's, not another namespace's — as sorted copies, through an index
// that follows the cache (an added, changed or deleted object is seen at once), listed only when
// first read (lazyControlledObjects); and serviceUpdate, which keeps an owned Service in line
// without touching what the API server allocated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClientBackend,
  SharedInformerFactoryBase,
  DeploymentResource,
  type Deployment,
  type Service,
  CONTROLLER_UID_INDEX,
  controlledObjects,
  lazyControlledObjects,
  serviceUpdate,
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

test('lazyControlledObjects (context.owned): a kind is listed on its first read only, then kept; assignable', async () => {
  const fake = new FakeClientBackend([{ ...DeploymentResource, subresources: { status: true, scale: true } }]);
  await fake.resource(DeploymentResource, 'a').create(dep('a', 'mine', [ref('uid-w', true)]));
  const factory = new SharedInformerFactoryBase(fake, 0);
  const informer = factory.informerFor<Deployment>(DeploymentResource);
  let lookups = 0;
  const counted = new Proxy(informer, {
    get(target, prop, receiver) {
      if (prop === 'getIndexer') lookups++;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const ac = new AbortController();
  factory.start(ac.signal);
  try {
    await until(() => informer.hasSynced());
    const owned = lazyControlledObjects({ deployments: counted, others: counted }, owner);
    assert.equal(lookups, 0, 'nothing is listed before a read');
    assert.deepEqual(Object.keys(owned), ['deployments', 'others'], 'every kind is a property');
    const first = owned.deployments;
    assert.deepEqual(
      first.map((d) => d.metadata?.name),
      ['mine'],
    );
    const afterFirst = lookups;
    assert.ok(afterFirst > 0, 'the first read lists from the cache');
    assert.equal(owned.deployments, first, 'later reads get the same list, changes included');
    assert.equal(lookups, afterFirst, 'and do not look again');
    owned.others = [];
    assert.deepEqual(owned.others, []);
    assert.equal(lookups, afterFirst, 'an assigned kind is not looked up');
  } finally {
    ac.abort();
    await factory.shutdown();
  }
});

test('serviceUpdate: the allocated cluster IP and server defaults are not drift; type, selector (exactly) and ports are', () => {
  const want: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: {
      type: 'ClusterIP',
      selector: { app: 'db' },
      ports: [{ name: 'pg', port: 5432, targetPort: 'pg', protocol: 'TCP' }],
    },
  };
  const stored: Service = {
    ...want,
    metadata: { name: 's', resourceVersion: '7' },
    spec: {
      ...want.spec,
      clusterIP: '10.0.0.9',
      clusterIPs: ['10.0.0.9'],
      sessionAffinity: 'None',
      ports: [{ name: 'pg', port: 5432, targetPort: 'pg', protocol: 'TCP' }],
    },
  };
  assert.equal(serviceUpdate(stored, want), undefined);
  const frozen = structuredClone(stored);
  const moved = serviceUpdate(
    { ...stored, spec: { ...stored.spec, ports: [{ name: 'pg', port: 5433, targetPort: 'pg', protocol: 'TCP' }] } },
    want,
  )!;
  assert.deepEqual(moved.spec?.ports, want.spec?.ports);
  assert.equal(moved.spec?.clusterIP, '10.0.0.9', 'the cluster IP kept');
  assert.equal(moved.metadata?.resourceVersion, '7', 'optimistic concurrency on what was read');
  assert.deepEqual(stored, frozen, 'the cached object is not mutated');
  assert.deepEqual(
    serviceUpdate({ ...stored, spec: { ...stored.spec, selector: { app: 'db', extra: 'x' } } }, want)?.spec?.selector,
    { app: 'db' },
    'an extra selector key selects other pods: drift',
  );
  assert.equal(serviceUpdate({ ...stored, spec: { ...stored.spec, type: 'NodePort' } }, want)?.spec?.type, 'ClusterIP');
  assert.equal(serviceUpdate(stored, { ...want, spec: undefined }), undefined);
});
