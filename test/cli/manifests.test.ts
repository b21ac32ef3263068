// `crdgen manifests`: the operator's default overlay built by the real kubectl (the control plane's,
// from the test set-up) into one install.yaml, written whole or not at all; a missing kubectl, a
// folder without an overlay and a broken overlay are clear errors with a non-zero exit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { FIXTURES } from '../golden/support.js';
import { controlPlaneAssets } from '../support/assets.js';
import { run } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'crdgen-manifests-'));
const OP = 'gen/controllers/databasemanager';
let assets: string;
let kubectl: string;
before(async () => {
  assets = controlPlaneAssets();
  kubectl = join(assets, 'kubectl');
  const crd = join(FIXTURES, 'databasemanager', 'crd.yaml');
  const g = await run(['generate', crd, '--out', 'gen', '--controller', 'DatabaseManager'], dir);
  assert.equal(g.code, 0, g.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const kinds = (text: string): string[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string } })
    .map((o) => `${o.kind}/${o.metadata.name}`)
    .sort();

test('kubectl from PATH builds config/default into dist/install.yaml; -o - writes it to standard output', async () => {
  const r = await run(['manifests', OP], dir, { env: { PATH: assets } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(
    r.stdout,
    `wrote dist/install.yaml: 15 objects from ${OP}/config/default\nInstall it with: kubectl apply --server-side -f dist/install.yaml\n`,
  );
  const written = readFileSync(join(dir, 'dist/install.yaml'), 'utf8');
  assert.deepEqual(kinds(written), [
    'ClusterRole/databasemanager-admin-role',
    'ClusterRole/databasemanager-editor-role',
    'ClusterRole/databasemanager-operator',
    'ClusterRole/databasemanager-operator-metrics-auth',
    'ClusterRole/databasemanager-operator-metrics-reader',
    'ClusterRole/databasemanager-viewer-role',
    'ClusterRoleBinding/databasemanager-operator',
    'ClusterRoleBinding/databasemanager-operator-metrics-auth',
    'CustomResourceDefinition/databasemanagers.coolops.cn',
    'Deployment/databasemanager-operator',
    'Namespace/databasemanager-system',
    'Role/databasemanager-operator-leader-election',
    'RoleBinding/databasemanager-operator-leader-election',
    'Service/databasemanager-operator-metrics',
    'ServiceAccount/databasemanager-operator',
  ]);
  const out = await run(['manifests', OP, '-o', '-', '--kubectl', kubectl], dir);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stdout, written);
});

test('no kubectl: exit 2 with a hint, nothing written', async () => {
  const r = await run(['manifests', OP, '-o', 'none/install.yaml'], dir, { env: { PATH: join(dir, 'empty') } });
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'crdgen: kubectl not found on PATH\n  hint: install kubectl (its `kubectl kustomize` builds the overlay; any release since 1.14) or give its path with --kubectl <path>\n',
  );
  const given = await run(['manifests', OP, '-o', 'none/install.yaml', '--kubectl', 'bin/kubectl'], dir);
  assert.equal(given.code, 2);
  assert.match(given.stderr, /^crdgen: --kubectl bin\/kubectl: not an executable file\n {2}hint: /);
  assert.ok(!existsSync(join(dir, 'none')));
});

test('a folder without an overlay: exit 2 naming what is missing', async () => {
  const r = await run(['manifests', 'gen', '--kubectl', kubectl], dir);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /^crdgen: gen: no kustomize overlay \(config\/default\/kustomization\.yaml\) there\n {2}hint: give an operator's folder, controllers\/<kind> under generate's --out; /,
  );
});

test('a broken overlay: exit 1 with kubectl’s message; the install.yaml already there is left as it was', async () => {
  const target = join(dir, 'keep', 'install.yaml');
  const first = await run(['manifests', OP, '-o', 'keep/install.yaml', '--kubectl', kubectl], dir);
  assert.equal(first.code, 0, first.stderr);
  const before = readFileSync(target, 'utf8');
  const overlay = join(dir, OP, 'config/default/kustomization.yaml');
  const mine = readFileSync(overlay, 'utf8');
  try {
    appendFileSync(overlay, 'patches:\n  - path: missing-patch.yaml\n');
    const r = await run(['manifests', OP, '-o', 'keep/install.yaml', '--kubectl', kubectl], dir);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^crdgen: kubectl kustomize gen\/controllers\/databasemanager\/config\/default failed: [\s\S]*missing-patch\.yaml/,
    );
    assert.match(r.stderr, /nothing was written\n$/);
    assert.equal(r.stdout, '');
  } finally {
    writeFileSync(overlay, mine);
  }
  assert.equal(readFileSync(target, 'utf8'), before);
  assert.deepEqual(readdirSync(join(dir, 'keep')), ['install.yaml'], 'no temp file left');
});

test("docs/operator.md's sizing patch raises the Deployment's memory limit and V8's heap together, keeping its other env", async () => {
  const doc = readFileSync(join(FIXTURES, '..', 'docs', 'operator.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Footprint and sizing'));
  const patch = /```yaml\n([\s\S]*?)```/.exec(section)![1];
  const overlay = join(dir, OP, 'config/default/kustomization.yaml');
  const mine = readFileSync(overlay, 'utf8');
  const deployment = (text: string) =>
    parseAllDocuments(text)
      .map((d) => d.toJS() as { kind: string; spec: { template: { spec: { containers: Container[] } } } })
      .find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0];
  interface Container {
    env: { name: string; value?: string }[];
    resources: { limits: Record<string, string>; requests: Record<string, string> };
  }
  const plain = await run(['manifests', OP, '-o', '-', '--kubectl', kubectl], dir);
  assert.equal(plain.code, 0, plain.stderr);
  try {
    appendFileSync(overlay, patch);
    const r = await run(['manifests', OP, '-o', '-', '--kubectl', kubectl], dir);
    assert.equal(r.code, 0, r.stderr);
    const before = deployment(plain.stdout);
    const after = deployment(r.stdout);
    assert.equal(before.resources.limits.memory, '128Mi');
    assert.equal(after.resources.limits.memory, '2Gi');
    assert.equal(after.resources.limits.cpu, before.resources.limits.cpu);
    const env = (c: Container) => Object.fromEntries(c.env.map((e) => [e.name, e.value ?? '(from a field)']));
    assert.deepEqual(env(before), { NODE_OPTIONS: '--max-old-space-size=80', POD_NAMESPACE: '(from a field)' });
    assert.deepEqual(env(after), { NODE_OPTIONS: '--max-old-space-size=1600', POD_NAMESPACE: '(from a field)' });
  } finally {
    writeFileSync(overlay, mine);
  }
});
