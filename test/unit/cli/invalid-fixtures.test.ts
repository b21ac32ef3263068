// Every invalid fixture (fixtures/invalid/*.yaml, and OpenAPI documents *.json) makes `crdgen generate` print
// exactly its `<name>.diagnostics` file to stderr, exit 1, and write nothing.
// `UPDATE_GOLDEN=1` rewrites the .diagnostics files (review the diff!).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, UPDATE } from '../../golden/support.js';
import { cli } from './cli-support.js';

const dir = join(FIXTURES, 'invalid');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml') || f.endsWith('.json'))
  .sort();

test('invalid fixtures exist', () => {
  for (const name of [
    'databasemanager-typo.yaml',
    'tabs.yaml',
    'bad-indent.yaml',
    'empty.yaml',
    'binary.yaml',
    'alias-bomb.yaml',
    'escape-kind.yaml',
    'escape-group.yaml',
    'no-crd.yaml',
    'many-errors.yaml',
  ]) {
    assert.ok(cases.includes(name), name);
  }
});

for (const name of cases) {
  test(`invalid: ${name}`, async () => {
    const out = mkdtempSync(join(tmpdir(), 'crdgen-invalid-'));
    try {
      const target = join(out, 'gen');
      const r = await cli(['generate', `fixtures/invalid/${name}`, '--out', target]);
      const expectedFile = join(dir, name.replace(/\.(yaml|json)$/, '.diagnostics'));
      if (UPDATE) writeFileSync(expectedFile, r.stderr);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, readFileSync(expectedFile, 'utf8'));
      assert.ok(!existsSync(target), 'nothing written');
      assert.doesNotMatch(r.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, 'no stack trace');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
}
