import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { crd, GENERATED_YAML_HEADER } from '../../../src/generate/crd.js';
import { schemaToJson } from '../../../src/model/schema-json.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import type { Kind, Model, SchemaNode } from '../../../src/model/types.js';

function kind(over: Partial<Kind> = {}): Kind {
  return {
    kind: 'Foo',
    listKind: 'FooList',
    plural: 'foos',
    singular: 'foo',
    shortNames: [],
    categories: [],
    scope: 'Namespaced',
    served: true,
    storage: true,
    deprecated: false,
    subresources: { status: false },
    printerColumns: [],
    verbs: [],
    source: { file: 'x.ts', line: 1, col: 1 },
    ...over,
  };
}

const obj = (props: [string, boolean, SchemaNode][], extra: Partial<SchemaNode> = {}): SchemaNode =>
  ({
    type: 'object',
    properties: props.map(([name, required, schema]) => ({ name, required, schema })),
    preserveUnknownFields: false,
    embeddedResource: false,
    ...extra,
  }) as SchemaNode;

test('schemaToJson: every node type, keys alphabetical, properties in model order', () => {
  const node = obj([
    ['zeta', true, { type: 'string', enum: ['a', 'b'], pattern: '^a', minLength: 1, maxLength: 2, format: 'x' }],
    [
      'alpha',
      false,
      { type: 'integer', format: 'int32', minimum: 1, maximum: 10, exclusiveMaximum: true, multipleOf: 2 },
    ],
    ['ios', false, { type: 'int-or-string', description: 'port' }],
    ['ios2', false, { type: 'int-or-string', keywords: { anyOf: [{ type: 'integer' }, { type: 'string' }] } }],
    ['raw', false, { type: 'unknown', object: true }],
    ['any', false, { type: 'unknown', object: false }],
    ['m', false, { type: 'map', values: { type: 'boolean' }, maxProperties: 3 }],
    [
      'l',
      false,
      {
        type: 'array',
        items: obj([['k', true, { type: 'string' }]]),
        listType: 'map',
        listMapKeys: ['k'],
        minItems: 1,
      },
    ],
    ['e', false, obj([], { preserveUnknownFields: true, embeddedResource: true, nullable: true, default: {} })],
    [
      'v',
      false,
      { type: 'number', validations: [{ rule: 'self > 0', message: 'positive', reason: 'FieldValueInvalid' }] },
    ],
  ]);
  const json = schemaToJson(node);
  assert.deepEqual(Object.keys(json), ['properties', 'required', 'type']);
  const props = json['properties'] as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(props), ['zeta', 'alpha', 'ios', 'ios2', 'raw', 'any', 'm', 'l', 'e', 'v']);
  assert.deepEqual(json['required'], ['zeta']);
  assert.deepEqual(Object.keys(props['zeta']), ['enum', 'format', 'maxLength', 'minLength', 'pattern', 'type']);
  assert.deepEqual(props['alpha'], {
    exclusiveMaximum: true,
    format: 'int32',
    maximum: 10,
    minimum: 1,
    multipleOf: 2,
    type: 'integer',
  });
  // the anyOf that usually goes with int-or-string is a keyword (the TypeScript reader writes it)
  assert.deepEqual(props['ios'], { description: 'port', 'x-kubernetes-int-or-string': true });
  assert.deepEqual(props['ios2'], {
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    'x-kubernetes-int-or-string': true,
  });
  assert.deepEqual(props['raw'], { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(props['any'], { 'x-kubernetes-preserve-unknown-fields': true });
  assert.deepEqual(props['m'], { additionalProperties: { type: 'boolean' }, maxProperties: 3, type: 'object' });
  assert.deepEqual(props['l'], {
    items: { properties: { k: { type: 'string' } }, required: ['k'], type: 'object' },
    minItems: 1,
    type: 'array',
    'x-kubernetes-list-map-keys': ['k'],
    'x-kubernetes-list-type': 'map',
  });
  assert.deepEqual(props['e'], {
    default: {},
    nullable: true,
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    'x-kubernetes-preserve-unknown-fields': true,
  });
  assert.deepEqual(props['v'], {
    type: 'number',
    'x-kubernetes-validations': [{ message: 'positive', reason: 'FieldValueInvalid', rule: 'self > 0' }],
  });
});

test('crd emitter: one file per kind with all its versions, names from the storage version', () => {
  const schema = obj([['spec', true, obj([['a', true, { type: 'string', description: 'yes' }]])]], {
    description: 'A Foo.',
  });
  const model: Model = {
    sources: ['b.ts', 'a.ts'],
    groups: [
      {
        name: 'example.com',
        versions: [
          {
            name: 'v1',
            kinds: [
              kind({
                schema,
                shortNames: ['f'],
                categories: ['all'],
                subresources: {
                  status: true,
                  scale: {
                    specReplicasPath: '.spec.r',
                    statusReplicasPath: '.status.r',
                    labelSelectorPath: '.status.s',
                  },
                },
                printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: 1 }],
              }),
              kind({ kind: 'Bar', listKind: 'BarList', plural: 'bars', singular: 'bar', scope: 'Cluster' }),
            ],
          },
          {
            name: 'v1beta1',
            kinds: [
              kind({
                storage: false,
                served: false,
                deprecated: true,
                deprecationWarning: 'old',
                schema,
                source: { file: 'a.ts', line: 1, col: 1 },
              }),
            ],
          },
        ],
      },
    ],
  };
  const files = crd(model, createEmitContext({ sources: model.sources }));
  assert.deepEqual(
    files.map((f) => f.path),
    ['config/crd/bars.example.com.yaml', 'config/crd/foos.example.com.yaml'],
  );
  // each CRD names the inputs its versions came from, sorted (not every input of the run)
  const foo = files[1].contents;
  assert.ok(foo.startsWith(`${GENERATED_YAML_HEADER}\n# Source: a.ts\n# Source: x.ts\n---\n`));
  assert.ok(files[0].contents.startsWith(`${GENERATED_YAML_HEADER}\n# Source: x.ts\n---\n`));
  const doc = parse(foo) as Record<string, unknown>;
  assert.deepEqual(Object.keys(doc), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.deepEqual(doc['metadata'], { name: 'foos.example.com' });
  const spec = doc['spec'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(spec), ['group', 'names', 'scope', 'versions']);
  assert.deepEqual(spec['names'], {
    categories: ['all'],
    kind: 'Foo',
    listKind: 'FooList',
    plural: 'foos',
    shortNames: ['f'],
    singular: 'foo',
  });
  const versions = spec['versions'] as Record<string, unknown>[];
  assert.deepEqual(
    versions.map((v) => Object.keys(v)),
    [
      ['additionalPrinterColumns', 'name', 'schema', 'served', 'storage', 'subresources'],
      ['deprecated', 'deprecationWarning', 'name', 'schema', 'served', 'storage'],
    ],
  );
  assert.deepEqual(versions[0]['subresources'], {
    scale: { labelSelectorPath: '.status.s', specReplicasPath: '.spec.r', statusReplicasPath: '.status.r' },
    status: {},
  });
  assert.deepEqual(versions[0]['additionalPrinterColumns'], [
    { jsonPath: '.metadata.creationTimestamp', name: 'Age', priority: 1, type: 'date' },
  ]);
  // YAML 1.1 readers (kubectl) must see the string "yes", not a boolean.
  assert.match(foo, /description: "yes"/);
  const bar = parse(files[0].contents) as { spec: Record<string, unknown> };
  assert.equal(bar.spec['scope'], 'Cluster');
  assert.deepEqual((bar.spec['versions'] as unknown[])[0], { name: 'v1', served: true, storage: true });
});

test('crd emitter output is deterministic', () => {
  const model: Model = { sources: ['a.ts'], groups: [{ name: 'x.io', versions: [{ name: 'v1', kinds: [kind()] }] }] };
  const ctx = createEmitContext({ sources: model.sources });
  assert.equal(crd(model, ctx)[0].contents, crd(structuredClone(model), ctx)[0].contents);
});

test('crd emitter: protected groups get the API approval annotation, declared unapproved', () => {
  const model: Model = {
    sources: ['a.ts'],
    groups: [{ name: 'samplecontroller.k8s.io', versions: [{ name: 'v1', kinds: [kind()] }] }],
  };
  const doc = parse(crd(model, createEmitContext({ sources: model.sources }))[0].contents) as {
    metadata: Record<string, unknown>;
  };
  assert.deepEqual(doc.metadata, {
    annotations: { 'api-approved.kubernetes.io': 'unapproved, generated by crdgen without an API review link' },
    name: 'foos.samplecontroller.k8s.io',
  });
});
