// Robustness: arbitrary mutations of a valid CRD never make the reader, the
// checks or the emitters throw; every outcome is diagnostics or output.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { checkCrdObject, readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { runEmitters } from '../../../src/generate/registry.js';
import { ROOT } from '../../golden/support.js';
import { SEED, runs } from '../../fuzz/support.js';

const base = parse(readFileSync(join(ROOT, 'fixtures/kitchensink/crds.yaml'), 'utf8').split('\n---\n')[0]) as unknown;

/** Every [container, key] pair in a JSON tree. */
function slots(v: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []): typeof out {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push([v, i]);
      slots(x, out);
    });
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push([v as Record<string, unknown>, k]);
      slots(x, out);
    }
  return out;
}

const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('strin', '../x', '', 'object', 'array', '__proto__', 'x-kubernetes-list-type', null, -1, 1e308, true),
);

test('mutated CRDs: checks and emitters never throw', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(), junk, fc.boolean()), { minLength: 1, maxLength: 4 }), (mutations) => {
      const crd = structuredClone(base);
      for (const [pick, value, remove] of mutations) {
        const all = slots(crd);
        const [container, key] = all[pick % all.length];
        if (remove && !Array.isArray(container)) delete container[key as string];
        else (container as Record<string | number, unknown>)[key] = value;
      }
      const diags = checkCrdObject(crd);
      for (const d of diags) {
        assert.equal(typeof d.message, 'string');
        assert.equal(typeof d.field, 'string');
      }
      const r = readCrdInputs([{ file: 'm.yaml', content: stringify(crd) }]);
      if (!r.diagnostics.some((d) => d.severity === 'error')) {
        const files = runEmitters(r.model, createEmitContext({ sources: ['m.yaml'] }));
        // nothing generated only when no version is served, and then a warning says so
        assert.ok(files.length > 0 || r.diagnostics.some((d) => d.code === 'GEN004'));
      }
    }),
    { numRuns: runs(60), seed: SEED },
  );
});

test('random text never throws', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 200 }), fc.uint8Array({ maxLength: 64 })), (input) => {
      const r = readCrdInputs([{ file: 'r.yaml', content: input }]);
      assert.ok(r.diagnostics.length > 0);
    }),
    { numRuns: runs(200), seed: SEED },
  );
});
