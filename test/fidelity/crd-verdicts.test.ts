// crdgen's CRD checks judged by the real kube-apiserver: every CRD of ../shared/corpus/crds,
// and mutations of each (typos, broken rules, bad defaults, bad columns, …), are created with
// dryRun=All on crdgen's test server and on kube-apiserver v1.37: both accept or refuse alike,
// with the same status, message and causes; and `crdgen generate`'s reader refuses exactly what
// the apiserver refuses.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readCrdInputs } from '../../src/input/crd/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { CORPUS, yamlFiles } from '../golden/support.js';
import { BACKENDS } from '../support/backends.js';
import { raw } from '../support/raw.js';
import { normaliseStatus } from './harness.js';

type Json = Record<string, unknown>;
const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All';

/** Every apiextensions.k8s.io/v1 CRD of the corpus, with where it came from. */
function corpusCrds(): { name: string; crd: Json }[] {
  const out: { name: string; crd: Json }[] = [];
  for (const file of yamlFiles(CORPUS)) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const v = doc.toJSON() as Json | null;
      if (v?.apiVersion === 'apiextensions.k8s.io/v1' && v.kind === 'CustomResourceDefinition')
        out.push({ name: `${relative(CORPUS, file)}#${(v.metadata as { name?: string } | undefined)?.name}`, crd: v });
    }
  }
  return out;
}

/** The first property schema with a `type`, depth-first, under a version's openAPIV3Schema.properties.spec (path of keys). */
function firstTypedProperty(schema: Json, path: string[] = []): string[] | undefined {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  for (const k of Object.keys(props).sort()) {
    const p = props[k];
    if (typeof p.type === 'string' && p.type !== 'object' && p.type !== 'array') return [...path, k];
    const deeper = firstTypedProperty(p, [...path, k]);
    if (deeper) return deeper;
  }
  return undefined;
}

function at(schema: Json, path: string[]): Json {
  let cur = schema;
  for (const k of path) cur = (cur.properties as Record<string, Json>)[k]!;
  return cur;
}

/** Deterministic mutations of one CRD, each a name and the CRD it makes. */
function mutations(crd: Json): { what: string; crd: Json }[] {
  const out: { what: string; crd: Json }[] = [];
  const mutate = (what: string, fn: (c: Json & { spec: Json }) => boolean | void): void => {
    const c = structuredClone(crd) as Json & { spec: Json };
    if (fn(c) !== false) out.push({ what, crd: c });
  };
  const versions = (c: { spec: Json }): Json[] => c.spec.versions as Json[];
  const schemaOf = (v: Json): Json | undefined => (v.schema as Json | undefined)?.openAPIV3Schema as Json | undefined;
  mutate('group without a dot', (c) => void (c.spec.group = 'nodot'));
  mutate('name not plural.group', (c) => void ((c.metadata as Json).name = 'wrong.example.com'));
  mutate('no storage version', (c) => void versions(c).forEach((v) => (v.storage = false)));
  mutate('a scope typo', (c) => void (c.spec.scope = 'Namespace'));
  mutate('a type typo', (c) => {
    const s = schemaOf(versions(c)[0]);
    const p = s && firstTypedProperty(s);
    if (!p) return false;
    at(s, p).type = `${String(at(s, p).type)}x`;
  });
  mutate('a property without a type (not structural)', (c) => {
    const s = schemaOf(versions(c)[0]);
    const p = s && firstTypedProperty(s);
    if (!p) return false;
    delete at(s, p).type;
  });
  mutate('a default outside the enum', (c) => {
    const s = schemaOf(versions(c)[0]);
    const p = s && firstTypedProperty(s);
    if (!p) return false;
    const node = at(s, p);
    if (node.type !== 'string') return false;
    node.enum = ['a', 'b'];
    node.default = 'c';
  });
  mutate('a rule that does not compile', (c) => {
    const s = schemaOf(versions(c)[0]);
    if (!s) return false;
    s['x-kubernetes-validations'] = [{ rule: 'self.metadata.name.startsWith(' }];
  });
  mutate('a rule on a field that does not exist', (c) => {
    const s = schemaOf(versions(c)[0]);
    if (!s) return false;
    s['x-kubernetes-validations'] = [{ rule: 'self.nosuchfield == 1' }];
  });
  mutate('a list-map without keys', (c) => {
    const s = schemaOf(versions(c)[0]);
    if (!s) return false;
    ((s.properties ??= {}) as Json).broken = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      items: { type: 'object', properties: { k: { type: 'string' } } },
    };
  });
  mutate(
    'a printer column with a bad type',
    (c) => void (versions(c)[0].additionalPrinterColumns = [{ name: 'X', type: 'text', jsonPath: '.spec' }]),
  );
  mutate(
    'a printer column JSONPath without the dot',
    (c) => void (versions(c)[0].additionalPrinterColumns = [{ name: 'X', type: 'string', jsonPath: 'spec.x' }]),
  );
  return out;
}

describe('CRD verdicts: crdgen testenv and crdgen generate against the real kube-apiserver', () => {
  const servers = new Map<string, ApiServerHandle>();
  const cases = corpusCrds().flatMap(({ name, crd }) => [
    { name, crd },
    ...mutations(crd).map((m) => ({ name: `${name} with ${m.what}`, crd: m.crd })),
  ]);

  before(async () => {
    for (const b of BACKENDS) servers.set(b.name, await b.start());
  });
  after(async () => {
    for (const s of servers.values()) await s.stop();
  });

  it(`corpus: ${corpusCrds().length} CRDs, ${cases.length} cases with their mutations`, () => {
    assert.ok(corpusCrds().length >= 30, 'the corpus is there');
  });

  // one test per corpus CRD, its mutations inside: the messages of every difference at once
  const byCrd = new Map<string, typeof cases>();
  for (const c of cases) {
    const key = c.name.split(' with ')[0];
    byCrd.set(key, [...(byCrd.get(key) ?? []), c]);
  }
  for (const [crdName, list] of byCrd) {
    it(`${crdName}: ${list.length} variants answered alike`, async () => {
      const problems: string[] = [];
      for (const c of list) {
        const answers = new Map<string, unknown>();
        for (const [backend, server] of servers) {
          const r = await raw(server, 'POST', CRDS_PATH, { body: c.crd });
          answers.set(backend, r.status === 201 ? { status: 201 } : { status: r.status, ...normaliseStatus(r.body) });
        }
        const real = answers.get('real') as { status: number };
        if (JSON.stringify(answers.get('testenv')) !== JSON.stringify(real)) {
          problems.push(
            `${c.name}:\n  testenv ${JSON.stringify(answers.get('testenv'))}\n  real    ${JSON.stringify(real)}`,
          );
        }
        // crdgen generate's reader: an error exactly when the apiserver refuses
        const read = readCrdInputs([{ file: 'crd.yaml', content: new TextEncoder().encode(JSON.stringify(c.crd)) }]);
        const refused = read.diagnostics.some((d) => d.severity === 'error');
        if (refused !== (real.status !== 201))
          problems.push(
            `${c.name}: crdgen generate ${refused ? 'refuses' : 'accepts'} it, the apiserver answers ${real.status}${refused ? `: ${read.diagnostics.find((d) => d.severity === 'error')!.message}` : ''}`,
          );
      }
      assert.deepEqual(problems, []);
    });
  }
});
