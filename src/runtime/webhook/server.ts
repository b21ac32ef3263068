// The operator's webhook server (controller-runtime's webhook.Server): HTTPS on a bind address
// with the certificate of a folder (reloaded when it changes), admission and conversion
// reviews on registered paths. Bodies are size-limited; whatever arrives, the answer is a
// well-formed review (or a plain HTTP error for a request that is not a review at all), never a
// crash.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { parseBindAddress } from '../http/endpoint-server.js';
import { parseAdmissionReview, errored, type AdmissionHandler, type AdmissionReview } from './admission.js';
import { answerConversionReview, failedConversionReview, type HubAndSpoke } from './conversion.js';
import { CertWatcher, type ServingCertificates } from './certwatcher.js';

/** The largest request body accepted (controller-runtime's 7 MiB: the apiserver's 3 MiB object, twice, in a review). */
export const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;

/** Options of {@link startWebhookServer}. */
export interface WebhookServerOptions {
  /** `[host]:port` (default `:9443`). */
  bindAddress?: string;
  /** The folder with the serving certificate and key (watched by a {@link CertWatcher}); or `certificates`. */
  certDir?: string;
  /** Where the serving certificate comes from instead of a folder (--webhook-cert-mode=self: a `CertRotator`, started). */
  certificates?: ServingCertificates;
  certName?: string;
  keyName?: string;
  /** How often the certificate files are read again besides file-system events (default 10000 ms). */
  certPollIntervalMs?: number;
  /** Request bodies larger than this are refused (default {@link DEFAULT_MAX_REQUEST_BYTES}). */
  maxRequestBytes?: number;
  logger?: Logger;
}

/** A running webhook server. */
export interface WebhookServer {
  /** `https://host:port` actually bound. */
  readonly url: string;
  readonly port: number;
  /** The serving certificates (reload() reads the files, or the Secret, now). */
  readonly certs: ServingCertificates;
  /** Serves AdmissionReviews on `path` (e.g. `/validate-coolops-cn-v1-databasemanager`). */
  admission(path: string, handler: AdmissionHandler): void;
  /** Serves ConversionReviews on `path` (e.g. `/convert`) with these kinds' conversions. */
  conversion(path: string, conversions: readonly HubAndSpoke[]): void;
  close(): Promise<void>;
}

type Route =
  { type: 'admission'; handler: AdmissionHandler } | { type: 'conversion'; conversions: readonly HubAndSpoke[] };

/** Starts the webhook server; a certificate that cannot be read fails the start with a clear error. */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const logger = options.logger ?? noopLogger;
  const bind = parseBindAddress(options.bindAddress ?? ':9443');
  if (!bind) throw new Error('the webhook server needs a bind address ("0" does not disable it here)');
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  let certs: ServingCertificates;
  if (options.certificates) certs = options.certificates;
  else if (options.certDir !== undefined) {
    const watcher = new CertWatcher({
      certDir: options.certDir,
      ...(options.certName ? { certName: options.certName } : {}),
      ...(options.keyName ? { keyName: options.keyName } : {}),
      ...(options.certPollIntervalMs !== undefined ? { pollIntervalMs: options.certPollIntervalMs } : {}),
      logger,
    });
    await watcher.start();
    certs = watcher;
  } else throw new Error('the webhook server needs certDir or certificates');
  const routes = new Map<string, Route>();
  const server: Server = createServer(
    {
      // every handshake takes the watcher's pair of the moment: a rotated certificate serves new connections at once
      SNICallback: (_name, cb) => cb(null, certs.secureContext()),
      ...certs.current(),
    },
    (req, res) => {
      handle(req, res).catch((e: unknown) => {
        logger.error({ err: errorMessage(e), path: req.url }, 'webhook request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      });
    },
  );
  server.keepAliveTimeout = 5_000;
  server.on('tlsClientError', (e) => logger.debug({ err: errorMessage(e) }, 'webhook TLS handshake failed'));
  // a pair loaded later is also the default context (clients that send no server name)
  certs.onChange((pair) => server.setSecureContext({ cert: pair.cert, key: pair.key }));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const route = routes.get(path);
    if (!route) {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no webhook is served at ${path}\n`);
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'POST' }).end('webhooks take POST\n');
      return;
    }
    const contentType = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    const started = Date.now();
    const body = await readBody(req, maxBytes);
    let answer: unknown;
    let parsed: unknown;
    let problem: string | undefined;
    if (body.tooLarge) problem = `the request body is larger than ${maxBytes} bytes`;
    else if (contentType !== 'application/json')
      problem = `contentType=${contentType || '(none)'}, expected application/json`;
    else if (body.data.length === 0) problem = 'the request body is empty';
    else {
      try {
        parsed = JSON.parse(body.data.toString('utf8'));
      } catch (e) {
        problem = `the request body is not JSON: ${errorMessage(e)}`;
      }
    }
    if (route.type === 'admission') answer = await admit(route.handler, parsed, problem);
    else
      answer =
        problem !== undefined
          ? failedConversionReview(uidOf(parsed), problem)
          : answerConversionReview(route.conversions, parsed);
    const text = JSON.stringify(answer);
    logger.debug({ path, ms: Date.now() - started, bytes: body.data.length }, 'webhook request');
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    if (body.tooLarge) req.destroy();
  }

  async function admit(
    handler: AdmissionHandler,
    parsed: unknown,
    problem: string | undefined,
  ): Promise<AdmissionReview> {
    if (problem !== undefined)
      return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: errored('', 400, problem) };
    const p = parseAdmissionReview(parsed);
    if ('error' in p)
      return { apiVersion: p.apiVersion, kind: 'AdmissionReview', response: errored(uidOf(parsed), 400, p.error) };
    let response;
    try {
      response = await handler(p.request);
      if (typeof response !== 'object' || response === null || typeof response.allowed !== 'boolean') {
        response = errored(p.request.uid, 500, 'the webhook handler returned no AdmissionResponse');
      }
    } catch (e) {
      response = errored(p.request.uid, 500, errorMessage(e));
    }
    return { apiVersion: p.review.apiVersion, kind: 'AdmissionReview', response: { ...response, uid: p.request.uid } };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = bind.host === '0.0.0.0' ? '127.0.0.1' : bind.host.includes(':') ? `[${bind.host}]` : bind.host;
  logger.info(
    { address: `${bind.host}:${port}`, ...(options.certDir !== undefined ? { certDir: options.certDir } : {}) },
    'serving webhooks',
  );
  return {
    url: `https://${host}:${port}`,
    port,
    certs,
    admission: (path, handler) => {
      routes.set(normalisePath(path), { type: 'admission', handler });
    },
    conversion: (path, conversions) => {
      routes.set(normalisePath(path), { type: 'conversion', conversions });
    },
    close: () =>
      new Promise<void>((done) => {
        certs.stop();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function normalisePath(p: string): string {
  if (!p.startsWith('/')) throw new Error(`a webhook path starts with "/": ${JSON.stringify(p)}`);
  return p;
}

function uidOf(v: unknown): string {
  const r = typeof v === 'object' && v !== null ? (v as { request?: { uid?: unknown } }).request : undefined;
  return typeof r?.uid === 'string' ? r.uid : '';
}

async function readBody(req: IncomingMessage, max: number): Promise<{ data: Buffer; tooLarge: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    req.resume();
    return { data: Buffer.alloc(0), tooLarge: true };
  }
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) {
      tooLarge = true;
      break;
    }
    chunks.push(chunk as Buffer);
  }
  return { data: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge };
}
