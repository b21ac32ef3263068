// Round trip through the TypeScript format: model → annotated TypeScript (test-only printer)
// → TypeScript reader → the same model. A property test over generated models covering every
// node type, facet and kind marker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readTypeScript } from '../../src/input/ts/reader.js';
import { diagLines, readSources } from '../unit/input/ts/helpers.js';
import { comparable } from './compare.js';
import { modelArb } from './arbitraries.js';
import { printModel } from './print-ts.js';
import { SEED, runs } from '../fuzz/support.js';

test('printed databasemanager-ts model reads back to itself', () => {
  const r = readTypeScript(['fixtures/databasemanager-ts/types.ts']);
  const printed = printModel(r.model);
  assert.ok('files' in printed);
  const back = readSources(printed.files);
  assert.deepEqual(diagLines(back.diagnostics), []);
  assert.deepEqual(comparable(back.model), comparable(r.model));
});

test('model → TypeScript → model is the identity (property)', () => {
  fc.assert(
    fc.property(modelArb, (model) => {
      const printed = printModel(model);
      if ('unsupported' in printed) throw new Error(`generated model cannot be printed: ${printed.unsupported}`);
      // generated models need not be CRDs the apiserver accepts (uniqueItems, defaults…)
      const r = readSources(printed.files, ['.'], undefined, false);
      assert.deepEqual(diagLines(r.diagnostics), [], Object.values(printed.files).join('\n'));
      assert.deepEqual(comparable(r.model), comparable(model));
    }),
    { numRuns: runs(50), seed: SEED },
  );
});
