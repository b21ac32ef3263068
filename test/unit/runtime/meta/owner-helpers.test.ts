// controllerutil's owner-reference helpers: setControllerReference, setOwnerReference,
// removeOwnerReference, hasControllerReference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AlreadyOwnedError,
  hasControllerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
  type KubeObject,
} from '../../../../src/runtime/index.js';

const DM = { group: 'coolops.cn', version: 'v1alpha1', kind: 'DatabaseManager' };
const owner = (name: string, namespace = 'ns'): KubeObject => ({ metadata: { name, namespace, uid: `u-${name}` } });
const child = (namespace = 'ns'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace },
});

test('setControllerReference adds a controller reference once, replaces its own, refuses a second controller', () => {
  const d = child();
  setControllerReference(owner('a'), d, DM);
  setControllerReference(owner('a'), d, { ...DM, version: 'v1' }); // same owner in another version: replaced, not added
  assert.deepEqual(d.metadata?.ownerReferences, [
    {
      apiVersion: 'coolops.cn/v1',
      kind: 'DatabaseManager',
      name: 'a',
      uid: 'u-a',
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  assert.equal(hasControllerReference(d), true);
  assert.throws(
    () => setControllerReference(owner('b'), d, DM),
    (e: unknown) =>
      e instanceof AlreadyOwnedError &&
      e.owner.name === 'a' &&
      /already controlled by DatabaseManager "a"/.test(e.message),
  );
  assert.throws(() => setControllerReference(owner('a', 'other'), child(), DM), /cannot cross namespaces/);
  assert.throws(
    () => setControllerReference(owner('a'), child(''), DM),
    /cluster-scoped object cannot have a namespaced owner/,
  );
  const c = child();
  setControllerReference(owner('cluster', ''), c, DM); // a cluster-scoped owner may own a namespaced object
  assert.equal(c.metadata?.ownerReferences?.length, 1);
});

test('setOwnerReference adds a plain owner; removeOwnerReference takes it out', () => {
  const d = child();
  setControllerReference(owner('a'), d, DM);
  setOwnerReference(owner('b'), d, DM);
  assert.deepEqual(
    d.metadata?.ownerReferences?.map((r) => [r.name, r.controller ?? false]),
    [
      ['a', true],
      ['b', false],
    ],
  );
  assert.equal(removeOwnerReference(owner('b'), d, DM), true);
  assert.equal(removeOwnerReference(owner('b'), d, DM), false);
  assert.deepEqual(
    d.metadata?.ownerReferences?.map((r) => r.name),
    ['a'],
  );
  assert.equal(removeOwnerReference(owner('a'), d, { ...DM, kind: 'Other' }), false, 'another kind is another owner');
  assert.equal(hasControllerReference(child()), false);
  assert.throws(
    () => setOwnerReference({ metadata: { name: 'x', namespace: 'ns' } }, child(), DM),
    /metadata\.name and metadata\.uid/,
  );
});
