// The worked example from both inputs: fixtures/databasemanager (CRD YAML) and
// fixtures/databasemanager-ts (annotated TypeScript) give the same model, and every generator
// (opt-in ones included) writes byte-identical files from either, apart from the header's
// source lines. The TS input's generated CRD, read back by the CRD reader, gives that model too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { readTypeScript } from '../../src/input/ts/reader.js';
import { createEmitContext, type GeneratedFile } from '../../src/generate/emitter.js';
import { EMITTERS, runEmitters } from '../../src/generate/registry.js';
import { crd } from '../../src/generate/crd.js';
import type { Model } from '../../src/model/types.js';
import { comparable } from './compare.js';
import { caseOptions } from '../golden/support.js';

const YAML = 'fixtures/databasemanager/crd.yaml';
const TS = 'fixtures/databasemanager-ts/types.ts';

function readYaml(): Model {
  const r = readCrdInputs([{ file: YAML, content: readFileSync(YAML) }]);
  assert.deepEqual(r.diagnostics, []);
  return r.model;
}

function readTs(): Model {
  const r = readTypeScript([TS]);
  assert.deepEqual(r.diagnostics, []);
  return r.model;
}

/** Every generator, opt-in ones included, with the YAML case's options (its controller). */
function generate(model: Model): GeneratedFile[] {
  return runEmitters(model, createEmitContext({ sources: model.sources, ...caseOptions('databasemanager') }), EMITTERS);
}

/** Contents without the header's `// Source: …` / `# Source: …` lines. */
function withoutSources(text: string): string {
  return text.replace(/^(\/\/|#) Source: .*\n/gm, '');
}

test('CRD YAML and TypeScript give the same model', () => {
  assert.deepEqual(comparable(readTs()), comparable(readYaml()));
});

test('every generator writes the same files from either input, apart from the source line', () => {
  const fromYaml = generate(readYaml());
  const fromTs = generate(readTs());
  assert.ok(fromYaml.length >= 4, `only ${fromYaml.length} files generated`);
  assert.ok(
    fromYaml.some((f) => f.path.startsWith('controllers/')),
    'the controller is generated too',
  );
  assert.deepEqual(
    fromTs.map((f) => f.path),
    fromYaml.map((f) => f.path),
  );
  for (let i = 0; i < fromYaml.length; i++) {
    const y = fromYaml[i];
    const t = fromTs[i];
    if (!y.userOwned) {
      assert.match(y.contents, new RegExp(`^(//|#) Source: ${YAML.replaceAll('.', '\\.')}$`, 'm'), y.path);
      assert.match(t.contents, new RegExp(`^(//|#) Source: ${TS.replaceAll('.', '\\.')}$`, 'm'), t.path);
    }
    assert.equal(withoutSources(t.contents), withoutSources(y.contents), y.path);
  }
});

test("the TypeScript input's generated CRD reads back to the YAML fixture's model", () => {
  const ts = readTs();
  const files = crd(ts, createEmitContext({ sources: ts.sources }));
  assert.deepEqual(
    files.map((f) => f.path),
    ['config/crd/databasemanagers.coolops.cn.yaml'],
  );
  const back = readCrdInputs(files.map((f) => ({ file: f.path, content: f.contents })));
  assert.deepEqual(back.diagnostics, []);
  assert.deepEqual(comparable(back.model), comparable(readYaml()));
});
