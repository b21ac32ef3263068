// `crdgen testenv` through the CLI: pre-installed CRDs, refusal of a bad CRD with the
// apiserver's message and exit code 1, clean stop on SIGINT.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = join(ROOT, 'test/conformance/testenv-main.ts');
const CRD = join(ROOT, 'test/testing/fixtures/databasemanager-crd.yaml');

function start(args: string[]): { out: () => string; err: () => string; exited: Promise<number | null>; kill: (s: NodeJS.Signals) => void; ready: Promise<void> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'testenv', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('testenv did not start')), 30000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Press Ctrl-C')) {
        clearTimeout(t);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(t);
      reject(new Error(`exited: ${err}`));
    });
  });
  ready.catch(() => {});
  return { out: () => out, err: () => err, exited, kill: (s) => child.kill(s), ready };
}

describe('crdgen testenv CLI', () => {
  it('pre-installs --crd files, writes the kubeconfig, stops on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-cli-'));
    try {
      const kc = join(dir, 'kc');
      const p = start(['--kubeconfig', kc, '--crd', CRD, '--simulate-workloads=50ms']);
      await p.ready;
      const cfg = JSON.parse(readFileSync(kc, 'utf8'));
      const url = cfg.clusters[0].cluster.server as string;
      assert.match(p.out(), new RegExp(`listening on ${url.replace(/[.]/g, '\\.')}`));
      const res = await fetch(`${url}/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers`);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { kind: string }).kind, 'DatabaseManagerList');
      p.kill('SIGINT');
      assert.equal(await p.exited, 0);
      assert.match(p.err(), /stopped/);
      assert.ok(existsSync(kc), 'an explicit --kubeconfig is kept');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a CRD with the seed typo: exit 1 and the apiserver message, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-cli-'));
    try {
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, readFileSync(CRD, 'utf8').replace('deploymentName:\n                  type: string', 'deploymentName:\n                  type: strin'));
      const p = start(['--kubeconfig', join(dir, 'kc'), '--crd', bad]);
      assert.equal(await p.exited, 1);
      assert.match(p.err(), /crdgen testenv: cannot create CustomResourceDefinition databasemanagers\.coolops\.cn: .*Unsupported value: "strin"/);
      assert.doesNotMatch(p.err(), /\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
