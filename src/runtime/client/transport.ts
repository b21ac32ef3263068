// The HTTP(S) transport of a RestConfig: a keep-alive Agent carrying the TLS settings
// (CA, client certificate, server name, verification), optionally tunnelled through an
// http:// proxy with CONNECT. Built on node:http/node:https only.
import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { isIP } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { RestConfig } from './config.js';
import { proxyFromEnvironment } from './proxy-env.js';

/** One HTTP request as the transport sends it. */
export interface TransportRequest {
  method: string;
  /** Path and query, appended to the server URL's path prefix. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  signal?: AbortSignal;
  /** A client certificate from an exec plugin; replaces the config's static one. */
  clientCert?: { cert: string; key: string };
}

interface TlsMaterial {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
}

/**
 * Sends requests to one API server. Holds one keep-alive Agent per client certificate
 * in use (normally one); `close()` destroys them.
 */
export class Transport {
  readonly url: URL;
  private readonly secure: boolean;
  private readonly proxy: URL | undefined;
  private material: Promise<TlsMaterial> | undefined;
  private readonly agents = new Map<string, http.Agent>();

  /**
   * Validates the server and proxy URLs (TLS files are read on first use). Without a
   * proxyUrl, the proxy comes from `env` (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) as in client-go.
   */
  constructor(
    private readonly config: RestConfig,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    let url: URL;
    try {
      url = new URL(config.server);
    } catch {
      throw new Error(
        `invalid API server URL ${JSON.stringify(config.server)}${config.source ? ` (from ${config.source})` : ''}`,
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error(`API server URL must be http:// or https://, got ${JSON.stringify(config.server)}`);
    }
    this.url = url;
    this.secure = url.protocol === 'https:';
    const fromEnv = config.proxyUrl === undefined && config.proxyFromEnvironment !== false;
    const proxyUrl = config.proxyUrl || (fromEnv ? proxyFromEnvironment(url, env) : undefined);
    if (proxyUrl) {
      const where = fromEnv ? ' (from the HTTPS_PROXY/HTTP_PROXY environment)' : '';
      let p: URL;
      try {
        p = new URL(proxyUrl);
      } catch {
        throw new Error(`invalid proxy-url ${JSON.stringify(proxyUrl)}${where}`);
      }
      if (p.protocol !== 'http:') {
        throw new Error(
          `proxy-url ${JSON.stringify(proxyUrl)}${where}: only http:// proxies (CONNECT) are supported, not ${p.protocol}//`,
        );
      }
      this.proxy = p;
    }
  }

  /** Sends a request; resolves with the response once its headers arrived. */
  async request(req: TransportRequest): Promise<http.IncomingMessage> {
    const agent = await this.agentFor(req.clientCert);
    const prefix = this.url.pathname.replace(/\/+$/, '');
    const headers: Record<string, string | string[]> = { ...req.headers };
    if (req.body) headers['Content-Length'] = String(req.body.length);
    const options: http.RequestOptions = {
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: this.url.port || (this.secure ? 443 : 80),
      method: req.method,
      path: prefix + req.path,
      headers,
      agent,
      ...(req.signal ? { signal: req.signal } : {}),
    };
    return new Promise((resolve, reject) => {
      const r = (this.secure ? https : http).request(options, resolve);
      // `on`, not `once`: a late second error must not become an unhandled 'error' event.
      // An error on a kept-alive socket says so (`reusedSocket`): the server may have closed it
      // while it was idle, and the request never reached it.
      r.on('error', (e: Error & { reusedSocket?: boolean }) => {
        if (r.reusedSocket) e.reusedSocket = true;
        reject(e);
      });
      r.end(req.body);
    });
  }

  /** Destroys the agents and their sockets. */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private async agentFor(clientCert: { cert: string; key: string } | undefined): Promise<http.Agent> {
    const id = clientCert ? clientCert.cert : '';
    const existing = this.agents.get(id);
    if (existing) return existing;
    const m = await this.tlsMaterial();
    const again = this.agents.get(id);
    if (again) return again;
    const t = this.config.tls ?? {};
    const tlsOptions: https.AgentOptions = {
      keepAlive: true,
      ...(m.ca !== undefined ? { ca: m.ca } : {}),
      ...(clientCert
        ? { cert: clientCert.cert, key: clientCert.key }
        : m.cert !== undefined
          ? { cert: m.cert, key: m.key }
          : {}),
      rejectUnauthorized: !t.insecureSkipTlsVerify,
      ...(t.serverName ? { servername: t.serverName } : {}),
    };
    const agent = this.secure ? new https.Agent(tlsOptions) : new http.Agent({ keepAlive: true });
    if (this.proxy) installTunnel(agent, this.proxy, this.secure);
    // Credentials rotate rarely; keep the previous agent (its watches may still be open).
    if (this.agents.size >= 2) {
      const oldest = this.agents.keys().next().value as string;
      this.agents.delete(oldest);
    }
    this.agents.set(id, agent);
    return agent;
  }

  private tlsMaterial(): Promise<TlsMaterial> {
    this.material ??= loadTlsMaterial(this.config).catch((e: unknown) => {
      this.material = undefined;
      throw e;
    });
    return this.material;
  }
}

async function loadTlsMaterial(config: RestConfig): Promise<TlsMaterial> {
  const t = config.tls ?? {};
  const read = async (what: string, data: string | Buffer | undefined, file: string | undefined) => {
    if (data !== undefined && data.length > 0) return data;
    if (!file) return undefined;
    try {
      return await readFile(file);
    } catch (e) {
      throw new Error(`cannot read ${what} file ${file}: ${(e as Error).message}`);
    }
  };
  const [ca, cert, key] = await Promise.all([
    read('certificate-authority', t.caData, t.caFile),
    read('client-certificate', t.certData, t.certFile),
    read('client-key', t.keyData, t.keyFile),
  ]);
  if ((cert === undefined) !== (key === undefined)) {
    throw new Error('a client certificate needs both client-certificate and client-key');
  }
  return { ...(ca !== undefined ? { ca } : {}), ...(cert !== undefined ? { cert, key } : {}) };
}

type ConnectCallback = (err: Error | null, socket?: Duplex) => void;

/**
 * Makes `agent` open its connections through an HTTP CONNECT tunnel at `proxy`
 * (then TLS inside the tunnel for https servers).
 */
function installTunnel(agent: http.Agent, proxy: URL, secure: boolean): void {
  const connect = (
    options: tls.ConnectionOptions & { host?: string; port?: number | string },
    cb: ConnectCallback,
  ): undefined => {
    const target = `${options.host}:${options.port}`;
    const headers: Record<string, string> = { Host: target };
    if (proxy.username || proxy.password) {
      const cred = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
      headers['Proxy-Authorization'] = `Basic ${Buffer.from(cred).toString('base64')}`;
    }
    const req = http.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || 80,
      method: 'CONNECT',
      path: target,
      headers,
      agent: false,
    });
    let done = false;
    const finish = (err: Error | null, socket?: Duplex) => {
      if (done) return;
      done = true;
      cb(err, socket);
    };
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        finish(new Error(`proxy ${proxy.host} refused CONNECT ${target}: HTTP ${res.statusCode}`));
        return;
      }
      if (!secure) {
        finish(null, socket);
        return;
      }
      const host = String(options.host);
      const servername = options.servername ?? (isIP(host) ? undefined : host);
      const s = tls.connect({ ...options, socket, ...(servername ? { servername } : {}) });
      s.once('secureConnect', () => finish(null, s));
      s.once('error', (e: Error) => finish(e));
    });
    req.once('error', (e) => finish(new Error(`cannot reach proxy ${proxy.host}: ${e.message}`)));
    req.end();
    return undefined;
  };
  (agent as unknown as { createConnection: typeof connect }).createConnection = connect;
}
