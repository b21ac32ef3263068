// `crdgen testenv` through the CLI entry (runCli, as bin/crdgen.js runs it), in-process:
// pre-installed CRDs, the kubeconfig it writes, stop on SIGINT, and refusal of a bad CRD
// with the apiserver's message and exit code 1. (The real-signal path, SIGTERM to a
// separate process, is covered by kubectl.test.ts.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CRD = join(ROOT, 'test/testing/fixtures/databasemanager-crd.yaml');

function captureIo(cwd: string): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    cwd,
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readStdin: async () => new Uint8Array(),
  };
  return io;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('crdgen testenv CLI', () => {
  it('pre-installs --crd files, writes the kubeconfig, prints how to use it, stops on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-cli-'));
    try {
      const io = captureIo(dir);
      const done = runCli(['testenv', '--kubeconfig', 'kc', '--crd', CRD, '--simulate-workloads=50ms', '-v'], io);
      await until(() => io.out.includes('Press Ctrl-C'), 'testenv to start');
      const kc = join(dir, 'kc');
      assert.match(io.out, new RegExp(`export KUBECONFIG=${kc.replace(/[.]/g, '\\.')}`));
      const cfg = JSON.parse(readFileSync(kc, 'utf8'));
      const url = cfg.clusters[0].cluster.server as string;
      assert.match(io.out, new RegExp(`listening on ${url.replace(/[.]/g, '\\.')}`));
      const res = await fetch(`${url}/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers`);
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { kind: string }).kind, 'DatabaseManagerList');
      assert.match(
        io.err,
        /GET \/apis\/coolops\.cn\/v1alpha1\/namespaces\/default\/databasemanagers 200 \d+ms/,
        '-v logs requests',
      );
      process.emit('SIGINT');
      assert.equal(await done, 0);
      assert.match(io.err, /stopped/);
      assert.ok(existsSync(kc), 'an explicit --kubeconfig is kept');
      await assert.rejects(fetch(url), 'the server is down');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a CRD with the seed typo: exit 1 and the apiserver message, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-cli-'));
    try {
      writeFileSync(
        join(dir, 'bad.yaml'),
        readFileSync(CRD, 'utf8').replace(
          'deploymentName:\n                  type: string',
          'deploymentName:\n                  type: strin',
        ),
      );
      const io = captureIo(dir);
      assert.equal(await runCli(['testenv', '--kubeconfig', 'kc', '--crd', 'bad.yaml'], io), 1);
      assert.match(
        io.err,
        /crdgen testenv: cannot create CustomResourceDefinition databasemanagers\.coolops\.cn: .*Unsupported value: "strin"/,
      );
      assert.doesNotMatch(io.err, /\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad option values are usage errors (exit 2)', async () => {
    const io = captureIo(tmpdir());
    assert.equal(await runCli(['testenv', '--simulate-workloads=soon'], io), 2);
    assert.match(io.err, /"soon" is not a delay/);
  });
});
