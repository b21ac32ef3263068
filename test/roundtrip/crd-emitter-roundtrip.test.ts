// The crd emitter on TypeScript input: TS → model → crd emitter → CRD reader → the same model.
// (CRD input through the crd emitter is covered for every fixture and corpus CRD in
// corpus-roundtrip.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { readTypeScript } from '../../src/input/ts/reader.js';
import { crd } from '../../src/generate/crd.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import type { Model } from '../../src/model/types.js';
import { comparable } from './compare.js';

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
