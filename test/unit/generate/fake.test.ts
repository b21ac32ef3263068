import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fake } from '../../../src/generate/fake.js';
import {
  ApiError,
  FakeClientBackend,
  FakeWatch,
  isConflict,
  isNotFound,
  ObjectTracker,
  TRACKER_HISTORY,
  type KubeObject,
  type TrackedResource,
} from '../../../src/runtime/index.js';
import { ctxWith, fixtureModel } from './client-helpers.js';
import { loadGenerated, type DatabaseManager, type Generated } from '../../integration/support.js';

test('the fake clientset file serves every generated resource over the generated Clientset', () => {
  const files = fake(fixtureModel('fixtures/gatewayclass/gateway.networking.k8s.io_gatewayclasses.yaml'), ctxWith());
  assert.deepEqual(
    files.map((f) => f.path),
    ['clientset/fake/clientset.ts'],
  );
  const text = files[0].contents;
  assert.match(
    text,
    /export const fakeResources: readonly TrackedResource\[\] = \[\n {2}gatewayV1GatewayClassResource,\n {2}gatewayV1beta1GatewayClassResource,\n\];/,
  );
  assert.match(text, /export class FakeClientset extends Clientset/);
  assert.match(text, /export function createFakeClientset\(\.\.\.objects: KubeObject\[\]\): FakeClientset/);
  assert.deepEqual(
    fake(
      fixtureModel('fixtures/databasemanager/crd.yaml'),
      ctxWith({ kinds: { DatabaseManager: { onlyVerbs: ['updateStatus'], noStatus: true } } }),
    ),
    [],
  );
});

let g: Generated;
before(async () => {
  g = await loadGenerated();
});
after(() => g?.cleanup());

const seed = (name: string, ns = 'default'): DatabaseManager => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name, namespace: ns },
  spec: { replicas: 2 },
  status: { availableReplicas: 2 },
});

test('seeded objects, recorded actions and clearActions', async () => {
  const cs = g.createFakeClientset(seed('a'), seed('b', 'other'));
  const c = cs.coolopsV1alpha1().databaseManagers('default');
  const a = await c.get('a');
  assert.deepEqual(a.status, { availableReplicas: 2 }, 'seeding keeps status');
  assert.match(a.metadata?.resourceVersion ?? '', /^\d+$/);
  await c.list({ labelSelector: 'x=y' });
  await assert.rejects(c.get('zzz'), isNotFound);
  assert.deepEqual(
    cs
      .actions()
      .map((x) => [x.verb, x.resource.resource, x.namespace, x.name ?? '', x.listOptions?.labelSelector ?? '']),
    [
      ['get', 'databasemanagers', 'default', 'a', ''],
      ['list', 'databasemanagers', 'default', '', 'x=y'],
      ['get', 'databasemanagers', 'default', 'zzz', ''],
    ],
  );
  cs.clearActions();
  assert.deepEqual(cs.actions(), []);
  assert.throws(
    () => g.createFakeClientset({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }),
    /no resource for apiVersion "v1" kind "Pod"/,
  );
});

test('reactors: prepend runs first, add runs before the tracker, undefined passes on; errors are thrown', async () => {
  const cs = g.createFakeClientset(seed('a'));
  const c = cs.coolopsV1alpha1().databaseManagers('default');
  const order: string[] = [];
  cs.addReactor('get', 'databasemanagers', (a) => {
    order.push('added');
    return a.name === 'scripted' ? { object: { ...seed('scripted'), spec: { replicas: 9 } } } : undefined;
  });
  cs.prependReactor('*', '*', () => {
    order.push('first');
    return undefined;
  });
  cs.prependReactor('update', 'databasemanagers', () => ({
    error: new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      code: 409,
      reason: 'Conflict',
      message: 'scripted',
    }),
  }));
  assert.equal((await c.get('scripted')).spec?.replicas, 9);
  assert.equal((await c.get('a')).spec?.replicas, 2, 'unhandled: the tracker answers');
  assert.deepEqual(order, ['first', 'added', 'first', 'added']);
  const a = await c.get('a');
  await assert.rejects(c.update(a), isConflict);
  assert.equal(
    (await c.get('a')).metadata?.resourceVersion,
    a.metadata?.resourceVersion,
    'the reactor answered; nothing was written',
  );
  cs.prependReactor('update', 'databasemanagers/status', () => ({
    object: { ...a, status: { availableReplicas: 42 } },
  }));
  assert.equal((await c.updateStatus(a)).status?.availableReplicas, 42);
});

test('watch reactor hands out a FakeWatch the test feeds', async () => {
  const cs = g.createFakeClientset();
  const fw = new FakeWatch<unknown>();
  cs.prependWatchReactor('databasemanagers', () => fw);
  const w = await cs.coolopsV1alpha1().databaseManagers('').watch();
  fw.add(seed('x'));
  fw.error({ kind: 'Status', apiVersion: 'v1', metadata: {}, code: 410, reason: 'Expired' });
  fw.close();
  const got: string[] = [];
  for await (const e of w) got.push(e.type);
  assert.deepEqual(got, ['ADDED', 'ERROR']);
});

const DM: TrackedResource = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
  subresources: { status: true, scale: true },
};

test('tracker watches resume from a resourceVersion and answer 410 Expired once it left the history', async () => {
  const t = new ObjectTracker([DM]);
  const first = t.create(DM, seed('w0'), 'default');
  for (let i = 1; i <= TRACKER_HISTORY + 5; i++) t.create(DM, seed(`w${i}`), 'default');
  const w = t.watch(DM, 'default', { resourceVersion: first.metadata!.resourceVersion! });
  const it = w[Symbol.asyncIterator]();
  const e = await it.next();
  assert.equal(e.value?.type, 'ERROR');
  assert.equal((e.value?.object as { code?: number }).code, 410);
  w.stop();
  const recent = t.list(DM, 'default', { limit: 2 });
  assert.equal(recent.items.length, 2);
  assert.ok(recent.metadata?.continue);
  const page2 = t.list(DM, 'default', { limit: 2, continue: recent.metadata.continue });
  assert.notEqual(page2.items[0].metadata?.name, recent.items[1].metadata?.name);
});

test('scale subresource on the fake backend reads spec/status replicas and writes spec.replicas', async () => {
  const b = new FakeClientBackend([DM], [{ ...seed('s'), status: { replicas: 1 } } as KubeObject]);
  const sc = b.scale(DM, 'default');
  const s = await sc.getScale('s');
  assert.deepEqual([s.kind, s.spec?.replicas, s.status?.replicas], ['Scale', 2, 1]);
  const u = await sc.updateScale('s', { spec: { replicas: 5 } });
  assert.equal(u.spec?.replicas, 5);
  assert.equal((b.tracker.get(DM, 'default', 's') as DatabaseManager).spec?.replicas, 5);
  assert.deepEqual(
    b.actions().map((a) => `${a.verb} ${a.subresource}`),
    ['get scale', 'update scale'],
  );
});

test('list calls take a parsed Selector; nothing() is refused rather than sent as "everything"', async () => {
  const { nothing, selectorFromSet } = await import('../../../src/runtime/index.js');
  const cs = g.createFakeClientset(
    { ...seed('l1'), metadata: { name: 'l1', namespace: 'default', labels: { app: 'db' } } },
    seed('l2'),
  );
  const c = cs.coolopsV1alpha1().databaseManagers('default');
  assert.deepEqual(
    (await c.list({ labelSelector: selectorFromSet({ app: 'db' }) as never })).items.map((o) => o.metadata?.name),
    ['l1'],
  );
  assert.equal(cs.actions().at(-1)?.listOptions?.labelSelector, 'app=db');
  await assert.rejects(c.list({ labelSelector: nothing() as never }), /matches nothing/);
});
