#!/usr/bin/env node
// Runs the test suite with node's built-in runner, TypeScript loaded through tsx.
// Node 20's `--test` takes no globs, so the test files are found here:
// every `*.test.ts` under the given folders (default: test/), in sorted order.
// First it runs the suites' own set-up (scripts/test-setup.sh: Debian's kubectl 1.20 and the
// real control plane, built once and cached under .cache/) and hands its paths to the tests
// in the environment: CRDGEN_TEST_ASSETS (the control plane's bin folder, also the etcd
// the etcd-backed suites run) and CRDGEN_KUBECTL_1_20.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();
const setup = spawnSync('bash', [join(repo, 'scripts', 'test-setup.sh')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
});
if (setup.status !== 0) {
  console.error(
    `run-tests: the test set-up failed (scripts/test-setup.sh exited ${setup.status ?? setup.signal}); see its messages above`,
  );
  process.exit(1);
}
const assets = setup.stdout.trim().split('\n').pop();
const setupSeconds = (Date.now() - started) / 1000;
if (setupSeconds > 5) console.error(`run-tests: set-up took ${setupSeconds.toFixed(0)} s (cached from now on)`);
const env = {
  ...process.env,
  CRDGEN_TEST_ASSETS: assets,
  CRDGEN_KUBECTL_1_20: join(repo, '.cache', 'kubectl-1.20', 'usr', 'bin', 'kubectl'),
};

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = [];
function walk(p) {
  const st = statSync(p);
  if (st.isDirectory()) {
    for (const e of readdirSync(p).sort()) {
      if (e === 'node_modules' || e.startsWith('.')) continue;
      walk(join(p, e));
    }
  } else if (p.endsWith('.test.ts')) {
    files.push(relative(process.cwd(), p));
  }
}
for (const r of roots.length ? roots : ['test']) walk(r);
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
