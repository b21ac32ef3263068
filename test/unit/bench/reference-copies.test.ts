// The deepcopy benchmark's hand-written references (bench/lib/exact-copy.ts): BENCHMARKS.md §1
// rests on what each style keeps and shares, so those claims are checked here, on the
// benchmark's own samples and on a sample with fields its shape does not name.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileCopy, compileTypeCopy, typeCopySource, type CopyStyle } from '../../../bench/lib/exact-copy.js';
import { databaseManager, deploymentSized, kindSchema, prometheus, type Json } from '../../../bench/lib/samples.js';
import { assertAliasFree } from '../aliasing.js';
import { sortKeysDeep } from '../../../bench/lib/key-order.js';

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

  for (const [name, unsorted] of samples) {
    const sample = sortKeysDeep(unsorted);
    it(`the sorted-keys fast path copies the ${name} sample (keys sorted) exactly and shares nothing with it`, () => {
      const copy = compileCopy(sample, 'sorted')(sample);
      assert.deepStrictEqual(copy, sample);
      assert.equal(JSON.stringify(copy), JSON.stringify(sample));
      assertAliasFree(copy, sample);
    });

    it(`the sorted-keys fast path stays lossless and keeps the key order of a ${name} in another order`, () => {
      const copy = compileCopy(sample, 'sorted');
      const extra = sortKeysDeep(withUnknown(sample));
      const out = copy(extra);
      assert.deepStrictEqual(out, extra);
      assertAliasFree(out, extra);
      // the sample's own order (not sorted): the fast path's key check fails, the order is kept
      assert.equal(JSON.stringify(copy(unsorted)), JSON.stringify(unsorted));
      assertAliasFree(copy(unsorted), unsorted);
    });
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

  for (const [name, sample] of samples) {
    it(`the copy of the kind copies the ${name} sample exactly and shares nothing with it`, () => {
      const copy = compileTypeCopy<Json>(kindSchema(sample))(sample);
      assert.deepStrictEqual(copy, sample);
      assertAliasFree(copy, sample);
    });
  }

  it('the copy of the kind copies fields the sample lacks but the kind declares, which exact drops', () => {
    const sample = databaseManager();
    const src = structuredClone(sample);
    const status = src.status as Json;
    status.observedGeneration = 2;
    status.conditions = [
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-30T08:00:02Z', reason: 'Available', message: 'ok' },
    ];
    (src.metadata as Json).deletionTimestamp = '2026-11-30T09:00:00Z';
    const byKind = compileTypeCopy<Json>(kindSchema(sample))(src);
    assert.deepStrictEqual(byKind, src);
    assertAliasFree(byKind, src);
    const bySample = compileCopy(sample, 'exact')(src);
    assert.equal('observedGeneration' in (bySample.status as Json), false);
    assert.equal('conditions' in (bySample.status as Json), false);
  });

  it('the copy of the kind drops unknown fields (exact: lossy)', () => {
    const sample = databaseManager();
    const copy = compileTypeCopy<Json>(kindSchema(sample))(withUnknown(sample));
    assert.equal('extraRoot' in copy, false);
    assert.equal('xUnknown' in (copy.spec as Json), false);
  });

  it('the copy of the kind writes object-valued maps as a key loop and schemaless values as a JSON copy', () => {
    const src = typeCopySource({
      type: 'object',
      properties: {
        byName: { type: 'object', additionalProperties: { type: 'object', properties: { a: { type: 'string' } } } },
        tags: { type: 'object', additionalProperties: { type: 'string' } },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    });
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the test runs the source the bench's copy writer gives
    const copy = new Function(src)() as (s: Json) => Json;
    const obj: Json = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n' },
      byName: { p: { a: '1' } },
      tags: { t: 'v' },
      raw: { any: [{ deep: 1 }] },
    };
    const out = copy(obj);
    assert.deepStrictEqual(out, obj);
    assertAliasFree(out, obj);
    assert.match(src, /for \(const k in s\) o\[k\] = c\d+\(s\[k\]\)/);
    assert.match(src, /return \{ \.\.\.s \}/);
  });
});
