// A tiny HTTP(S) server for the operator's endpoints (metrics, health probes), and bind addresses
// as controller-runtime takes them (the webhook server parses its own with the same function).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One route's answer. */
export interface RouteResponse {
  status: number;
  contentType: string;
  body: string;
}

/** A route handler: GET only; may be async. */
export type RouteHandler = () => RouteResponse | Promise<RouteResponse>;

/**
 * Runs before every request's route (a 404 included): an answer (401, 403, …) ends the request
 * there, `undefined` lets it through. controller-runtime's metrics server Filter.
 */
export type RequestFilter = (req: IncomingMessage) => Promise<RouteResponse | undefined>;

/** How an endpoint server serves: HTTPS with `tls` (PEM certificate and key), every request through `filter`. */
export interface EndpointServerOptions {
  tls?: { cert: string; key: string };
  filter?: RequestFilter;
}

/** A listening endpoint server. */
export interface EndpointServer {
  /** `http://host:port` (`https://` with TLS) actually bound (port 0 resolved). */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** A parsed bind address. */
export interface BindAddress {
  host: string;
  port: number;
}

/**
 * Parses `:8080`, `0.0.0.0:8080`, `127.0.0.1:0`, `[::1]:9090` or `8080`. Returns `undefined`
 * for `"0"` (controller-runtime's "disabled"). Throws a clear error on anything else.
 */
export function parseBindAddress(addr: string): BindAddress | undefined {
  if (addr === '0') return undefined;
  const m =
    /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(addr) ?? (/^(\d+)$/.test(addr) ? [addr, undefined, '', addr] : null);
  if (!m)
    throw new Error(
      `bad bind address ${JSON.stringify(addr)}: expected [host]:port, e.g. :8080 or 127.0.0.1:8081 ("0" disables)`,
    );
  const port = Number(m[3]);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`bad port in bind address ${JSON.stringify(addr)}`);
  const host = m[1] ?? (m[2] === '' || m[2] === undefined ? '0.0.0.0' : m[2]);
  return { host, port };
}

/**
 * A failure to listen on the address a flag gave, said with the flag and what to do: another port
 * (two operators on one machine both take :8080 by default), or, when `off` names what the flag
 * serves, `0` to serve none of it. Other errors come back unchanged.
 */
export function bindFailure(flag: string, addr: string, e: unknown, off?: string): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const bind = code === undefined ? undefined : parseBindAddress(addr);
  if (!bind) return e;
  const other = `${flag} ${bind.host === '0.0.0.0' ? '' : bind.host}:${bind.port + 10}`;
  const instead =
    off === undefined
      ? `give another port (${other})`
      : `give another port (${other}), or ${flag} 0 to serve no ${off}`;
  if (code === 'EADDRINUSE')
    return new Error(`${flag} ${addr}: the address is in use (another operator on this machine?): ${instead}`);
  if (code === 'EACCES')
    return new Error(`${flag} ${addr}: no permission to listen there (ports below 1024 need privileges): ${instead}`);
  if (code === 'EADDRNOTAVAIL')
    return new Error(`${flag} ${addr}: ${bind.host} is not an address of this machine: ${instead}`);
  return e;
}

/** Serves `routes` (path → handler) on `bind`; other paths 404, other methods 405. */
export async function startEndpointServer(
  bind: BindAddress,
  routes: Readonly<Record<string, RouteHandler>>,
  options: EndpointServerOptions = {},
): Promise<EndpointServer> {
  const { filter, tls } = options;
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0];
    const handler = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    Promise.resolve()
      .then(handler)
      .then(
        (r) =>
          res.writeHead(r.status, { 'content-type': r.contentType }).end(req.method === 'HEAD' ? undefined : r.body),
        (e: unknown) =>
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
      );
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (!filter) return answer(req, res);
    filter(req).then(
      (denied) => {
        if (denied) res.writeHead(denied.status, { 'content-type': denied.contentType }).end(denied.body);
        else answer(req, res);
      },
      (e: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${e instanceof Error ? e.message : String(e)}\n`),
    );
  };
  const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, handle) : createServer(handle);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = bind.host.includes(':') ? `[${bind.host}]` : bind.host;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
