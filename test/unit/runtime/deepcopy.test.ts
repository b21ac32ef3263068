// The runtime's deep-copy helpers (what generated deepcopy.ts files import): lossless,
// alias-free, `__proto__` keys kept as own data properties, typed ObjectMeta/ListMeta copies.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  copyJson,
  copyJsonArray,
  copyScalarArray,
  copyScalarMap,
  deepCopyListMeta,
  deepCopyManagedFieldsEntry,
  deepCopyObjectMeta,
  deepCopyOwnerReference,
  setOwn,
} from '../../../src/runtime/index.js';
import type { ObjectMeta } from '../../../src/runtime/index.js';
import { assertAliasFree } from '../aliasing.js';

const POLLUTE = '{"__proto__":{"polluted":"yes"},"a":1}';

function assertOwnProto(o: object, where: string): void {
  assert.equal(Object.getPrototypeOf(o), Object.prototype, `${where}: prototype changed`);
  assert.ok(Object.prototype.hasOwnProperty.call(o, '__proto__'), `${where}: __proto__ key lost`);
  assert.equal((o as Record<string, unknown>).polluted, undefined, `${where}: the key became the prototype`);
}

describe('runtime deepcopy', () => {
  it('spread keeps an own __proto__ key as data (the property the generated copies rely on)', () => {
    const src = JSON.parse(POLLUTE) as object;
    const c = { ...src };
    assertOwnProto(c, 'spread');
    assert.notEqual(Object.getOwnPropertyDescriptor(c, '__proto__'), undefined);
  });

  it('setOwn writes __proto__ as an own property, other keys plainly', () => {
    const o: Record<string, unknown> = {};
    setOwn(o, '__proto__', { polluted: 'yes' });
    setOwn(o, 'x', 1);
    assertOwnProto(o, 'setOwn');
    assert.equal(o.x, 1);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('copyJson copies any JSON deeply: equal, alias-free, null kept, __proto__ data', () => {
    const src = JSON.parse(
      `{"a":[1,null,{"b":[[2],{"c":null}]}],"n":null,"s":"x","p":${POLLUTE},"__proto__":{"polluted":"yes"}}`,
    ) as unknown;
    const c = copyJson(src);
    assert.deepStrictEqual(c, src);
    assertAliasFree(c, src);
    assertOwnProto(c as object, 'top');
    assertOwnProto((c as { p: object }).p, 'nested');
    assert.equal(copyJson(null), null);
    assert.equal(copyJson('s'), 's');
    const arr = [{ a: 1 }, [2], 'x'];
    const ca = copyJsonArray(arr);
    assert.deepStrictEqual(ca, arr);
    assertAliasFree(ca, arr);
  });

  it('copyScalarMap and copyScalarArray copy the expected shape, and anything else as JSON', () => {
    const map = JSON.parse(`{"a":"x","n":1,"odd":{"deep":[1]},"p":${POLLUTE}}`) as object;
    const cm = copyScalarMap(map);
    assert.deepStrictEqual(cm, map);
    assertAliasFree(cm, map);
    const arr = ['a', 1, null, { odd: [1] }, [2]];
    const ca = copyScalarArray(arr);
    assert.deepStrictEqual(ca, arr);
    assertAliasFree(ca, arr);
    for (const wrong of [[{ a: 1 }], { not: ['an array'] }]) {
      for (const c of [copyScalarMap(wrong), copyScalarArray(wrong)]) {
        assert.deepStrictEqual(c, wrong);
        assertAliasFree(c, wrong);
      }
    }
  });

  it('deepCopyObjectMeta copies the typed fields and unknown ones, lossless and alias-free', () => {
    const meta = JSON.parse(`{
      "name": "a", "namespace": null, "generation": 2,
      "labels": ${POLLUTE}, "annotations": {"k": "v", "odd": {"x": [1]}},
      "ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": true, "extra": {"y": 1}}, "stray", [1]],
      "managedFields": [{"manager": "m", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {".": {}, "f:x": {}}}}],
      "finalizers": ["f", {"odd": true}],
      "newerServerField": {"deep": [{"z": 1}]}
    }`) as ObjectMeta;
    const c = deepCopyObjectMeta(meta);
    assert.deepStrictEqual(c, meta);
    assertAliasFree(c, meta);
    assertOwnProto(c.labels!, 'labels');
    assert.ok('namespace' in c && c.namespace === null, 'null kept apart from absent');
    assert.ok(!('uid' in c));
  });

  it('deepCopyObjectMeta copies wrong-typed fields as JSON (an array where a map belongs, and the reverse)', () => {
    const meta = {
      labels: [{ a: 1 }],
      ownerReferences: { not: { an: 'array' } },
      managedFields: { x: [1] },
      finalizers: { y: 1 },
    } as unknown as ObjectMeta;
    const c = deepCopyObjectMeta(meta);
    assert.deepStrictEqual(c, meta);
    assertAliasFree(c, meta);
  });

  it('ListMeta, OwnerReference and ManagedFieldsEntry copies are lossless and alias-free', () => {
    const list = { resourceVersion: '1', continue: 'c', remainingItemCount: 3, extra: { a: [1] } };
    const ref = { apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', extra: { b: {} } };
    const entry = { manager: 'm', fieldsV1: { 'f:a': { '.': {} } } };
    for (const [c, src] of [
      [deepCopyListMeta(list), list],
      [deepCopyOwnerReference(ref), ref],
      [deepCopyManagedFieldsEntry(entry), entry],
    ] as const) {
      assert.deepStrictEqual(c, src);
      assertAliasFree(c, src);
    }
  });
});
