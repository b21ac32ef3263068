// startEtcd(): runs an `etcd` binary (3.4 or newer; crdgen's tests run etcd 3.6) on free ports of
// 127.0.0.1 with a temporary data dir, for tests and the soak. Stop, restart and SIGKILL.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Options of {@link startEtcd}. */
export interface StartEtcdOptions {
  /** The etcd binary (default: `etcd` on PATH). */
  binary?: string;
  /** Data directory (default: a temporary one, removed by stop()). */
  dataDir?: string;
  /** How long to wait for etcd to answer /health (default 15000 ms). */
  readyTimeoutMs?: number;
}

/** A running etcd. */
export interface EtcdProcess {
  /** The client URL (`http://127.0.0.1:<port>`). */
  endpoint: string;
  dataDir: string;
  /** Stops etcd (SIGTERM, then SIGKILL after 5 s) and removes a temporary data dir. Idempotent. */
  stop(): Promise<void>;
  /** Stops etcd, keeps its data, and starts it again on the same ports. */
  restart(downMs?: number): Promise<void>;
  /** SIGKILLs etcd (its data stays), for crash tests; restart() brings it back. */
  kill(): Promise<void>;
}

/** The etcd binary on PATH with its version line, or undefined when there is none. */
export function findEtcd(binary = 'etcd'): { binary: string; version: string } | undefined {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10000 });
  if (r.error || r.status !== 0) return undefined;
  return { binary, version: (r.stdout.split('\n')[0] ?? '').trim() };
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

/** Starts etcd; resolves when it answers /health. */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdProcess> {
  const binary = options.binary ?? 'etcd';
  if (!findEtcd(binary)) {
    throw new Error(`no etcd binary "${binary}": give its path (scripts/ensure-control-plane.sh builds etcd 3.6)`);
  }
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'crdgen-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name',
    'crdgen',
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    endpoint,
    '--advertise-client-urls',
    endpoint,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `crdgen=${peer}`,
    '--logger',
    'zap',
    '--log-level',
    'error',
  ];
  const readyTimeout = options.readyTimeoutMs ?? 15000;
  let child: ChildProcess | undefined;
  let stderr = '';

  const launch = async (): Promise<void> => {
    stderr = '';
    const c = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    c.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const exited = new Promise<never>((_, reject) => {
      c.once('exit', (code, sig) =>
        reject(new Error(`etcd exited (${code ?? sig}) while starting: ${stderr.trim().slice(-800)}`)),
      );
    });
    exited.catch(() => undefined);
    const deadline = Date.now() + readyTimeout;
    for (;;) {
      const ok = await Promise.race([health(endpoint), exited]);
      if (ok) return;
      if (Date.now() > deadline) {
        c.kill('SIGKILL');
        throw new Error(`etcd did not become healthy within ${readyTimeout} ms: ${stderr.trim().slice(-800)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const done = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill(signal);
    const t = setTimeout(() => c.kill('SIGKILL'), 5000);
    await done;
    clearTimeout(t);
  };

  await launch();
  let stopped = false;
  return {
    endpoint,
    dataDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await halt('SIGTERM');
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async (downMs = 0) => {
      if (stopped) throw new Error('etcd is stopped');
      await halt('SIGTERM');
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    kill: async () => {
      await halt('SIGKILL');
    },
  };
}

async function health(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}
