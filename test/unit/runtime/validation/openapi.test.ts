// OpenAPI keywords: each keyword's field path, reason and message as the apiserver words them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileValidator,
  formatFieldError,
  SchemaError,
  type FieldError,
} from '../../../../src/runtime/validation/index.js';

/** Validates `value` placed at `spec.x` under a schema for x; returns `field: message` lines. */
function check(x: Record<string, unknown>, value: unknown): string[] {
  const v = compileValidator({ type: 'object', properties: { spec: { type: 'object', properties: { x } } } });
  return v.validate({ spec: { x: value } }).map(formatFieldError);
}

function errorsOf(schema: unknown, obj: unknown): FieldError[] {
  return compileValidator(schema).validate(obj);
}

const dmSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['deploymentName'],
      properties: {
        deploymentName: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        dbtype: { type: 'string' },
      },
    },
    status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
  },
};

describe('OpenAPI keywords', () => {
  it('DatabaseManager: replicas 11 gives the apiserver message, word for word', () => {
    const errs = errorsOf(dmSchema, { spec: { deploymentName: 'db', replicas: 11 } });
    assert.deepEqual(errs, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      },
    ]);
    assert.equal(
      formatFieldError(errs[0]),
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
  });

  it('DatabaseManager: a valid object has no errors; minimum and required are reported', () => {
    assert.deepEqual(
      errorsOf(dmSchema, {
        spec: { deploymentName: 'db', replicas: 3, dbtype: 'mysql' },
        status: { availableReplicas: 3 },
      }),
      [],
    );
    assert.deepEqual(errorsOf(dmSchema, { spec: { replicas: 0 } }).map(formatFieldError), [
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      'spec.deploymentName: Required value',
    ]);
  });

  it('type: wrong JSON type is FieldValueTypeInvalid naming the actual type', () => {
    const errs = errorsOf(dmSchema, { spec: { deploymentName: 'db', replicas: 'three' } });
    assert.deepEqual(errs, [
      {
        reason: 'FieldValueTypeInvalid',
        field: 'spec.replicas',
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      },
    ]);
    assert.deepEqual(check({ type: 'string' }, 1.5), [
      'spec.x: Invalid value: "number": spec.x in body must be of type string: "number"',
    ]);
    assert.deepEqual(check({ type: 'object' }, [1]), [
      'spec.x: Invalid value: "array": spec.x in body must be of type object: "array"',
    ]);
    assert.deepEqual(check({ type: 'boolean' }, 'true'), [
      'spec.x: Invalid value: "string": spec.x in body must be of type boolean: "string"',
    ]);
  });

  it('type: integers are accepted where numbers are, not the reverse', () => {
    assert.deepEqual(check({ type: 'number' }, 3), []);
    assert.deepEqual(check({ type: 'integer' }, 3.5), [
      'spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"',
    ]);
    assert.deepEqual(check({ type: 'integer' }, 3.0), []);
  });

  it('nullable: null is refused unless nullable', () => {
    assert.deepEqual(check({ type: 'string' }, null), [
      'spec.x: Invalid value: "null": spec.x in body must be of type string: "null"',
    ]);
    assert.deepEqual(check({ type: 'string', nullable: true }, null), []);
  });

  it('x-kubernetes-int-or-string accepts both and names both', () => {
    const s = { 'x-kubernetes-int-or-string': true };
    assert.deepEqual(check(s, 8080), []);
    assert.deepEqual(check(s, 'http'), []);
    assert.deepEqual(check(s, true), [
      'spec.x: Invalid value: "boolean": spec.x in body must be of type integer,string: "boolean"',
    ]);
  });

  it('format: known formats are checked (ipv4, ipv6, date-time, byte, uuid, cidr, mac, hostname), unknown ones are not', () => {
    const bad = (format: string, value: string) => check({ type: 'string', format }, value);
    assert.deepEqual(bad('ipv4', '10.0.0.1'), []);
    assert.deepEqual(bad('ipv4', '10.0.0.256'), [
      'spec.x: Invalid value: "10.0.0.256": spec.x in body must be of type ipv4: "10.0.0.256"',
    ]);
    assert.equal(bad('ipv4', '010.0.0.1').length, 1, 'leading zeros are refused, as Go does');
    assert.deepEqual(bad('ipv6', 'fd00::1'), []);
    assert.equal(bad('ipv6', 'fd00:::1').length, 1);
    assert.deepEqual(bad('date-time', '2024-02-29T10:00:00Z'), []);
    assert.equal(bad('date-time', '2023-02-29T10:00:00Z').length, 1);
    assert.deepEqual(bad('byte', 'aGVsbG8='), []);
    assert.equal(bad('byte', 'not base64!').length, 1);
    assert.deepEqual(bad('uuid', '123e4567-e89b-12d3-a456-426614174000'), []);
    assert.equal(bad('uuid', '123e4567').length, 1);
    assert.deepEqual(bad('cidr', '10.0.0.0/8'), []);
    assert.equal(bad('cidr', '10.0.0.0/33').length, 1);
    assert.deepEqual(bad('mac', '00:1a:2b:3c:4d:5e'), []);
    assert.deepEqual(bad('hostname', 'example.com'), []);
    assert.equal(bad('hostname', 'exa mple.com').length, 1);
    assert.deepEqual(bad('k8s-something-unknown', 'anything'), []);
    const reasons = errorsOf({ type: 'object', properties: { a: { type: 'string', format: 'ipv4' } } }, { a: 'x' }).map(
      (e) => e.reason,
    );
    assert.deepEqual(reasons, ['FieldValueTypeInvalid']);
  });

  it('format int32 is range-checked (its error at the root, as kube-openapi) and a float is refused by type', () => {
    assert.deepEqual(check({ type: 'integer', format: 'int32' }, 2 ** 40), [
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x',
    ]);
    assert.deepEqual(check({ type: 'integer', format: 'int32' }, 2 ** 31 - 1), []);
    assert.deepEqual(check({ type: 'integer', format: 'int32' }, 1.5), [
      'spec.x: Invalid value: "float64": spec.x in body must be of type int32: "float64"',
      '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.x',
    ]);
  });

  it('enum: NotSupported with the supported values quoted; non-strings as JSON', () => {
    const errs = check({ type: 'string', enum: ['mysql', 'postgres'] }, 'oracle');
    assert.deepEqual(errs, ['spec.x: Unsupported value: "oracle": supported values: "mysql", "postgres"']);
    assert.deepEqual(check({ type: 'integer', enum: [1, 2] }, 3), [
      'spec.x: Unsupported value: 3: supported values: "1", "2"',
    ]);
    assert.deepEqual(check({ type: 'integer', enum: [1, 2] }, 2), []);
    assert.equal(
      errorsOf({ type: 'object', properties: { a: { enum: ['x'] } } }, { a: 'y' })[0].reason,
      'FieldValueNotSupported',
    );
  });

  it('maximum/minimum with exclusive bounds; floats keep float formatting', () => {
    assert.deepEqual(check({ type: 'integer', maximum: 10, exclusiveMaximum: true }, 10), [
      'spec.x: Invalid value: 10: spec.x in body should be less than 10',
    ]);
    assert.deepEqual(check({ type: 'integer', minimum: 1, exclusiveMinimum: true }, 1), [
      'spec.x: Invalid value: 1: spec.x in body should be greater than 1',
    ]);
    assert.deepEqual(check({ type: 'number', maximum: 1.5 }, 2.5), [
      'spec.x: Invalid value: 2.5: spec.x in body should be less than or equal to 1.5',
    ]);
    assert.deepEqual(check({ type: 'number', minimum: 1000000 }, 0.5), [
      'spec.x: Invalid value: 0.5: spec.x in body should be greater than or equal to 1e+06',
    ]);
  });

  it('multipleOf', () => {
    assert.deepEqual(check({ type: 'integer', multipleOf: 5 }, 12), [
      'spec.x: Invalid value: 12: spec.x in body should be a multiple of 5',
    ]);
    assert.deepEqual(check({ type: 'integer', multipleOf: 5 }, 15), []);
    assert.deepEqual(check({ type: 'number', multipleOf: 0.5 }, 0.75), [
      'spec.x: Invalid value: 0.75: spec.x in body should be a multiple of 0.5',
    ]);
  });

  it('maxLength is TooLong (blocking), minLength and pattern are Invalid; only the first string error is reported', () => {
    const long = errorsOf(
      { type: 'object', properties: { n: { type: 'string', maxLength: 3, pattern: '^[a-z]+$' } } },
      { n: 'ABCDE' },
    );
    assert.deepEqual(long, [
      { reason: 'FieldValueTooLong', field: 'n', message: 'Too long: may not be more than 3 bytes' },
    ]);
    assert.deepEqual(check({ type: 'string', minLength: 3 }, 'ab'), [
      'spec.x: Invalid value: "ab": spec.x in body should be at least 3 chars long',
    ]);
    assert.deepEqual(check({ type: 'string', pattern: '^[a-z]+$' }, 'A1'), [
      'spec.x: Invalid value: "A1": spec.x in body should match \'^[a-z]+$\'',
    ]);
    assert.deepEqual(check({ type: 'string', maxLength: 2 }, 'äö'), [], 'lengths count characters, not bytes');
  });

  it('pattern: RE2 inline flags and POSIX classes work', () => {
    assert.deepEqual(check({ type: 'string', pattern: '^(?i)(abort|warn)?$' }, 'WARN'), []);
    assert.equal(check({ type: 'string', pattern: '^(?i)(abort|warn)?$' }, 'stop').length, 1);
    assert.deepEqual(check({ type: 'string', pattern: '^[[:alpha:]]+$' }, 'abc'), []);
    assert.equal(check({ type: 'string', pattern: '^[[:alpha:]]+$' }, 'a1').length, 1);
    assert.deepEqual(check({ type: 'string', pattern: '^(?i)\\p{L}+x$' }, 'ÄbX'), [], 'unicode classes survive (?i)');
    assert.deepEqual(check({ type: 'string', pattern: '^\\x{41}$' }, 'A'), []);
    assert.deepEqual(check({ type: 'string', pattern: '^(?P<word>[a-z]+)$' }, 'abc'), []);
  });

  it('minItems, maxItems (TooMany), uniqueItems; item paths are indexed', () => {
    const s = { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', maxLength: 3 } };
    assert.deepEqual(check(s, []), ['spec.x: Invalid value: 0: spec.x in body should have at least 1 items']);
    const many = errorsOf({ type: 'object', properties: { l: s } }, { l: ['a', 'b', 'c'] });
    assert.deepEqual(many, [
      { reason: 'FieldValueTooMany', field: 'l', message: 'Too many: 3: must have at most 2 items' },
    ]);
    assert.deepEqual(check(s, ['a', 'abcd']), ['spec.x[1]: Too long: may not be more than 3 bytes']);
    assert.deepEqual(check({ type: 'array', uniqueItems: true, items: { type: 'string' } }, ['a', 'a']), [
      'spec.x: Invalid value: "": spec.x in body shouldn\'t contain duplicates',
    ]);
  });

  it('minProperties/maxProperties stop the object checks, as kube-openapi returns early', () => {
    const s = { type: 'object', minProperties: 2, required: ['a'], additionalProperties: { type: 'string' } };
    assert.deepEqual(check(s, { b: 'x' }), [
      'spec.x: Invalid value: 1: spec.x in body should have at least 2 properties',
    ]);
    const tooMany = errorsOf(
      {
        type: 'object',
        properties: { m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } },
      },
      { m: { a: 'x', b: 'y' } },
    );
    assert.deepEqual(tooMany, [
      { reason: 'FieldValueTooMany', field: 'm', message: 'Too many: 2: must have at most 1 item' },
    ]);
  });

  it('additionalProperties schema: values are checked with dotted paths', () => {
    const s = { type: 'object', additionalProperties: { type: 'integer', maximum: 5 } };
    assert.deepEqual(check(s, { a: 1, b: 6 }), [
      'spec.x.b: Invalid value: 6: spec.x.b in body should be less than or equal to 5',
    ]);
  });

  it('oneOf/anyOf/allOf/not: the composite errors are reported at <nil> with the path quoted', () => {
    const one = { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] };
    assert.deepEqual(check(one, { a: 1 }), []);
    const both = check(one, { a: 1, b: 2 });
    assert.deepEqual(both, [
      '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ]);
    const none = check(one, {});
    assert.equal(
      none[0],
      '<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
    );
    assert.ok(none.includes('spec.x.a: Required value'), 'the best failing branch is reported too');
    const any = { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
    assert.deepEqual(check(any, '::1'), []);
    assert.deepEqual(check(any, 'x'), [
      '<nil>: Invalid value: "": "spec.x" must validate at least one schema (anyOf)',
      'spec.x: Invalid value: "x": spec.x in body must be of type ipv4: "x"',
    ]);
    const all = { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 5 }] };
    assert.deepEqual(check(all, 9), [
      'spec.x: Invalid value: 9: spec.x in body should be less than or equal to 5',
      '<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf)',
    ]);
    assert.deepEqual(check({ type: 'string', not: { enum: ['x'] } }, 'x'), [
      '<nil>: Invalid value: "": "spec.x" must not validate the schema (not)',
    ]);
    assert.deepEqual(check({ type: 'string', not: { enum: ['x'] } }, 'y'), []);
  });

  it('a malformed schema is refused with a clear SchemaError naming where', () => {
    assert.throws(
      () => compileValidator({ type: 'object', properties: { a: { type: 'strin' } } }),
      (e: unknown) => {
        assert.ok(e instanceof SchemaError);
        assert.equal(e.path, 'properties.a.type');
        assert.match(e.message, /unsupported type "strin"/);
        return true;
      },
    );
    assert.throws(
      () => compileValidator({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }),
      /properties\.a\.pattern/,
    );
    assert.throws(() => compileValidator('not a schema'), SchemaError);
    assert.throws(
      () => compileValidator({ type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } }),
      /x-kubernetes-list-map-keys/,
    );
  });

  it('SchemaError paths name every step down: properties, items, additionalProperties, allOf, rules', () => {
    const pathOf = (schema: unknown): string => {
      try {
        compileValidator(schema);
      } catch (e) {
        assert.ok(e instanceof SchemaError);
        return e.path;
      }
      assert.fail('no SchemaError');
    };
    const deep = (leaf: unknown) => ({
      type: 'object',
      properties: { spec: { type: 'array', items: { type: 'object', additionalProperties: { allOf: [{}, leaf] } } } },
    });
    assert.equal(pathOf(deep({ type: 'strin' })), 'properties.spec.items.additionalProperties.allOf[1].type');
    assert.equal(pathOf(deep({ maxLength: 1.5 })), 'properties.spec.items.additionalProperties.allOf[1].maxLength');
    assert.equal(
      pathOf(deep({ 'x-kubernetes-validations': [{ rule: 'true' }, { rule: 'true', reason: 'Nope' }] })),
      'properties.spec.items.additionalProperties.allOf[1].x-kubernetes-validations[1].reason',
    );
    assert.equal(pathOf(deep('oops')), 'properties.spec.items.additionalProperties.allOf[1]');
    assert.equal(
      pathOf(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"strin"}}}')),
      'properties.__proto__.type',
    );
    assert.equal(pathOf([]), '');
  });
});
