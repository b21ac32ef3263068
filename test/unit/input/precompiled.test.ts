// What `npm run build` precompiles into dist/ (scripts/build-precompiled.mjs) behaves as what
// crdgen compiles at run time from src/: the standalone CRD shape validator reports the same
// errors as ajv compiling the schema, and every template is precompiled from its current text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { AJV_OPTIONS, CRD_SHAPE, STANDALONE_VALIDATOR } from '../../../src/input/crd/crd-shape.js';
import { PRECOMPILED_TEMPLATES, STARTERS_DIR, TEMPLATES_DIR } from '../../../src/emit/handlebars.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const DIST = join(ROOT, 'dist');
const require = createRequire(import.meta.url);

type Validate = ((d: unknown) => boolean) & { errors?: unknown[] | null };

const crd = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'as.b.io' },
  spec,
  ...extra,
});
const CASES: unknown[] = [
  crd({
    group: 'b.io',
    scope: 'Namespaced',
    names: { plural: 'as', kind: 'A' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  }),
  crd({ group: 3, scope: true, names: { kind: 'A', shortNames: ['a', 1] } }),
  crd({
    group: 'b.io',
    scope: 'Namespaced',
    names: { plural: 'as', kind: 'A' },
    versions: [
      {
        name: 'v1',
        served: 'yes',
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              a: {
                type: 1,
                items: [{ type: 2 }],
                additionalProperties: 'no',
                maxLength: -1,
                'x-kubernetes-validations': [{ message: 'm' }],
              },
            },
          },
        },
      },
    ],
  }),
  crd({ group: 'b.io', names: {}, versions: 'v1' }, { metadata: { annotations: { a: 1 } } }),
  { kind: 'CustomResourceDefinition' },
  [],
  'text',
];

test('the standalone CRD shape validator in dist/ reports what ajv compiling the schema reports', (t) => {
  const file = join(DIST, 'input', 'crd', STANDALONE_VALIDATOR);
  assert.ok(existsSync(file), `${file} missing: run \`npm run build\``);
  const standalone = require(file) as Validate;
  const compiled = new Ajv(AJV_OPTIONS).compile(CRD_SHAPE) as Validate;
  for (const c of CASES) {
    assert.equal(standalone(c), compiled(c), JSON.stringify(c));
    assert.deepEqual(standalone.errors ?? null, compiled.errors ?? null, JSON.stringify(c));
  }
  t.diagnostic(`${CASES.length} inputs compared`);
});

test('every template and starter template is precompiled in dist/, from its text', () => {
  const file = join(DIST, 'emit', PRECOMPILED_TEMPLATES);
  assert.ok(existsSync(file), `${file} missing: run \`npm run build\``);
  const built = require(file) as Record<string, { source: string; spec: unknown }>;
  // keys as loadTemplate takes them: `<generator>/<name>`, `starters/<starter>/<name>`
  const files = new Map<string, string>();
  for (const [dir, prefix] of [
    [TEMPLATES_DIR, ''],
    [STARTERS_DIR, 'starters/'],
  ]) {
    for (const gen of readdirSync(dir, { withFileTypes: true })) {
      if (!gen.isDirectory()) continue;
      for (const f of readdirSync(join(dir, gen.name)))
        if (f.endsWith('.hbs')) files.set(`${prefix}${gen.name}/${f.slice(0, -4)}`, join(dir, gen.name, f));
    }
  }
  const names = [...files.keys()];
  assert.ok(names.length > 10);
  assert.ok(names.includes('starters/databasemanager/reconcile'));
  assert.deepEqual(Object.keys(built).sort(), names.sort());
  for (const n of names) {
    assert.equal(typeof built[n].spec, 'object', n);
    // (npm test builds first; a template edited after a build is compiled at run time instead)
    assert.equal(built[n].source, readFileSync(files.get(n)!, 'utf8'), `${n} precompiled from its current text`);
  }
});
