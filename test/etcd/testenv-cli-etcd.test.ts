// `crdgen testenv --etcd <endpoints>`: objects outlive the command; bad endpoints are usage errors.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { ROOT } from '../golden/support.js';
import { DM_CRD, dm } from '../testing/helpers.js';
import { startTestEtcd } from './support.js';

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
  const deadline = Date.now() + 20000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `crdgen testenv` with `args` until `body` is done, then SIGINT; returns the exit code. */
async function withTestenv(
  dir: string,
  args: string[],
  body: (url: string, io: { out: string }) => Promise<void>,
): Promise<number> {
  const io = captureIo(dir);
  const done = runCli(['testenv', '--kubeconfig', 'kc', ...args], io);
  await until(() => io.out.includes('Press Ctrl-C') || io.err.length > 0, 'testenv to start');
  assert.equal(io.err, '', io.err);
  const url = JSON.parse(readFileSync(join(dir, 'kc'), 'utf8')).clusters[0].cluster.server as string;
  try {
    await body(url, io);
  } finally {
    process.emit('SIGINT');
  }
  return done;
}

describe('crdgen testenv --etcd', () => {
  let etcd: EtcdProcess;
  let dir: string;
  before(async () => {
    etcd = await startTestEtcd();
    dir = mkdtempSync(join(tmpdir(), 'crdgen-testenv-etcd-'));
  });
  after(async () => {
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps objects in etcd across runs of the command', async () => {
    const path = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
    const args = ['--crd', DM_CRD, '--etcd', etcd.endpoint, '--etcd-prefix', '/cli'];
    let rv = '';
    const first = await withTestenv(dir, args, async (url, io) => {
      assert.match(io.out, new RegExp(`storage: etcd ${etcd.endpoint.replace(/[.]/g, '\\.')}`));
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(dm('kept', 3)),
      });
      assert.equal(res.status, 201);
      rv = ((await res.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    });
    assert.equal(first, 0);
    const second = await withTestenv(dir, args, async (url) => {
      const res = await fetch(`${url}${path}/kept`);
      assert.equal(res.status, 200);
      const o = (await res.json()) as { spec: { replicas: number }; metadata: { resourceVersion: string } };
      assert.equal(o.spec.replicas, 3);
      assert.equal(o.metadata.resourceVersion, rv);
    });
    assert.equal(second, 0);
  });

  it('a bad endpoint is a usage error with a clear message', async () => {
    const io = captureIo(dir);
    const code = await runCli(['testenv', '--etcd', 'localhost:2379'], io);
    assert.equal(code, 2);
    assert.match(io.err, /"localhost:2379" is not an etcd endpoint/);
    assert.doesNotMatch(io.err, /\n\s+at /, 'no stack trace');
  });

  it('exits on SIGTERM after its etcd is gone (not only printing "stopped")', async () => {
    const own = await startTestEtcd();
    const kubeconfig = join(dir, 'gone.kubeconfig');
    const proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'test', 'conformance', 'testenv-main.ts'),
        'testenv',
        '--etcd',
        own.endpoint,
        '--kubeconfig',
        kubeconfig,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
    proc.stderr.setEncoding('utf8').on('data', (c: string) => void (out += c));
    const exited = new Promise<number | string>((done) => proc.once('exit', (code, sig) => done(code ?? sig ?? -1)));
    try {
      await until(() => out.includes('Press Ctrl-C') || proc.exitCode !== null, 'testenv to start');
      await own.stop();
      // the storage's watch loses etcd and starts a new one that cannot connect
      await new Promise((r) => setTimeout(r, 3000));
      proc.kill('SIGTERM');
      const code = await Promise.race([
        exited,
        new Promise((r) => setTimeout(() => r('still running 30 s after SIGTERM'), 30_000)),
      ]);
      assert.equal(code, 0, out);
      assert.match(out, /crdgen testenv: stopped/);
    } finally {
      proc.kill('SIGKILL');
      await own.stop();
    }
  });
});
