// End to end: the operator as its generated Dockerfile builds it — the build stage's own esbuild
// command, read out of the Dockerfile and run (its npx esbuild@<pin> as the project's esbuild of
// the same version, its $MAIN the Dockerfile's ARG, the build context the repo), then the bundle
// run by this machine's `node` with the ENTRYPOINT's node options from a folder that has no
// node_modules — starts, reconciles, and serves its metrics (prom-client) and JSON logs (pino)
// from the bundle. Without Docker: the recipe, not the image. The bundle targets the image's
// Node.js LTS; crdgen's own Node 20 runs it here.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { version as esbuildVersion } from 'esbuild';
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

/** The Dockerfile's logical lines: continuations joined, comments and blank lines dropped. */
function instructions(dockerfile: string): string[] {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * The words of a `RUN` shell command as `sh -c` splits them: blanks separate, double quotes keep
 * blanks (`$NAME` expanded from `vars`, `\\` escapes), single quotes keep everything. Anything
 * more (operators, substitutions, globs) fails: the test must not guess what a shell would do.
 */
function shellWords(command: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const variable = (at: number): [string, number] => {
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(command.slice(at));
    if (!m || !Object.hasOwn(vars, m[1])) throw new Error(`unsupported expansion at ${command.slice(at)}`);
    return [vars[m[1]], m[0].length];
  };
  for (let i = 0; i < command.length;) {
    const c = command[i];
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      i++;
    } else if (c === "'") {
      const close = command.indexOf("'", i + 1);
      assert.ok(close > i, 'closed single quote');
      word = (word ?? '') + command.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      word ??= '';
      for (i++; command[i] !== '"';) {
        assert.ok(i < command.length, 'closed double quote');
        if (command[i] === '\\' && /["\\$`]/.test(command[i + 1])) {
          word += command[i + 1];
          i += 2;
        } else if (command[i] === '$') {
          const [value, n] = variable(i);
          word += value;
          i += n;
        } else if (command[i] === '`') throw new Error('unsupported command substitution');
        else word += command[i++];
      }
      i++;
    } else if (c === '$') {
      const [value, n] = variable(i);
      word = (word ?? '') + value;
      i += n;
    } else if (/[;&|<>`(){}*?[\]~#\\]/.test(c)) throw new Error(`unsupported shell syntax ${c} in ${command}`);
    else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

test("bundled by the Dockerfile's own esbuild command, run from a folder without node_modules: reconciles, serves metrics, logs JSON", async () => {
  const dockerfile = readFileSync(join(gen.dir, 'controllers', 'databasemanager', 'Dockerfile'), 'utf8');
  const lines = instructions(dockerfile);
  const finalAt = lines.findLastIndex((l) => l.startsWith('FROM '));
  const buildStage = lines.slice(0, finalAt);
  const finalStage = lines.slice(finalAt);
  const entrypoint = JSON.parse(
    /^ENTRYPOINT (\[.*\])$/.exec(finalStage.find((l) => l.startsWith('ENTRYPOINT '))!)![1],
  ) as string[];
  assert.match(entrypoint[0], /^(node|\/nodejs\/bin\/node)$/);
  assert.ok(finalStage.includes('WORKDIR /app'));
  // the final stage copies the bundle from the build stage's /out into /app, where the ENTRYPOINT names it
  assert.ok(finalStage.includes('COPY --from=build /out/operator.mjs ./'));
  assert.equal(entrypoint.at(-1), 'operator.mjs');
  // the Dockerfile's MAIN, relative to the build context (the project root: here the repo), is the
  // generated main.ts, bundled as it is (TypeScript, no build step before)
  const main = /^ARG MAIN=(.+)$/.exec(buildStage.find((l) => l.startsWith('ARG MAIN='))!)![1];
  assert.equal(join(ROOT, main), gen.main);
  assert.ok(existsSync(join(ROOT, main)));
  assert.doesNotMatch(dockerfile, /npm run build|dist\//);
  const runs = buildStage.filter((l) => l.startsWith('RUN ') && l.includes('esbuild'));
  assert.equal(runs.length, 1, 'one esbuild command');
  const words = shellWords(runs[0].slice('RUN '.length), { MAIN: main });
  assert.deepEqual(words.slice(0, 3), ['npx', '--yes', `esbuild@${OPERATOR_ESBUILD_VERSION}`]);
  const args = words.slice(3);
  const target = args.find((a) => a.startsWith('--target='));
  assert.equal(target, '--target=node22', 'the image runs Node.js 22');
  assert.ok(args.includes(`--banner:js=${OPERATOR_BUNDLE_BANNER}`));
  assert.ok(args.includes('--outfile=/out/operator.mjs'));
  // the project's esbuild (the pinned version, as the first test checks); /out is this folder
  await promisify(execFile)(
    join(ROOT, 'node_modules', '.bin', 'esbuild'),
    [
      ...args.map((a) => (a === '--outfile=/out/operator.mjs' ? `--outfile=${join(outDir, 'operator.mjs')}` : a)),
      '--log-level=error',
    ],
    { cwd: ROOT },
  );
  const bundle = join(outDir, entrypoint.at(-1)!);
  assert.ok(existsSync(bundle));
  assert.ok(!existsSync(join(outDir, 'node_modules')));
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
