// Runs the generated DatabaseManager operator as a separate process against crdgen's test
// API server: generate it into a folder under the repo, spawn `node --import tsx main.ts`,
// read its JSON log lines, poll with bounded waits, and clean everything up.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext, type EmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { RestClient, type RestConfig } from '../../src/runtime/index.js';
import { ROOT, writeTree } from '../golden/support.js';
import { controlPlaneAssets } from '../support/assets.js';

/** The DatabaseManager CRD (with status.conditions and observedGeneration). */
export const DM_CRD = join(ROOT, 'fixtures', 'databasemanager', 'crd.yaml');

/**
 * The article's DatabaseManager CRD as published (its `type: strin` typo fixed, nothing added):
 * no status subresource, a status with only availableReplicas.
 */
export const PUBLISHED_DM_CRD = join(ROOT, 'fixtures', 'databasemanager-published', 'crd.yaml');

/**
 * Generates a CRD (repo-relative, default the DatabaseManager fixture) with the operator of
 * `kind` into a fresh folder (`options`: more of the run's options, e.g. webhooks, sharding,
 * owns); returns it, the operator's main.ts and a cleanup.
 */
export function generateOperator(
  file = 'fixtures/databasemanager/crd.yaml',
  kind = 'DatabaseManager',
  options: Partial<Pick<EmitContext, 'webhooks' | 'sharding' | 'owns'>> = {},
): { dir: string; main: string; cleanup(): void } {
  const base = join(ROOT, 'test', 'e2e', 'out');
  mkdirSync(base, { recursive: true });
  const dir = join(base, `op-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const r = readCrdInputs([{ file, content: readFileSync(join(ROOT, file)) }]);
  if (r.diagnostics.some((d) => d.severity === 'error'))
    throw new Error(`fixture has errors: ${JSON.stringify(r.diagnostics)}`);
  // the runtime by absolute path: no build needed, tsx maps .js to .ts
  const runtimeImport = join(ROOT, 'src', 'runtime', 'index.js');
  // the tree's place in the repo as --out gives it (the Dockerfile's MAIN is this folder's main.ts, the repo the build context)
  const outDir = relative(ROOT, dir).split(sep).join('/');
  writeTree(
    dir,
    runEmitters(
      r.model,
      createEmitContext({ sources: r.model.sources, runtimeImport, controllers: [kind], outDir, ...options }),
    ),
  );
  return {
    dir,
    main: join(dir, 'controllers', kind.toLowerCase(), 'main.ts'),
    cleanup: () => {
      rmSync(dir, { recursive: true, force: true });
      try {
        rmdirSync(base);
      } catch {
        /* other runs' folders remain */
      }
    },
  };
}

/** One parsed JSON log line of the operator. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

/** A running operator process. */
export interface OperatorProcess {
  proc: ChildProcess;
  /** Every JSON log line so far. */
  logs: LogLine[];
  /** Non-JSON output (stderr and stray stdout). */
  other: string[];
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  /** Waits (bounded) for a log line matching `pred`. */
  waitForLog(pred: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGKILL if still running, and waits for the exit. */
  kill(): Promise<void>;
}

/** Spawns `main` with `args` (and `env` on top of this process's, KUBECONFIG unset). */
export function startOperator(main: string, args: string[], env: NodeJS.ProcessEnv = {}): OperatorProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: '', ...env },
  });
  const logs: LogLine[] = [];
  const other: string[] = [];
  let buf = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        other.push(line);
      }
    }
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => other.push(chunk));
  // 'close', not 'exit': the exit can come before the last log lines have been read from the pipe
  const exited = new Promise<number | string>((done) => proc.once('close', (code, sig) => done(code ?? sig ?? -1)));
  return {
    proc,
    logs,
    other,
    exited,
    waitForLog: async (pred, timeoutMs = 20_000) => {
      return waitFor(
        () => logs.find(pred),
        timeoutMs,
        'a log line',
        () => `logs so far:\n${logs.map((l) => JSON.stringify(l)).join('\n')}\n${other.join('')}`,
      );
    },
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Polls `probe` every `intervalMs` until it returns a value other than undefined/false
 * (errors count as not yet), at most `timeoutMs`; then fails with `what` and `detail()`.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
  detail: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${(lastErr as Error).message})` : ''}\n${detail()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A `crdgen testenv` process (the CLI, run from source as bin/crdgen.js runs the build). */
export interface TestenvProcess {
  kubeconfigPath: string;
  /** SIGTERM, then SIGKILL after 5 s; waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `crdgen testenv <args> --crd <crd> --kubeconfig <tmp>` (default args: in-process,
 * `--simulate-workloads 50ms`; `['--real', '--simulate-workloads']` runs the real control plane)
 * and waits until it serves.
 */
export async function startTestenvProcess(
  crd: string,
  args: string[] = ['--simulate-workloads', '50ms'],
): Promise<TestenvProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-e2e-testenv-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'test', 'conformance', 'testenv-main.ts'),
      'testenv',
      ...args,
      '--crd',
      crd,
      '--kubeconfig',
      kubeconfigPath,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBEBUILDER_ASSETS: controlPlaneAssets() },
    },
  );
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => void (out += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => void (out += c));
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () =>
        out.includes('kubeconfig written to') ||
        (proc.exitCode !== null ? Promise.reject(new Error(`testenv exited: ${out}`)) : false),
      180_000,
      'crdgen testenv to serve',
      () => out,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { kubeconfigPath, stop };
}

/** A token of ServiceAccount `name` in `namespace` from the TokenRequest API (an hour's). */
export async function serviceAccountToken(client: RestConfig, name: string, namespace: string): Promise<string> {
  const r = await RestClient.for(client).request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return r.status.token;
}

/** GET of an HTTPS `url` (its certificate not checked), with `token` as the bearer when given. */
export function httpsGet(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { rejectUnauthorized: false, headers: token !== undefined ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
