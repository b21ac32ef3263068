// The webhooks emitter: which files `--webhooks` adds to an operator and what the
// operator's own files get (main.ts wiring, the manager mounting the certificate, the CRD's
// conversion stanza), the copy plans of the generated conversions, the CLI and config switches,
// and the generated tree compiling for corpus kinds with several versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { runEmitters } from '../../../src/generate/registry.js';
import { copyPlan, testingImport, webhooks } from '../../../src/generate/webhooks.js';
import { optionErrors } from '../../../src/generate/check.js';
import type { Model, SchemaNode } from '../../../src/model/types.js';
import { ROOT, writeTree } from '../../golden/support.js';
import { tscStrict } from '../../compile/tsc.js';
import { run } from '../../cli/support.js';

const CORPUS = join(ROOT, '..', 'shared', 'corpus', 'crds');
const DM2 = 'fixtures/databasemanager-webhooks/crd.yaml';

function read(file: string, root = ROOT): Model {
  const r = readCrdInputs([{ file, content: readFileSync(join(root, file)) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return r.model;
}

function generate(model: Model, webhooksOn: boolean, controllers = ['DatabaseManager']) {
  return runEmitters(model, createEmitContext({ sources: model.sources, controllers, webhooks: webhooksOn }));
}

test('without --webhooks the emitter writes nothing and the operator is as before', () => {
  const model = read(DM2);
  assert.deepEqual(
    webhooks(model, createEmitContext({ sources: model.sources, controllers: ['DatabaseManager'] })),
    [],
  );
  const files = generate(model, false);
  const main = files.find((f) => f.path === 'controllers/databasemanager/main.ts')!.contents;
  assert.doesNotMatch(main, /setupWebhooks|webhooks:/);
  assert.doesNotMatch(files.find((f) => f.path.endsWith('config/crd.yaml'))!.contents, /conversion:/);
  assert.doesNotMatch(files.find((f) => f.path.endsWith('config/manager.yaml'))!.contents, /--webhook|webhook-certs/);
});

test('two versions: webhooks.ts, admission.ts and conversion.ts (user-owned), conversion.generated.ts, conversion.test.ts, config/webhooks.yaml', () => {
  const files = generate(read(DM2), true);
  const mine = webhooks(
    read(DM2),
    createEmitContext({ sources: [DM2], controllers: ['DatabaseManager'], webhooks: true }),
  );
  assert.deepEqual(
    mine.map((f) => [f.path, f.userOwned === true]),
    [
      ['controllers/databasemanager/admission.ts', true],
      ['controllers/databasemanager/config/webhooks.yaml', false],
      ['controllers/databasemanager/conversion.generated.ts', false],
      ['controllers/databasemanager/conversion.test.ts', false],
      ['controllers/databasemanager/conversion.ts', true],
      ['controllers/databasemanager/webhooks.ts', false],
    ],
  );
  for (const f of mine)
    assert.equal(
      f.contents.startsWith('// Code generated') || f.contents.startsWith('# Code generated'),
      !f.userOwned,
      f.path,
    );
  const get = (p: string) => files.find((f) => f.path === `controllers/databasemanager/${p}`)!.contents;
  // main.ts hands the webhooks to runOperator
  assert.match(get('main.ts'), /import \{ setupWebhooks, webhookCertificates \} from "\.\/webhooks\.js";/);
  assert.match(get('main.ts'), /webhooks: setupWebhooks,/);
  // webhooks.ts: the hub's paths, the schema's defaulting and validation before the user's hooks
  const wh = get('webhooks.ts');
  assert.match(wh, /mutate: "\/mutate-coolops-cn-v1-databasemanager"/);
  assert.match(wh, /validate: "\/validate-coolops-cn-v1-databasemanager"/);
  assert.match(wh, /convert: "\/convert"/);
  assert.match(wh, /from "\.\.\/\.\.\/apis\/coolops\.cn\/v1\/validation\.js"/);
  assert.match(wh, /defaultingHandler<DatabaseManager>\(defaultDatabaseManager, \{\n\s+schemaDefaults,/);
  // the generated conversion copies what both versions share; dbtype/engine/version are the user's
  const gen = get('conversion.generated.ts');
  assert.match(gen, /deploymentName: true,\n\s+replicas: true,/);
  assert.doesNotMatch(gen, /dbtype|engine/);
  assert.match(get('conversion.ts'), /export function v1alpha1ToV1\(/);
  assert.match(get('conversion.ts'), /export function v1ToV1alpha1\(/);
  // the CRD: conversion by webhook (ConversionReview v1), the CA injected by cert-manager
  const [crd] = parseAllDocuments(get('config/crd.yaml')).map((d) => d.toJS() as Record<string, any>);
  assert.deepEqual(crd.spec.conversion, {
    strategy: 'Webhook',
    webhook: {
      clientConfig: {
        service: {
          name: 'databasemanager-webhook-service',
          namespace: 'databasemanager-system',
          path: '/convert',
          port: 443,
        },
      },
      conversionReviewVersions: ['v1'],
    },
  });
  assert.equal(
    crd.metadata.annotations['cert-manager.io/inject-ca-from'],
    'databasemanager-system/databasemanager-serving-cert',
  );
  assert.deepEqual(
    crd.spec.versions.map((v: { name: string; storage: boolean }) => [v.name, v.storage]),
    [
      ['v1', true],
      ['v1alpha1', false],
    ],
  );
  // the manifests
  const docs = parseAllDocuments(get('config/webhooks.yaml')).map((d) => d.toJS() as Record<string, any>);
  assert.deepEqual(
    docs.map((d) => d.kind),
    ['Service', 'Issuer', 'Certificate', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  );
  const [svc, , cert, mwc, vwc] = docs;
  assert.deepEqual(svc.spec.selector, { 'app.kubernetes.io/name': 'databasemanager-operator' });
  assert.deepEqual(cert.spec.dnsNames, [
    'databasemanager-webhook-service.databasemanager-system.svc',
    'databasemanager-webhook-service.databasemanager-system.svc.cluster.local',
  ]);
  for (const c of [mwc, vwc]) {
    assert.equal(
      c.metadata.annotations['cert-manager.io/inject-ca-from'],
      'databasemanager-system/databasemanager-serving-cert',
    );
    const [w] = c.webhooks;
    assert.equal(w.failurePolicy, 'Fail');
    assert.equal(w.sideEffects, 'None');
    assert.equal(w.matchPolicy, 'Equivalent');
    assert.equal(w.timeoutSeconds, 10);
    assert.deepEqual(w.admissionReviewVersions, ['v1']);
    assert.deepEqual(w.rules, [
      {
        apiGroups: ['coolops.cn'],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['databasemanagers'],
        scope: 'Namespaced',
      },
    ]);
  }
  assert.equal(mwc.webhooks[0].name, 'mdatabasemanager-v1.coolops.cn');
  assert.equal(vwc.webhooks[0].clientConfig.service.path, '/validate-coolops-cn-v1-databasemanager');
  // the Deployment serves on :9443 with the Secret cert-manager writes, at the operator's default cert dir
  const [, deploy] = parseAllDocuments(get('config/manager.yaml')).map((d) => d.toJS() as Record<string, any>);
  const pod = deploy.spec.template.spec;
  const c0 = pod.containers[0];
  assert.ok(c0.args.includes('--webhook-bind-address=:9443'));
  assert.ok(c0.args.includes('--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs'));
  assert.deepEqual(
    c0.ports.find((p: { name: string }) => p.name === 'webhook'),
    { name: 'webhook', containerPort: 9443 },
  );
  assert.deepEqual(c0.volumeMounts, [
    { name: 'webhook-certs', mountPath: '/tmp/k8s-webhook-server/serving-certs', readOnly: true },
  ]);
  assert.deepEqual(pod.volumes, [
    { name: 'webhook-certs', secret: { secretName: 'databasemanager-webhook-server-cert' } },
  ]);
  // RBAC: the role without webhooks, plus what --webhook-cert-mode=self needs, each by name where RBAC allows
  const yamlDocs = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Record<string, any>);
  const withHooks = yamlDocs(get('config/rbac.yaml'));
  const without = yamlDocs(generate(read(DM2), false).find((f) => f.path.endsWith('config/rbac.yaml'))!.contents);
  const rulesOf = (all: Record<string, any>[], kind: string) => all.find((d) => d.kind === kind)!.rules;
  assert.deepEqual(rulesOf(withHooks, 'ClusterRole'), [
    ...rulesOf(without, 'ClusterRole'),
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations'],
      resourceNames: ['databasemanager-mutating-webhook-configuration'],
      verbs: ['get', 'update'],
    },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      resourceNames: ['databasemanager-validating-webhook-configuration'],
      verbs: ['get', 'update'],
    },
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: ['databasemanagers.coolops.cn'],
      verbs: ['get', 'update'],
    },
  ]);
  assert.deepEqual(rulesOf(withHooks, 'Role'), [
    ...rulesOf(without, 'Role'),
    {
      apiGroups: [''],
      resources: ['secrets'],
      resourceNames: ['databasemanager-webhook-server-cert'],
      verbs: ['get', 'update'],
    },
    { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
  ]);
  // main.ts hands runOperator what self mode writes its CA into
  assert.match(get('main.ts'), /webhookCertificates,\n/);
  assert.match(wh, /conversionCrds: \[["']databasemanagers\.coolops\.cn["']\]/);
});

test('one version: admission webhooks only, no conversion files or stanza', () => {
  const files = generate(read('fixtures/databasemanager/crd.yaml'), true);
  const paths = files.map((f) => f.path).filter((p) => p.startsWith('controllers/'));
  assert.ok(paths.includes('controllers/databasemanager/webhooks.ts'));
  assert.ok(paths.includes('controllers/databasemanager/admission.ts'));
  assert.ok(!paths.some((p) => p.includes('conversion')), paths.join(', '));
  const wh = files.find((f) => f.path.endsWith('webhooks.ts'))!.contents;
  assert.match(wh, /\/mutate-coolops-cn-v1alpha1-databasemanager/);
  assert.doesNotMatch(wh, /convert/);
  // no CRD to write a CA into, and no rule for one
  assert.doesNotMatch(wh, /conversionCrds/);
  assert.doesNotMatch(files.find((f) => f.path.endsWith('config/rbac.yaml'))!.contents, /customresourcedefinitions/);
  assert.doesNotMatch(files.find((f) => f.path.endsWith('config/crd.yaml'))!.contents, /conversion:|inject-ca-from/);
});

const obj = (
  props: Record<string, SchemaNode>,
  extra: Partial<{ preserveUnknownFields: boolean; embeddedResource: boolean }> = {},
): SchemaNode => ({
  type: 'object',
  properties: Object.entries(props).map(([name, schema]) => ({ name, required: false, schema })),
  preserveUnknownFields: extra.preserveUnknownFields ?? false,
  embeddedResource: extra.embeddedResource ?? false,
});
const str: SchemaNode = { type: 'string' };
const int: SchemaNode = { type: 'integer' };

test('copy plans: the same shape is copied whole, a difference recurses, another type is left out', () => {
  assert.equal(
    copyPlan(obj({ a: str }), obj({ a: { type: 'string', description: 'other words', enum: ['x'] } })),
    true,
  );
  assert.deepEqual(copyPlan(obj({ a: str, b: int, c: str }), obj({ a: str, b: str, d: str })), { fields: { a: true } });
  assert.equal(copyPlan(obj({ b: int }), obj({ b: str })), undefined);
  // lists of objects element by element, maps value by value
  assert.deepEqual(
    copyPlan({ type: 'array', items: obj({ k: str, old: int }) }, { type: 'array', items: obj({ k: str, new: int }) }),
    { items: { fields: { k: true } } },
  );
  assert.deepEqual(
    copyPlan({ type: 'map', values: obj({ k: str, old: int }) }, { type: 'map', values: obj({ k: str }) }),
    { values: { fields: { k: true } } },
  );
  // both keep unknown fields: the undeclared ones are copied too, the declared ones that differ are not
  assert.deepEqual(
    copyPlan(
      obj({ k: str, x: int }, { preserveUnknownFields: true }),
      obj({ k: str, x: str }, { preserveUnknownFields: true }),
    ),
    { fields: { k: true }, unknown: true, except: ['x'] },
  );
  // embedded resources keep their apiVersion, kind and metadata
  assert.deepEqual(
    copyPlan(
      obj({ spec: obj({ a: str }) }, { embeddedResource: true }),
      obj({ spec: obj({ a: int }) }, { embeddedResource: true }),
    ),
    { fields: { apiVersion: true, kind: true, metadata: true } },
  );
});

test('crdgen/testing beside the runtime import', () => {
  assert.equal(testingImport('crdgen/runtime'), 'crdgen/testing');
  assert.equal(testingImport('/repo/dist/runtime/index.js'), '/repo/dist/testing/index.js');
  assert.equal(testingImport('file:///repo/src/runtime/index.ts'), 'file:///repo/src/testing/index.ts');
  assert.equal(testingImport('@acme/runtime-fork'), 'crdgen/testing');
});

test('CLI: --webhooks needs --controller; --generators controller brings webhooks along; webhooks: true in the config is the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-webhooks-cli-'));
  try {
    writeFileSync(join(dir, 'crd.yaml'), readFileSync(join(ROOT, DM2)));
    const bad = await run(['generate', 'crd.yaml', '--out', 'out', '--webhooks'], dir);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--webhooks needs the operators to serve them: name their kinds with --controller <Kind>/);
    assert.ok(!existsSync(join(dir, 'out')));
    const only = await run(
      [
        'generate',
        'crd.yaml',
        '--out',
        'only',
        '--controller',
        'DatabaseManager',
        '--webhooks',
        '--generators',
        'controller',
      ],
      dir,
    );
    assert.equal(only.code, 0, only.stderr);
    assert.ok(existsSync(join(dir, 'only', 'controllers', 'databasemanager', 'webhooks.ts')));
    assert.ok(existsSync(join(dir, 'only', 'apis', 'coolops.cn', 'v1', 'validation.ts')));
    const flag = await run(
      ['generate', 'crd.yaml', '--out', 'flag', '--controller', 'DatabaseManager', '--webhooks'],
      dir,
    );
    assert.equal(flag.code, 0, flag.stderr);
    writeFileSync(
      join(dir, 'crdgen.config.yaml'),
      'inputs: [crd.yaml]\nout: cfg\ncontrollers: [DatabaseManager]\nwebhooks: true\n',
    );
    const cfg = await run(['generate'], dir);
    assert.equal(cfg.code, 0, cfg.stderr);
    for (const f of [
      'webhooks.ts',
      'admission.ts',
      'conversion.ts',
      'conversion.generated.ts',
      'conversion.test.ts',
      'main.ts',
      'config/webhooks.yaml',
      'config/crd.yaml',
    ]) {
      assert.equal(
        readFileSync(join(dir, 'cfg', 'controllers', 'databasemanager', f), 'utf8'),
        readFileSync(join(dir, 'flag', 'controllers', 'databasemanager', f), 'utf8'),
        f,
      );
    }
    // the user's files are written once: a second run keeps an edited admission.ts
    const admission = join(dir, 'flag', 'controllers', 'databasemanager', 'admission.ts');
    writeFileSync(admission, `${readFileSync(admission, 'utf8')}\n// mine\n`);
    const again = await run(
      ['generate', 'crd.yaml', '--out', 'flag', '--controller', 'DatabaseManager', '--webhooks'],
      dir,
    );
    assert.equal(again.code, 0, again.stderr);
    assert.match(readFileSync(admission, 'utf8'), /\/\/ mine\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('optionErrors with --webhooks: the storage version must be served (it is the hub)', () => {
  const model = read(DM2);
  assert.deepEqual(
    optionErrors(
      model,
      createEmitContext({ sources: model.sources, controllers: ['DatabaseManager'], webhooks: true }),
    ),
    [],
  );
  const unservedHub: Model = {
    ...model,
    groups: model.groups.map((g) => ({
      ...g,
      versions: g.versions.map((v) => ({
        ...v,
        kinds: v.kinds.map((k) => (v.name === 'v1' ? { ...k, served: false } : k)),
      })),
    })),
  };
  // the controller then takes the first served version, which is not the storage one
  const errs = optionErrors(
    unservedHub,
    createEmitContext({ sources: model.sources, controllers: ['DatabaseManager'], webhooks: true }),
  );
  assert.equal(errs.length, 1);
  assert.match(errs[0], /--webhooks: the storage version of DatabaseManager is not served/);
});

test('the operators with webhooks of multi-version corpus kinds compile with tsc --strict', async () => {
  const out = mkdtempSync(join(tmpdir(), 'crdgen-webhooks-tsc-'));
  try {
    writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
    const cases: Array<[string, string[]]> = [
      ['cluster-api/cluster.x-k8s.io_machinedeployments.yaml', ['MachineDeployment']],
      ['gateway-api/gateway.networking.k8s.io_httproutes.yaml', ['HTTPRoute']],
      ['external-secrets/external-secrets.io_externalsecrets.yaml', ['ExternalSecret']],
      ['crossplane/apiextensions.crossplane.io_compositeresourcedefinitions.yaml', ['CompositeResourceDefinition']],
      ['istio/crd-all.gen.yaml', ['networking.istio.io/VirtualService', 'telemetry.istio.io/Telemetry']],
    ];
    for (const [file, kinds] of cases) {
      const r = readCrdInputs([{ file, content: readFileSync(join(CORPUS, file)), fromDirectory: true }]);
      const files = runEmitters(
        r.model,
        createEmitContext({ sources: r.model.sources, controllers: kinds, webhooks: true }),
      );
      assert.ok(
        files.some((f) => f.path.endsWith('/conversion.generated.ts')),
        file,
      );
      writeTree(join(out, file.replace(/\.ya?ml$/, '')), files);
    }
    const r = await tscStrict([out], 'nodenext');
    assert.equal(r.output, '');
    assert.equal(r.status, 0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('hostile property names in both versions reach the webhook files only as strings and keys', async () => {
  const { HOSTILE, assertNoInjection } = await import('../../security/hostile.js');
  const { parse, stringify } = await import('yaml');
  const crd = parse(readFileSync(join(ROOT, DM2), 'utf8')) as {
    spec: {
      versions: Array<{
        name: string;
        schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
      }>;
    };
  };
  for (const v of crd.spec.versions) {
    const props = v.schema.openAPIV3Schema.properties.spec.properties;
    HOSTILE.forEach((h, i) => {
      // the same shape in both versions (copied), and a different one (left to the user)
      props[h] = {
        type: 'object',
        properties: { [h]: { type: v.name === 'v1' ? 'string' : 'integer' }, same: { type: 'string' } },
        ...(i % 2 === 0 ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
      };
    });
  }
  const r = readCrdInputs([{ file: 'hostile.yaml', content: stringify(crd) }]);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  assert.deepEqual(errors, []);
  const files = webhooks(
    r.model,
    createEmitContext({ sources: ['hostile.yaml'], controllers: ['DatabaseManager'], webhooks: true }),
  );
  const gen = files.find((f) => f.path.endsWith('conversion.generated.ts'))!.contents;
  // the hostile members are in the plan (as quoted keys), the shared one copied whole inside them
  assert.ok(gen.includes('"*/ pwned(); /*": {') && gen.includes('same: true'), gen.slice(0, 3000));
  for (const f of files)
    if (f.path.endsWith('.ts') && !f.path.endsWith('.test.ts')) assertNoInjection(f.path, f.contents);
  // the round-trip test's schemas too (its one top-level call aside)
  const t = files.find((f) => f.path.endsWith('conversion.test.ts'))!;
  assertNoInjection(t.path, t.contents.slice(0, t.contents.lastIndexOf('\ntest(')));
});
