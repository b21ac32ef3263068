// How testenv calls a webhook, as the apiserver's webhook client does: POST JSON to the
// clientConfig's url (or the Service's in-cluster name, which testenv cannot reach) with
// `?timeout=<n>s`, trusting the caBundle (or the system's CAs without one), within the timeout.
// Failures are worded as Go's net/http words them (`Post "<url>": dial tcp …: connect:
// connection refused`), since users match on the apiserver's messages.
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isObject } from './meta.js';

/** admissionregistration/v1 WebhookClientConfig (and apiextensions/v1's). */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  /** base64 of PEM CA certificates. */
  caBundle?: string;
}

/** A failed call (the apiserver's ErrCallingWebhook reason). */
export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
}

/** The URL the apiserver posts to (without the timeout query). */
export function webhookUrl(cc: WebhookClientConfig): string {
  if (cc.url) return cc.url;
  const s = cc.service ?? {};
  const path = s.path ?? '';
  return `https://${s.name ?? ''}.${s.namespace ?? ''}.svc:${s.port ?? 443}${path}`;
}

function goDuration(seconds: number): string {
  return `${seconds}s`;
}

/** Go's net error for a Node socket error. */
function goNetError(e: NodeJS.ErrnoException, host: string, port: string): string {
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}:${port}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    case 'EHOSTUNREACH':
      return `dial tcp ${host}:${port}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${host}`;
    default:
      return e.message;
  }
}

/**
 * client-go's error for a non-2xx answer: a Status body's message, else apimachinery's
 * NewGenericServerResponse wording for the code (a text body is the server's message).
 */
function restClientError(code: number, text: string, contentType: string): string {
  try {
    const st = JSON.parse(text) as unknown;
    if (isObject(st) && st.kind === 'Status' && typeof st.message === 'string' && st.status === 'Failure')
      return st.message;
  } catch {
    // not JSON
  }
  const server = contentType.startsWith('text/') ? text.slice(0, 1024).trim() : 'unknown';
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
    case 415:
      return server;
    case 406:
      return server === '' || server === 'unknown'
        ? 'the server was unable to respond with a content type that the client supports'
        : server;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      return code >= 500
        ? `an error on the server (${JSON.stringify(server)}) has prevented the request from succeeding`
        : `the server responded with the status code ${code} but did not return more information`;
  }
}

/**
 * Posts `body` to the webhook and resolves with the decoded JSON answer. Rejects with a
 * {@link WebhookCallError} worded as the apiserver's (without the `failed calling webhook` prefix).
 */
export function callWebhook(cc: WebhookClientConfig, timeoutSeconds: number, body: unknown): Promise<unknown> {
  const base = webhookUrl(cc);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return Promise.reject(new WebhookCallError(`parse "${base}": invalid URL`));
  }
  url.searchParams.set('timeout', goDuration(timeoutSeconds));
  const shown = url.toString();
  const post = `Post "${shown}"`;
  let ca: string | undefined;
  if (cc.caBundle) {
    try {
      ca = Buffer.from(cc.caBundle, 'base64').toString('utf8');
    } catch {
      return Promise.reject(
        new WebhookCallError(
          'could not get REST client: unable to load root certificates: unable to parse bytes as PEM block',
        ),
      );
    }
  }
  if (url.protocol !== 'https:')
    return Promise.reject(new WebhookCallError(`${post}: http: server gave HTTP response to HTTPS client`));
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'content-length': Buffer.byteLength(payload),
        },
        ...(ca ? { ca } : {}),
        agent: false,
        servername: /^[\d.]+$|:/.test(url.hostname) ? undefined : url.hostname,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => done(() => reject(new WebhookCallError(`${post}: ${e.message}`))));
        res.on('end', () =>
          done(() => {
            const text = Buffer.concat(chunks).toString('utf8');
            const code = res.statusCode ?? 0;
            if (code < 200 || code >= 300) {
              reject(new WebhookCallError(restClientError(code, text, String(res.headers['content-type'] ?? ''))));
              return;
            }
            try {
              resolve(JSON.parse(text) as unknown);
            } catch (e) {
              reject(new WebhookCallError(`${(e as Error).message}`));
            }
          }),
        );
      },
    );
    const timer = setTimeout(() => {
      done(() => reject(new WebhookCallError(`${post}: context deadline exceeded`)));
      req.destroy();
    }, timeoutSeconds * 1000);
    timer.unref?.();
    req.on('error', (e: NodeJS.ErrnoException) =>
      done(() => reject(new WebhookCallError(`${post}: ${goNetError(e, url.hostname, url.port || '443')}`))),
    );
    req.end(payload);
  });
}
