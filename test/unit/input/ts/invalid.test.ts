// Every fixtures/invalid/ts-* case: reading it gives exactly the diagnostics in its expected.txt
// (`file:line:col error CODE message`, then `  hint: …` when there is one).
// Set CRDGEN_UPDATE_FIXTURES=1 to rewrite expected.txt files from the current output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTypeScript } from '../../../../src/input/ts/reader.js';
import type { Diagnostic } from '../../../../src/diagnostics/diagnostic.js';

const root = 'fixtures/invalid';
const cases = readdirSync(root)
  .filter((n) => n.startsWith('ts-'))
  .sort();

function render(ds: readonly Diagnostic[]): string {
  return ds
    .map(
      (d) =>
        `${d.file}:${d.line}:${d.col} ${d.severity} ${d.code} ${d.message}${d.hint ? `\n  hint: ${d.hint}` : ''}\n`,
    )
    .join('');
}

test('there is an invalid TypeScript case for every bad-input category', () => {
  const want = [
    'class',
    'generic',
    'object-union',
    'circular',
    'unknown-marker',
    'marker-wrong-node',
    'marker-bad-value',
  ];
  for (const w of want) assert.ok(cases.includes(`ts-${w}`), `fixtures/invalid/ts-${w} is missing`);
});

for (const name of cases) {
  test(`invalid: ${name}`, () => {
    const dir = join(root, name);
    const r = readTypeScript(['.'], { cwd: dir });
    const got = render(r.diagnostics);
    const file = join(dir, 'expected.txt');
    if (process.env['CRDGEN_UPDATE_FIXTURES'] === '1') writeFileSync(file, got);
    assert.ok(r.diagnostics.length > 0, 'a bad input must give diagnostics');
    assert.ok(
      r.diagnostics.every((d) => d.file && d.line && d.col),
      'every diagnostic has file:line:col',
    );
    assert.equal(got, readFileSync(file, 'utf8'));
  });
}
