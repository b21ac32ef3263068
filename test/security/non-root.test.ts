// The operator image runs as non-root, checked without Docker: the generated Dockerfile's final
// stage sets a numeric non-root USER; the Deployment sets runAsNonRoot, readOnlyRootFilesystem
// and allowPrivilegeEscalation false; and the operator process, run as that uid (when the test
// runs as root; otherwise as the current user with its folder made read-only), starts, reconciles,
// and writes nothing into its own folder.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import YAML from 'yaml';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  type Deployment,
  type KubeObject,
} from '../../src/runtime/index.js';
import { DM_CRD, generateOperator, waitFor } from '../e2e/support.js';

let gen: ReturnType<typeof generateOperator>;
let opDir: string;

before(() => {
  gen = generateOperator();
  opDir = join(gen.dir, 'controllers', 'databasemanager');
});
after(() => {
  // undo the read-only mode so the cleanup can remove the folder
  if (gen) walk(gen.dir, (p, st) => chmodSync(p, st.isDirectory() ? 0o755 : 0o644));
  gen?.cleanup();
});

function walk(dir: string, f: (path: string, st: Stats) => void): void {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    const st = statSync(p);
    f(p, st);
    if (st.isDirectory()) walk(p, f);
  }
}

/** path → size and mtime of every file and folder under `dir`. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  walk(dir, (p, st) => (out[relative(dir, p)] = `${st.isDirectory() ? 'd' : st.size}:${st.mtimeMs}`));
  return out;
}

/** The Dockerfile's stages: FROM line and instructions, continuation lines joined. */
function stages(dockerfile: string): Array<{ from: string; lines: string[] }> {
  const out: Array<{ from: string; lines: string[] }> = [];
  const logical = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const l of logical) {
    if (/^FROM\s/i.test(l)) out.push({ from: l, lines: [] });
    else out.at(-1)?.lines.push(l);
  }
  return out;
}

test('Dockerfile: the final stage runs as a numeric non-root USER, set after every RUN', () => {
  const all = stages(readFileSync(join(opDir, 'Dockerfile'), 'utf8'));
  assert.ok(all.length >= 1);
  const final = all.at(-1)!;
  const users = final.lines.map((l, i) => ({ l, i })).filter(({ l }) => /^USER\s/i.test(l));
  assert.ok(users.length >= 1, `the final stage (${final.from}) sets USER`);
  const last = users.at(-1)!;
  const m = /^USER\s+(\d+)(?::(\d+))?$/i.exec(last.l);
  assert.ok(m, `USER is numeric (a name cannot be checked by runAsNonRoot): ${last.l}`);
  assert.notEqual(Number(m[1]), 0, 'uid is not root');
  if (m[2] !== undefined) assert.notEqual(Number(m[2]), 0, 'gid is not root');
  assert.equal(
    final.lines.slice(last.i + 1).some((l) => /^(RUN|USER)\s/i.test(l)),
    false,
    'nothing runs or switches user after it',
  );
  assert.match(
    final.lines.find((l) => /^ENTRYPOINT/i.test(l)) ?? '',
    /^ENTRYPOINT \[/,
    'exec-form entrypoint (no shell as PID 1)',
  );
});

test('manager.yaml: runAsNonRoot, readOnlyRootFilesystem, no privilege escalation, capabilities dropped, uid matches the image', () => {
  const docs = YAML.parseAllDocuments(readFileSync(join(opDir, 'config', 'manager', 'manager.yaml'), 'utf8')).map(
    (d) => d.toJSON() as KubeObject & Record<string, any>,
  );
  const dep = docs.find((d) => d.kind === 'Deployment');
  assert.ok(dep, 'a Deployment');
  const pod = dep.spec.template.spec;
  assert.equal(pod.securityContext?.runAsNonRoot, true);
  assert.ok(pod.containers.length >= 1);
  const dockerUser = /^USER\s+(\d+)/m.exec(readFileSync(join(opDir, 'Dockerfile'), 'utf8'))![1];
  for (const c of pod.containers) {
    const sc = c.securityContext ?? {};
    assert.equal(sc.allowPrivilegeEscalation, false, `${c.name}: allowPrivilegeEscalation`);
    assert.equal(sc.readOnlyRootFilesystem, true, `${c.name}: readOnlyRootFilesystem`);
    assert.notEqual(sc.privileged, true, `${c.name}: not privileged`);
    assert.deepEqual(sc.capabilities?.drop, ['ALL'], `${c.name}: drops all capabilities`);
    assert.ok(
      sc.runAsUser === undefined || (sc.runAsUser !== 0 && String(sc.runAsUser) === dockerUser),
      `${c.name}: runAsUser ${sc.runAsUser} matches the image's USER ${dockerUser}`,
    );
  }
});

test('the operator runs as a non-root uid with its folder read-only, reconciles, and writes nothing there', async () => {
  const asRoot = process.getuid?.() === 0;
  const uid = 65532;
  // the kubeconfig must be readable by that uid: a world-readable folder of its own
  const kcDir = mkdtempSync(join(tmpdir(), 'crdgen-nonroot-'));
  chmodSync(kcDir, 0o755);
  const kubeconfigPath = join(kcDir, 'kubeconfig');
  let server: TestApiServer | undefined;
  let proc: ChildProcess | undefined;
  try {
    server = await startTestApiServer({ crds: [DM_CRD], simulateWorkloads: 50, kubeconfigPath });
    chmodSync(kubeconfigPath, 0o644);
    // the generated tree read-only for everyone (root ignores modes: then the uid switch is what protects it)
    walk(gen.dir, (p, st) => chmodSync(p, st.isDirectory() ? 0o555 : 0o444));
    const before = snapshot(gen.dir);
    let out = '';
    proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(opDir, 'main.ts'),
        '--kubeconfig',
        kubeconfigPath,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
      ],
      {
        cwd: opDir,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, KUBECONFIG: '', HOME: '/nonexistent' },
        ...(asRoot ? { uid, gid: uid } : {}),
      },
    );
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => void (out += c));
    proc.stderr!.setEncoding('utf8').on('data', (c: string) => void (out += c));
    const exited = new Promise<number | string>((r) => proc!.once('exit', (code, sig) => r(code ?? sig ?? -1)));
    await waitFor(
      () =>
        out.includes('caches synced; starting workers') ||
        (proc!.exitCode !== null ? Promise.reject(new Error(out)) : false),
      30_000,
      'the operator to start',
      () => out,
    );
    const config = await loadKubeconfig({ path: kubeconfigPath });
    const dms = resourceClient<KubeObject & { status?: { availableReplicas?: number } }>(config, {
      group: 'coolops.cn',
      version: 'v1alpha1',
      resource: 'databasemanagers',
      kind: 'DatabaseManager',
      listKind: 'DatabaseManagerList',
      namespaced: true,
    }).namespace('default');
    await dms.create({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name: 'ro' },
      spec: { deploymentName: 'ro-db', replicas: 2, dbtype: 'redis' },
    } as KubeObject);
    const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
    await waitFor(
      async () => (await deployments.get('ro-db')).spec?.replicas === 2,
      15_000,
      'the Deployment',
      () => out,
    );
    await waitFor(
      async () => (await dms.get('ro')).status?.availableReplicas === 2,
      15_000,
      'the status',
      () => out,
    );
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.deepEqual(snapshot(gen.dir), before, 'nothing written in the operator folder');
    if (asRoot) {
      // the uid switch really happened: the process could not have written there
      const probe = spawn(
        process.execPath,
        ['-e', `require('fs').writeFileSync(${JSON.stringify(join(opDir, 'probe'))}, 'x')`],
        { uid, gid: uid, stdio: 'ignore' },
      );
      assert.notEqual(await new Promise((r) => probe.once('exit', r)), 0, `uid ${uid} cannot write in the folder`);
    }
  } finally {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await server?.stop();
    rmSync(kcDir, { recursive: true, force: true });
  }
});
