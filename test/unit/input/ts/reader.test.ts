import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readTypeScript } from '../../../../src/input/ts/reader.js';
import { QUANTITY_PATTERN } from '../../../../src/input/ts/schema.js';
import { schemaToJson } from '../../../../src/model/schema-json.js';
import { HEAD, diagLines, fooKind, onlyKind, readSources, specProp, stripSources } from './helpers.js';

test('databasemanager-ts fixture reads to the DatabaseManager model', () => {
  const r = readTypeScript(['fixtures/databasemanager-ts/types.ts']);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.model.sources, ['fixtures/databasemanager-ts/types.ts']);
  assert.equal(r.model.groups.length, 1);
  assert.equal(r.model.groups[0].name, 'coolops.cn');
  assert.equal(r.model.groups[0].versions[0].name, 'v1alpha1');
  const k = onlyKind(r.model);
  assert.deepEqual(
    { ...k, schema: undefined, source: undefined },
    {
      kind: 'DatabaseManager',
      listKind: 'DatabaseManagerList',
      plural: 'databasemanagers',
      singular: 'databasemanager',
      shortNames: ['dm'],
      categories: [],
      scope: 'Namespaced',
      served: true,
      storage: true,
      deprecated: false,
      subresources: { status: true },
      printerColumns: [],
      verbs: [
        'create',
        'update',
        'updateStatus',
        'delete',
        'deleteCollection',
        'get',
        'list',
        'watch',
        'patch',
        'apply',
        'applyStatus',
      ],
      schema: undefined,
      source: undefined,
    },
  );
  // the schema written back is the CRD's: here exactly the openAPIV3Schema of fixtures/databasemanager
  const crd = parse(readFileSync('fixtures/databasemanager/crd.yaml', 'utf8')) as {
    spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
  };
  assert.deepEqual(schemaToJson(k.schema!), crd.spec.versions[0].schema.openAPIV3Schema);
  assert.deepEqual(k.source, { file: 'fixtures/databasemanager-ts/types.ts', line: 11, col: 18 });
  // the spec as in fixtures/databasemanager (the whole model is compared with the CRD reader's in
  // test/roundtrip/databasemanager-identity.test.ts)
  const root = stripSources(k.schema);
  assert.ok(root?.type === 'object');
  assert.equal(root.title, 'DatabaseManager');
  assert.deepEqual(
    root.properties.map((p) => [p.name, p.required, p.schema.title]),
    [
      ['spec', false, 'DatabaseManagerSpec'],
      ['status', false, 'DatabaseManagerStatus'],
    ],
  );
  assert.deepEqual(root.properties[0].schema, {
    type: 'object',
    title: 'DatabaseManagerSpec',
    description: 'DatabaseManagerSpec is the desired state of a DatabaseManager.',
    preserveUnknownFields: false,
    embeddedResource: false,
    properties: [
      {
        name: 'deploymentName',
        required: false,
        schema: { type: 'string', description: 'Name of the Deployment to manage.' },
      },
      {
        name: 'replicas',
        required: false,
        schema: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: 10,
          description: 'Number of database replicas, 1 to 10.',
        },
      },
      {
        name: 'dbtype',
        required: false,
        schema: { type: 'string', description: 'Database engine: mysql, postgres, redis or mongodb.' },
      },
    ],
  });
});

test('primitive and crdgen/types types map to schema nodes', () => {
  const r = readSources({
    'api.ts': fooKind(`
  s: string; b: boolean; n: number; i32: int32; i64: int64; ios: IntOrString; q: Quantity;
  t: Time; d: Duration; raw: RawExtension; any: JSONValue; u: unknown;`),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  const want: Record<string, unknown> = {
    s: { type: 'string' },
    b: { type: 'boolean' },
    n: { type: 'number' },
    i32: { type: 'integer', format: 'int32' },
    i64: { type: 'integer', format: 'int64' },
    // as controller-gen writes them: the anyOf, and a Quantity's pattern
    ios: { type: 'int-or-string', keywords: { anyOf: [{ type: 'integer' }, { type: 'string' }] } },
    q: {
      type: 'int-or-string',
      keywords: { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN },
    },
    t: { type: 'string', format: 'date-time' },
    d: { type: 'string' },
    raw: { type: 'unknown', object: true },
    any: { type: 'unknown', object: false },
    u: { type: 'unknown', object: false },
  };
  for (const [name, schema] of Object.entries(want)) assert.deepEqual(specProp(r, name), schema, name);
});

test('arrays, maps, enums, nullable and optional', () => {
  const r = readSources({
    'api.ts': fooKind(
      `
  a?: string[];
  b: Array<int32>;
  c: Record<string, string>;
  d: { [key: string]: boolean };
  e: 'mysql' | 'postgres';
  f: string | null;
  g: readonly string[];
  h?: Engine;`,
      `/** The engine. */
// +kubebuilder:default="mysql"
export type Engine = 'mysql' | 'redis';`,
    ),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.deepEqual(specProp(r, 'a'), { type: 'array', items: { type: 'string' } });
  assert.deepEqual(specProp(r, 'b'), { type: 'array', items: { type: 'integer', format: 'int32' } });
  assert.deepEqual(specProp(r, 'c'), { type: 'map', values: { type: 'string' } });
  assert.deepEqual(specProp(r, 'd'), { type: 'map', values: { type: 'boolean' } });
  assert.deepEqual(specProp(r, 'e'), { type: 'string', enum: ['mysql', 'postgres'] });
  assert.deepEqual(specProp(r, 'f'), { type: 'string', nullable: true });
  assert.deepEqual(specProp(r, 'g'), { type: 'array', items: { type: 'string' } });
  assert.deepEqual(specProp(r, 'h'), {
    type: 'string',
    enum: ['mysql', 'redis'],
    description: 'The engine.',
    default: 'mysql',
  });
  const spec = onlyKind(r.model).schema!;
  assert.equal(spec.type, 'object');
  const specNode = spec.type === 'object' ? spec.properties[0].schema : undefined;
  assert.ok(specNode?.type === 'object');
  assert.deepEqual(
    specNode.properties.map((p) => [p.name, p.required]),
    [
      ['a', false],
      ['b', true],
      ['c', true],
      ['d', true],
      ['e', true],
      ['f', true],
      ['g', true],
      ['h', false],
    ],
  );
});

test('validation markers on fields, types and array items', () => {
  const r = readSources(
    {
      'api.ts': fooKind(
        `
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=63
  // +kubebuilder:validation:Pattern=\`^[a-z]+$\`
  // +kubebuilder:validation:Format=hostname
  name: string;
  // +kubebuilder:validation:Minimum=0.5
  // +kubebuilder:validation:Maximum=2
  // +kubebuilder:validation:ExclusiveMaximum=true
  // +kubebuilder:validation:MultipleOf=0.5
  ratio: number;
  // +kubebuilder:validation:Enum=1;2;3
  level: int32;
  // +kubebuilder:validation:MinItems=1
  // +kubebuilder:validation:MaxItems=5
  // +kubebuilder:validation:UniqueItems=true
  // +kubebuilder:validation:items:MaxLength=10
  // +listType=set
  tags: string[];
  // +listType=map
  // +listMapKey=name
  // +listMapKey=port
  ports: Port[];
  // +kubebuilder:validation:XValidation:rule="self.size() > 0",message="must not be empty",reason=FieldValueInvalid
  // +kubebuilder:validation:MinProperties=1
  labels: Record<string, string>;
  // +nullable
  // +kubebuilder:default={"a":1}
  // +kubebuilder:pruning:PreserveUnknownFields
  // +mapType=atomic
  extra?: Port;
  // +kubebuilder:validation:EmbeddedResource
  // +kubebuilder:pruning:PreserveUnknownFields
  template: RawExtension;
  // +kubebuilder:validation:Required
  must?: string;
  // +optional
  may: string;`,
        `// +kubebuilder:validation:XValidation:rule="has(self.name)"
export interface Port { name: string; port: int32 }`,
      ),
    },
    ['.'],
    undefined,
    false, // uniqueItems is the apiserver's to refuse (see the next test)
  );
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.deepEqual(specProp(r, 'name'), {
    type: 'string',
    minLength: 1,
    maxLength: 63,
    pattern: '^[a-z]+$',
    format: 'hostname',
  });
  assert.deepEqual(specProp(r, 'ratio'), {
    type: 'number',
    minimum: 0.5,
    maximum: 2,
    exclusiveMaximum: true,
    multipleOf: 0.5,
  });
  assert.deepEqual(specProp(r, 'level'), { type: 'integer', format: 'int32', enum: [1, 2, 3] });
  assert.deepEqual(specProp(r, 'tags'), {
    type: 'array',
    items: { type: 'string', maxLength: 10 },
    minItems: 1,
    maxItems: 5,
    uniqueItems: true,
    listType: 'set',
  });
  const ports = specProp(r, 'ports');
  assert.ok(ports.type === 'array');
  assert.equal(ports.listType, 'map');
  assert.deepEqual(ports.listMapKeys, ['name', 'port']);
  assert.deepEqual(ports.items.validations, [{ rule: 'has(self.name)' }]);
  assert.equal(ports.items.type === 'object' && ports.items.title, 'Port');
  assert.deepEqual(specProp(r, 'labels'), {
    type: 'map',
    values: { type: 'string' },
    validations: [{ rule: 'self.size() > 0', message: 'must not be empty', reason: 'FieldValueInvalid' }],
    minProperties: 1,
  });
  const extra = specProp(r, 'extra');
  assert.ok(extra.type === 'object');
  assert.equal(extra.nullable, true);
  assert.deepEqual(extra.default, { a: 1 });
  assert.equal(extra.preserveUnknownFields, true);
  assert.equal(extra.mapType, 'atomic');
  assert.deepEqual(specProp(r, 'template'), {
    type: 'object',
    title: 'FooSpecTemplate',
    properties: [],
    preserveUnknownFields: true,
    embeddedResource: true,
  });
  const spec = onlyKind(r.model).schema;
  const specNode = spec?.type === 'object' ? spec.properties[0].schema : undefined;
  assert.ok(specNode?.type === 'object');
  const req = Object.fromEntries(specNode.properties.map((p) => [p.name, p.required]));
  assert.equal(req['must'], true);
  assert.equal(req['may'], false);
});

test('what the apiserver would refuse is reported at the TypeScript declaration, with the CRD field', () => {
  const r = readSources({
    'api.ts': fooKind(`
  // +kubebuilder:validation:UniqueItems=true
  tags: string[];
  // +listType=map
  // +listMapKey=name
  ports: { name?: string; port: int32 }[];`),
  });
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.field}`),
    [
      'api.ts:15:3 CRD032 spec.validation.openAPIV3Schema.properties[spec].properties[tags].uniqueItems',
      'api.ts:18:12 CRD034 spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].default',
    ],
  );
  assert.match(
    r.diagnostics[1].message,
    /x-kubernetes-list-map-keys, so it must have a default or be a required property/,
  );
});

test('field JSDoc wins over the type JSDoc; inline objects get a derived title; extends flattens', () => {
  const r = readSources({
    'api.ts': fooKind(
      `
  /** Field doc. */
  a: Bar;
  b: Bar;
  c: { x: string; y?: int32 };
  d: Derived;`,
      `/** Bar doc. */
export interface Bar { v: string }
interface Base { base: string; over: number }
export interface Derived extends Base { over: string; own: boolean }`,
    ),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.equal(specProp(r, 'a').description, 'Field doc.');
  assert.equal(specProp(r, 'b').description, 'Bar doc.');
  const c = specProp(r, 'c');
  assert.ok(c.type === 'object');
  assert.equal(c.title, 'FooSpecC');
  assert.deepEqual(
    c.properties.map((p) => [p.name, p.required]),
    [
      ['x', true],
      ['y', false],
    ],
  );
  const d = specProp(r, 'd');
  assert.ok(d.type === 'object');
  assert.equal(d.title, 'Derived');
  assert.deepEqual(
    d.properties.map((p) => [p.name, p.schema.type]),
    [
      ['base', 'string'],
      ['over', 'string'],
      ['own', 'boolean'],
    ],
  );
});

test('multi-line JSDoc keeps lines; markers are not part of the description', () => {
  const r = readSources({
    'api.ts': fooKind(`
  /**
   * First line.
   *
   *   indented, and a closing *\\/ escaped
   */
  // +optional
  a: string;`),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.equal(specProp(r, 'a').description, 'First line.\n\n  indented, and a closing */ escaped');
});

test('references resolve across files, and a folder doc.ts gives group and version', () => {
  const r = readSources({
    'api/doc.ts': '// +groupName=example.com\n// +versionName=v1beta1\nexport {};\n',
    'api/foo.ts': `import type { ObjectMeta } from 'crdgen/types';
import type { FooSpec } from './spec.js';
// +genclient
// +genclient:nonNamespaced
export interface Foo { apiVersion: 'example.com/v1beta1'; kind: 'Foo'; metadata: ObjectMeta; spec: FooSpec }
`,
    'api/spec.ts': `import type { Shared } from './shared';\nexport interface FooSpec { shared: Shared }\n`,
    'api/shared.ts': `export interface Shared { n: number }\n`,
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.deepEqual(r.model.sources, ['api/doc.ts', 'api/foo.ts', 'api/shared.ts', 'api/spec.ts']);
  assert.equal(r.model.groups[0].versions[0].name, 'v1beta1');
  const k = onlyKind(r.model);
  assert.equal(k.scope, 'Cluster');
  assert.deepEqual(k.verbs, [
    'create',
    'update',
    'delete',
    'deleteCollection',
    'get',
    'list',
    'watch',
    'patch',
    'apply',
  ]);
  const shared = specProp(r, 'shared');
  assert.ok(shared.type === 'object');
  assert.equal(shared.title, 'Shared');
});

test('a syntax error in a file reached only through an import is reported', () => {
  const r = readSources(
    {
      'api/foo.ts': fooKind('  shared: Shared;').replace(
        "from 'crdgen/types';",
        "from 'crdgen/types';\nimport type { Shared } from '../lib/shared.js';",
      ),
      'lib/shared.ts': 'export interface Shared {\n  n: number\n  m: \n}\n',
    },
    ['api'],
  );
  assert.deepEqual(diagLines(r.diagnostics), ['lib/shared.ts:4:1 TS001 Type expected.']);
});

test('a hand-written list type is skipped (lists are generated)', () => {
  const r = readSources({
    'a.ts': fooKind(
      '  a: string;',
      "import type { ListMeta } from 'crdgen/types';\nexport interface FooList { apiVersion: 'example.com/v1'; kind: 'FooList'; metadata: ListMeta; items: Foo[] }",
    ),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.equal(onlyKind(r.model).kind, 'Foo');
});

test('tsconfig paths resolve imports', () => {
  const r = readSources(
    {
      'tsconfig.json': JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@api/*': ['lib/*'] } } }),
      'src/api.ts': fooKind('  shared: Shared;').replace(
        "from 'crdgen/types';",
        "from 'crdgen/types';\nimport type { Shared } from '@api/shared';",
      ),
      'lib/shared.ts': 'export interface Shared { n: number }\n',
    },
    ['src'],
    'tsconfig.json',
  );
  assert.deepEqual(diagLines(r.diagnostics), []);
  assert.equal(specProp(r, 'shared').type, 'object');
});

test('kind markers: resource, subresources, printer columns, versions, deepcopy, verbs', () => {
  const r = readSources({
    'api.ts': fooKind(
      '  replicas: int32;',
      'export interface FooStatus { ready: boolean; replicas: int32; selector: string }',
      `// +genclient
// +genclient:skipVerbs=deleteCollection,apply
// +genclient:noStatus
// +k8s:deepcopy-gen=false
// +kubebuilder:resource:path=fooz,singular=fooo,shortName=f;fo,categories={all,example},scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Ready",type=boolean,JSONPath=".status.ready",description="Is it ready",priority=1
// +kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp
// +kubebuilder:deprecatedversion:warning="use v2"
// +kubebuilder:unservedversion`,
    ).replace('  spec: FooSpec;', '  spec: FooSpec;\n  status?: FooStatus;'),
  });
  assert.deepEqual(diagLines(r.diagnostics), []);
  const k = onlyKind(r.model);
  assert.equal(k.plural, 'fooz');
  assert.equal(k.singular, 'fooo');
  assert.deepEqual(k.shortNames, ['f', 'fo']);
  assert.deepEqual(k.categories, ['all', 'example']);
  assert.equal(k.scope, 'Cluster');
  assert.equal(k.served, false);
  assert.equal(k.deprecated, true);
  assert.equal(k.deprecationWarning, 'use v2');
  assert.equal(k.noDeepCopy, true);
  assert.deepEqual(k.subresources, {
    status: true,
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
  });
  assert.deepEqual(k.printerColumns, [
    { name: 'Ready', type: 'boolean', jsonPath: '.status.ready', description: 'Is it ready', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  assert.deepEqual(k.verbs, ['create', 'update', 'delete', 'get', 'list', 'watch', 'patch']);
});

test('genclient readonly / onlyVerbs / no genclient', () => {
  const verbs = (markers: string): string[] => {
    const r = readSources({ 'api.ts': fooKind('  a: string;', '', markers) });
    assert.deepEqual(diagLines(r.diagnostics), []);
    return onlyKind(r.model).verbs;
  };
  assert.deepEqual(verbs('// +genclient\n// +genclient:readonly'), ['get', 'list', 'watch']);
  assert.deepEqual(verbs('// +genclient\n// +genclient:onlyVerbs=create,get'), ['create', 'get']);
  assert.deepEqual(verbs('// +genclient\n// +genclient:noVerbs'), []);
  assert.deepEqual(verbs(''), []);
});

test('a kind in two versions needs exactly one storage version', () => {
  const kind = (v: string, storage: boolean): string => `// +groupName=example.com
// +versionName=${v}
import type { ObjectMeta } from 'crdgen/types';
// +genclient
${storage ? '// +kubebuilder:storageversion\n' : ''}export interface Foo { apiVersion: 'example.com/${v}'; kind: 'Foo'; metadata: ObjectMeta; spec: { a: string } }
`;
  const ok = readSources({ 'v1/foo.ts': kind('v1', true), 'v1beta1/foo.ts': kind('v1beta1', false) });
  assert.deepEqual(diagLines(ok.diagnostics), []);
  const versions = ok.model.groups[0].versions;
  assert.deepEqual(
    versions.map((v) => [v.name, v.kinds[0].storage]),
    [
      ['v1', true],
      ['v1beta1', false],
    ],
  );
  const bad = readSources({ 'v1/foo.ts': kind('v1', false), 'v1beta1/foo.ts': kind('v1beta1', false) });
  assert.deepEqual(diagLines(bad.diagnostics), [
    'v1/foo.ts:5:18 TS012 kind Foo is in versions v1, v1beta1; exactly one needs +kubebuilder:storageversion (found 0)',
  ]);
});

test('apiVersion literal alone gives group and version; a mismatch with markers is reported', () => {
  const ok = readSources({
    'a.ts': `import type { ObjectMeta } from 'crdgen/types';\nexport interface Foo { apiVersion: 'x.io/v2'; kind: 'Foo'; metadata: ObjectMeta }\n`,
  });
  assert.deepEqual(diagLines(ok.diagnostics), []);
  assert.equal(ok.model.groups[0].name, 'x.io');
  assert.equal(ok.model.groups[0].versions[0].name, 'v2');
  const bad = readSources({
    'a.ts': HEAD + `export interface Foo { apiVersion: 'x.io/v2'; kind: 'Foo'; metadata: ObjectMeta }\n`,
  });
  assert.deepEqual(diagLines(bad.diagnostics), [
    "a.ts:4:18 TS009 kind Foo has apiVersion 'x.io/v2' but its markers say example.com/v1",
  ]);
});

test('inputs: missing file, non-.ts file, empty folder, generated files skipped, globs', () => {
  const r = readSources({ 'x.yaml': 'a: 1\n', 'empty/.keep': '' }, ['nope.ts', 'x.yaml', 'empty']);
  assert.deepEqual(diagLines(r.diagnostics), [
    'empty:: TS013 no .ts file in folder "empty"',
    'nope.ts:: TS001 cannot read "nope.ts": no such file or folder',
    'x.yaml:: TS001 "x.yaml" is not a .ts file',
  ]);
  const g = readSources(
    {
      'a/foo.ts': fooKind('  a: string;'),
      'a/gen/types.ts': '// Code generated by crdgen. DO NOT EDIT.\nclass X {}\n',
      'a/foo.test.ts': 'class Y {}\n',
    },
    ['a/**/*.ts'],
  );
  assert.deepEqual(diagLines(g.diagnostics), []);
  assert.deepEqual(g.model.sources, ['a/foo.ts']);
});

test('classifyInputs picks the reader by extension, folders by the files they hold', async () => {
  const { classifyInputs } = await import('../../../../src/input/ts/files.js');
  assert.equal(classifyInputs(['fixtures/databasemanager-ts/types.ts'], '.'), 'ts');
  assert.equal(classifyInputs(['fixtures/databasemanager-ts'], '.'), 'ts');
  assert.equal(classifyInputs(['api/**/*.ts'], '.'), 'ts');
  assert.equal(classifyInputs(['fixtures/databasemanager/crd.yaml', '-'], '.'), 'yaml');
  assert.equal(classifyInputs(['fixtures/databasemanager'], '.'), 'yaml');
  assert.equal(classifyInputs(['fixtures/databasemanager-ts', 'fixtures/databasemanager/crd.yaml'], '.'), 'mixed');
});

test('the reader hands over finished plurals: irregular English ones, the plural exceptions, explicit paths kept', () => {
  const kind = (k: string, extra = '') => `
${extra}export interface ${k} {
  apiVersion: 'example.com/v1';
  kind: '${k}';
  metadata: ObjectMeta;
  spec?: { a?: string };
}
`;
  const text = `${HEAD}${kind('Person')}${kind('Gadget')}${kind('Index', '// +kubebuilder:resource:path=indexen\n')}`;
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-ts-plurals-'));
  try {
    writeFileSync(join(dir, 'types.ts'), text);
    const plurals = (pluralExceptions?: Record<string, string>): Record<string, string> => {
      const r = readTypeScript(['types.ts'], { cwd: dir, ...(pluralExceptions ? { pluralExceptions } : {}) });
      assert.deepEqual(r.diagnostics, []);
      return Object.fromEntries(r.model.groups[0].versions[0].kinds.map((k) => [k.kind, k.plural]));
    };
    assert.deepEqual(plurals(), { Person: 'people', Gadget: 'gadgets', Index: 'indexen' });
    assert.deepEqual(plurals({ Gadget: 'Gizmos', Index: 'Indices' }), {
      Person: 'people',
      Gadget: 'gizmos',
      Index: 'indexen',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
