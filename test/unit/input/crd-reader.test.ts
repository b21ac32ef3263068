import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { checkCrdRequest } from '../../../src/input/crd/check.js';
import {
  checkCrdObject,
  checkedCrds,
  checkText,
  packChecked,
  readCrdInputs,
  unpackChecked,
} from '../../../src/input/crd/index.js';
import type { IntegerNode, ObjectNode, SchemaNode } from '../../../src/model/types.js';
import { deepFreeze } from '../../../src/model/schema-json.js';
import { ROOT } from '../../golden/support.js';

const read = (rel: string) => readFileSync(join(ROOT, rel));
const errors = (ds: { severity: string }[]) => ds.filter((d) => d.severity === 'error');

function prop(node: SchemaNode | undefined, name: string): SchemaNode {
  assert.ok(node && node.type === 'object', `object expected for ${name}`);
  const p = node.properties.find((x) => x.name === name);
  assert.ok(p, `property ${name}`);
  return p.schema;
}

test('the published DatabaseManager CRD: one diagnostic at the typo, worded like the apiserver', () => {
  const r = readCrdInputs([
    { file: 'fixtures/invalid/databasemanager-typo.yaml', content: read('fixtures/invalid/databasemanager-typo.yaml') },
  ]);
  assert.equal(r.model.groups.length, 0);
  assert.deepEqual(r.diagnostics, [
    {
      severity: 'error',
      code: 'CRD030',
      message:
        'Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"',
      path: 'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.deploymentName.type',
      field: 'spec.validation.openAPIV3Schema.properties[spec].properties[deploymentName].type',
      reason: 'FieldValueNotSupported',
      hint: 'did you mean "string"?',
      file: 'fixtures/invalid/databasemanager-typo.yaml',
      line: 19,
      col: 25,
    },
  ]);
});

test('checkCrdObject is pure and uses the apiserver field format', () => {
  const bad = parse(read('fixtures/invalid/databasemanager-typo.yaml').toString('utf8')) as unknown;
  const ds = checkCrdObject(bad);
  assert.equal(ds.length, 1);
  assert.equal(ds[0].field, 'spec.validation.openAPIV3Schema.properties[spec].properties[deploymentName].type');
  assert.equal(ds[0].line, undefined);
  const good = parse(read('fixtures/databasemanager/crd.yaml').toString('utf8')) as unknown;
  assert.deepEqual(checkCrdObject(good), []);
  assert.deepEqual(
    checkCrdObject('nope').map((d) => d.message),
    ['Invalid value: "nope": must be of type object'],
  );
});

test('checkCrdRequest checks with the v1 defaults and leaves the CRD it is given unchanged', () => {
  const crd = parse(read('fixtures/databasemanager/crd.yaml').toString('utf8')) as {
    spec: { names: Record<string, unknown>; conversion?: unknown };
  };
  // what the defaults fill in: the singular and list kind, the conversion webhook's port
  delete crd.spec.names.singular;
  delete crd.spec.names.listKind;
  crd.spec.conversion = {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'db', name: 'conv' } } },
  };
  const before = structuredClone(crd);
  deepFreeze(crd);
  const verdict = checkCrdRequest(crd);
  assert.deepEqual(
    verdict.causes.map((c) => c.error.field),
    [],
  );
  assert.deepEqual(crd, before);
  // the port check the default passed (the apiserver names the internal field)
  const noPort = structuredClone(before) as {
    spec: { conversion: { webhook: { clientConfig: { service: Record<string, unknown> } } } };
  };
  noPort.spec.conversion.webhook.clientConfig.service.port = 0;
  assert.deepEqual(
    checkCrdRequest(noPort).causes.map((c) => c.error.field),
    ['spec.conversion.webhookClientConfig.service.port'],
  );
});

test('checkCrdObject reports every problem: names, versions, schema shape', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'wrong.example.com' },
    spec: {
      group: 'nodots',
      scope: 'Everywhere',
      names: { kind: 'Thing', plural: 'things', listKind: 'Thing' },
      versions: [
        {
          name: 'v1',
          served: 'yes',
          storage: false,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    a: { type: 'array' },
                    b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
                  },
                },
              },
            },
          },
        },
        { name: 'V2', served: true, storage: false },
      ],
    },
  };
  const byField = checkCrdObject(crd).map((d) => `${d.field}: ${d.message}`);
  for (const expected of [
    'metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group',
    'spec.group: Invalid value: "nodots": should be a domain with at least one dot',
    'spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"',
    'spec.versions[0].served: Invalid value: "yes": must be of type boolean',
    'spec.versions[1].schema.openAPIV3Schema: Required value',
    'spec.names.listKind: Invalid value: "Thing": kind and listKind may not be the same',
    // (the schemas differ, so they stay per version; `x-kubernetes-preserve-unknown-fields: false`
    // keeps the schema from being read as structural: `a`'s missing items are not reported then)
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[b].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
  ])
    assert.ok(byField.includes(expected), `missing: ${expected}\nhave:\n${byField.join('\n')}`);
  assert.ok(byField.some((f) => f.startsWith('spec.versions[1].name: Invalid value: "V2": a DNS-1035 label')));
  // what a reader of the file sees: the version names, a hint, no stored-versions echo
  const reader = checkCrdObject(crd);
  const storage = reader.find((d) => d.field === 'spec.versions');
  assert.equal(storage?.message, 'Invalid value: ["v1","V2"]: must have exactly one version marked as storage version');
  assert.equal(storage?.hint, 'set `storage: true` on one version');
  assert.equal(reader.find((d) => d.field === 'metadata.name')?.hint, 'expected "things.nodots"');
  assert.ok(!reader.some((d) => d.field === 'status.storedVersions'));
  // the apiserver's own causes (once the body decodes): its internal structs, Go field names
  const decodable = {
    ...crd,
    spec: { ...crd.spec, versions: [{ ...crd.spec.versions[0], served: true }, crd.spec.versions[1]] },
  };
  const causes = checkCrdRequest(decodable).causes.map((c) => `${c.error.field}: ${c.error.message}`);
  assert.ok(
    causes.some(
      (f) =>
        f.startsWith('spec.versions: Invalid value: [{"Name":"v1","Served":true,') &&
        f.endsWith(': must have exactly one version marked as storage version'),
    ),
  );
  assert.ok(causes.includes('status.storedVersions: Invalid value: null: must have at least one stored version'));
});

test('structural rules: $ref, properties with additionalProperties, root type, metadata', () => {
  const crd = (schema: unknown) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'as.b.io' },
    spec: {
      group: 'b.io',
      scope: 'Cluster',
      names: { kind: 'A', plural: 'as' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
  const msgs = (schema: unknown) => checkCrdObject(crd(schema)).map((d) => `${d.field}: ${d.message}`);
  assert.deepEqual(msgs({ type: 'object' }), []);
  assert.deepEqual(msgs({ type: 'string' }), [
    'spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root',
  ]);
  assert.ok(
    msgs({ type: 'object', properties: { x: { $ref: '#/x' } } }).includes(
      'spec.validation.openAPIV3Schema.properties[x].$ref: Forbidden: $ref is not supported',
    ),
  );
  assert.ok(
    msgs({
      type: 'object',
      properties: {
        m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      },
    }).includes(
      'spec.validation.openAPIV3Schema.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ),
  );
  assert.ok(
    msgs({
      type: 'object',
      properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
    }).includes(
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ),
  );
  assert.ok(
    msgs({ type: 'object', properties: { e: { type: 'object', 'x-kubernetes-embedded-resource': true } } }).includes(
      'spec.validation.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    ),
  );
  assert.deepEqual(
    msgs({
      type: 'object',
      properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
    }),
    [],
  );
  assert.ok(
    msgs({
      type: 'object',
      properties: { p: { type: 'string', anyOf: [{ type: 'string', description: 'd' }] } },
    }).includes(
      'spec.validation.openAPIV3Schema.properties[p].anyOf[0].type: Forbidden: must be empty to be structural',
    ),
  );
});

test('DatabaseManager model: resource facts, schema nodes, titles and positions', () => {
  const r = readCrdInputs([{ file: 'crd.yaml', content: read('fixtures/databasemanager/crd.yaml') }]);
  assert.deepEqual(errors(r.diagnostics), []);
  assert.equal(r.model.groups.length, 1);
  const g = r.model.groups[0];
  assert.equal(g.name, 'coolops.cn');
  assert.deepEqual(
    g.versions.map((v) => v.name),
    ['v1alpha1'],
  );
  const k = g.versions[0].kinds[0];
  assert.equal(k.kind, 'DatabaseManager');
  assert.equal(k.listKind, 'DatabaseManagerList');
  assert.equal(k.plural, 'databasemanagers');
  assert.equal(k.singular, 'databasemanager');
  assert.deepEqual(k.shortNames, ['dm']);
  assert.equal(k.scope, 'Namespaced');
  assert.deepEqual(k.subresources, { status: true });
  assert.ok(k.verbs.includes('updateStatus'));
  const root = k.schema as ObjectNode;
  assert.equal(root.title, 'DatabaseManager');
  const spec = prop(root, 'spec') as ObjectNode;
  assert.equal(spec.title, 'DatabaseManagerSpec');
  assert.equal((prop(root, 'status') as ObjectNode).title, 'DatabaseManagerStatus');
  const replicas = prop(spec, 'replicas') as IntegerNode;
  assert.equal(replicas.type, 'integer');
  assert.equal(replicas.minimum, 1);
  assert.equal(replicas.maximum, 10);
  assert.deepEqual(replicas.source, {
    file: 'crd.yaml',
    line: 25,
    col: 17,
    path: 'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas',
  });
  assert.equal(prop(spec, 'deploymentName').type, 'string');
});

test('kitchensink model: every schema shape, served versions only, kube-aware order', () => {
  const r = readCrdInputs([{ file: 'k.yaml', content: read('fixtures/kitchensink/crds.yaml') }]);
  assert.deepEqual(errors(r.diagnostics), []);
  assert.deepEqual(
    r.diagnostics.map((d) => d.code),
    ['CRD002'],
  );
  const g = r.model.groups[0];
  assert.deepEqual(
    g.versions.map((v) => v.name),
    ['v1', 'v1beta1'],
  ); // v1alpha1 is not served
  assert.deepEqual(
    g.versions[0].kinds.map((k) => k.kind),
    ['Gizmo', 'Widget'],
  );
  const w = g.versions[0].kinds[1];
  assert.equal(w.scope, 'Cluster');
  assert.deepEqual(w.subresources, {
    status: true,
    scale: {
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    },
  });
  assert.deepEqual(
    w.printerColumns.map((c) => c.name),
    ['Size', 'Age'],
  );
  assert.deepEqual(w.categories, ['all', 'shop']);
  assert.equal(g.versions[1].kinds[0].deprecated, true);
  const spec = prop(w.schema, 'spec') as ObjectNode;
  const t = (n: string) => prop(spec, n);
  assert.deepEqual(t('size'), { ...t('size'), type: 'string', enum: ['small', 'medium', 'large'], default: 'medium' });
  assert.ok(spec.properties.find((p) => p.name === 'size')!.required);
  assert.equal(t('port').type, 'int-or-string');
  assert.equal(t('labels').type, 'map');
  assert.equal(t('config').type, 'unknown');
  assert.equal((t('extra') as ObjectNode).preserveUnknownFields, true);
  assert.equal((t('template') as ObjectNode).embeddedResource, true);
  assert.equal(t('anything').type, 'unknown');
  assert.equal(t('note').nullable, true);
  const parts = t('parts');
  assert.ok(parts.type === 'array' && parts.listType === 'map' && parts.listMapKeys?.[0] === 'name');
  assert.equal((prop(w.schema, 'specItem') as ObjectNode).title, 'WidgetSpecItem2');
  assert.equal((t('item') as ObjectNode).title, 'WidgetSpecItem');
});

test('v1beta1: spec.version and top-level validation, types inferred', () => {
  const r = readCrdInputs([{ file: 'b.yaml', content: read('fixtures/v1beta1/crd.yaml') }]);
  assert.deepEqual(errors(r.diagnostics), []);
  const k = r.model.groups[0].versions[0].kinds[0];
  assert.equal(r.model.groups[0].versions[0].name, 'v1alpha1');
  assert.equal(k.printerColumns[0].jsonPath, '.spec.replicas');
  assert.equal((prop(k.schema, 'spec') as ObjectNode).title, 'FooSpec');
});

test('the same kind from two inputs is an error; non-CRD documents are skipped with a warning', () => {
  const text = read('fixtures/databasemanager/crd.yaml');
  const r = readCrdInputs([
    { file: 'a.yaml', content: text },
    { file: 'b.yaml', content: text },
  ]);
  assert.equal(r.model.groups.length, 0);
  const dup = r.diagnostics.filter((d) => d.code === 'GEN003');
  assert.equal(dup.length, 2); // kind and plural
  assert.equal(dup[0].file, 'b.yaml');
  const kindLine =
    text
      .toString('utf8')
      .split('\n')
      .findIndex((l) => /^\s+kind: DatabaseManager\s*$/.test(l)) + 1;
  assert.ok(kindLine > 0);
  assert.ok(dup[0].message.includes(`first at a.yaml:${kindLine}:11`), dup[0].message);
});

test('bad inputs: binary, empty, tabs, alias bombs, no CRD', () => {
  const codes = (content: string | Uint8Array, fromDirectory = false) =>
    readCrdInputs([{ file: 'x.yaml', content, fromDirectory }]).diagnostics.map((d) => `${d.severity} ${d.code}`);
  assert.deepEqual(codes(new Uint8Array([0x89, 0x50, 0x00, 0xff])), ['error IO002']);
  assert.deepEqual(codes(new Uint8Array([0xc3, 0x28])), ['error IO002']);
  assert.deepEqual(codes('  \n'), ['error IO003']);
  assert.deepEqual(codes('a:\n\tb: 1\n'), ['error YAML001']);
  assert.deepEqual(codes(read('fixtures/invalid/alias-bomb.yaml')), ['error YAML002']);
  assert.deepEqual(codes('kind: ConfigMap\n'), ['warning CRD002', 'error CRD001']);
  assert.deepEqual(codes('kind: ConfigMap\n', true), ['warning CRD002', 'warning CRD001']);
});

test('structural completeness: value validations may only name specified fields', () => {
  const crd = (schema: unknown) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'as.b.io' },
    spec: {
      group: 'b.io',
      scope: 'Cluster',
      names: { kind: 'A', plural: 'as' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
  const ok = {
    type: 'object',
    properties: { a: { type: 'string' } },
    anyOf: [{ required: ['a'] }, { properties: { a: { minLength: 1 } } }],
  };
  assert.deepEqual(checkCrdObject(crd(ok)), []);
  const bad = {
    type: 'object',
    properties: { a: { type: 'string' } },
    oneOf: [{ properties: { b: { minLength: 1 } } }],
  };
  assert.deepEqual(
    checkCrdObject(crd(bad)).map((d) => `${d.field}: ${d.message}`),
    [
      'spec.validation.openAPIV3Schema.properties[b]: Required value: because it is defined in spec.validation.openAPIV3Schema.oneOf[0].properties[b]',
    ],
  );
});

test('a misspelled schema keyword is refused at its position with did-you-mean, as kube-apiserver refuses it', () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas:
                  type: integer
                  minimun: 1
`;
  const r = readCrdInputs([{ file: 'widget.yaml', content: Buffer.from(crd) }]);
  assert.equal(r.model.groups.length, 0, 'nothing generated');
  assert.deepEqual(errors(r.diagnostics), [
    {
      severity: 'error',
      code: 'CRD012',
      message: 'unknown field "minimun": kube-apiserver refuses it (strict field validation, as kubectl sends it)',
      path: 'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.minimun',
      field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].minimun',
      reason: 'FieldValueInvalid',
      hint: 'did you mean "minimum"?',
      file: 'widget.yaml',
      line: 21,
      col: 19,
    },
  ]);
});

test('an unknown keyword under items or additionalProperties is dropped with a warning, as the apiserver drops it', () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                tags:
                  type: array
                  items: { type: string, maxLenght: 10 }
                labels:
                  type: object
                  additionalProperties: { type: string, patern: '^a' }
`;
  const r = readCrdInputs([{ file: 'widget.yaml', content: Buffer.from(crd) }]);
  assert.deepEqual(errors(r.diagnostics), []);
  const warnings = r.diagnostics.filter((d) => d.code === 'CRD013');
  assert.deepEqual(
    warnings.map((d) => [d.line, d.col, d.path, d.hint]),
    [
      [
        21,
        42,
        'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags.items.maxLenght',
        'did you mean "maxLength"? (the keyword has no effect as written)',
      ],
      [
        24,
        57,
        'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.labels.additionalProperties.patern',
        'did you mean "pattern"? (the keyword has no effect as written)',
      ],
    ],
  );
  // the model is built from the CRD as the apiserver stores it: without the dropped keywords
  const tags = prop(prop(r.model.groups[0].versions[0].kinds[0].schema, 'spec'), 'tags');
  assert.ok(tags.type === 'array');
  assert.equal((tags.items as { maxLength?: number }).maxLength, undefined);
});

test('checked CRDs packed and unpacked: the values checkedCrds gives, positions from the text read only when asked', () => {
  const file = 'two.yaml';
  const text = [
    read('fixtures/kitchensink/crds.yaml').toString('utf8'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: between\n',
    read('fixtures/databasemanager/crd.yaml').toString('utf8'),
  ].join('\n---\n');
  const checked = checkText(file, text, false);
  assert.deepEqual(errors(checked.diagnostics), []);
  const packed = packChecked(checked.crds);
  assert.ok(packed);
  const again = checkedCrds(file, text);
  assert.deepEqual(
    packed.docs,
    again.map((c) => c.doc.index),
  );
  // (the kitchensink file's documents, then the ConfigMap, then the DatabaseManager CRD)
  const before = read('fixtures/kitchensink/crds.yaml')
    .toString('utf8')
    .split(/^---\s*$/m).length;
  assert.ok(!packed.docs.includes(before));
  assert.equal(packed.docs.at(-1), before + 1);
  let reads = 0;
  const unpacked = unpackChecked(file, packed, () => {
    reads++;
    return text;
  });
  assert.deepEqual(
    unpacked.map((c) => c.crd),
    again.map((c) => c.crd),
  );
  assert.equal(reads, 0, 'no text read before a position is asked');
  const path = ['spec', 'versions', 0, 'name'];
  assert.deepEqual(
    unpacked.map((c) => [c.file, c.doc.index, c.doc.locate(path)]),
    again.map((c) => [c.file, c.doc.index, c.doc.locate(path)]),
  );
  assert.equal(reads, 1, 'the text read once for every document of the input');
  assert.notEqual(unpacked[unpacked.length - 1].doc.locate(path).line, 1);
});
