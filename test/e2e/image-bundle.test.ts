// End to end: the operator as its generated Dockerfile builds it — bundled by esbuild into one
// ES module with the Dockerfile's banner, then run by plain `node` with the ENTRYPOINT's node
// options from a folder that has no node_modules — starts, reconciles, and serves its
// metrics (prom-client) and JSON logs (pino) from the bundle. Without Docker: the recipe, not
// the image (its MAIN, esbuild version and banner).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, version as esbuildVersion } from 'esbuild';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  type Deployment,
  type KubeObject,
} from '../../src/runtime/index.js';
import { OPERATOR_BUNDLE_BANNER, OPERATOR_ESBUILD_VERSION } from '../../src/generate/controller.js';
import { DM_CRD, generateOperator, waitFor } from './support.js';
import { ROOT } from '../golden/support.js';

let gen: ReturnType<typeof generateOperator>;
let server: TestApiServer;
const outDir = mkdtempSync(join(tmpdir(), 'crdgen-bundle-'));

before(async () => {
  gen = generateOperator();
  server = await startTestApiServer({ crds: [DM_CRD], simulateWorkloads: 50 });
});

after(async () => {
  await server?.stop();
  gen?.cleanup();
  rmSync(outDir, { recursive: true, force: true });
});

test('the Dockerfile pins the esbuild the tests bundle with, and its final stage holds only the bundle', () => {
  assert.equal(esbuildVersion, OPERATOR_ESBUILD_VERSION);
  const dockerfile = readFileSync(join(gen.dir, 'controllers', 'databasemanager', 'Dockerfile'), 'utf8');
  assert.ok(dockerfile.includes(`esbuild@${OPERATOR_ESBUILD_VERSION} `));
  assert.ok(dockerfile.includes(`"--banner:js=${OPERATOR_BUNDLE_BANNER}"`));
  const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  assert.deepEqual(
    final.split('\n').filter((l) => l.startsWith('COPY')),
    ['COPY --from=build /out/operator.mjs ./'],
  );
  assert.doesNotMatch(final, /node_modules|npm /);
});

test('bundled as the Dockerfile does, run from a folder without node_modules: reconciles, serves metrics, logs JSON', async () => {
  const dockerfile = readFileSync(join(gen.dir, 'controllers', 'databasemanager', 'Dockerfile'), 'utf8');
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]) as string[];
  assert.equal(entrypoint[0], 'node');
  const bundle = join(outDir, entrypoint.at(-1)!);
  // the Dockerfile's MAIN, relative to the build context (the project root: here the repo), is the
  // generated main.ts, bundled as it is (TypeScript, no build step before)
  const main = /^ARG MAIN=(.+)$/m.exec(dockerfile)![1];
  assert.equal(join(ROOT, main), gen.main);
  assert.ok(existsSync(join(ROOT, main)));
  assert.doesNotMatch(dockerfile, /npm run build|dist\//);
  await build({
    entryPoints: [join(ROOT, main)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundle,
    banner: { js: OPERATOR_BUNDLE_BANNER },
    logLevel: 'error',
  });
  const proc = spawn(
    process.execPath,
    [
      ...entrypoint.slice(1, -1),
      bundle,
      '--kubeconfig',
      server.kubeconfigPath,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '0',
      // the line that ends each reconcile is at debug
      '--log-level',
      'debug',
    ],
    {
      cwd: outDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent' },
    },
  );
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => void (out += c));
  const exited = new Promise<number | string>((r) => proc.once('exit', (code, sig) => r(code ?? sig ?? -1)));
  try {
    const lines = (): Array<Record<string, unknown>> =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const serving = await waitFor(
      () => lines().find((l) => l['msg'] === 'serving metrics'),
      30_000,
      'the metrics endpoint',
      () => out,
    );
    await waitFor(
      () => lines().some((l) => l['msg'] === 'caches synced; starting workers'),
      30_000,
      'caches synced',
      () => out,
    );
    const config = await loadKubeconfig({ path: server.kubeconfigPath });
    const dms = resourceClient<KubeObject>(config, {
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
      metadata: { name: 'bundled' },
      spec: { deploymentName: 'bundled-db', replicas: 1, dbtype: 'redis' },
    } as KubeObject);
    const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
    await waitFor(
      async () => (await deployments.get('bundled-db')).spec?.replicas === 1,
      15_000,
      'the Deployment',
      () => out,
    );
    await waitFor(
      () =>
        lines().some((l) => l['msg'] === 'reconciled' && l['key'] === 'default/bundled' && l['result'] === 'success'),
      15_000,
      'a successful reconcile of default/bundled',
      () => out,
    );
    const text = await (await fetch(String(serving['url']))).text();
    assert.match(
      text,
      /^controller_runtime_reconcile_total\{controller="databasemanager-controller",result="success"\} [1-9]/m,
    );
    assert.match(text, /^databasemanager_controller_reconcile_overlaps_total 0$/m);
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, out);
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
});
