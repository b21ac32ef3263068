// Property test: generated deepCopy functions are lossless and alias-free on
// random objects shaped by the schema plus random unknown fields (including
// `__proto__` keys, wrong-typed values, null next to absent).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Kind, ObjectNode, SchemaNode } from '../../../src/model/types.js';
import { kindRoot, ROOT_META_PROPERTIES } from '../../../src/generate/walk.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { runEmitters } from '../../../src/generate/registry.js';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { caseInputs, ROOT, writeTree } from '../../golden/support.js';
import { SEED, runs } from '../../fuzz/support.js';
import { assertAliasFree, objectsOf } from '../aliasing.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-deepcopy-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

type Json = unknown;

/** A JSON object built with defineProperty, so `__proto__` becomes an own key. */
function objectFrom(entries: [string, Json][]): Record<string, Json> {
  const o: Record<string, Json> = {};
  for (const [k, v] of entries)
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const weirdKey = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'spec', 'a.b', ''),
);
const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 5 }),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.array(fc.tuple(weirdKey, tie('v')), { maxLength: 3 }).map(objectFrom),
  ),
})).v;

/** A map of strings with weird keys, sometimes a wrong-typed value. */
const stringMap = fc
  .array(
    fc.tuple(weirdKey, fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 5 }) }, { weight: 1, arbitrary: json })),
    { maxLength: 4 },
  )
  .map(objectFrom);

/** Unknown fields (weird keys, any JSON) appended to an object's entries. */
const unknownEntries = fc.array(fc.tuple(weirdKey, json), { maxLength: 2 });

/** An object of optional fields, plus unknown fields. */
function recordWithUnknown(fields: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<Record<string, Json>> {
  return fc
    .tuple(fc.record(fields, { requiredKeys: [] }), unknownEntries)
    .map(([r, u]) => objectFrom([...Object.entries(r), ...u]));
}

/** ObjectMeta as the API server returns it (labels, annotations, ownerReferences, managedFields, finalizers) with unknown and wrong-typed fields. */
const objectMeta: fc.Arbitrary<Json> = recordWithUnknown({
  name: fc.string({ maxLength: 6 }),
  namespace: fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)),
  generation: fc.integer(),
  labels: fc.oneof({ weight: 6, arbitrary: stringMap }, { weight: 1, arbitrary: json }),
  annotations: fc.oneof({ weight: 6, arbitrary: stringMap }, { weight: 1, arbitrary: json }),
  ownerReferences: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.array(
        fc.oneof(
          {
            weight: 6,
            arbitrary: recordWithUnknown({
              apiVersion: fc.string(),
              kind: fc.string(),
              name: fc.string(),
              uid: fc.string(),
              controller: fc.boolean(),
            }),
          },
          { weight: 1, arbitrary: json },
        ),
        { maxLength: 3 },
      ),
    },
    { weight: 1, arbitrary: json },
  ),
  managedFields: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.array(
        recordWithUnknown({
          manager: fc.string(),
          operation: fc.constantFrom('Apply', 'Update'),
          fieldsType: fc.constant('FieldsV1'),
          fieldsV1: json,
        }),
        { maxLength: 3 },
      ),
    },
    { weight: 1, arbitrary: json },
  ),
  finalizers: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.array(fc.oneof({ weight: 6, arbitrary: fc.string() }, { weight: 1, arbitrary: json }), {
        maxLength: 3,
      }),
    },
    { weight: 1, arbitrary: json },
  ),
});

/** Values shaped by `node`, sometimes wrong-typed, sometimes null. */
function arb(node: SchemaNode, depth = 0): fc.Arbitrary<Json> {
  const shaped = shapedArb(node, depth);
  return fc.oneof(
    { weight: 8, arbitrary: shaped },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: json },
  );
}

function shapedArb(node: SchemaNode, depth: number): fc.Arbitrary<Json> {
  if (depth > 6) return json;
  switch (node.type) {
    case 'object':
      return objectArb(node, depth, false);
    case 'map':
      return fc.array(fc.tuple(weirdKey, arb(node.values, depth + 1)), { maxLength: 3 }).map(objectFrom);
    case 'array':
      return fc.array(arb(node.items, depth + 1), { maxLength: 3 });
    case 'string':
      return node.enum ? fc.constantFrom(...node.enum) : fc.string({ maxLength: 8 });
    case 'integer':
      return fc.integer();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'int-or-string':
      return fc.oneof(fc.integer(), fc.string({ maxLength: 4 }));
    case 'unknown':
      return json;
  }
}

function objectArb(node: ObjectNode, depth: number, isRoot: boolean): fc.Arbitrary<Json> {
  const known = node.properties
    .filter((p) => !(isRoot && ROOT_META_PROPERTIES.has(p.name)))
    .map((p) =>
      fc
        .option(arb(p.schema, depth + 1), { nil: undefined })
        .map((v): [string, Json][] => (v === undefined ? [] : [[p.name, v]])),
    );
  const meta: fc.Arbitrary<[string, Json][]> =
    isRoot || node.embeddedResource
      ? fc
          .record(
            {
              apiVersion: fc.string({ maxLength: 5 }),
              kind: fc.string({ maxLength: 5 }),
              metadata: fc.oneof({ weight: 4, arbitrary: objectMeta }, { weight: 1, arbitrary: json }),
            },
            { requiredKeys: [] },
          )
          .map((r) => Object.entries(r))
      : fc.constant([]);
  const unknown = fc.array(fc.tuple(weirdKey, json), { maxLength: 3 });
  return fc.tuple(meta, fc.tuple(...known), unknown).map(([m, ks, u]) => objectFrom([...m, ...ks.flat(), ...u]));
}

function assertPlainPrototypes(v: unknown): void {
  for (const o of objectsOf(v)) {
    const proto = Object.getPrototypeOf(o);
    assert.ok(proto === Object.prototype || proto === Array.prototype, 'copy has an unexpected prototype');
  }
}

/**
 * Generates a fixture case with the runtime imported from this checkout's sources (as the
 * integration tests do) into a temp folder marked as ESM, and imports each deepcopy.ts.
 */
async function loadCase(
  name: string,
): Promise<{ kinds: Kind[]; module: Record<string, (o: unknown) => unknown>; group: string; version: string }[]> {
  const r = readCrdInputs(caseInputs(name).map((file) => ({ file, content: readFileSync(join(ROOT, file)) })));
  const runtimeImport = join(ROOT, 'src', 'runtime', 'index.js');
  const files = runEmitters(r.model, createEmitContext({ sources: r.model.sources, runtimeImport }));
  const dir = join(tmp, name);
  writeTree(dir, files);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const out = [];
  for (const g of r.model.groups) {
    for (const v of g.versions) {
      const module = (await import(pathToFileURL(join(dir, 'apis', g.name, v.name, 'deepcopy.ts')).href)) as Record<
        string,
        (o: unknown) => unknown
      >;
      out.push({ kinds: v.kinds, module, group: g.name, version: v.name });
    }
  }
  return out;
}

/** The schema node types (and object flavours) under a kind, to show what the property test reaches. */
function nodeKinds(node: SchemaNode, into: Set<string>, depth = 0): Set<string> {
  if (depth > 12) return into;
  into.add(node.type);
  switch (node.type) {
    case 'object':
      if (node.embeddedResource) into.add('embedded-resource');
      if (node.preserveUnknownFields) into.add('preserve-unknown-fields');
      for (const p of node.properties) nodeKinds(p.schema, into, depth + 1);
      break;
    case 'array':
      into.add(`array-of-${node.items.type}`);
      nodeKinds(node.items, into, depth + 1);
      break;
    case 'map':
      into.add(`map-of-${node.values.type}`);
      nodeKinds(node.values, into, depth + 1);
      break;
    default:
      break;
  }
  return into;
}

for (const name of ['databasemanager', 'kitchensink']) {
  test(`deepCopy is lossless and alias-free on random objects (${name})`, async () => {
    const versions = await loadCase(name);
    assert.ok(versions.length > 0);
    if (name === 'kitchensink') {
      // The random objects reach every typed path of the generated copy: typed objects, arrays
      // and nested arrays of objects, maps of objects and of scalars, preserve-unknown-fields,
      // int-or-string, embedded resources (their metadata is ObjectMeta).
      const reached = new Set<string>();
      for (const { kinds } of versions) for (const k of kinds) nodeKinds(kindRoot(k), reached);
      for (const want of [
        'array-of-object',
        'array-of-array',
        'map-of-object',
        'map-of-string',
        'unknown',
        'preserve-unknown-fields',
        'int-or-string',
        'embedded-resource',
      ]) {
        assert.ok(reached.has(want), `kitchensink has no ${want} node`);
      }
    }
    for (const { kinds, module } of versions) {
      for (const kind of kinds) {
        const copyKind = module[`deepCopy${kind.kind}`];
        const copyList = module[`deepCopy${kind.listKind}`];
        assert.equal(typeof copyKind, 'function');
        assert.equal(typeof copyList, 'function');
        const objArb = objectArb(kindRoot(kind), 0, true);
        fc.assert(
          fc.property(objArb, (o) => {
            const c = copyKind(o);
            assert.deepStrictEqual(c, o);
            assertAliasFree(c, o);
            assertPlainPrototypes(c);
          }),
          { numRuns: runs(150), seed: SEED },
        );
        fc.assert(
          fc.property(
            fc.array(objArb, { maxLength: 3 }),
            fc.array(fc.tuple(weirdKey, json), { maxLength: 2 }),
            (items, extra) => {
              const list = objectFrom([
                ['apiVersion', 'x/v1'],
                ['kind', kind.listKind],
                ['metadata', { resourceVersion: '1', continue: 'c', extra: { x: [1] } }],
                ['items', items],
                ...extra.filter(([k]) => k !== 'items' && k !== 'metadata'),
              ]);
              const c = copyList(list);
              assert.deepStrictEqual(c, list);
              assertAliasFree(c, list);
            },
          ),
          { numRuns: runs(50), seed: SEED },
        );
      }
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
}

test('deepCopy keeps null and absent apart and guards __proto__', async () => {
  const [{ module }] = await loadCase('databasemanager');
  const copy = module.deepCopyDatabaseManager;
  const withNull = { spec: null, status: { availableReplicas: null } };
  const c1 = copy(withNull) as Record<string, unknown>;
  assert.ok('spec' in c1 && c1.spec === null);
  assert.deepStrictEqual(copy({}), {});
  assert.ok(!('spec' in (copy({}) as object)));
  const evil = JSON.parse(
    '{"spec": {"__proto__": {"polluted": true}, "replicas": 2}, "__proto__": {"x": 1}}',
  ) as Record<string, unknown>;
  const c2 = copy(evil) as Record<string, Record<string, unknown>>;
  assert.deepStrictEqual(c2, evil);
  assert.equal(Object.getPrototypeOf(c2), Object.prototype);
  assert.equal(Object.getPrototypeOf(c2.spec), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.notEqual(c2.spec, evil.spec);
});
