// The model's one schema tree written back (src/model/schema-json.ts): for any schema the CRD
// reader turns into a tree, schemaToJson gives the input JSON back — typed keywords, keywords the
// typed view does not carry (oneOf, example, x-kubernetes-map-type on a scalar…), values the typed
// view cannot hold (`nullable: false`, an enum with null, `required` out of order, rules with
// unknown fields). A property test over generated schemas, and the cases that motivated it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toSchemaNode } from '../../../src/input/crd/schema-node.js';
import { freezeSchema, schemaToJson } from '../../../src/model/schema-json.js';
import type { SchemaNode } from '../../../src/model/types.js';
import { SEED, runs } from '../../fuzz/support.js';

const here = () => ({ file: 'x.yaml', line: 1, col: 1 });
const read = (json: unknown): SchemaNode => toSchemaNode(json, [], here);

type Obj = Record<string, unknown>;
const name = fc.stringMatching(/^[a-z][a-zA-Z0-9-]{0,6}$/);
/** A value of any JSON type, for keywords whose typed form wants one type. */
const anyValue = fc.oneof(
  fc.boolean(),
  fc.integer(),
  fc.string({ maxLength: 4 }),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null)), { maxLength: 3 }),
);
const rule = fc.record(
  {
    rule: fc.string({ minLength: 1, maxLength: 8 }),
    message: fc.string({ maxLength: 5 }),
    reason: fc.constantFrom('FieldValueInvalid', 'FieldValueForbidden'),
    optionalOldSelf: fc.boolean(),
    surprise: fc.integer(),
  },
  { requiredKeys: ['rule'] },
);
/** Keywords any node may carry, with well-typed and odd values. */
const common = {
  description: fc.string({ maxLength: 6 }),
  default: anyValue,
  nullable: fc.boolean(),
  example: anyValue,
  title: fc.string({ maxLength: 4 }),
  externalDocs: fc.record({ url: fc.webUrl() }),
  'x-kubernetes-validations': fc.array(rule, { minLength: 1, maxLength: 2 }),
  'x-kubernetes-map-type': fc.constantFrom('atomic', 'granular', 'other'),
  oneOf: fc.array(fc.record({ required: fc.array(name, { minLength: 1, maxLength: 2 }) }), {
    minLength: 1,
    maxLength: 2,
  }),
  not: fc.record({ required: fc.array(name, { minLength: 1, maxLength: 1 }) }),
  'x-custom': anyValue,
};
const keywords = (extra: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record({ ...common, ...extra }, { requiredKeys: [] });

const { schema } = fc.letrec<{ schema: Obj }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    keywords({
      enum: anyValue,
      format: fc.constantFrom('date-time', 'byte', ''),
      pattern: fc.string({ maxLength: 4 }),
      minLength: fc.nat(9),
      maxLength: fc.oneof(fc.nat(9), fc.constant(-1)),
    }).map((k) => ({ type: 'string', ...k })),
    keywords({
      enum: anyValue,
      format: fc.constantFrom('int32', 'int64', 'uint8', ''),
      minimum: fc.integer(),
      maximum: fc.double(),
      exclusiveMinimum: anyValue,
      multipleOf: fc.integer({ min: 1, max: 9 }),
    }).map((k) => ({ type: 'integer', ...k })),
    keywords({
      enum: anyValue,
      format: fc.constantFrom('double', ''),
      minimum: fc.double({ noNaN: true, noDefaultInfinity: true }),
      exclusiveMaximum: fc.boolean(),
    }).map((k) => ({ type: 'number', ...k })),
    keywords({}).map((k) => ({ type: 'boolean', ...k })),
    keywords({
      anyOf: fc.constantFrom([{ type: 'integer' }, { type: 'string' }], [{ type: 'string' }, { type: 'integer' }]),
      pattern: fc.string({ maxLength: 3 }),
    }).map((k) => ({ 'x-kubernetes-int-or-string': true, ...k })),
    keywords({ type: fc.constant('object') }).map((k) => ({ 'x-kubernetes-preserve-unknown-fields': true, ...k })),
    fc
      .record({
        k: keywords({
          minItems: fc.nat(3),
          maxItems: fc.nat(3),
          uniqueItems: fc.boolean(),
          'x-kubernetes-list-type': fc.constantFrom('atomic', 'set', 'map', 'bag'),
          'x-kubernetes-list-map-keys': fc.array(fc.oneof(name, fc.integer()), { maxLength: 2 }),
        }),
        items: tie('schema'),
      })
      .map(({ k, items }) => ({ type: 'array', ...k, items })),
    fc
      .record({
        k: keywords({ minProperties: fc.nat(3), maxProperties: fc.nat(3) }),
        values: fc.oneof(tie('schema'), fc.constant(true)),
      })
      .map(({ k, values }) => ({ type: 'object', ...k, additionalProperties: values })),
    fc
      .record({
        k: keywords({
          minProperties: fc.nat(3),
          'x-kubernetes-preserve-unknown-fields': fc.boolean(),
          'x-kubernetes-embedded-resource': fc.boolean(),
        }),
        properties: fc.dictionary(name, tie('schema'), { maxKeys: 3 }),
        required: fc.option(fc.array(name, { maxLength: 3 }), { nil: undefined }),
      })
      .map(({ k, properties, required }) => {
        // `required` in any order, with names that are not properties, or in the properties' order
        const req = required ?? (Object.keys(properties).length > 0 ? Object.keys(properties).slice(0, 1) : undefined);
        return { type: 'object', ...k, properties, ...(req !== undefined ? { required: req } : {}) };
      }),
  ),
}));

test('schemaToJson(toSchemaNode(json)) is json, for any schema the typed view can type (property)', () => {
  fc.assert(
    fc.property(schema, (generated) => {
      const json = JSON.parse(JSON.stringify(generated)) as Obj; // plain objects, as a YAML or JSON reader gives
      const node = read(json);
      assert.deepStrictEqual(schemaToJson(node), json);
      freezeSchema(node);
      assert.deepStrictEqual(schemaToJson(node), json, 'frozen, memoized');
    }),
    { numRuns: runs(300), seed: SEED },
  );
});

test('what the typed view does not carry goes to keywords, and only that', () => {
  const json = {
    type: 'object',
    required: ['b', 'a'],
    properties: {
      a: { type: 'string', enum: ['x', null], nullable: true, example: 'x' },
      b: { type: 'integer', format: 'uint8', 'x-kubernetes-map-type': 'atomic' },
      c: { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^[0-9]+$', 'x-kubernetes-int-or-string': true },
      d: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
      e: { type: 'boolean', nullable: false },
    },
    oneOf: [{ required: ['a'] }, { required: ['b'] }],
  };
  const node = read(json);
  assert.equal(node.type, 'object');
  if (node.type !== 'object') return;
  assert.deepEqual(node.keywords, { required: ['b', 'a'], oneOf: json.oneOf });
  assert.deepEqual(
    node.properties.map((p) => [p.name, p.required]),
    [
      ['a', true],
      ['b', true],
      ['c', false],
      ['d', false],
      ['e', false],
    ],
  );
  const [a, b, c, d, e] = node.properties.map((p) => p.schema);
  // the typed view keeps what it can (the string members of the enum); the exact enum is a keyword
  assert.deepEqual([a.type === 'string' && a.enum, a.keywords], [['x'], { enum: ['x', null], example: 'x' }]);
  assert.deepEqual(
    [b.type === 'integer' && b.format, b.keywords],
    [undefined, { format: 'uint8', 'x-kubernetes-map-type': 'atomic' }],
  );
  assert.deepEqual(
    [c.type, c.keywords],
    ['int-or-string', { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^[0-9]+$' }],
  );
  assert.deepEqual([d.type === 'map' && d.mapType, d.keywords], ['atomic', undefined]);
  assert.deepEqual([e.nullable, e.keywords], [false, undefined]);
  assert.deepStrictEqual(schemaToJson(node), json);
});

test('a frozen tree is written once; the JSON is frozen too', () => {
  const node = read({ type: 'object', properties: { a: { type: 'string' } } });
  assert.notEqual(schemaToJson(node), schemaToJson(node), 'a tree being built is written afresh');
  freezeSchema(node);
  const json = schemaToJson(node);
  assert.equal(schemaToJson(node), json);
  assert.ok(Object.isFrozen(json) && Object.isFrozen(json['properties']));
  assert.throws(() => {
    json['type'] = 'array';
  }, TypeError);
});
