// Go's fmt verbs as the apiserver's messages use them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goBadValue, goFloat, goQuote } from '../../../../src/runtime/validation/go-format.js';
import { formatInvalidMessage, dedupe } from '../../../../src/runtime/validation/core.js';

describe('Go formatting', () => {
  it('goQuote is strconv.Quote', () => {
    assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(goQuote('tab\tnl\n\x01\x7f'), '"tab\\tnl\\n\\x01\\x7f"');
    assert.equal(goQuote('héllo ✓'), '"héllo ✓"');
  });

  it('goFloat is %v of a float64: shortest digits, exponent from 1e+06 and below 1e-04', () => {
    assert.equal(goFloat(65535), '65535');
    assert.equal(goFloat(123456), '123456');
    assert.equal(goFloat(1000000), '1e+06');
    assert.equal(goFloat(1.5e21), '1.5e+21');
    assert.equal(goFloat(0.5), '0.5');
    assert.equal(goFloat(0.0001), '0.0001');
    assert.equal(goFloat(0.00001), '1e-05');
    assert.equal(goFloat(-2.25), '-2.25');
  });

  it('bad values print as the apiserver prints them', () => {
    assert.equal(goBadValue(11), '11');
    assert.equal(goBadValue('x'), '"x"');
    assert.equal(goBadValue(null), 'null');
    assert.equal(goBadValue(true), 'true');
    assert.equal(
      goBadValue({ b: [1, 'x'], a: null }),
      '{"a":null,"b":[1,"x"]}',
      'objects as json.Marshal writes them: keys sorted',
    );
    assert.equal(goBadValue({ h: '<a&b>' }), '{"h":"\\u003ca\\u0026b\\u003e"}', 'with its HTML escaping');
  });

  it('the 422 message aggregates like ErrorList.ToAggregate (deduplicated, bracketed when several)', () => {
    const e = { reason: 'FieldValueInvalid' as const, field: 'spec.a', message: 'Invalid value: 1: bad' };
    assert.equal(
      formatInvalidMessage('DatabaseManager.coolops.cn', 'db', [e, e]),
      'DatabaseManager.coolops.cn "db" is invalid: spec.a: Invalid value: 1: bad',
    );
    assert.equal(
      formatInvalidMessage('DatabaseManager.coolops.cn', 'db', [e, { ...e, field: 'spec.b' }]),
      'DatabaseManager.coolops.cn "db" is invalid: [spec.a: Invalid value: 1: bad, spec.b: Invalid value: 1: bad]',
    );
    assert.equal(dedupe([e, e]).length, 1);
  });
});
