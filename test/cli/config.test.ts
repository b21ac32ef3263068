// crdgen generate/verify/validate driven by crdgen.config.yaml: discovery, several
// targets, flags over config, header file, config errors with positions; crdgen init.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, readTree } from '../golden/support.js';
import { run } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-cfgcli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function project(config: string): string {
  const dir = join(tmp, `p${n++}`);
  mkdirSync(join(dir, 'crds', 'coolops'), { recursive: true });
  mkdirSync(join(dir, 'crds', 'gateway'), { recursive: true });
  cpSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), join(dir, 'crds', 'coolops', 'dm.yaml'));
  cpSync(
    join(FIXTURES, 'gatewayclass', 'gateway.networking.k8s.io_gatewayclasses.yaml'),
    join(dir, 'crds', 'gateway', 'gc.yaml'),
  );
  writeFileSync(join(dir, 'crdgen.config.yaml'), config);
  return dir;
}

test('generate with no arguments runs every config target from a subfolder; verify agrees; paths in output are relative to the config', async () => {
  const dir = project(
    [
      'generators: [types, deepcopy, register]',
      'targets:',
      '  - { name: coolops, inputs: [crds/coolops], out: gen/coolops }',
      '  - { name: gateway, inputs: crds/gateway/gc.yaml, out: gen/gateway, generators: [types] }',
      '',
    ].join('\n'),
  );
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  const r = await run(['generate'], join(dir, 'src', 'deep'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    'coolops: generated 3 files for 1 kind in 1 group: 3 written\ngateway: generated 2 files for 1 kind in 1 group: 2 written\n',
  );
  assert.deepEqual(
    [...readTree(join(dir, 'gen', 'coolops')).keys()],
    [
      'apis/coolops.cn/v1alpha1/deepcopy.ts',
      'apis/coolops.cn/v1alpha1/register.ts',
      'apis/coolops.cn/v1alpha1/types.ts',
    ],
  );
  assert.deepEqual(
    [...readTree(join(dir, 'gen', 'gateway')).keys()],
    ['apis/gateway.networking.k8s.io/v1/types.ts', 'apis/gateway.networking.k8s.io/v1beta1/types.ts'],
  );
  assert.match(
    readFileSync(join(dir, 'gen/coolops/apis/coolops.cn/v1alpha1/types.ts'), 'utf8'),
    /^\/\/ Source: crds\/coolops\/dm\.yaml$/m,
  );
  // the same output whichever folder it runs from
  const v = await run(['verify'], dir);
  assert.equal(v.code, 0, v.stdout + v.stderr);
  assert.equal(v.stdout, 'verified 5 generated files: up to date\n');
  assert.equal((await run(['validate'], join(dir, 'crds'))).code, 0);
});

test("flags override the config; inputs on the command line are added to its target's", async () => {
  const dir = project('inputs: crds/coolops\nout: gen\ngenerators: [types]\nruntimeImport: "@acme/runtime"\n');
  const r = await run(['generate', '--generators', 'types,register', '--out', 'other'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!existsSync(join(dir, 'gen')));
  assert.deepEqual(
    [...readTree(join(dir, 'other')).keys()],
    ['apis/coolops.cn/v1alpha1/register.ts', 'apis/coolops.cn/v1alpha1/types.ts'],
  );
  assert.match(readFileSync(join(dir, 'other/apis/coolops.cn/v1alpha1/types.ts'), 'utf8'), /from "@acme\/runtime"/);
  const r2 = await run(
    ['generate', '--runtime-import', 'crdgen/runtime', '--config', 'crdgen.config.yaml', 'crds/gateway/gc.yaml'],
    dir,
  );
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(
    [...readTree(join(dir, 'gen')).keys()],
    [
      'apis/coolops.cn/v1alpha1/types.ts',
      'apis/gateway.networking.k8s.io/v1/types.ts',
      'apis/gateway.networking.k8s.io/v1beta1/types.ts',
    ],
  );
  assert.match(
    readFileSync(join(dir, 'gen/apis/gateway.networking.k8s.io/v1/types.ts'), 'utf8'),
    /from "crdgen\/runtime"/,
  );
});

test('config client options and controllers reach the generators; kinds not in the input are usage errors', async () => {
  const dir = project(
    'inputs: crds/coolops\nout: gen\ncontrollers: [DatabaseManager]\nkinds:\n  DatabaseManager: { skipVerbs: [deleteCollection] }\n',
  );
  const r = await run(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const client = readFileSync(join(dir, 'gen/clientset/typed/coolops.cn/v1alpha1/databasemanager.ts'), 'utf8');
  assert.match(client, /\blist\(/);
  assert.doesNotMatch(client, /deleteCollection\(/);
  assert.ok(existsSync(join(dir, 'gen/controllers/databasemanager/controller.ts')));
  writeFileSync(
    join(dir, 'crdgen.config.yaml'),
    'inputs: crds/coolops\nout: gen\nkinds:\n  Nope: { readonly: true }\n',
  );
  const bad = await run(['verify'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /client options name kind "Nope"/);
});

test('owns in the config and --owns on the command line: the builder owns the kinds, RBAC grants them; an unknown kind is a usage error', async () => {
  const dir = project('inputs: crds/coolops\nout: gen\ncontrollers: [DatabaseManager]\nowns: [v1/ConfigMap]\n');
  const r = await run(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const ctl = readFileSync(join(dir, 'gen/controllers/databasemanager/controller.ts'), 'utf8');
  // the worked example's Deployment and Service (its metadata only: the starter reads no more of it), and what
  // the config adds
  assert.match(
    ctl,
    /\.owns\(DeploymentResource\)\n {4}\.owns\(ServiceResource, \{ metadataOnly: true \}\)\n {4}\.owns\(ConfigMapResource\)/,
  );
  assert.match(
    readFileSync(join(dir, 'gen/controllers/databasemanager/config/rbac/role.yaml'), 'utf8'),
    /resources: \[configmaps\]\n {4}verbs: \[get, list, watch, create, update, patch, delete\]/,
  );
  const flag = await run(['generate', '--owns', 'v1/Secret,batch/v1/Job'], dir);
  assert.equal(flag.code, 0, flag.stderr);
  const ctl2 = readFileSync(join(dir, 'gen/controllers/databasemanager/controller.ts'), 'utf8');
  assert.match(ctl2, /\.owns\(SecretResource\)\n {4}\.owns\(JobResource\)/);
  assert.doesNotMatch(ctl2, /ConfigMapResource/, 'the flag replaces the config');
  const bad = await run(['generate', '--owns', 'apps/v1/Deploymnet'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--owns apps\/v1\/Deploymnet: no such kind; built in: .*apps\/v1\/Deployment/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
});

test('starter in the config and --starter on the command line pick what writes reconcile.ts; an unknown one is a usage error', async () => {
  const dir = project('inputs: crds/coolops\nout: gen\ncontrollers: [DatabaseManager]\nstarter: generic\n');
  const r = await run(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const reconcile = join(dir, 'gen/controllers/databasemanager/reconcile.ts');
  assert.match(readFileSync(reconcile, 'utf8'), /export const stubHooks = true;/, 'the generic hooks, by name');
  assert.match(r.stderr, /warning GEN005/);
  rmSync(reconcile);
  const flag = await run(['generate', '--starter', 'databasemanager'], dir);
  assert.equal(flag.code, 0, flag.stderr);
  assert.match(readFileSync(reconcile, 'utf8'), /export const DATABASES/, 'the flag replaces the config');
  const bad = await run(['generate', '--starter', 'nope'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--starter nope: no such starter; known: databasemanager, generic/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
});

test("image.base in the config picks the operator image's base; a bad one is a positioned config error", async () => {
  const dir = project('inputs: crds/coolops\nout: gen\ncontrollers: [DatabaseManager]\nimage: { base: distroless }\n');
  const r = await run(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const dockerfile = join(dir, 'gen/controllers/databasemanager/Dockerfile');
  assert.match(readFileSync(dockerfile, 'utf8'), /^FROM gcr\.io\/distroless\/nodejs22-debian12:nonroot$/m);
  assert.match(readFileSync(dockerfile, 'utf8'), /^ENTRYPOINT \["\/nodejs\/bin\/node", /m);
  writeFileSync(
    join(dir, 'crdgen.config.yaml'),
    'inputs: crds/coolops\nout: gen2\ncontrollers: [DatabaseManager]\nimage: { base: "node:22 AS x" }\n',
  );
  const bad = await run(['generate'], dir);
  assert.equal(bad.code, 1);
  assert.match(
    bad.stderr,
    /^crdgen\.config\.yaml:4:16 error CFG003 image\.base: "node:22 AS x" is not node22-alpine, distroless nor an image reference\n {2}hint: /,
  );
  assert.ok(!existsSync(join(dir, 'gen2')));
});

test('config errors are printed with positions and nothing is written', async () => {
  const dir = project('inputs: crds/coolops\nout: gen\ngenerators: [types, listerz]\n');
  const r = await run(['generate'], dir);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^crdgen\.config\.yaml:3:21 error CFG003 generators\[1\]: "listerz" is not one of .*\n {2}hint: did you mean "listers"\?\n/,
  );
  assert.match(r.stderr, /1 error; nothing was written\n$/);
  assert.ok(!existsSync(join(dir, 'gen')));
  const sub = join(dir, 'sub');
  mkdirSync(sub);
  const shown = await run(['validate', '--config', '../crdgen.config.yaml'], sub);
  assert.equal(shown.code, 1);
  assert.match(shown.stderr, /^\S*\/crdgen\.config\.yaml:3:21 error CFG003 /);
});

test('usage errors: no inputs and no config; --out with several targets; nested outs; --config file missing', async () => {
  const empty = join(tmp, 'empty');
  mkdirSync(empty);
  const none = await run(['generate'], empty);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /no inputs: .*crdgen init/);
  const dir = project('targets:\n  - { inputs: crds/coolops, out: gen }\n  - { inputs: crds/gateway, out: gen/gw }\n');
  const nested = await run(['generate'], dir);
  assert.equal(nested.code, 2);
  assert.match(nested.stderr, /write to the same or nested folders/);
  const out = await run(['generate', '--out', 'x'], dir);
  assert.equal(out.code, 2);
  assert.match(out.stderr, /--out cannot apply to 2 config targets/);
  const missing = await run(['generate', '--config', 'nope.yaml'], dir);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^nope\.yaml error CFG001 cannot read config: ENOENT/);
});

test('--header-file puts a licence above the generated header; verify and stale removal still know the files', async () => {
  const dir = project(
    'inputs: crds/coolops\nout: gen\ngenerators: [types, register]\nheaderFile: hack/boilerplate.txt\n',
  );
  mkdirSync(join(dir, 'hack'));
  writeFileSync(
    join(dir, 'hack/boilerplate.txt'),
    '/*\nCopyright 2026 The Authors.\n\nLicensed under the Apache License, Version 2.0.\n*/\n\n',
  );
  assert.equal((await run(['generate'], dir)).code, 0);
  const types = readFileSync(join(dir, 'gen/apis/coolops.cn/v1alpha1/types.ts'), 'utf8');
  assert.match(
    types,
    /^\/\*\nCopyright 2026 The Authors\.\n\nLicensed under the Apache License, Version 2\.0\.\n\*\/\n\n\/\/ Code generated by crdgen\. DO NOT EDIT\.\n/,
  );
  assert.equal((await run(['verify'], dir)).code, 0);
  // a types file of a version the CRD no longer has: the licence above the header does not hide it
  mkdirSync(join(dir, 'gen/apis/coolops.cn/v1alpha0'));
  writeFileSync(join(dir, 'gen/apis/coolops.cn/v1alpha0/types.ts'), types);
  const stale = await run(['verify'], dir);
  assert.equal(stale.code, 1);
  assert.match(stale.stdout, /stale .*\n {2}gen\/apis\/coolops\.cn\/v1alpha0\/types\.ts\n/);
  assert.equal((await run(['generate'], dir)).code, 0);
  assert.ok(!existsSync(join(dir, 'gen/apis/coolops.cn/v1alpha0')), 'removed, and its folder with it');
  writeFileSync(join(dir, 'hack/boilerplate.txt'), 'Copyright 2026, not a comment\n');
  const bad = await run(['generate'], dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /the header file must contain only \/\/ or \/\* \*\/ comments/);
});

test('crdgen init writes a starter config (and with --example the CRD) that generate and verify accept; refuses to overwrite', async () => {
  const dir = join(tmp, 'init');
  mkdirSync(dir);
  const r = await run(['init', '--example', '--no-project'], dir); // the project files: test/unit/cli/init.test.ts
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    'wrote crdgen.config.yaml\nwrote crds/databasemanager.yaml\nnext: npm install crdgen\nnext: npm install --save-dev typescript @types/node\nnext: npx crdgen generate (and npx crdgen verify in CI), then npm run build\n',
  );
  assert.equal(
    readFileSync(join(dir, 'crds/databasemanager.yaml'), 'utf8'),
    readFileSync(join(FIXTURES, 'databasemanager', 'crd.yaml'), 'utf8'),
  );
  const g = await run(['generate'], dir);
  assert.equal(g.code, 0, g.stderr);
  assert.ok(existsSync(join(dir, 'src/generated/controllers/databasemanager/reconcile.ts')));
  assert.equal((await run(['verify'], dir)).code, 0);
  const again = await run(['init', '--no-project'], dir);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /crdgen\.config\.yaml already exist/);
  assert.equal((await run(['init', '--force', '--no-project'], dir)).code, 0);
  assert.doesNotMatch(readFileSync(join(dir, 'crdgen.config.yaml'), 'utf8'), /^controllers:/m);
});
