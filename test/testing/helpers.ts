// Test helpers: JSON requests against a test API server and a line-by-line watch reader.
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';

/** The DatabaseManager CRD fixture (deploymentName fixed, status subresource). */
export const DM_CRD = fileURLToPath(new URL('./fixtures/databasemanager-crd.yaml', import.meta.url));

/** A response: status code, parsed JSON body (or text), headers. */
export interface Res {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** Sends one request; `body` objects are JSON-encoded unless a string is given. */
export function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const h: Record<string, string> = { Accept: 'application/json', ...headers };
    if (data !== undefined && !h['Content-Type']) h['Content-Type'] = 'application/json';
    if (data !== undefined) h['Content-Length'] = String(Buffer.byteLength(data));
    const req = request(new URL(path, base), { method, headers: h, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** An open watch: events arrive in `events`; `next()` waits for the next one (bounded). */
export interface WatchReader {
  events: { type: string; object: any }[];
  status: number;
  contentType: string | undefined;
  /** Resolves with event number `i` (0-based) or rejects after `timeoutMs`. */
  at(i: number, timeoutMs?: number): Promise<{ type: string; object: any }>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a watch and resolves once the response headers arrived. */
export function watch(base: string, path: string, headers: Record<string, string> = {}): Promise<WatchReader> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      { method: 'GET', headers: { Accept: 'application/json', ...headers }, agent: false },
      (res: IncomingMessage) => {
        const events: WatchReader['events'] = [];
        const waiters: (() => void)[] = [];
        let buf = '';
        let endedResolve!: () => void;
        const ended = new Promise<void>((r) => (endedResolve = r));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim()) events.push(JSON.parse(line));
          }
          for (const w of waiters.splice(0)) w();
        });
        res.on('end', endedResolve);
        res.on('close', endedResolve);
        resolve({
          events,
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          ended,
          close: () => req.destroy(),
          at: (i, timeoutMs = 3000) =>
            new Promise((ok, fail) => {
              const deadline = setTimeout(
                () => fail(new Error(`no watch event #${i} within ${timeoutMs} ms (have ${events.length})`)),
                timeoutMs,
              );
              const check = (): void => {
                if (events.length > i) {
                  clearTimeout(deadline);
                  ok(events[i]);
                } else waiters.push(check);
              };
              check();
            }),
        });
      },
    );
    req.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e);
    });
    req.end();
  });
}

/** A DatabaseManager object. */
export function dm(name: string, replicas = 2, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name, labels: { app: name } },
    spec: { deploymentName: name, replicas, dbtype: 'mysql' },
    ...extra,
  };
}

/** A Deployment object. */
export function deployment(name: string, replicas = 1): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
    },
  };
}

/** Polls `fn` until it returns a truthy value (bounded). */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
