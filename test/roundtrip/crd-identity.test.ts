// The CRD written is the CRD read. For every apiextensions.k8s.io/v1 CRD of the fixtures
// and the shared corpus: `crdgen generate --generators crd` (the crd emitter over the CRD reader's
// model) writes the input's metadata.name, labels, annotations and its whole spec — every version,
// served or not, in the order written, spec.conversion, printer columns, selectable fields, every
// x-kubernetes-* extension, oneOf/anyOf/allOf/not, pattern, example, `required` in its order.
// Compared semantically (object keys in any order; arrays, `required` included, in order). The
// operator's config/crd/ holds that same CRD.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { loadYaml } from '../../src/input/crd/yaml-source.js';
import { crd } from '../../src/generate/crd.js';
import { controller } from '../../src/generate/controller.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import type { Model } from '../../src/model/types.js';

const CORPUS = '/work/shared/corpus/crds';

function yamlFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((e) => {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) return e === 'expected' || e === 'invalid' ? [] : yamlFiles(p);
      return p.endsWith('.yaml') ? [p] : [];
    });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The v1 CRDs of a file, as crdgen's reader parses them. */
function v1Crds(file: string): Obj[] {
  const { docs } = loadYaml(readFileSync(file, 'utf8'), file);
  return docs
    .map((d) => d.value)
    .filter(
      (v): v is Obj =>
        isObj(v) && v['kind'] === 'CustomResourceDefinition' && v['apiVersion'] === 'apiextensions.k8s.io/v1',
    );
}

/** What a CRD file carries that the apiserver keeps: the name, labels, annotations and the spec. */
function essence(doc: Obj): Obj {
  const m = isObj(doc['metadata']) ? doc['metadata'] : {};
  const metadata: Obj = { name: m['name'] };
  if (m['labels'] !== undefined) metadata['labels'] = m['labels'];
  if (m['annotations'] !== undefined) metadata['annotations'] = m['annotations'];
  return { apiVersion: doc['apiVersion'], kind: doc['kind'], metadata, spec: doc['spec'] };
}

/** The written YAML documents, by CRD name, read as kubectl reads them (YAML 1.1). */
function written(contents: readonly string[]): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const text of contents) {
    for (const d of parseAllDocuments(text, { version: '1.1' })) {
      const v = d.toJS({ maxAliasCount: -1 }) as unknown;
      if (isObj(v) && isObj(v['metadata'])) out.set(String(v['metadata']['name']), v);
    }
  }
  return out;
}

function readModel(file: string): Model {
  const r = readCrdInputs([{ file, content: readFileSync(file) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`),
    [],
  );
  return r.model;
}

const files = [...yamlFiles('fixtures'), ...yamlFiles(CORPUS)].filter((f) => v1Crds(f).length > 0);
let identical = 0;
let total = 0;

for (const file of files) {
  test(`the crd emitter writes the CRDs of ${file} as they were read`, () => {
    const model = readModel(file);
    const out = written(crd(model, createEmitContext({ sources: model.sources })).map((f) => f.contents));
    for (const input of v1Crds(file)) {
      total++;
      const name = String((input['metadata'] as Obj)['name']);
      const got = out.get(name);
      assert.ok(got, `${name}: no CRD written`);
      assert.deepStrictEqual(essence(got), essence(input), name);
      identical++;
    }
  });
}

test('every v1 CRD of the corpus and the fixtures comes out identical', (t) => {
  t.diagnostic(`${identical} of ${total} CRDs identical`);
  assert.ok(total >= 42, `only ${total} v1 CRDs found`);
  assert.equal(identical, total);
});

// The operator deploys the same CRD: its config/crd/<plural>.<group>.yaml is the crd emitter's file.
const OPERATOR_CASES: Array<[file: string, kind: string]> = [
  ['fixtures/databasemanager/crd.yaml', 'DatabaseManager'],
  [join(CORPUS, 'gateway-api/gateway.networking.k8s.io_gateways.yaml'), 'Gateway'], // oneOf/anyOf, CEL rules
  [join(CORPUS, 'strimzi/040-Crd-kafka.yaml'), 'Kafka'], // spec.conversion, oneOf, example
  [join(CORPUS, 'external-secrets/external-secrets.io_externalsecrets.yaml'), 'ExternalSecret'], // an unserved version
];

for (const [file, kind] of OPERATOR_CASES) {
  test(
    `the operator generated for ${kind} deploys the CRD it was generated from`,
    { skip: !existsSync(file) && 'corpus not present' },
    () => {
      const model = readModel(file);
      const ctx = createEmitContext({ sources: model.sources, controllers: [kind] });
      const files = controller(model, ctx);
      const config = files.find(
        (f) => /^controllers\/[^/]+\/config\/crd\/[^/]+\.yaml$/.test(f.path) && !f.path.endsWith('/kustomization.yaml'),
      );
      assert.ok(config, `no config/crd/<plural>.<group>.yaml among ${files.map((f) => f.path).join(', ')}`);
      const [input] = v1Crds(file).filter((d) => (d['spec'] as { names: { kind: string } }).names.kind === kind);
      const [deployed] = written([config.contents]).values();
      assert.deepStrictEqual(essence(deployed), essence(input));
      assert.equal(
        config.contents,
        crd(model, ctx).find((f) =>
          f.path.includes(`/${(input['spec'] as { names: { plural: string } }).names.plural}.`),
        )!.contents,
      );
    },
  );
}
