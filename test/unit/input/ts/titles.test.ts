import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaNode } from '../../../../src/model/types.js';
import { HEAD, diagLines, fooKind, onlyKind, readSources, specProp } from './helpers.js';

const titles = (n: SchemaNode, out: string[] = []): string[] => {
  if (n.type === 'object') {
    out.push(n.title ?? '(none)');
    for (const p of n.properties) titles(p.schema, out);
  } else if (n.type === 'array') titles(n.items, out);
  else if (n.type === 'map') titles(n.values, out);
  return out;
};

test('anonymous objects are named by path like the CRD reader; named ones keep their names', () => {
  const r = readSources({
    'api.ts': fooKind(
      `
  template: { metadata?: ObjectMeta; spec: Named };
  items: { a: string }[];
  nested: { b: string }[][];
  maps: Record<string, Record<string, { c: string }>>;
  dup: { x: string };
  'my-field': { y: string };`,
      `export interface Named { inner: { z: string } }
export interface FooSpecDup { clash: string }
export interface Holder { d: FooSpecDup }`,
    ).replace('  spec: FooSpec;', '  spec: FooSpec;\n  other?: Holder;'),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.deepEqual(titles(onlyKind(r.model).schema!), [
    'Foo',
    'FooSpec',
    'FooSpecTemplate',
    'FooSpecTemplateMetadata',
    'Named',
    'NamedInner',
    'FooSpecItem',
    'FooSpecNestedItem',
    'FooSpecMapsValue',
    'FooSpecDup2',
    'FooSpecMyField',
    'Holder',
    'FooSpecDup',
  ]);
});

test('an embedded resource keeps its metadata untitled', () => {
  const r = readSources({
    'api.ts': fooKind(`
  // +kubebuilder:validation:EmbeddedResource
  obj: { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: { a: string } };`),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.deepEqual(titles(specProp(r, 'obj')), ['FooSpecObj', '(none)', 'FooSpecObjSpec']);
});

test('two different types with one name in a group/version, or a reserved name, are TS012', () => {
  const r = readSources({
    'a.ts': fooKind(
      '  a: Thing;\n  b: Other;',
      `import type { Thing as Other } from './b.js';\nexport interface Thing { x: string }`,
    ),
    'b.ts': 'export interface Thing { y: string }\n',
  });
  assert.deepEqual(diagLines(r.diagnostics), [
    'a.ts:14:3 TS012 two different types are named Thing in example.com/v1 (the other is at a.ts:13:3)',
  ]);
  const reserved = readSources({
    'a.ts': fooKind(
      '  a: FooList;\n  b: ObjectMeta2;',
      'export interface FooList { x: string }\nexport interface ObjectMeta2 { y: string }',
    ),
  });
  assert.deepEqual(diagLines(reserved.diagnostics), [
    'a.ts:13:3 TS012 type FooList in example.com/v1 takes a name that generated code uses',
  ]);
});

test('optional apiVersion, kind and metadata are written into the schema as controller-gen does', () => {
  const r = readSources({
    'a.ts': `${HEAD}
// +genclient
export interface Foo {
  /** APIVersion defines the versioned schema. */
  apiVersion?: 'example.com/v1';
  kind: 'Foo';
  // +kubebuilder:validation:Required
  metadata?: ObjectMeta;
  spec?: { a: string };
}
`,
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  const root = onlyKind(r.model).schema!;
  assert.ok(root.type === 'object');
  assert.deepEqual(
    root.properties.map((p) => [p.name, p.required, p.schema.type, p.schema.description ?? '', p.schema.title ?? '']),
    [
      ['apiVersion', false, 'string', 'APIVersion defines the versioned schema.', ''],
      ['metadata', true, 'object', '', ''],
      ['spec', false, 'object', '', 'FooSpec'],
    ],
  );
});

test('a kind name must be UpperCamelCase', () => {
  const r = readSources({
    'a.ts': `${HEAD}export interface foo { apiVersion: 'example.com/v1'; kind: 'foo'; metadata: ObjectMeta }\n`,
  });
  assert.deepEqual(diagLines(r.diagnostics), [
    'a.ts:4:18 TS010 kind foo must be an UpperCamelCase identifier (letters and digits)',
  ]);
});
