// Inputs on the command line and a config found walking up: the config target writing to the run's
// out folder runs with them added to its inputs (its settings apply, nothing it generates is
// removed), a folder nested in or around a target's is refused, an operator removed from
// `controllers:` is announced before it goes, the user's files it leaves are listed with what to
// do, and the summary says what was written.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, readTree } from '../golden/support.js';
import { run } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'crdgen-inputs-config-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** A project as `crdgen init --example` makes it, generated once. */
async function initProject(): Promise<string> {
  const dir = join(tmp, `p${n++}`);
  mkdirSync(dir);
  assert.equal((await run(['init', '--example', '--no-project'], dir)).code, 0);
  const g = await run(['generate'], dir);
  assert.equal(g.code, 0, g.stderr);
  return dir;
}

/** The generated files of config/ (kustomize bases) after the user's default/kustomization.yaml. */
const CONFIG = [
  'config/crd/databasemanagers.coolops.cn.yaml',
  'config/crd/kustomization.yaml',
  'config/default/metrics_service.yaml',
  'config/manager/kustomization.yaml',
  'config/manager/manager.yaml',
  'config/network-policy/allow-metrics-traffic.yaml',
  'config/network-policy/kustomization.yaml',
  'config/prometheus/kustomization.yaml',
  'config/prometheus/monitor.yaml',
  'config/rbac/databasemanager_admin_role.yaml',
  'config/rbac/databasemanager_editor_role.yaml',
  'config/rbac/databasemanager_viewer_role.yaml',
  'config/rbac/kustomization.yaml',
  'config/rbac/metrics_auth_role.yaml',
  'config/rbac/metrics_reader_role.yaml',
  'config/rbac/role.yaml',
];

const OPERATOR = [
  'Dockerfile',
  'config/default/kustomization.yaml',
  ...CONFIG,
  'controller.ts',
  'main.ts',
  'reconcile.test.ts',
  'reconcile.ts',
];

test("a CRD path on the command line in an init project: the config's target runs with it, the operator stays, nothing is removed", async () => {
  const dir = await initProject();
  const before = readTree(join(dir, 'src/generated'));
  for (const f of OPERATOR) assert.ok(before.has(`controllers/databasemanager/${f}`), f);
  const r = await run(['generate', 'crds/databasemanager.yaml', '--out', 'src/generated'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    `crdgen.config.yaml: its target for src/generated runs, with the inputs named on the command line added to its own\ngenerated ${before.size} files for 1 kind in 1 group: ${before.size} unchanged\n`,
  );
  assert.deepEqual(readTree(join(dir, 'src/generated')), before, 'every file as it was: the operator too');
  // without --out: the config's only target gives the folder as well
  const noOut = await run(['generate', 'crds/databasemanager.yaml'], dir);
  assert.equal(noOut.code, 0, noOut.stderr);
  assert.deepEqual(readTree(join(dir, 'src/generated')), before);
  // from a subfolder: the config is found walking up; the output is the same (paths relative to the config)
  const sub = await run(['generate', 'databasemanager.yaml', '--out', '../src/generated'], join(dir, 'crds'));
  assert.equal(sub.code, 0, sub.stderr);
  assert.match(sub.stdout, /^\S+\/crdgen\.config\.yaml: its target for \S+\/src\/generated runs/);
  assert.match(sub.stdout, / 36 unchanged\n$/);
  assert.deepEqual(readTree(join(dir, 'src/generated')), before);
});

test("a command-line run keeps what the config's other inputs generate; a CRD outside them is added; a config run removes what no input makes", async () => {
  const dir = await initProject();
  cpSync(
    join(FIXTURES, 'gatewayclass', 'gateway.networking.k8s.io_gatewayclasses.yaml'),
    join(dir, 'crds', 'gatewayclasses.yaml'),
  );
  assert.equal((await run(['generate'], dir)).code, 0);
  const both = readTree(join(dir, 'src/generated'));
  assert.ok(both.has('apis/gateway.networking.k8s.io/v1/types.ts'));
  // naming one CRD, or a CRD whose kind the config's controllers do not name: the whole target, as it was
  for (const crd of ['crds/databasemanager.yaml', 'crds/gatewayclasses.yaml']) {
    const one = await run(['generate', crd], dir);
    assert.equal(one.code, 0, one.stderr);
    // (the groups without an operator from generate's cache)
    assert.match(one.stdout, new RegExp(`: ${both.size} unchanged \\(\\d+ from the cache\\)\n$`));
    assert.deepEqual(readTree(join(dir, 'src/generated')), both, crd);
    assert.equal((await run(['verify', crd], dir)).code, 0);
  }
  // a CRD outside the config's inputs: generated with them; the next run without inputs removes it again
  mkdirSync(join(dir, 'more'));
  cpSync(join(FIXTURES, 'v1beta1', 'crd.yaml'), join(dir, 'more', 'foo.yaml'));
  const added = await run(['generate', 'more/foo.yaml'], dir);
  assert.equal(added.code, 0, added.stderr);
  assert.match(
    added.stdout,
    /generated \d+ files for 3 kinds in 3 groups: \d+ written, \d+ unchanged \(\d+ from the cache\)\n$/,
  );
  assert.ok(existsSync(join(dir, 'src/generated/apis/samplecontroller.example.com/v1alpha1/types.ts')));
  const full = await run(['generate'], dir);
  assert.equal(full.code, 0, full.stderr);
  assert.match(full.stdout, /; removed \d+ stale generated files\n$/);
  assert.deepEqual(readTree(join(dir, 'src/generated')), both);
});

test('--out that no config target writes to: only the command line applies, and the run says so; nested folders are refused; a config of several targets needs --out', async () => {
  const dir = await initProject();
  const r = await run(['generate', 'crds/databasemanager.yaml', '--out', 'elsewhere'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^crdgen\.config\.yaml: none of its targets writes to elsewhere, so only the command line applies\ngenerated 14 files/,
  );
  assert.ok(!existsSync(join(dir, 'elsewhere/controllers')), 'no operator: no --controller');
  const before = readTree(join(dir, 'src/generated'));
  for (const out of ['src', 'src/generated/extra']) {
    const nested = await run(['generate', 'crds/databasemanager.yaml', '--out', out], dir);
    assert.equal(nested.code, 2, out);
    assert.match(
      nested.stderr,
      /^crdgen: --out \S+ and src\/generated, where crdgen\.config\.yaml writes, are nested: each run would remove the other's files as stale; use --out src\/generated \(its target runs, with these inputs added\) or a folder outside it\n$/,
    );
  }
  assert.deepEqual(readTree(join(dir, 'src/generated')), before, 'nothing removed');
  writeFileSync(
    join(dir, 'crdgen.config.yaml'),
    'targets:\n  - { inputs: crds/, out: src/a }\n  - { inputs: crds/, out: src/b, controllers: [DatabaseManager] }\n',
  );
  const noOut = await run(['generate', 'crds/databasemanager.yaml'], dir);
  assert.equal(noOut.code, 2);
  assert.match(noOut.stderr, /inputs on the command line need --out: crdgen\.config\.yaml has 2 targets/);
  const b = await run(['generate', 'crds/databasemanager.yaml', '--out', 'src/b'], dir);
  assert.equal(b.code, 0, b.stderr);
  assert.ok(existsSync(join(dir, 'src/b/controllers/databasemanager/controller.ts')), "target b's settings");
});

test('a kind removed from controllers: its operator is announced before it goes, reconcile.ts is listed with what to do', async () => {
  const dir = await initProject();
  const reconcile = join(dir, 'src/generated/controllers/databasemanager/reconcile.ts');
  const mine = readFileSync(reconcile, 'utf8');
  // a file of the user's elsewhere under --out that imports the generated controller
  writeFileSync(
    join(dir, 'src/generated/wiring.ts'),
    "import { setupDatabaseManagerController } from './controllers/databasemanager/controller.js';\nexport const s = setupDatabaseManagerController;\n",
  );
  const config = readFileSync(join(dir, 'crdgen.config.yaml'), 'utf8');
  writeFileSync(join(dir, 'crdgen.config.yaml'), config.replace(/^controllers:\n {2}- DatabaseManager\n/m, ''));
  const r = await run(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    [
      `src/generated/controllers/databasemanager/ warning GEN007 removing the generated operator (19 files: Dockerfile, ${CONFIG.join(', ')}, controller.ts, main.ts): its kind is no longer under controllers: in crdgen.config.yaml`,
      '  hint: name the kind under controllers: in crdgen.config.yaml again to keep its operator',
      'src/generated/controllers/databasemanager/config/default/kustomization.yaml warning GEN008 this file is yours and stays: the generated operator around it is removed',
      '  hint: delete it (and src/generated/controllers/databasemanager/) if the kind needs no operator, or name the kind under controllers: in crdgen.config.yaml again to keep its operator',
      'src/generated/controllers/databasemanager/reconcile.test.ts warning GEN008 this file is yours and stays: it imports ./controller.js, which this run removes, so the project no longer compiles with it',
      '  hint: delete it (and src/generated/controllers/databasemanager/) if the kind needs no operator, or name the kind under controllers: in crdgen.config.yaml again to keep its operator',
      'src/generated/controllers/databasemanager/reconcile.ts warning GEN008 this file is yours and stays: it imports ./controller.js, which this run removes, so the project no longer compiles with it',
      '  hint: delete it (and src/generated/controllers/databasemanager/) if the kind needs no operator, or name the kind under controllers: in crdgen.config.yaml again to keep its operator',
      'src/generated/wiring.ts warning GEN008 this file is yours and stays: it imports ./controllers/databasemanager/controller.js, which this run removes, so the project no longer compiles with it',
      '  hint: change or delete it, or name the kind under controllers: in crdgen.config.yaml again to keep its operator',
      '',
    ].join('\n'),
  );
  assert.match(
    r.stdout,
    /^generated 14 files for 1 kind in 1 group: 14 unchanged; removed 19 stale generated files\n$/,
  );
  assert.equal(readFileSync(reconcile, 'utf8'), mine, 'the user-owned file is never touched');
  for (const f of OPERATOR.filter(
    (f) => !['reconcile.ts', 'reconcile.test.ts', 'config/default/kustomization.yaml'].includes(f),
  ))
    assert.ok(!existsSync(join(dir, 'src/generated/controllers/databasemanager', f)), f);
  // the kind back under controllers: the operator is generated again around the user's file
  writeFileSync(join(dir, 'crdgen.config.yaml'), config);
  const back = await run(['generate'], dir);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(back.stdout, 'generated 36 files for 1 kind in 1 group: 19 written, 17 unchanged\n');
  assert.equal(readFileSync(reconcile, 'utf8'), mine);
});

test('a project of the flat config/ layout regenerated: the old manifests go, the user-owned kustomization.yaml and reconcile.test.ts stay byte for byte, each named with where things moved', async () => {
  const dir = await initProject();
  const op = join(dir, 'src/generated/controllers/databasemanager');
  const header = '# Code generated by crdgen. DO NOT EDIT.\n# Source: crds/databasemanager.yaml\n';
  // what crdgen wrote before config/ became kustomize bases: four generated manifests and the user's kustomization
  const flat: Record<string, string> = {
    'config/crd.yaml': readFileSync(join(op, 'config/crd/databasemanagers.coolops.cn.yaml'), 'utf8'),
    'config/rbac.yaml': readFileSync(join(op, 'config/rbac/role.yaml'), 'utf8'),
    'config/manager.yaml': readFileSync(join(op, 'config/manager/manager.yaml'), 'utf8'),
    'config/metrics.yaml': `${header}apiVersion: v1\nkind: Service\nmetadata:\n  name: databasemanager-operator-metrics\n`,
  };
  rmSync(join(op, 'config'), { recursive: true });
  mkdirSync(join(op, 'config'));
  for (const [p, text] of Object.entries(flat)) writeFileSync(join(op, p), text);
  const kustomization =
    'resources:\n  - crd.yaml\n  - rbac.yaml\n  - manager.yaml\n  - metrics.yaml\nimages:\n  - name: databasemanager-operator\n    newName: registry.example/dm\n    newTag: v1.2.3\n';
  writeFileSync(join(op, 'config/kustomization.yaml'), kustomization);
  // the user's reconcile.test.ts as the flat layout wrote it: it reads ./config/crd.yaml
  const testFile = join(op, 'reconcile.test.ts');
  const test = readFileSync(testFile, 'utf8')
    .replace(/^const CRD_BESIDE = .*\n/m, '')
    .replace(/config\/crd\/databasemanagers\.coolops\.cn\.yaml/g, 'config/crd.yaml')
    .replace('new URL(CRD_BESIDE, import.meta.url)', 'new URL("./config/crd.yaml", import.meta.url)');
  writeFileSync(testFile, test);
  const r = await run(['generate'], dir);
  assert.equal(r.code, 0, r.stderr);
  const show = 'src/generated/controllers/databasemanager';
  const moved = "the operator's manifests are kustomize bases now (config/crd/, rbac/, manager/, …)";
  assert.equal(
    r.stderr,
    [
      `${show}/config/kustomization.yaml warning GEN008 this file is yours and stays: it names crd.yaml, manager.yaml, metrics.yaml and rbac.yaml, which this run removes`,
      `  hint: ${moved} and ${show}/config/default/ builds them all (crdgen manifests): carry your changes (images, patches, resources) over to ${show}/config/default/kustomization.yaml, then delete this file`,
      `${show}/reconcile.test.ts warning GEN008 this file is yours and stays: it names config/crd.yaml, which this run removes`,
      `  hint: ${moved}: the CRD is ${show}/config/crd/databasemanagers.coolops.cn.yaml now; change the path in this file`,
      '',
    ].join('\n'),
  );
  assert.match(r.stdout, /; removed 4 stale generated files\n$/);
  // nothing of the user's is lost; the old generated manifests are gone, the new layout is there
  assert.equal(readFileSync(join(op, 'config/kustomization.yaml'), 'utf8'), kustomization);
  assert.equal(readFileSync(testFile, 'utf8'), test);
  for (const p of Object.keys(flat)) assert.ok(!existsSync(join(op, p)), p);
  for (const p of ['config/default/kustomization.yaml', ...CONFIG]) assert.ok(existsSync(join(op, p)), p);
  // the same again: nothing to remove, so nothing more is said
  const again = await run(['generate'], dir);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stderr, '');
});

test('without a config the command line says which kinds get an operator; the message names --controller', async () => {
  const dir = join(tmp, `p${n++}`);
  mkdirSync(dir);
  const crd = join(FIXTURES, 'databasemanager', 'crd.yaml');
  assert.equal((await run(['generate', crd, '--out', 'gen', '--controller', 'DatabaseManager'], dir)).code, 0);
  const r = await run(['generate', crd, '--out', 'gen'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /^gen\/controllers\/databasemanager\/ warning GEN007 removing the generated operator \(19 files: .*\): no --controller names its kind\n {2}hint: give --controller <Kind> again to keep its operator\n/,
  );
  assert.match(r.stderr, /^gen\/controllers\/databasemanager\/reconcile\.ts warning GEN008 /m);
  // --no-clean removes nothing, and says nothing
  assert.equal((await run(['generate', crd, '--out', 'gen2', '--controller', 'DatabaseManager'], dir)).code, 0);
  const kept = await run(['generate', crd, '--out', 'gen2', '--no-clean'], dir);
  assert.equal(kept.stderr, '');
  assert.ok(existsSync(join(dir, 'gen2/controllers/databasemanager/controller.ts')));
});

test('the summary says what was written and what was left as it was', async () => {
  const dir = await initProject();
  const types = join(dir, 'src/generated/apis/coolops.cn/v1alpha1/types.ts');
  writeFileSync(types, `${readFileSync(types, 'utf8')}// edited\n`);
  const r = await run(['generate'], dir);
  assert.equal(r.stdout, 'generated 36 files for 1 kind in 1 group: 1 written, 35 unchanged\n');
  assert.equal((await run(['generate'], dir)).stdout, 'generated 36 files for 1 kind in 1 group: 36 unchanged\n');
});
