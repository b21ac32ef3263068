// Raw HTTP requests to either backend (the in-process server over http or https, the real
// kube-apiserver over https with its CA and token), and a line-by-line watch reader.
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ApiServerHandle } from '../../src/testing/index.js';

/** A response: status code, parsed JSON body (or the text), headers. */
export interface RawResponse {
  status: number;
  body: any;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface RawOptions {
  body?: unknown;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  /** Bounded: a request that hangs fails the test instead of the suite (default 60 s). */
  timeoutMs?: number;
}

function tokenOf(h: ApiServerHandle): string | undefined {
  return h.clientConfig.auth?.bearerToken;
}

function open(
  h: ApiServerHandle,
  method: string,
  path: string,
  o: RawOptions,
  onResponse: (res: IncomingMessage) => void,
): { abort(): void; done: Promise<void> } {
  const url = new URL(path, h.url);
  const data =
    o.body === undefined
      ? undefined
      : typeof o.body === 'string' || Buffer.isBuffer(o.body)
        ? o.body
        : JSON.stringify(o.body);
  const headers: Record<string, string> = { Accept: o.accept ?? 'application/json', ...(o.headers ?? {}) };
  const token = tokenOf(h);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (data !== undefined) {
    headers['Content-Type'] = o.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(data));
  }
  const https = url.protocol === 'https:';
  let fail!: (e: Error) => void;
  let ok!: () => void;
  const done = new Promise<void>((res, rej) => {
    ok = res;
    fail = rej;
  });
  const opts = { method, headers, agent: false as const, ...(https && h.caCert ? { ca: h.caCert } : {}) };
  const req = (https ? httpsRequest : httpRequest)(url, opts, (res) => {
    onResponse(res);
    res.on('end', ok);
    res.on('error', fail);
    res.on('close', ok);
  });
  req.on('error', fail);
  if (o.timeoutMs !== 0)
    req.setTimeout(o.timeoutMs ?? 60_000, () =>
      req.destroy(new Error(`${method} ${path}: no answer within ${o.timeoutMs ?? 60_000} ms`)),
    );
  if (data !== undefined) req.write(data);
  req.end();
  return { abort: () => req.destroy(), done };
}

/** Sends one request; objects are sent as JSON unless a string or Buffer is given. */
export function raw(h: ApiServerHandle, method: string, path: string, o: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let res: IncomingMessage | undefined;
    const r = open(h, method, path, o, (x) => {
      res = x;
      x.on('data', (c: Buffer) => chunks.push(c));
    });
    r.done.then(() => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      resolve({ status: res?.statusCode ?? 0, body, text, headers: res?.headers ?? {} });
    }, reject);
  });
}

/** A watch stream read line by line. */
export interface RawWatch {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: { type: string; object: any }[];
  /** Waits (bounded) until `n` events arrived; returns them all. */
  waitFor(n: number, timeoutMs?: number): Promise<{ type: string; object: any }[]>;
  /** Waits (bounded) until an event matches. */
  until(
    pred: (e: { type: string; object: any }) => boolean,
    timeoutMs?: number,
  ): Promise<{ type: string; object: any }>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a watch (`path` with its query, `watch=true` included by the caller); resolves once the response head arrived. */
export function rawWatch(h: ApiServerHandle, path: string, o: RawOptions = {}): Promise<RawWatch> {
  return new Promise((resolve, reject) => {
    const events: { type: string; object: any }[] = [];
    let buf = '';
    let endedFlag = false;
    const r = open(h, 'GET', path, { ...o, timeoutMs: 0 }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (line) events.push(JSON.parse(line));
        }
      });
      const poll = async <T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const v = probe();
          if (v !== undefined) return v;
          if (Date.now() > deadline)
            throw new Error(
              `watch ${path}: timed out after ${timeoutMs} ms waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.type))}${endedFlag ? ' (stream ended)' : ''}`,
            );
          await new Promise((x) => setTimeout(x, 20));
        }
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        waitFor: (n, t = 30_000) => poll(`${n} events`, () => (events.length >= n ? events : undefined), t),
        until: (pred, t = 30_000) => poll('a matching event', () => events.find(pred), t),
        ended: r.done.then(
          () => void (endedFlag = true),
          () => void (endedFlag = true),
        ),
        close: () => r.abort(),
      });
    });
    r.done.catch(reject);
  });
}
