// Every fixture's expected tree compiles with `tsc --strict`, under nodenext and bundler resolution.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES, yamlCases } from '../golden/support.js';
import { tscStrict } from './tsc.js';

const dirs = yamlCases().map((c) => join(FIXTURES, c, 'expected'));

// The three tsc runs start together (each test awaits its own), so they overlap.
const runs = {
  nodenext: tscStrict(dirs, 'nodenext'),
  bundler: tscStrict(dirs, 'bundler'),
  strictest: tscStrict(dirs, 'nodenext', {
    include: join('apis', '**', '*.ts'),
    options: {
      noUnusedLocals: true,
      noUnusedParameters: true,
      noImplicitReturns: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      noPropertyAccessFromIndexSignature: true,
      noImplicitOverride: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
    },
  }),
};

for (const mode of ['nodenext', 'bundler'] as const) {
  test(`expected trees compile with tsc --strict (${mode})`, async () => {
    assert.ok(dirs.length >= 3);
    const r = await runs[mode];
    assert.equal(r.output, '');
    assert.equal(r.status, 0);
  });
}

test('apis/** (types, deepcopy, register) also compile under the strictest user settings', async () => {
  const r = await runs.strictest;
  assert.equal(r.output, '');
  assert.equal(r.status, 0);
});
