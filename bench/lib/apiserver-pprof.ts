// A CPU profile of a kube-apiserver over a window of time, from its /debug/pprof/profile endpoint
// (on by default: --profiling=true; the bench's admin credentials may read it). The scale bench takes
// one beside each client's sync when BENCH_SCALE_PROFILE names a folder, so that the server's share
// of a sync can be read with `go tool pprof -top <file>` rather than inferred from its CPU seconds.
import { request } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import type { RestConfig } from '../../src/runtime/client/config.js';

function pem(data: string | Buffer | undefined, file: string | undefined): string | Buffer | undefined {
  return data ?? (file === undefined ? undefined : readFileSync(file));
}

/** Starts a `seconds`-long CPU profile of the server `config` names; resolves once it is written to `file`. */
export function apiserverCpuProfile(config: RestConfig, seconds: number, file: string): Promise<void> {
  const url = config.server;
  const tls = config.tls ?? {};
  const headers: Record<string, string> = {};
  const token = config.auth?.bearerToken;
  if (token) headers['authorization'] = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/debug/pprof/profile?seconds=${seconds}`,
      {
        ca: pem(tls.caData, tls.caFile),
        cert: pem(tls.certData, tls.certFile),
        key: pem(tls.keyData, tls.keyFile),
        rejectUnauthorized: !tls.insecureSkipTlsVerify,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode !== 200)
            return reject(new Error(`pprof at ${url}: HTTP ${res.statusCode}: ${body.toString('utf8', 0, 300)}`));
          writeFileSync(file, body);
          resolve();
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
