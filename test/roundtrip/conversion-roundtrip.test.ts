// The round-trip property test that `crdgen generate --controller <Kind> --webhooks`
// ships with a multi-version kind (controllers/<kind>/conversion.test.ts) passes as generated —
// the user's conversion.ts left as the stub, so with the generated conversions only — for the
// DatabaseManager versions (fixtures/databasemanager-webhooks) and for every multi-version kind of
// the corpus (cluster-api MachineDeployment, Gateway API, external-secrets' unserved v1beta1,
// crossplane's XRD, istio, tekton). The generated test files run as the user runs them
// (node --test, TypeScript through tsx), in one process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { EMITTERS, runEmitters } from '../../src/generate/registry.js';
import { conversionVersions } from '../../src/generate/webhooks.js';
import { copyFields, convertObject } from '../../src/runtime/index.js';
import type { Model } from '../../src/model/types.js';
import { CORPUS, ROOT, writeTree, yamlFiles } from '../golden/support.js';

/** `group/Kind` of every kind with more than one version (served or not). */
function multiVersionKinds(model: Model): string[] {
  const out = new Set<string>();
  for (const g of model.groups)
    for (const v of g.versions)
      for (const k of v.kinds)
        if (k.storage && conversionVersions(g, k.kind).length > 1) out.add(`${g.name}/${k.kind}`);
  return [...out];
}

const runtimeImport = join(ROOT, 'src', 'runtime', 'index.js');
/** The webhooks generator alone: its conversion files import the API types only as types (erased when they run). */
const WEBHOOKS = EMITTERS.filter((e) => e.name === 'webhooks');

function generate(dir: string, file: string, content: Buffer): string[] {
  const r = readCrdInputs([{ file, content, fromDirectory: true }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
    file,
  );
  const kinds = multiVersionKinds(r.model);
  if (kinds.length === 0) return [];
  const files = runEmitters(
    r.model,
    createEmitContext({ sources: r.model.sources, runtimeImport, controllers: kinds, webhooks: true }),
    WEBHOOKS,
  );
  writeTree(dir, files);
  const tests = files.filter((f) => f.path.endsWith('/conversion.test.ts')).map((f) => join(dir, f.path));
  assert.equal(tests.length, kinds.length, `${file}: one round-trip test per multi-version kind`);
  return tests;
}

function runNodeTest(files: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // a node --test of its own, not a subtest of this one
    const { NODE_TEST_CONTEXT: _ctx, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...files], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => void (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('the generated round-trip tests pass with generated conversions only: DatabaseManager and the multi-version corpus CRDs', async () => {
  assert.ok(existsSync(CORPUS), `corpus not found at ${CORPUS}`);
  const out = mkdtempSync(join(tmpdir(), 'crdgen-conversion-'));
  try {
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    const dm = 'fixtures/databasemanager-webhooks/crd.yaml';
    const tests = generate(join(out, 'databasemanager'), dm, readFileSync(join(ROOT, dm)));
    const covered = new Set<string>();
    for (const f of yamlFiles(CORPUS)) {
      const rel = relative(CORPUS, f).split(sep).join('/');
      const found = generate(join(out, rel.replace(/\.ya?ml$/, '')), rel, readFileSync(f));
      if (found.length) covered.add(rel.split('/')[0]);
      tests.push(...found);
    }
    for (const p of ['cluster-api', 'gateway-api', 'external-secrets', 'crossplane', 'istio'])
      assert.ok(covered.has(p), `no multi-version kind found in ${p}`);
    assert.ok(tests.length >= 18, `${tests.length} round-trip tests`);
    // one runner importing every generated test: one process, the tests as generated
    const runner = join(out, 'all.test.ts');
    writeFileSync(
      runner,
      tests
        .map((t) => `import ${JSON.stringify(`./${relative(out, t).split(sep).join('/').replace(/\.ts$/, '.js')}`)};\n`)
        .join(''),
    );
    const r = await runNodeTest([runner], ROOT); // tsx resolves from the repository
    assert.equal(r.code, 0, r.output.slice(-4000));
    const pass = /^# pass (\d+)$/m.exec(r.output);
    assert.equal(Number(pass?.[1]), tests.length, r.output.slice(-2000));
    assert.match(r.output, /^# fail 0$/m);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the generated conversions carry the fields both versions share, and only those (DatabaseManager v1alpha1 ↔ v1)', async () => {
  const dm = 'fixtures/databasemanager-webhooks/crd.yaml';
  const r = readCrdInputs([{ file: dm, content: readFileSync(join(ROOT, dm)) }]);
  const files = runEmitters(
    r.model,
    createEmitContext({ sources: r.model.sources, runtimeImport, controllers: ['DatabaseManager'], webhooks: true }),
    WEBHOOKS,
  );
  const out = mkdtempSync(join(ROOT, 'test', 'roundtrip', '.conversion-'));
  try {
    writeTree(out, files);
    const mod = (await import(join(out, 'controllers', 'databasemanager', 'conversion.generated.ts'))) as {
      databaseManagerConversion: Parameters<typeof convertObject>[0];
    };
    const c = mod.databaseManagerConversion;
    assert.equal(c.hub, 'v1');
    assert.deepEqual(Object.keys(c.spokes), ['v1alpha1']);
    const alpha = {
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name: 'orders', namespace: 'shop' },
      spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' },
      status: { availableReplicas: 1 },
    };
    const v1 = convertObject(c, alpha, 'coolops.cn/v1') as Omit<typeof alpha, 'metadata' | 'spec'> & {
      spec: Record<string, unknown>;
      metadata: { annotations?: Record<string, string> };
    };
    // same path and shape: copied; dbtype has no place in v1 (the stub conversion.ts does not rename it): kept in the annotation
    assert.deepEqual(v1.spec, { deploymentName: 'orders-db', replicas: 2 });
    assert.deepEqual(v1.status, { availableReplicas: 1 });
    assert.equal(v1.apiVersion, 'coolops.cn/v1');
    assert.deepEqual(JSON.parse(v1.metadata.annotations!['conversion.crdgen.io/v1alpha1']), [
      { op: 'add', path: '/spec/dbtype', value: 'postgres' },
    ]);
    assert.deepEqual(convertObject(c, v1, 'coolops.cn/v1alpha1'), alpha);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('copyFields copies what the plan names, element by element and value by value, never sharing', () => {
  const src = {
    a: { x: 1, y: [1] },
    l: [{ k: 1, drop: 2 }, { k: 2 }],
    m: { one: { k: 1, drop: 1 } },
    u: { extra: 1, declared: 2 },
    gone: 1,
  };
  const plan = {
    fields: {
      a: true,
      l: { items: { fields: { k: true } } },
      m: { values: { fields: { k: true } } },
      u: { fields: {}, unknown: true, except: ['declared'] },
    },
  } as const;
  const copy = copyFields(plan, src) as typeof src;
  assert.deepEqual(copy, { a: { x: 1, y: [1] }, l: [{ k: 1 }, { k: 2 }], m: { one: { k: 1 } }, u: { extra: 1 } });
  assert.notEqual(copy.a, src.a);
  // a value of the wrong type for its plan is not copied
  assert.deepEqual(copyFields(plan, { a: 1, l: 'x', m: [] }), { a: 1 });
  // __proto__ stays a member
  const hostile = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
  const c = copyFields({ fields: {}, unknown: true }, hostile) as Record<string, unknown>;
  assert.ok(Object.hasOwn(c, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
