// Every CRD in the fixtures and the shared corpus that the TypeScript format can express:
// CRD → model (CRD reader) → annotated TypeScript (test-only printer) → model (TS reader)
// gives the same model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { diagLines, readSources } from '../unit/input/ts/helpers.js';
import { comparable } from './compare.js';
import { printModel } from './print-ts.js';

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

const files = [
  ...readdirSync('fixtures')
    .filter((d) => existsSync(join('fixtures', d, 'crd.yaml')))
    .map((d) => join('fixtures', d, 'crd.yaml')),
  ...yamlFiles(CORPUS),
];
let expressible = 0;

for (const file of files) {
  test(`CRD → TS → model: ${file}`, (t) => {
    const r = readCrdInputs([{ file, content: readFileSync(file) }]);
    if (r.model.groups.length === 0) {
      // not a CRD (example objects) or one the CRD reader rejects: nothing to carry over
      assert.ok(r.diagnostics.length > 0);
      t.diagnostic(`no model: ${r.diagnostics[0]?.message}`);
      return;
    }
    const printed = printModel(r.model);
    if ('unsupported' in printed) {
      t.diagnostic(`not expressible in TypeScript: ${printed.unsupported}`);
      return;
    }
    expressible++;
    const back = readSources(printed.files);
    assert.deepEqual(diagLines(back.diagnostics), []);
    assert.deepEqual(comparable(back.model), comparable(r.model));
  });
}

test('the round trip covers the worked example and most of the corpus', () => {
  assert.ok(files.includes(join('fixtures', 'databasemanager', 'crd.yaml')));
  // 30 corpus CRD files, one of them not a CRD; all of those the TS format can express today
  const corpusFiles = files.filter((f) => f.startsWith(CORPUS)).length;
  assert.ok(expressible >= Math.min(25, corpusFiles), `only ${expressible} of ${files.length} inputs round-tripped`);
});
