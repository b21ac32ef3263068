// jsonCopy: the copy the test server's store and request paths make of JSON values, which must
// be what structuredClone makes of them (and hand anything else to structuredClone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonCopy } from '../../../../src/runtime/meta/json.js';

test('jsonCopy copies JSON values as structuredClone does: deep, members in order, undefined members and __proto__ kept', () => {
  const src = JSON.parse(
    '{"b":1,"a":{"z":[1,{"y":null}],"x":"s"},"2":true,"1":-0.5,"__proto__":{"p":1},"e":[]}',
  ) as Record<string, unknown>;
  (src as { u?: undefined }).u = undefined;
  const copy = jsonCopy(src);
  const clone = structuredClone(src);
  assert.deepEqual(copy, clone);
  assert.deepEqual(Object.keys(copy), Object.keys(clone));
  assert.ok(Object.hasOwn(copy, '__proto__'));
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.ok(Object.hasOwn(copy, 'u'));
  assert.equal(JSON.stringify(copy), JSON.stringify(src));
  // nothing shared with the source
  (copy.a as { z: unknown[] }).z.push(2);
  (copy.a as Record<string, unknown>).x = 't';
  assert.deepEqual(src.a, { z: [1, { y: null }], x: 's' });
  assert.equal(jsonCopy(null), null);
  assert.equal(jsonCopy('x'), 'x');
  assert.ok(Object.is(jsonCopy(-0), -0));
});

test('jsonCopy hands what is not plain data to structuredClone: a Date is copied as a Date, a function throws', () => {
  const d = new Date(5);
  const out = jsonCopy({ when: d, list: [new Map([[1, 2]])] });
  assert.ok(out.when instanceof Date && out.when !== d && out.when.getTime() === 5);
  assert.ok(out.list[0] instanceof Map && out.list[0].get(1) === 2);
  assert.throws(
    () => jsonCopy({ f: () => 1 }),
    (e: unknown) => e instanceof Error && e.name === 'DataCloneError',
  );
});
