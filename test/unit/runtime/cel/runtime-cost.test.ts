// The run-time cost of CEL evaluation (src/runtime/cel/runtime-cost.ts) step by step, as cel-go's
// cost tracker with Kubernetes' CallCost charges it, and the limit: a cost-limit error stops the
// evaluation even where CEL absorbs errors (`||`, `&&`, a macro's loop condition).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram } from '../../../../src/runtime/cel/compile.js';
import { CelCostLimitError } from '../../../../src/runtime/cel/runtime-cost.js';
import { LiteralMap, type Value } from '../../../../src/runtime/cel/value.js';

const cost = (src: string, self: Value): number => {
  const r = parseProgram(src).program.runMetered(Number.POSITIVE_INFINITY, self);
  assert.equal(r.error, undefined, `${src}: ${String(r.error)}`);
  return r.cost;
};
const ints = (n: number): Value[] => Array.from({ length: n }, (_, i) => BigInt(i));
const obj = (o: Record<string, Value>): Value => new LiteralMap(Object.entries(o));

describe('CEL run-time cost', () => {
  it('identifiers, selections and indexes cost 1, literals 0, calls their CallCost', () => {
    assert.equal(cost('true', null), 0);
    assert.equal(cost('self', 1n), 1);
    assert.equal(cost('self.a.b', obj({ a: obj({ b: 1n }) })), 3);
    assert.equal(cost('has(self.a)', obj({ a: 1n })), 1); // the presence test itself is free
    assert.equal(cost('self[1]', ints(3)), 2); // self, and the index (its constant is free)
    assert.equal(cost('self > 0', 5n), 2);
    assert.equal(cost('self == "abc"', 'x'.repeat(95)), 1 + 1); // ceil(min(95, 3) × 0.1)
    assert.equal(cost('self + self', 'x'.repeat(95)), 2 + 19); // ceil((95 + 95) × 0.1)
    assert.equal(cost('self.matches("^a+b*$")', 'a'.repeat(99)), 1 + 10 * 2); // ceil(100 × 0.1) × ceil(6 × 0.25)
    assert.equal(cost('self.lowerAscii()', 'A'.repeat(31)), 1 + 4);
    assert.equal(cost('[1, 2, 3]', null), 0); // a constant list is folded
    assert.equal(cost('[self]', 1n), 1 + 10);
    assert.equal(cost('{"a": self}', 1n), 1 + 30);
    assert.equal(cost('self ? 1 : 2', true), 1); // the conditional itself is free
    assert.equal(cost('2 in self', ints(7)), 1 + 7);
  });

  it('macros cost their expanded steps: all() over n integers is 5n + 2', () => {
    for (const n of [0, 1, 10, 100]) assert.equal(cost('self.all(x, x >= 0)', ints(n)), 5 * n + 2);
    assert.equal(cost('self.all(x, self.all(y, y >= 0))', ints(20)), 5 * 20 * 20 + 5 * 20 + 2);
  });

  it('stops past the limit, through ||, && and a macro’s loop condition', () => {
    for (const src of [
      'self.all(x, self.all(y, y >= 0))',
      'false || self.all(x, self.all(y, y >= 0))',
      'self.exists(x, !self.all(y, y >= 0))',
      'self.all(x, true || self.all(y, y >= 0)) && self.all(x, self.all(y, y >= 0))',
    ]) {
      const r = parseProgram(src).program.runMetered(10_000, ints(100));
      assert.ok(r.error instanceof CelCostLimitError, `${src}: ${String(r.error)}`);
      assert.equal(r.error.message, 'operation cancelled: actual cost limit exceeded');
      assert.ok(r.cost > 10_000 && r.cost < 10_100, `${src}: stopped at ${r.cost}`);
    }
  });
});
