// The crd emitter writes CRDs the CRD reader accepts and reads back to the same model:
// for every CRD in the fixtures and the corpus (CRD → model → crd emitter → CRD reader → model),
// and for the TypeScript worked example (TS → model → crd emitter → CRD reader → model).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { readTypeScript } from '../../src/input/ts/reader.js';
import { crd } from '../../src/generate/crd.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import type { Model } from '../../src/model/types.js';
import { comparable } from './compare.js';

const CORPUS = '/work/shared/corpus/crds';

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) return yamlFiles(p);
      return p.endsWith('.yaml') ? [p] : [];
    });
}

/** Emits the model's CRDs and reads them back with the CRD reader. */
function emitAndRead(model: Model): ReturnType<typeof readCrdInputs> {
  const files = crd(model, createEmitContext({ sources: model.sources }));
  return readCrdInputs(files.map((f) => ({ file: f.path, content: f.contents })));
}

const errors = (r: ReturnType<typeof readCrdInputs>): string[] =>
  r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`);

test('databasemanager-ts: TS → CRD → model is the TS model', () => {
  const ts = readTypeScript(['fixtures/databasemanager-ts/types.ts']);
  assert.deepEqual(ts.diagnostics, []);
  const back = emitAndRead(ts.model);
  assert.deepEqual(errors(back), []);
  assert.deepEqual(comparable(back.model), comparable(ts.model));
});

const inputs = [
  ...readdirSync('fixtures')
    .filter((d) => existsSync(join('fixtures', d, 'crd.yaml')))
    .map((d) => join('fixtures', d, 'crd.yaml')),
  ...yamlFiles(CORPUS),
];

for (const file of inputs) {
  test(`CRD → model → crd emitter → model: ${file}`, (t) => {
    const r = readCrdInputs([{ file, content: readFileSync(file) }]);
    if (r.model.groups.length === 0) {
      t.diagnostic('not a CRD the reader accepts; nothing to emit');
      return;
    }
    const back = emitAndRead(r.model);
    assert.deepEqual(errors(back), []);
    assert.deepEqual(comparable(back.model), comparable(r.model));
  });
}
