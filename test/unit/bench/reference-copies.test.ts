// The deepcopy benchmark's hand-written references (bench/lib/exact-copy.ts): BENCHMARKS.md §1
// rests on what each style keeps and shares, so those claims are checked here, on the
// benchmark's own samples and on a sample with fields its shape does not name.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileCopy, type CopyStyle } from '../../../bench/lib/exact-copy.js';
import { databaseManager, deploymentSized, prometheus, type Json } from '../../../bench/lib/samples.js';
import { assertAliasFree } from '../aliasing.js';

/** `o` with an unknown object at the root, in spec and in a map (labels). */
function withUnknown(o: Json): Json {
  const c = structuredClone(o);
  c.extraRoot = { note: 'kept', list: [1, { deep: true }] };
  (c.spec as Json).xUnknown = { a: [{ b: 'c' }] };
  ((c.metadata as Json).labels as Json).xMap = { nested: ['x'] };
  return c;
}

const samples: [string, Json][] = [
  ['DatabaseManager', databaseManager()],
  ['Configuration', deploymentSized()],
  ['Prometheus', prometheus()],
];
const styles: CopyStyle[] = ['exact', 'spread', 'lossless'];

describe('bench reference copies', () => {
  for (const [name, sample] of samples) {
    for (const style of styles) {
      it(`${style} copies the ${name} sample exactly and shares nothing with it`, () => {
        const copy = compileCopy(sample, style)(sample);
        assert.deepStrictEqual(copy, sample);
        assertAliasFree(copy, sample);
      });
    }
  }

  it('exact drops fields its shape does not name', () => {
    const src = withUnknown(databaseManager());
    const copy = compileCopy(databaseManager(), 'exact')(src);
    assert.equal('extraRoot' in copy, false);
    assert.equal('xUnknown' in (copy.spec as Json), false);
  });

  it('spread keeps unknown fields but shares their objects with the source', () => {
    const src = withUnknown(databaseManager());
    const copy = compileCopy(databaseManager(), 'spread')(src);
    assert.deepStrictEqual(copy, src);
    assert.equal(copy.extraRoot, src.extraRoot);
    assert.equal((copy.spec as Json).xUnknown, (src.spec as Json).xUnknown);
  });

  it('lossless keeps unknown fields, in maps too, and shares no object with the source', () => {
    for (const [, sample] of samples) {
      const src = withUnknown(sample);
      const copy = compileCopy(sample, 'lossless')(src);
      assert.deepStrictEqual(copy, src);
      assertAliasFree(copy, src);
    }
  });
});
