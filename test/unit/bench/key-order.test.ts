// Key order of custom resources (bench/lib/key-order.ts): the deepcopy benchmark's sorted
// samples and the check on the real control plane rest on it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { firstUnsorted, sortKeysDeep } from '../../../bench/lib/key-order.js';

describe('bench key order', () => {
  it('finds the first object whose keys are out of byte order, at any depth', () => {
    assert.equal(firstUnsorted({ a: 1, b: { c: [1, { d: 1, e: 2 }] } }), undefined);
    assert.equal(firstUnsorted({ b: 1, a: 1 }), '$');
    assert.equal(firstUnsorted({ a: { list: [{ x: 1 }, { z: 1, y: 2 }] } }), '$.a.list[1]');
    // byte order, as Go sorts map keys: upper case before lower case, '.' before letters
    assert.equal(firstUnsorted({ Z: 1, a: 1 }), undefined);
    assert.equal(firstUnsorted({ 'f:a': 1, '.': 1 }), '$');
    assert.equal(firstUnsorted(null), undefined);
  });

  it('sortKeysDeep sorts every level, keeps values and arrays in order, and copies', () => {
    const src = { spec: { b: 1, a: [{ z: 1, y: { q: 1, p: 2 } }] }, apiVersion: 'v1' };
    const sorted = sortKeysDeep(src);
    assert.deepEqual(sorted, src);
    assert.equal(firstUnsorted(sorted), undefined);
    assert.deepEqual(Object.keys(sorted), ['apiVersion', 'spec']);
    assert.deepEqual(Object.keys(sorted.spec.a[0].y), ['p', 'q']);
    assert.notEqual(sorted.spec, src.spec);
  });

  it('sortKeysDeep keeps a __proto__ key as a plain property', () => {
    const src = JSON.parse('{"b":1,"__proto__":{"x":1}}') as Record<string, unknown>;
    const sorted = sortKeysDeep(src);
    assert.deepEqual(Object.keys(sorted), ['__proto__', 'b']);
    assert.equal(Object.getPrototypeOf(sorted), Object.prototype);
  });
});
