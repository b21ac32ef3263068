// A fresh kube-apiserver process beside a running control plane: the same binary, flags, etcd and
// certificates as the control plane's own kube-apiserver, on a port of its own. The scale
// benchmark gives each client's sync one (bench/lib/scale-informer.ts), so that kube-apiserver's
// peak RSS during each sync starts from the same baseline (a server that has just filled its watch
// cache from etcd) rather than from what earlier clients' syncs left in its Go heap.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { ControlPlane } from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest-client.js';
import { ApiError } from '../../src/runtime/client/errors.js';

export interface FreshApiServer {
  pid: number;
  /** Its https URL. */
  url: string;
  /** A kubeconfig file for it (the control plane's, with this server's URL). */
  kubeconfigPath: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts another kube-apiserver with the flags of `cp`'s (read from /proc/`pid`/cmdline), waits
 * until it is ready and its watch cache of `warmPath` has taken in revision `rv` (the data already
 * in etcd), and returns it. `name` names its kubeconfig file in `dir`.
 */
export async function startFreshApiServer(
  cp: ControlPlane,
  pid: number,
  warmPath: string,
  rv: string,
  dir: string,
  name: string,
): Promise<FreshApiServer> {
  const [bin, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const port = await freePort();
  const argv = args.map((a) => (a.startsWith('--secure-port=') ? `--secure-port=${port}` : a));
  const url = `https://127.0.0.1:${port}`;
  const proc: ChildProcess = spawn(bin, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (tail = (tail + c).slice(-4000)));
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  };
  const kubeconfigPath = join(dir, `${name}.kubeconfig`);
  writeFileSync(kubeconfigPath, readFileSync(cp.kubeconfigPath, 'utf8').replace(cp.url, url), { mode: 0o600 });
  const client = new RestClient({ ...cp.clientConfig, server: url, qps: 0, userAgent: 'crdgen-bench-driver' });
  try {
    for (const deadline = performance.now() + 180_000; ;) {
      if (proc.exitCode !== null) throw new Error(`the fresh kube-apiserver exited (${proc.exitCode}):\n${tail}`);
      const ok = await client
        .requestText({ method: 'GET', path: '/readyz', timeoutMs: 5000 })
        .then((t) => t === 'ok')
        .catch(() => false);
      if (ok) break;
      if (performance.now() > deadline) throw new Error(`the fresh kube-apiserver was not ready in 180 s:\n${tail}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // the first request of the resource builds its watch cache from etcd; until it is ready,
    // kube-apiserver answers what it cannot serve from etcd with 429 (a watch, an unpaged list):
    // ready once a list not older than `rv` and a watch from `rv` are both served (504 after 3 s:
    // ask again; 404 while the CRD is not served yet)
    for (const deadline = performance.now() + 300_000; ;) {
      try {
        await client.request({
          method: 'GET',
          path: warmPath,
          query: { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', limit: 1 },
          timeoutMs: 300_000,
        });
        const ac = new AbortController();
        await client.watch(warmPath, { resourceVersion: rv, timeoutSeconds: 1 }, ac.signal);
        ac.abort();
        break;
      } catch (e) {
        if (!(e instanceof ApiError && [404, 429, 504].includes(e.code)) || performance.now() > deadline) throw e;
        if (e.code !== 504) await new Promise((r) => setTimeout(r, 250));
      }
    }
    return { pid: proc.pid!, url, kubeconfigPath, stop };
  } catch (e) {
    await stop();
    throw e;
  } finally {
    client.close();
  }
}
