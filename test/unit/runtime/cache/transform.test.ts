// Informer transforms: managedFields dropped from a copy (stripManagedFields) or from the object
// itself (dropManagedFields, what the informer factory runs on every decoded object).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropManagedFields, stripManagedFields } from '../../../../src/runtime/index.js';

test('stripManagedFields drops managedFields only, without touching the input', () => {
  const obj = { metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }], labels: { x: 'y' } }, spec: { n: 1 } };
  const out = stripManagedFields(obj);
  assert.deepEqual(out, { metadata: { name: 'a', labels: { x: 'y' } }, spec: { n: 1 } });
  assert.equal(obj.metadata.managedFields.length, 1);
  const plain = { metadata: { name: 'b' } };
  assert.equal(stripManagedFields(plain), plain);
});

test('dropManagedFields gives the object itself a metadata without managedFields, and is idempotent', () => {
  const managedFields = [{ manager: 'kubectl' }];
  const meta = JSON.parse('{"name":"a","managedFields":[],"labels":{"x":"y"},"__proto__":{"polluted":true},"uid":"u"}');
  meta.managedFields = managedFields;
  const spec = { n: 1 };
  const obj = { metadata: meta, spec };
  const out = dropManagedFields(obj);
  assert.equal(out, obj, 'the same object');
  assert.equal(out.spec, spec, 'nothing else replaced');
  assert.notEqual(out.metadata, meta, 'a new metadata');
  assert.deepEqual(Object.keys(out.metadata), ['name', 'labels', '__proto__', 'uid'], 'the other keys, in order');
  assert.equal(Object.getPrototypeOf(out.metadata), Object.prototype, '__proto__ stays an own key');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(meta.managedFields, managedFields, 'the old metadata is left as it was');
  const again = out.metadata;
  assert.equal(dropManagedFields(out), out);
  assert.equal(out.metadata, again, 'a second call changes nothing');
  const bare = { kind: 'X' };
  assert.equal(dropManagedFields(bare), bare);
});
