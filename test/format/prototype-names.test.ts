// Schema properties named like Object.prototype members (`constructor`, `toString`,
// `valueOf`, `hasOwnProperty`, `__proto__`) generate a tree that compiles with tsc --strict and is
// prettier-stable, and the validator sees such fields as own properties.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { schemaToJson } from '../../src/model/schema-json.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { EMITTERS, runEmitters } from '../../src/generate/registry.js';
import { lazyValidator, precompileSchema } from '../../src/runtime/validation/index.js';
import { writeTree } from '../golden/support.js';
import { tscStrict } from '../compile/tsc.js';

const SPEC = `type: object
required: [constructor]
properties:
  constructor: {type: string, default: "x"}
  toString: {type: integer}
  valueOf: {type: object, properties: {hasOwnProperty: {type: boolean}}}
  __proto__: {type: string}
  isPrototypeOf: {type: array, items: {type: string}}
  propertyIsEnumerable: {type: object, additionalProperties: {type: string}}
  toLocaleString: {type: string, enum: [a, b]}`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
${SPEC.split('\n')
  .map((l) => `            ${l}`)
  .join('\n')}
`;

function generate() {
  const r = readCrdInputs([{ file: 'widget.yaml', content: Buffer.from(CRD) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return runEmitters(r.model, createEmitContext({ sources: r.model.sources, controllers: ['Widget'] }), EMITTERS);
}

test('Object.prototype property names: the whole tree compiles with tsc --strict', async () => {
  const files = generate();
  const types = files.find((f) => f.path === 'apis/example.com/v1/types.ts')!.contents;
  assert.match(types, /\n {2}constructor: string;\n/);
  assert.match(types, /\n {2}__proto__\?: string;\n/);
  const validation = files.find((f) => f.path === 'apis/example.com/v1/validation.ts')!.contents;
  assert.match(validation, /\["__proto__"\]: \{\n/, 'the __proto__ property is kept, as a computed key');
  assert.match(validation, /\} as PrecompiledSchema;\n/);
  const out = mkdtempSync(join(tmpdir(), 'crdgen-proto-'));
  try {
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    writeTree(join(out, 'gen'), files);
    const r = await tscStrict([join(out, 'gen')], 'nodenext');
    assert.equal(r.output, '');
    assert.equal(r.status, 0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('Object.prototype property names: generated TypeScript is prettier-stable', async () => {
  for (const f of generate().filter((x) => x.path.endsWith('.ts'))) {
    assert.equal(await prettier.format(f.contents, { filepath: f.path }), f.contents, f.path);
  }
});

test('Object.prototype property names: the validator checks them as own fields', () => {
  const v = lazyValidator(
    precompileSchema({ type: 'object', properties: { spec: JSON.parse(JSON.stringify(yamlSpec())) } }),
  );
  const bad = { spec: JSON.parse('{"constructor": 1, "toString": "x", "__proto__": 5}') as unknown };
  const fields = v
    .validate(bad)
    .map((e) => e.field)
    .sort();
  assert.deepEqual(fields, ['spec.__proto__', 'spec.constructor', 'spec.toString']);
  assert.deepEqual(v.validate({ spec: { constructor: 'ok', toString: 3 } }), []);
  const missing = v.validate({ spec: {} });
  assert.deepEqual(
    missing.map((e) => e.field),
    ['spec.constructor'],
  );
  assert.match(missing[0].message, /Required/);
});

function yamlSpec(): unknown {
  const r = readCrdInputs([{ file: 'widget.yaml', content: Buffer.from(CRD) }]);
  const kind = r.model.groups[0].versions[0].kinds[0];
  const raw = schemaToJson(kind.schema!) as { properties: { spec: unknown } };
  return raw.properties.spec;
}
