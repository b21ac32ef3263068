// Exec credential plugins (client.authentication.k8s.io ExecCredential, kubeconfig
// `user.exec`): run the plugin, cache its credential until expirationTimestamp, and
// run it again when the server answers 401.
import { execFile } from 'node:child_process';
import type { ExecConfig } from './config.js';

/** API versions of ExecCredential we speak. */
export const EXEC_CREDENTIAL_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

/** What a plugin returned: a token and/or a client certificate, with an optional expiry. */
export interface ExecCredentialResult {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** Epoch milliseconds after which the credential must be fetched again. */
  expiresAt?: number;
}

/** Cluster information passed to plugins that set provideClusterInfo (ExecCredential spec.cluster). */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the PEM CA bundle. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  /** The cluster's `extensions` entry named `client.authentication.k8s.io/exec`. */
  config?: unknown;
}

/** Runs a plugin; injectable for tests. Resolves with its stdout. */
export type ExecRunner = (
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
) => Promise<string>;

/** Runs the command without a shell, capturing stdout (stderr is kept for the error message). */
export const defaultExecRunner: ExecRunner = (command, args, env, signal) =>
  new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { env, signal, maxBuffer: 4 * 1024 * 1024, windowsHide: true, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { code?: string | number };
          const detail = stderr.trim() ? `: ${stderr.trim().slice(0, 1000)}` : '';
          reject(
            Object.assign(new Error(`${e.code === 'ENOENT' ? 'not found' : e.message.split('\n')[0]}${detail}`), {
              code: e.code,
            }),
          );
          return;
        }
        resolve(stdout);
      },
    );
  });

/** Resolves like `p`, or rejects with the signal's reason when it aborts first. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Produces credentials from an exec plugin. Concurrent callers share one plugin run; the
 * result is cached until its expirationTimestamp (for ever when it has none), and
 * `invalidate()` (after a 401) forces the next call to run the plugin again.
 */
export class ExecCredentialProvider {
  private cached: ExecCredentialResult | undefined;
  private inflight: Promise<ExecCredentialResult> | undefined;
  private generation = 0;

  /** `cluster` is passed to the plugin when `exec.provideClusterInfo` is set. */
  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster?: ExecClusterInfo,
    private readonly runner: ExecRunner = defaultExecRunner,
    private readonly now: () => number = Date.now,
  ) {
    if (!(EXEC_CREDENTIAL_VERSIONS as readonly string[]).includes(exec.apiVersion)) {
      throw new Error(
        `exec plugin "${exec.command}": unsupported apiVersion "${exec.apiVersion}" (supported: ${EXEC_CREDENTIAL_VERSIONS.join(', ')})`,
      );
    }
  }

  /** The current credential, running the plugin when there is none or it expired. */
  async get(signal?: AbortSignal): Promise<ExecCredentialResult> {
    if (this.exec.interactiveMode === 'Always') {
      // We never hand the plugin a terminal (client-go fails the same way without a TTY).
      throw new Error(
        `exec plugin "${this.exec.command}" requires interactive mode (interactiveMode: Always), which crdgen/runtime cannot provide`,
      );
    }
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.now() < c.expiresAt)) return c;
    if (!this.inflight) {
      const gen = this.generation;
      // The run is shared, so no single caller's signal may kill it; each caller stops
      // waiting on its own signal instead.
      this.inflight = this.run().then(
        (r) => {
          if (gen === this.generation) this.cached = r;
          this.inflight = undefined;
          return r;
        },
        (e: unknown) => {
          this.inflight = undefined;
          throw e;
        },
      );
    }
    return signal ? raceAbort(this.inflight, signal) : this.inflight;
  }

  /**
   * Drops the cached credential if it is still `used` (the one a 401 answered), so the
   * next `get()` runs the plugin. Returns true when a refresh will happen.
   */
  invalidate(used?: ExecCredentialResult): boolean {
    if (used !== undefined && this.cached !== undefined && used !== this.cached) return true; // already refreshed
    this.cached = undefined;
    this.generation++;
    return true;
  }

  private async run(): Promise<ExecCredentialResult> {
    const x = this.exec;
    const input: Record<string, unknown> = {
      kind: 'ExecCredential',
      apiVersion: x.apiVersion,
      spec: { interactive: false, ...(x.provideClusterInfo && this.cluster ? { cluster: this.cluster } : {}) },
    };
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const { name, value } of x.env ?? []) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify(input);
    let stdout: string;
    try {
      stdout = await this.runner(x.command, x.args ?? [], env);
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      const hint = code === 'ENOENT' && x.installHint ? `\n${x.installHint}` : '';
      throw new Error(`exec plugin "${x.command}" failed: ${(e as Error).message}${hint}`);
    }
    return this.parse(stdout);
  }

  private parse(stdout: string): ExecCredentialResult {
    const where = `exec plugin "${this.exec.command}"`;
    let v: unknown;
    try {
      v = JSON.parse(stdout);
    } catch {
      throw new Error(`${where} did not print an ExecCredential as JSON (got ${JSON.stringify(stdout.slice(0, 120))})`);
    }
    const cred = v as { kind?: unknown; apiVersion?: unknown; status?: Record<string, unknown> };
    if (typeof cred !== 'object' || cred === null || cred.kind !== 'ExecCredential') {
      throw new Error(`${where} printed JSON that is not an ExecCredential (kind must be "ExecCredential")`);
    }
    if (cred.apiVersion !== this.exec.apiVersion) {
      throw new Error(
        `${where} returned apiVersion ${JSON.stringify(cred.apiVersion)}, expected "${this.exec.apiVersion}"`,
      );
    }
    const s = cred.status;
    if (typeof s !== 'object' || s === null) throw new Error(`${where} returned an ExecCredential without status`);
    const str = (k: string): string | undefined => (typeof s[k] === 'string' && s[k] !== '' ? s[k] : undefined);
    const result: ExecCredentialResult = {};
    const token = str('token');
    const cert = str('clientCertificateData');
    const key = str('clientKeyData');
    if (token) result.token = token;
    if (cert || key) {
      if (!cert || !key) throw new Error(`${where} returned only one of clientCertificateData and clientKeyData`);
      result.clientCertificateData = cert;
      result.clientKeyData = key;
    }
    if (!token && !cert) throw new Error(`${where} returned neither a token nor a client certificate`);
    const exp = str('expirationTimestamp');
    if (exp) {
      const t = Date.parse(exp);
      if (Number.isNaN(t)) throw new Error(`${where} returned an invalid expirationTimestamp ${JSON.stringify(exp)}`);
      result.expiresAt = t;
    }
    return result;
  }
}
