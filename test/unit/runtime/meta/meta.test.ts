import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  getControllerOf,
  gvkApiVersion,
  isControlledBy,
  newControllerRef,
  findCondition,
  formatTime,
  isConditionFalse,
  isConditionTrue,
  removeCondition,
  setCondition,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
  addFinalizer,
  hasFinalizer,
  removeFinalizer,
  type Condition,
  type KubeObject,
} from '../../../../src/runtime/index.js';

const gvk = { group: 'coolops.cn', version: 'v1alpha1', kind: 'DatabaseManager' };
const owner: KubeObject = {
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name: 'db', namespace: 'default', uid: 'u-1' },
};

test('newControllerRef builds a controller owner reference', () => {
  assert.deepEqual(newControllerRef(owner, gvk), {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    name: 'db',
    uid: 'u-1',
    blockOwnerDeletion: true,
    controller: true,
  });
  assert.equal(gvkApiVersion({ group: '', version: 'v1' }), 'v1');
  assert.throws(() => newControllerRef({ metadata: { name: 'x' } }, gvk), /metadata\.name and metadata\.uid/);
});

test('getControllerOf / isControlledBy compare the controller reference uid only', () => {
  const dep: KubeObject = {
    metadata: {
      name: 'db-deploy',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u-9' },
        { ...newControllerRef(owner, gvk) },
      ],
    },
  };
  assert.equal(getControllerOf(dep)?.uid, 'u-1');
  assert.equal(isControlledBy(dep, owner), true);
  // Same name, different uid (recreated owner): not controlled.
  assert.equal(isControlledBy(dep, { metadata: { name: 'db', uid: 'u-2' } }), false);
  // A non-controller reference to the owner does not count.
  const weak: KubeObject = {
    metadata: {
      ownerReferences: [{ apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', name: 'db', uid: 'u-1' }],
    },
  };
  assert.equal(getControllerOf(weak), undefined);
  assert.equal(isControlledBy(weak, owner), false);
  assert.equal(isControlledBy({}, owner), false);
  assert.equal(isControlledBy(dep, { metadata: { name: 'db' } }), false);
});

test('setCondition: lastTransitionTime only moves when the status changes', () => {
  const t0 = new Date('2026-01-01T00:00:00.123Z');
  const t1 = new Date('2026-01-01T01:00:00Z');
  const t2 = new Date('2026-01-01T02:00:00Z');
  const conds: Condition[] = [];
  assert.equal(
    setCondition(conds, { type: 'Ready', status: 'False', reason: 'Creating', message: 'waiting' }, t0),
    true,
  );
  assert.deepEqual(conds, [
    {
      type: 'Ready',
      status: 'False',
      lastTransitionTime: '2026-01-01T00:00:00Z',
      reason: 'Creating',
      message: 'waiting',
    },
  ]);
  // Same everything: no change.
  assert.equal(
    setCondition(conds, { type: 'Ready', status: 'False', reason: 'Creating', message: 'waiting' }, t1),
    false,
  );
  // Reason/message/generation change: updated, time kept.
  assert.equal(
    setCondition(
      conds,
      { type: 'Ready', status: 'False', reason: 'Scaling', message: '1/3', observedGeneration: 2 },
      t1,
    ),
    true,
  );
  assert.equal(conds[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  assert.equal(conds[0]?.reason, 'Scaling');
  assert.equal(conds[0]?.observedGeneration, 2);
  // Status change: time moves.
  assert.equal(setCondition(conds, { type: 'Ready', status: 'True', reason: 'Available' }, t2), true);
  assert.equal(conds[0]?.lastTransitionTime, '2026-01-01T02:00:00Z');
  assert.equal(conds[0]?.message, '');
  // An explicit lastTransitionTime is kept.
  setCondition(
    conds,
    { type: 'Degraded', status: 'False', reason: 'AsExpected', lastTransitionTime: '2025-05-05T05:05:05Z' },
    t2,
  );
  assert.equal(findCondition(conds, 'Degraded')?.lastTransitionTime, '2025-05-05T05:05:05Z');
  assert.equal(conds.length, 2);
  assert.equal(isConditionTrue(conds, 'Ready'), true);
  assert.equal(isConditionFalse(conds, 'Degraded'), true);
  assert.equal(isConditionTrue(conds, 'Missing'), false);
  assert.equal(removeCondition(conds, 'Degraded'), true);
  assert.equal(removeCondition(conds, 'Degraded'), false);
  assert.deepEqual(
    conds.map((c) => c.type),
    ['Ready'],
  );
  assert.throws(() => setCondition(conds, { type: '', status: 'True', reason: 'x' }), /needs a type/);
  assert.equal(formatTime(new Date('2026-03-04T05:06:07.999Z')), '2026-03-04T05:06:07Z');
});

test('metaNamespaceKeyFunc / splitMetaNamespaceKey round-trip namespaced and cluster-scoped keys', () => {
  assert.equal(metaNamespaceKeyFunc(owner), 'default/db');
  assert.equal(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } }), 'node-1');
  assert.deepEqual(splitMetaNamespaceKey('default/db'), { namespace: 'default', name: 'db' });
  assert.deepEqual(splitMetaNamespaceKey('node-1'), { namespace: '', name: 'node-1' });
  for (const bad of ['', 'a/b/c', 'ns/', '/']) assert.throws(() => splitMetaNamespaceKey(bad), /unexpected key format/);
  assert.throws(() => metaNamespaceKeyFunc({ metadata: {} }), /no metadata\.name/);
});

test('finalizers: add is idempotent, remove drops every copy', () => {
  const o: KubeObject = {};
  assert.equal(addFinalizer(o, 'coolops.cn/cleanup'), true);
  assert.equal(addFinalizer(o, 'coolops.cn/cleanup'), false);
  assert.equal(hasFinalizer(o, 'coolops.cn/cleanup'), true);
  o.metadata!.finalizers!.push('other', 'coolops.cn/cleanup');
  assert.equal(removeFinalizer(o, 'coolops.cn/cleanup'), true);
  assert.deepEqual(o.metadata?.finalizers, ['other']);
  assert.equal(removeFinalizer(o, 'coolops.cn/cleanup'), false);
});
