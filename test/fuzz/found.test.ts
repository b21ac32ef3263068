// Inputs the fuzzers found, kept as plain regression tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCrdObject, readCrdInputs } from '../../src/input/crd/index.js';
import { schemaToJson } from '../../src/model/schema-json.js';
import { precompileSchema } from '../../src/runtime/validation/index.js';

const errors = (ds: { severity: string }[]) => ds.filter((d) => d.severity === 'error');

const crd = (pattern: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  names: {kind: Foo, plural: foos}
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
              a: {type: string, pattern: ${JSON.stringify(pattern)}}
`;

test('a pattern that is not a regular expression is a positioned CRD037 (it crashed the validators emitter)', () => {
  const r = readCrdInputs([{ file: 'p.yaml', content: crd('^(([0-9]+*a)ms)?$') }]);
  const d = r.diagnostics.find((x) => x.code === 'CRD037');
  assert.ok(d, JSON.stringify(r.diagnostics));
  assert.equal(d.severity, 'error');
  assert.equal(d.line, 20);
  assert.ok((d.col ?? 0) > 1);
  assert.match(d.message, /must be a valid regular expression/);
  assert.equal(
    readCrdInputs([{ file: 'p.yaml', content: crd('^[a-z]+(\\.[a-z]+)*$') }]).diagnostics.filter(
      (x) => x.severity === 'error',
    ).length,
    0,
  );
});

// Found by the mutation fuzz (crd-robustness.test.ts): Go's decoding makes
// `items: []`, `type: ""` and `pattern: ""` mean "not set", and an empty version
// name is an invalid DNS-1035 label, not a missing one. An emitter throws on any
// of them that gets past the checks.
test('empty values read as the apiserver reads them: items [], type "", pattern "", version name ""', async () => {
  const { createEmitContext } = await import('../../src/generate/emitter.js');
  const { runEmitters } = await import('../../src/generate/registry.js');
  const crd = (props: Record<string, unknown>, version = 'v1') => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'as.b.io' },
    spec: {
      group: 'b.io',
      scope: 'Cluster',
      names: { kind: 'A', plural: 'as' },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: props } },
        },
      ],
    },
  });
  const msgs = (c: unknown) => checkCrdObject(c).map((d) => `${d.field}: ${d.message}`);
  // one version's schema is every version's: the apiserver's internal form holds it at spec.validation
  assert.deepEqual(msgs(crd({ t: { type: 'array', items: [] } })), [
    'spec.validation.openAPIV3Schema.properties[t].items: Required value: must be specified',
  ]);
  const v = msgs(crd({}, ''));
  assert.equal(v.length, 1);
  assert.match(v[0], /^spec\.versions\[0\]\.name: Invalid value: "": a DNS-1035 label/);
  const fine = crd({
    x: { type: '', 'x-kubernetes-preserve-unknown-fields': true },
    s: { type: 'string', pattern: '' },
    o: { type: 'object', items: [], 'x-kubernetes-preserve-unknown-fields': true },
  });
  assert.deepEqual(msgs(fine), []);
  const r = readCrdInputs([{ file: 'e.json', content: JSON.stringify(fine) }]);
  assert.deepEqual(errors(r.diagnostics), []);
  const files = runEmitters(r.model, createEmitContext({ sources: ['e.json'] }));
  assert.ok(files.some((f) => f.path.endsWith('validation.ts')));
});

/** The first lines of a cluster-scoped CRD of kind A in group b.io, up to and including `spec:`'s names. */
const clusterCrdHead = (apiVersion: string): string => `apiVersion: ${apiVersion}
kind: CustomResourceDefinition
metadata: { name: as.b.io }
spec:
  group: b.io
  scope: Cluster
  names: { kind: A, plural: as }
`;

// Also found by the fuzz: a rule naming a field the schema does not have must stop at the reader,
// as the apiserver compiles every rule on CRD create; the validators emitter throws on it.
test('a rule that does not compile is a positioned CRD038 diagnostic, on served and unserved versions', () => {
  // the versions' schemas differ (by the size's minimum), so each is checked at its own path: a schema
  // every version shares is checked once, at spec.validation
  const version = (name: string, served: boolean, storage: boolean) => `  - name: ${name}
    served: ${served}
    storage: ${storage}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
              - rule: self.size > 0
              - rule: self.mode == 'Pipeline'
            properties:
              size: { type: integer, minimum: ${served ? 0 : 1} }
`;
  const text = `${clusterCrdHead('apiextensions.k8s.io/v1')}  versions:
${version('v1', true, true)}${version('v2', false, false)}`;
  const r = readCrdInputs([{ file: 'rules.yaml', content: text }]);
  assert.deepEqual(r.model.groups, []);
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.field}: ${d.message}`),
    [
      `rules.yaml:20:23 CRD038 spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: {"Rule":"self.mode == 'Pipeline'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'mode'\n | self.mode == 'Pipeline'\n | ....^`,
      `rules.yaml:34:23 CRD038 spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule: Invalid value: {"Rule":"self.mode == 'Pipeline'","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'mode'\n | self.mode == 'Pipeline'\n | ....^`,
    ],
  );
  // the good rule alone is accepted, and the form the reader compiled is the one the emitter gets
  const ok = readCrdInputs([
    { file: 'ok.yaml', content: text.replace(/ {14}- rule: self\.mode == 'Pipeline'\n/g, '') },
  ]);
  assert.deepEqual(errors(ok.diagnostics), []);
  const json = schemaToJson(ok.model.groups[0].versions[0].kinds[0].schema!);
  assert.ok(Object.isFrozen(json));
  assert.equal(precompileSchema(json), precompileSchema(json));
});

test("v1beta1: a bad rule in the top-level validation (every version's schema) is reported once", () => {
  const text = `${clusterCrdHead('apiextensions.k8s.io/v1beta1')}  versions:
    - { name: v1, served: true, storage: true }
    - { name: v2, served: true, storage: false }
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          x-kubernetes-validations:
            - rule: self.nope == 1
`;
  const r = readCrdInputs([{ file: 'v1b.yaml', content: text }]);
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.field}`),
    ['18:21 CRD038 spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule'],
  );
});
