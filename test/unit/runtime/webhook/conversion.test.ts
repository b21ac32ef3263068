// Hub-and-spoke conversion: fields renamed and copied by the user's functions, fields with no
// place in the other version kept in conversion.crdgen.io/<version> annotations, so both round
// trips give back what went in (examples, then a fast-check property); ConversionReview answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  answerConversionReview,
  convertObject,
  roundTrip,
  CONVERSION_ANNOTATION_PREFIX,
  applyPatchTolerant,
  diffJson,
  type KubeObject,
} from '../../../../src/runtime/index.js';
import { databaseConversion as conv, v1, v1alpha1 } from './fixtures.js';
import { SEED, runs } from '../../../fuzz/support.js';

test('a field renamed by the functions converts both ways; nothing lost, no annotation', () => {
  const a = v1alpha1({ deploymentName: 'web', replicas: 2, dbtype: 'mysql' });
  const h = convertObject(conv, a, 'coolops.cn/v1');
  assert.deepEqual(h, v1({ deploymentName: 'web', replicas: 2, engine: 'mysql' }));
  assert.deepEqual(convertObject(conv, h, 'coolops.cn/v1alpha1'), a);
});

test('a hub-only field survives hub → spoke → hub, and an update made in the spoke keeps it', () => {
  const h = v1({ deploymentName: 'web', replicas: 2, engine: 'postgres', version: '16' }, { labels: { a: 'b' } });
  const s = convertObject(conv, h, 'coolops.cn/v1alpha1');
  assert.deepEqual((s as { spec: unknown }).spec, { deploymentName: 'web', replicas: 2, dbtype: 'postgres' });
  const kept = s.metadata?.annotations?.[`${CONVERSION_ANNOTATION_PREFIX}v1`];
  assert.ok(kept, 'the spoke carries what it cannot hold');
  assert.deepEqual(JSON.parse(kept), [{ op: 'add', path: '/spec/version', value: '16' }]);
  assert.deepEqual(s.metadata?.labels, { a: 'b' });
  assert.deepEqual(convertObject(conv, s, 'coolops.cn/v1'), h);
  // updated through v1alpha1 (replicas), read again through v1: version still set, the update there
  const edited = structuredClone(s) as typeof s & { spec: Record<string, unknown> };
  edited.spec.replicas = 5;
  const h2 = convertObject(conv, edited, 'coolops.cn/v1') as typeof h & { spec: Record<string, unknown> };
  assert.deepEqual(h2.spec, { deploymentName: 'web', replicas: 5, engine: 'postgres', version: '16' });
  assert.equal(h2.metadata?.annotations, undefined, 'no conversion annotation left on the hub');
});

test('a spoke-only field survives spoke → hub → spoke; other annotations are untouched', () => {
  const a = v1alpha1({ dbtype: 'mysql', legacyPort: 3306 }, { annotations: { note: 'x' } });
  const h = convertObject(conv, a, 'coolops.cn/v1');
  assert.equal((h as { spec: Record<string, unknown> }).spec.legacyPort, undefined);
  assert.equal(h.metadata?.annotations?.note, 'x');
  assert.ok(h.metadata?.annotations?.[`${CONVERSION_ANNOTATION_PREFIX}v1alpha1`]);
  assert.deepEqual(convertObject(conv, h, 'coolops.cn/v1alpha1'), a);
});

test('same version: a copy; unknown version, group or kind: a clear ConversionError', () => {
  const a = v1alpha1({ dbtype: 'x' });
  const same = convertObject(conv, a, 'coolops.cn/v1alpha1');
  assert.deepEqual(same, a);
  assert.notEqual(same, a);
  assert.throws(
    () => convertObject(conv, a, 'coolops.cn/v2'),
    /unknown version coolops\.cn\/v2 of DatabaseManager \(known: v1, v1alpha1\)/,
  );
  assert.throws(() => convertObject(conv, a, 'other.io/v1'), /not of group coolops\.cn/);
  assert.throws(
    () => convertObject(conv, { ...a, kind: 'Other' }, 'coolops.cn/v1'),
    /this webhook converts DatabaseManager/,
  );
  assert.throws(() => convertObject(conv, { ...a, apiVersion: undefined }, 'coolops.cn/v1'), /no apiVersion/);
});

test('a function that returns nothing is a ConversionError, not a crash', () => {
  const broken = { ...conv, spokes: { v1alpha1: { toHub: () => undefined as never, fromHub: (h: never) => h } } };
  assert.throws(() => convertObject(broken, v1alpha1({}), 'coolops.cn/v1'), /returned undefined, not an object/);
});

const str = fc.string({ maxLength: 6 });
const spec = fc.record(
  {
    deploymentName: str,
    replicas: fc.integer({ min: 1, max: 10 }),
    dbtype: str,
    engine: str,
    version: str,
    legacyPort: fc.integer(),
    extra: fc.dictionary(str, fc.oneof(str, fc.integer())),
  },
  { requiredKeys: [] },
);
const meta = fc.record(
  { labels: fc.dictionary(str, str, { maxKeys: 2 }), annotations: fc.dictionary(str, str, { maxKeys: 2 }) },
  { requiredKeys: [] },
);

test('property: spoke → hub → spoke and hub → spoke → hub give back what went in', () => {
  fc.assert(
    fc.property(spec, meta, fc.constantFrom('v1', 'v1alpha1'), (s, m, version) => {
      const obj = version === 'v1' ? v1(s, m) : v1alpha1(s, m);
      const r = roundTrip(conv, obj, version === 'v1' ? 'v1alpha1' : 'v1');
      assert.ok(r.ok, `not lossless through ${r.via}: ${JSON.stringify(r.difference)}`);
    }),
    { seed: SEED, numRuns: runs(300) },
  );
});

test('property: the saved patch replays on a spoke edited in between (the edit wins, the lost field stays)', () => {
  fc.assert(
    fc.property(spec, fc.integer({ min: 1, max: 10 }), (s, replicas) => {
      const h = v1({ ...s, dbtype: undefined, legacyPort: undefined });
      const a = convertObject(conv, h, 'coolops.cn/v1alpha1') as { spec: Record<string, unknown> };
      a.spec.replicas = replicas;
      const back = convertObject(conv, a as never, 'coolops.cn/v1') as { spec: Record<string, unknown> };
      assert.equal(back.spec.replicas, replicas);
      if (s.version !== undefined) assert.equal(back.spec.version, s.version);
    }),
    { seed: SEED, numRuns: runs(200) },
  );
});

test('diff and tolerant apply: the patch of a to b turns a into b; missing parents are made', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      const wa = { v: a };
      const wb = { v: b };
      assert.deepEqual(applyPatchTolerant(wa, diffJson(wa, wb)), JSON.parse(JSON.stringify(wb)));
    }),
    { seed: SEED, numRuns: runs(300) },
  );
  assert.deepEqual(applyPatchTolerant({}, [{ op: 'add', path: '/spec/a~1b/c', value: 1 }]), {
    spec: { 'a/b': { c: 1 } },
  });
  assert.deepEqual(applyPatchTolerant({ a: 1 }, [{ op: 'remove', path: '/x/y' }]), { a: 1 });
  const proto = applyPatchTolerant({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.ok(Object.hasOwn(proto, '__proto__'));
});

test('ConversionReview: converted objects in order with the request uid; bad reviews get a Failure result', () => {
  const ok = answerConversionReview([conv], {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: {
      uid: 'u1',
      desiredAPIVersion: 'coolops.cn/v1',
      objects: [v1alpha1({ dbtype: 'a' }), v1({ engine: 'b' })],
    },
  });
  assert.equal(ok.response?.uid, 'u1');
  assert.equal(ok.response?.result.status, 'Success');
  assert.deepEqual(
    ok.response?.convertedObjects.map((o) => (o as { spec: unknown }).spec),
    [{ engine: 'a' }, { engine: 'b' }],
  );
  const bad = (body: unknown): string | undefined => {
    const r = answerConversionReview([conv], body);
    assert.equal(r.kind, 'ConversionReview');
    assert.equal(r.response?.result.status, 'Failure');
    return r.response?.result.message;
  };
  assert.match(bad(null)!, /not a JSON object/);
  assert.match(bad({ apiVersion: 'v1', kind: 'Pod' })!, /expected an apiextensions\.k8s\.io\/v1 ConversionReview/);
  assert.match(bad({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' })!, /no request/);
  assert.match(
    bad({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u' } })!,
    /no desiredAPIVersion/,
  );
  assert.match(
    bad({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'u', desiredAPIVersion: 'coolops.cn/v9', objects: [v1alpha1({})] },
    })!,
    /converting DatabaseManager default\/db from coolops\.cn\/v1alpha1 to coolops\.cn\/v9: unknown version/,
  );
  assert.match(
    bad({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'u', desiredAPIVersion: 'coolops.cn/v1', objects: [{ apiVersion: 'x.io/v1', kind: 'Foo' }] },
    })!,
    /objects\[0\]: no conversion for x\.io\/v1, Kind=Foo/,
  );
});

test('checkConversionRoundTrip: passes for a lossless conversion over schema-drawn objects, names the difference for a lossy one', async () => {
  const { checkConversionRoundTrip, ConversionRoundTripError } =
    await import('../../../../src/testing/conversion-property.js');
  const specOf = (props: Record<string, unknown>) => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: props } },
  });
  const schemas = {
    v1alpha1: specOf({
      deploymentName: { type: 'string' },
      replicas: { type: 'integer', minimum: 1, maximum: 10 },
      dbtype: { type: 'string', enum: ['mysql', 'postgres'] },
    }),
    v1: specOf({
      deploymentName: { type: 'string' },
      replicas: { type: 'integer' },
      engine: { type: 'string' },
      version: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    }),
  };
  await checkConversionRoundTrip(conv, { schemas, numRuns: runs(100), seed: SEED });
  // a conversion that writes what it does not read back (not a function of its input) cannot be lossless
  let n = 0;
  const lossy = {
    ...conv,
    spokes: {
      v1alpha1: {
        ...conv.spokes.v1alpha1,
        fromHub: (h: KubeObject) => ({ ...conv.spokes.v1alpha1.fromHub(h), counter: n++ }) as KubeObject,
      },
    },
  };
  await assert.rejects(
    checkConversionRoundTrip(lossy, { schemas, numRuns: 20, seed: SEED }),
    (e: unknown) => e instanceof ConversionRoundTripError && /is not lossless/.test(e.message),
  );
});
