// A tiny scripted HTTP server for client tests: records requests, answers with a handler.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A handler answers one request. */
export type Handler = (req: SeenRequest, res: http.ServerResponse) => void | Promise<void>;

/** Sends `body` as JSON with `code`. */
export function json(
  res: http.ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A metav1.Status failure body. */
export function status(code: number, reason: string, message = reason): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message };
}

/** A running server on 127.0.0.1:0. */
export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Starts an HTTP server (or the given server) with `handler`. */
export async function startServer(handler: Handler, server: http.Server = http.createServer()): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const seen: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res)).catch((e: unknown) => {
        if (!res.headersSent) json(res, 500, status(500, 'InternalError', String(e)));
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const proto = 'setSecureContext' in server ? 'https' : 'http';
  return {
    url: `${proto}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
