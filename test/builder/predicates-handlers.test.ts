// Predicates and event handlers of the controller builder, on plain objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allOf,
  annotationsChanged,
  anyOf,
  generationChanged,
  labelsChanged,
  newPredicateFuncs,
  not,
  passesCreate,
  passesDelete,
  passesUpdate,
  resourceVersionChanged,
  type Predicate,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type RequestQueue,
  isTerminalError,
  requestFromKey,
  requestKey,
  TerminalError,
  type ReconcileRequest,
  type KubeObject,
  type ObjectMeta,
} from '../../src/runtime/index.js';

const obj = (metadata: ObjectMeta): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'ns', ...metadata },
});
const upd = (p: Predicate, a: ObjectMeta, b: ObjectMeta): boolean =>
  passesUpdate(p, { objectOld: obj(a), objectNew: obj(b) });

test('generationChanged passes a new generation only; creates and deletes always', () => {
  assert.equal(upd(generationChanged, { generation: 1 }, { generation: 2 }), true);
  assert.equal(
    upd(generationChanged, { generation: 2, resourceVersion: '1' }, { generation: 2, resourceVersion: '2' }),
    false,
  );
  assert.equal(
    upd(generationChanged, {}, {}),
    false,
    'a kind without generation has its updates filtered (as controller-runtime)',
  );
  assert.equal(passesCreate(generationChanged, { object: obj({}), isInInitialList: false }), true);
  assert.equal(passesDelete(generationChanged, { object: obj({}), deleteStateUnknown: true }), true);
});

test('labelsChanged / annotationsChanged compare the maps; absent equals empty (Go maps.Equal)', () => {
  assert.equal(upd(labelsChanged, { labels: { a: '1' } }, { labels: { a: '2' } }), true);
  assert.equal(upd(labelsChanged, { labels: { a: '1' } }, { labels: { a: '1' }, annotations: { z: '1' } }), false);
  assert.equal(upd(labelsChanged, {}, { labels: {} }), false);
  assert.equal(upd(labelsChanged, { labels: { a: '1' } }, { labels: { b: '1' } }), true);
  assert.equal(upd(labelsChanged, { labels: { a: '1' } }, {}), true);
  assert.equal(upd(annotationsChanged, { annotations: { a: '1' } }, { annotations: { a: '1', b: '' } }), true);
  assert.equal(
    upd(annotationsChanged, { annotations: { a: '1' }, labels: { x: '1' } }, { annotations: { a: '1' } }),
    false,
  );
});

test('resourceVersionChanged drops resyncs (same resourceVersion)', () => {
  assert.equal(upd(resourceVersionChanged, { resourceVersion: '5' }, { resourceVersion: '5' }), false);
  assert.equal(upd(resourceVersionChanged, { resourceVersion: '5' }, { resourceVersion: '6' }), true);
});

test('allOf / anyOf / not / newPredicateFuncs combine per event type', () => {
  const big = newPredicateFuncs((o: KubeObject) => o.metadata?.labels?.['size'] === 'big');
  const e = {
    objectOld: obj({ labels: { size: 'big' }, generation: 1 }),
    objectNew: obj({ labels: { size: 'big' }, generation: 1 }),
  };
  assert.equal(passesUpdate(big, e), true);
  assert.equal(passesUpdate(allOf(big, generationChanged), e), false);
  assert.equal(passesUpdate(anyOf(big, generationChanged), e), true);
  assert.equal(passesUpdate(anyOf(), e), false);
  assert.equal(passesUpdate(allOf(), e), true);
  assert.equal(passesUpdate(not(generationChanged), e), true);
  assert.equal(passesCreate(not(generationChanged), { object: obj({}), isInInitialList: true }), false);
  assert.equal(passesDelete(big, { object: obj({ labels: { size: 'small' } }), deleteStateUnknown: false }), false);
});

function collect(): { q: RequestQueue; got: ReconcileRequest[] } {
  const got: ReconcileRequest[] = [];
  return { got, q: { add: (r) => got.push(r), addAfter: (r) => got.push(r) } };
}

const ownerType = { group: 'coolops.cn', version: 'v1alpha1', kind: 'DatabaseManager', namespaced: true };
const ref = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'coolops.cn/v1beta9',
  kind: 'DatabaseManager',
  name,
  uid: `u-${name}`,
  ...extra,
});

test('enqueueRequestForOwner: the controller owner of the kind (any version), in the object namespace; both sides of an update', async () => {
  const h = enqueueRequestForOwner(ownerType);
  const { q, got } = collect();
  await h.create!(
    { object: obj({ ownerReferences: [ref('plain'), ref('boss', { controller: true })] }), isInInitialList: false },
    q,
  );
  assert.deepEqual(got, [{ namespace: 'ns', name: 'boss' }]);
  got.length = 0;
  await h.create!(
    {
      object: obj({ ownerReferences: [{ ...ref('other', { controller: true }), apiVersion: 'apps/v1' }] }),
      isInInitialList: false,
    },
    q,
  );
  await h.create!(
    {
      object: obj({ ownerReferences: [{ ...ref('other', { controller: true }), kind: 'Other' }] }),
      isInInitialList: false,
    },
    q,
  );
  assert.deepEqual(got, [], 'another group or kind is not the owner kind');
  await h.update!(
    {
      objectOld: obj({ ownerReferences: [ref('a', { controller: true })] }),
      objectNew: obj({ ownerReferences: [ref('b', { controller: true })] }),
    },
    q,
  );
  assert.deepEqual(got, [
    { namespace: 'ns', name: 'a' },
    { namespace: 'ns', name: 'b' },
  ]);
  got.length = 0;
  await h.update!(
    {
      objectOld: obj({ ownerReferences: [ref('a', { controller: true })] }),
      objectNew: obj({ ownerReferences: [ref('a', { controller: true })] }),
    },
    q,
  );
  assert.deepEqual(got, [{ namespace: 'ns', name: 'a' }], 'one request per owner');
  got.length = 0;
  const every = enqueueRequestForOwner(ownerType, { onlyController: false });
  await every.delete!(
    { object: obj({ ownerReferences: [ref('plain'), ref('boss', { controller: true })] }), deleteStateUnknown: true },
    q,
  );
  assert.deepEqual(got, [
    { namespace: 'ns', name: 'plain' },
    { namespace: 'ns', name: 'boss' },
  ]);
  got.length = 0;
  await enqueueRequestForOwner({ ...ownerType, namespaced: false }).create!(
    { object: obj({ ownerReferences: [ref('c', { controller: true })] }), isInInitialList: true },
    q,
  );
  assert.deepEqual(got, [{ namespace: '', name: 'c' }], 'a cluster-scoped owner has no namespace');
});

test('enqueueRequestForObject and enqueueRequestsFromMapFunc (old and new object of an update, deduplicated)', async () => {
  const { q, got } = collect();
  const self = enqueueRequestForObject();
  await self.update!({ objectOld: obj({ name: 'old' }), objectNew: obj({ name: 'x' }) }, q);
  await self.delete!({ object: obj({}), deleteStateUnknown: false }, q);
  assert.deepEqual(got, [
    { namespace: 'ns', name: 'x' },
    { namespace: 'ns', name: 'x' },
  ]);
  got.length = 0;
  const mapped = enqueueRequestsFromMapFunc(async (o: KubeObject) => [
    { namespace: 'ns', name: o.metadata?.labels?.['to'] ?? 'none' },
    { namespace: 'ns', name: 'always' },
  ]);
  await mapped.update!({ objectOld: obj({ labels: { to: 'a' } }), objectNew: obj({ labels: { to: 'b' } }) }, q);
  assert.deepEqual(got, [
    { namespace: 'ns', name: 'a' },
    { namespace: 'ns', name: 'always' },
    { namespace: 'ns', name: 'b' },
  ]);
});

test('TerminalError anywhere in the cause chain is terminal; request keys round-trip', () => {
  assert.equal(isTerminalError(new TerminalError('x')), true);
  assert.equal(
    isTerminalError(new Error('outer', { cause: new Error('mid', { cause: new TerminalError(new Error('inner')) }) })),
    true,
  );
  assert.equal(isTerminalError(new Error('plain')), false);
  assert.equal(isTerminalError('a string'), false);
  assert.equal(new TerminalError(new Error('inner')).message, 'inner');
  for (const r of [
    { namespace: 'ns', name: 'a' },
    { namespace: '', name: 'cluster-wide' },
  ])
    assert.deepEqual(requestFromKey(requestKey(r)), r);
  assert.equal(requestKey({ namespace: 'ns', name: 'a' }), 'ns/a');
});
