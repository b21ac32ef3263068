// The repository's own generated examples (examples/<name>/, each with a
// crdgen.config.yaml) are what crdgen generates today: `crdgen verify` in each,
// as code-generator's verify-codegen.sh does for Kubernetes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../golden/support.js';
import { run } from './support.js';

const EXAMPLES = join(ROOT, 'examples');
const cases = readdirSync(EXAMPLES)
  .filter((d) => existsSync(join(EXAMPLES, d, 'crdgen.config.yaml')))
  .sort();

test('there are examples to verify', () => {
  assert.ok(cases.includes('databasemanager'), cases.join(', '));
});

for (const name of cases) {
  test(`crdgen verify: examples/${name} is up to date (else: npm run examples:update, review, commit)`, async () => {
    const r = await run(['verify'], join(EXAMPLES, name));
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /^verified \d+ generated files: up to date\n$/);
  });
}
