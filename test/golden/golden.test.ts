// Golden tests: every fixture case generates exactly its expected/** tree
// (same files, byte-identical). `UPDATE_GOLDEN=1 npm test` (or `npm run golden:update`) rewrites them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, generateCase, readTree, UPDATE, writeTree, yamlCases } from './support.js';

const cases = yamlCases();

test('fixture cases exist', () => {
  assert.ok(cases.includes('databasemanager'), `cases: ${cases.join(', ')}`);
  assert.ok(cases.length >= 3);
});

for (const name of cases) {
  test(`golden: ${name}`, () => {
    const { files, diagnostics } = generateCase(name);
    assert.deepEqual(
      diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const expectedDir = join(FIXTURES, name, 'expected');
    if (UPDATE) writeTree(expectedDir, files);
    const expected = readTree(expectedDir);
    assert.deepEqual(files.map((f) => f.path).sort(), [...expected.keys()].sort(), 'same set of files');
    for (const f of files) assert.equal(f.contents, expected.get(f.path), `contents of ${f.path}`);
  });
}
