// Conformance: real kubectl against `crdgen testenv`, in-process and `--real`. kubectl 1.20 is
// Debian's ($KUBECTL overrides it), the other is the control plane's own (npm test's set-up
// provides both; test/support/assets.ts). Each run uses a fresh HOME and --cache-dir.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlPlaneAssets, kubectl120, kubectlReal } from '../support/assets.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CRD = join(ROOT, 'test/testing/fixtures/databasemanager-crd.yaml');
const CONTROL_PLANE_VERSION = 'v1.37.1';

const DM = (name: string, replicas: number, app = name): string => `apiVersion: coolops.cn/v1alpha1
kind: DatabaseManager
metadata:
  name: ${name}
  labels:
    app: ${app}
spec:
  deploymentName: ${name}
  replicas: ${replicas}
  dbtype: mysql
`;

/**
 * The same kubectl flow against `crdgen testenv` (in-process, and `--real`: the real
 * kube-apiserver with kube-controller-manager, kube-scheduler and kwok), both with
 * --simulate-workloads, driven by Debian's kubectl 1.20 and by kubectl of the server's version.
 */
function kubectlFlow(label: string, kubectl: string, testenvArgs: string[]): void {
  describe(`kubectl ${label}`, () => {
    let dir: string;
    let kubeconfig: string;
    let child: ChildProcess | undefined;
    let exited: Promise<number | null>;

    const run = (args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        const p = execFile(
          kubectl,
          [...args, `--cache-dir=${join(dir, 'cache')}`],
          { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 20000 },
          (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
        if (input !== undefined) p.stdin!.end(input);
      });

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'crdgen-kubectl-'));
      kubeconfig = join(dir, 'kubeconfig');
      child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(ROOT, 'test/conformance/testenv-main.ts'),
          'testenv',
          '--kubeconfig',
          kubeconfig,
          ...testenvArgs,
        ],
        {
          cwd: ROOT,
          env: { ...process.env, KUBEBUILDER_ASSETS: controlPlaneAssets() },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      exited = new Promise((r) => child!.on('exit', (code) => r(code)));
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`testenv did not start: ${out}`)), 180_000);
        child!.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('export KUBECONFIG=')) {
            clearTimeout(t);
            resolve();
          }
        });
        child!.stderr!.resume();
        child!.on('exit', () => {
          clearTimeout(t);
          reject(new Error(`testenv exited: ${out}`));
        });
      });
      assert.match(out, new RegExp(`export KUBECONFIG=${kubeconfig.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    });

    after(async () => {
      if (child && child.exitCode === null) child.kill('SIGTERM');
      if (child) await exited;
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('applies the DatabaseManager CRD and lists it with kubectl get crd', async () => {
      const a = await run(['apply', '-f', CRD]);
      assert.equal(a.code, 0, a.stderr);
      assert.match(a.stdout, /customresourcedefinition.apiextensions.k8s.io\/databasemanagers.coolops.cn created/);
      const g = await run(['get', 'crd']);
      assert.equal(g.code, 0, g.stderr);
      assert.match(g.stdout, /^NAME\s+SCOPE\s+VERSIONS\s+CREATED AT\n/);
      assert.match(g.stdout, /databasemanagers\.coolops\.cn\s+Namespaced\s+v1alpha1\(storage\)\s+\d{4}-\d\d-\d\dT/);
    });

    it('refuses a CRD with the `type: strin` typo with the apiserver message', async () => {
      // The seed CRD's typo (`type: strin`), under another name.
      const typo = join(dir, 'typo.yaml');
      writeFileSync(
        typo,
        `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: typos.coolops.cn}
spec:
  group: coolops.cn
  names: {kind: Typo, plural: typos, singular: typo}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              deploymentName: {type: strin}
`,
      );
      const a = await run(['apply', '-f', typo]);
      assert.notEqual(a.code, 0);
      assert.match(
        a.stderr,
        /The CustomResourceDefinition "typos.coolops.cn" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[deploymentName\]\.type: Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"/,
      );
    });

    it('applies a DatabaseManager and gets it by short name, as a table and as JSON', async () => {
      const a = await run(['apply', '-f', '-'], DM('demo', 2));
      assert.equal(a.code, 0, a.stderr);
      assert.match(a.stdout, /databasemanager.coolops.cn\/demo created/);
      const g = await run(['get', 'dm']);
      assert.equal(g.code, 0, g.stderr);
      assert.match(g.stdout, /^NAME\s+AGE\ndemo\s+\d+s\n$/);
      const j = await run(['get', 'dm', 'demo', '-o', 'json']);
      const obj = JSON.parse(j.stdout);
      assert.equal(obj.kind, 'DatabaseManager');
      assert.equal(obj.spec.replicas, 2);
      assert.equal(obj.metadata.generation, 1);
      assert.ok(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    });

    it('kubectl explain finds the CRD schema and a built-in (OpenAPI v2 for kubectl < 1.27, v3 after)', async () => {
      const dm = await run(['explain', 'dm.spec.replicas']);
      assert.equal(dm.code, 0, dm.stderr);
      assert.match(dm.stdout, /FIELD: +replicas <integer>/);
      assert.match(dm.stdout, /KIND: +DatabaseManager/);
      const dep = await run(['explain', 'deployments.spec.replicas']);
      assert.equal(dep.code, 0, dep.stderr);
      assert.match(dep.stdout, /Number of desired pods\./);
    });

    it('refuses replicas: 11 naming the field and the bound', async () => {
      const a = await run(['apply', '-f', '-'], DM('toobig', 11));
      assert.notEqual(a.code, 0);
      assert.match(
        a.stderr,
        /The DatabaseManager "toobig" is invalid: spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/,
      );
    });

    it('selects by label', async () => {
      assert.equal((await run(['apply', '-f', '-'], DM('other', 1, 'other'))).code, 0);
      const g = await run(['get', 'dm', '-l', 'app=demo', '-o', 'name']);
      assert.equal(g.stdout, 'databasemanager.coolops.cn/demo\n');
      const n = await run(['get', 'dm', '-l', 'app in (demo,other)', '-o', 'name']);
      assert.equal(n.stdout, 'databasemanager.coolops.cn/demo\ndatabasemanager.coolops.cn/other\n');
    });

    it('apply twice takes the update path; unchanged when nothing changed', async () => {
      const a = await run(['apply', '-f', '-'], DM('demo', 3));
      assert.equal(a.code, 0, a.stderr);
      assert.match(a.stdout, /databasemanager.coolops.cn\/demo configured/);
      const b = await run(['apply', '-f', '-'], DM('demo', 3));
      assert.match(b.stdout, /databasemanager.coolops.cn\/demo unchanged/);
      const j = JSON.parse((await run(['get', 'dm', 'demo', '-o', 'json'])).stdout);
      assert.equal(j.spec.replicas, 3);
      assert.equal(j.metadata.generation, 2);
    });

    it('server-side apply', async () => {
      // Taking over from client-side apply needs no --force-conflicts (the apiserver's upgrade path).
      const a = await run(['apply', '--server-side', '-f', '-'], DM('demo', 4));
      assert.equal(a.code, 0, a.stderr);
      assert.match(a.stdout, /databasemanager.coolops.cn\/demo serverside-applied/);
      const j = JSON.parse(
        (await run(['get', '--raw', '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers/demo'])).stdout,
      );
      assert.equal(j.spec.replicas, 4);
      assert.ok(
        j.metadata.managedFields.some(
          (m: { manager: string; operation: string }) => m.manager === 'kubectl' && m.operation === 'Apply',
        ),
      );
      const s = await run(['apply', '--server-side', '-f', '-'], DM('ssa-new', 1));
      assert.equal(s.code, 0, s.stderr);
    });

    it('kubectl get dm -w sees a change', async () => {
      const w = spawn(kubectl, ['get', 'dm', 'demo', '-w', `--cache-dir=${join(dir, 'cache')}`], {
        env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig },
      });
      let out = '';
      w.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const waitFor = (re: RegExp): Promise<void> =>
        new Promise((resolve, reject) => {
          const deadline = Date.now() + 10000;
          const tick = (): void => {
            if (re.test(out)) resolve();
            else if (Date.now() > deadline) reject(new Error(`kubectl -w output: ${out}`));
            else setTimeout(tick, 25);
          };
          tick();
        });
      try {
        await waitFor(/demo/);
        const lines = () => out.split('\n').filter((l) => l.startsWith('demo')).length;
        const first = lines();
        assert.equal((await run(['apply', '-f', '-'], DM('demo', 5))).code, 0);
        await waitFor(new RegExp(`(demo[^\\n]*\\n[^]*){${first + 1}}`));
        assert.ok(lines() > first);
      } finally {
        w.kill('SIGTERM');
        await new Promise((r) => w.on('exit', r));
      }
    });

    it('deletes with kubectl delete (which watches with a field selector until gone)', async () => {
      const d = await run(['delete', 'dm', 'demo']);
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stdout, /databasemanager.coolops.cn "demo" deleted/);
      const g = await run(['get', 'dm', 'demo']);
      assert.notEqual(g.code, 0);
      assert.match(g.stderr, /databasemanagers.coolops.cn "demo" not found/);
    });

    it('applies a Deployment (strategic merge patch on update) and scales it', async () => {
      const dep = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.25"}]
`;
      assert.equal((await run(['apply', '-f', '-'], dep)).code, 0);
      const u = await run(['apply', '-f', '-'], dep.replace('replicas: 1', 'replicas: 2'));
      assert.match(u.stdout, /deployment.apps\/web configured/);
      const s = await run(['scale', 'deployment', 'web', '--replicas=3']);
      assert.equal(s.code, 0, s.stderr);
      const j = JSON.parse((await run(['get', 'deploy', 'web', '-o', 'json'])).stdout);
      assert.equal(j.spec.replicas, 3);
      // the workloads (testenv's simulator, or the real controllers and kwok's pods) make it available
      const deadline = Date.now() + 90_000;
      let g = await run(['get', 'deploy']);
      while (!/web\s+3\/3\s+3\s+3\s+\d+s\n$/.test(g.stdout) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        g = await run(['get', 'deploy']);
      }
      assert.match(g.stdout, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+3\/3\s+3\s+3\s+\d+s\n$/);
    });

    it('imperative create of namespaces and configmaps (kubectl ≥ 1.30 sends protobuf)', async () => {
      const ns = await run(['create', 'namespace', 'team-a']);
      assert.equal(ns.code, 0, ns.stderr);
      const cm = await run(['create', 'configmap', 'settings', '-n', 'team-a', '--from-literal=mode=fast']);
      assert.equal(cm.code, 0, cm.stderr);
      const j = JSON.parse((await run(['get', 'configmap', 'settings', '-n', 'team-a', '-o', 'json'])).stdout);
      assert.deepEqual(j.data, { mode: 'fast' });
      const d = await run(['delete', 'namespace', 'team-a']);
      assert.equal(d.code, 0, d.stderr);
      assert.match(
        (await run(['get', 'configmap', '-n', 'team-a'])).stderr +
          (await run(['get', 'configmap', '-n', 'team-a'])).stdout,
        /No resources found/,
      );
    });

    it('deleting the CRD removes its objects and stops serving it', async () => {
      const d = await run(['delete', 'crd', 'databasemanagers.coolops.cn']);
      assert.equal(d.code, 0, d.stderr);
      const g = await run(['get', 'databasemanagers.coolops.cn']);
      assert.notEqual(g.code, 0);
    });

    it('testenv stops cleanly on SIGTERM', async () => {
      child!.kill('SIGTERM');
      assert.equal(await exited, 0);
    });
  });
}

kubectlFlow('1.20 against crdgen testenv', kubectl120(), ['--simulate-workloads', '-v']);
kubectlFlow('1.20 against crdgen testenv --real', kubectl120(), ['--real', '--simulate-workloads']);
kubectlFlow(`${CONTROL_PLANE_VERSION} against crdgen testenv`, kubectlReal(), ['--simulate-workloads', '-v']);
kubectlFlow(`${CONTROL_PLANE_VERSION} against crdgen testenv --real`, kubectlReal(), [
  '--real',
  '--simulate-workloads',
]);
