// The secured metrics endpoint against a stand-in API server that answers TokenReviews and
// SubjectAccessReviews (the in-process test server serves neither; the real apiserver's answers
// are test/e2e/metrics-secure.test.ts's): 401 without a token or with an unknown one, 403 for a
// user without `get` on /metrics, 200 for one with it, the API server's failure a 500 that is
// not cached, decisions cached for their lifetimes (allowed 5 min, denied 30 s, users 1 min),
// served over HTTPS with a certificate made by node:crypto.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  createCertificate,
  metricsAuthFilter,
  startEndpointServer,
  type EndpointServer,
} from '../../../../src/runtime/index.js';

const TOKENS: Record<string, { username: string; groups: string[] }> = {
  'reader-token': { username: 'system:serviceaccount:monitoring:prometheus', groups: ['system:serviceaccounts'] },
  'other-token': { username: 'system:serviceaccount:default:other', groups: ['system:serviceaccounts'] },
};
const READERS = new Set(['system:serviceaccount:monitoring:prometheus']);

let api: Server;
let apiUrl = '';
const reviews: Array<{ kind: string; body: Record<string, unknown> }> = [];
let failNext = 0;
let clock = 1_000_000;
let metrics: EndpointServer;
const ca = createCertificate({ commonName: 'metrics', hosts: ['127.0.0.1'] });

before(async () => {
  api = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const obj = JSON.parse(body) as { spec: Record<string, unknown> };
      const kind = req.url?.includes('tokenreviews') ? 'TokenReview' : 'SubjectAccessReview';
      reviews.push({ kind, body: obj.spec });
      if (failNext > 0) {
        failNext--;
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"kind":"Status","code":500,"message":"boom"}');
        return;
      }
      const status =
        kind === 'TokenReview'
          ? Object.hasOwn(TOKENS, obj.spec['token'] as string)
            ? { authenticated: true, user: TOKENS[obj.spec['token'] as string] }
            : { authenticated: false }
          : {
              allowed:
                READERS.has(obj.spec['user'] as string) &&
                JSON.stringify(obj.spec['nonResourceAttributes']) === '{"path":"/metrics","verb":"get"}',
            };
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ kind, status }));
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const filter = metricsAuthFilter({ server: apiUrl, qps: 0 }, { now: () => clock });
  metrics = await startEndpointServer(
    { host: '127.0.0.1', port: 0 },
    { '/metrics': () => ({ status: 200, contentType: 'text/plain', body: 'up 1\n' }) },
    { tls: ca, filter },
  );
});
after(async () => {
  await metrics?.close();
  await new Promise((r) => api.close(r));
});

function scrape(token?: string, path = '/metrics'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${metrics.url}${path}`,
      { ca: ca.cert, headers: token !== undefined ? { authorization: `Bearer ${token}` } : {} },
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

test('the certificate node:crypto made: ECDSA P-256, the hosts as subjectAltName, verified by TLS', () => {
  const cert = new X509Certificate(ca.cert);
  assert.equal(cert.subjectAltName, 'IP Address:127.0.0.1');
  assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.ok(cert.verify(cert.publicKey), 'self-signed');
  assert.equal(cert.ca, false);
  assert.match(metrics.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const signed = createCertificate({
    commonName: 'svc',
    hosts: ['svc.ns.svc'],
    issuer: createCertificate({ commonName: 'ca', isCA: true }),
  });
  assert.equal(new X509Certificate(signed.cert).issuer, 'CN=ca');
});

test('401 without a token and with an unknown one; 403 for a user without get on /metrics; 200 for a reader', async () => {
  assert.deepEqual(await scrape(), { status: 401, body: 'Unauthorized\n' });
  assert.equal(reviews.length, 0, 'no token: nothing asked');
  assert.deepEqual(await scrape('forged'), { status: 401, body: 'Unauthorized\n' });
  assert.deepEqual(await scrape('other-token'), {
    status: 403,
    body: 'Authorization denied for user system:serviceaccount:default:other\n',
  });
  assert.deepEqual(await scrape('reader-token'), { status: 200, body: 'up 1\n' });
  const sar = reviews.filter((r) => r.kind === 'SubjectAccessReview').at(-1);
  assert.deepEqual(sar?.body, {
    user: 'system:serviceaccount:monitoring:prometheus',
    groups: ['system:serviceaccounts'],
    nonResourceAttributes: { path: '/metrics', verb: 'get' },
  });
  // other paths go through the filter too: no probing without a token
  assert.equal((await scrape(undefined, '/other')).status, 401);
  assert.equal((await scrape('reader-token', '/other')).status, 403);
});

test('decisions are cached: allowed 5 min, denied 30 s, the user 1 min; a failure is a 500 and not cached', async () => {
  reviews.length = 0;
  clock += 10 * 60_000; // everything before has expired
  assert.equal((await scrape('reader-token')).status, 200);
  assert.equal((await scrape('other-token')).status, 403);
  assert.equal(reviews.length, 4);
  clock += 20_000;
  assert.equal((await scrape('reader-token')).status, 200);
  assert.equal((await scrape('other-token')).status, 403);
  assert.equal(reviews.length, 4, 'both decisions and users from the cache');
  clock += 15_000; // 35 s: the denial expired, the user and the allowance did not
  assert.equal((await scrape('other-token')).status, 403);
  assert.deepEqual(
    reviews.slice(4).map((r) => r.kind),
    ['SubjectAccessReview'],
  );
  clock += 60_000; // 95 s: users expired, the allowance (5 min) did not
  assert.equal((await scrape('reader-token')).status, 200);
  assert.deepEqual(
    reviews.slice(5).map((r) => r.kind),
    ['TokenReview'],
  );
  failNext = 1;
  clock += 10 * 60_000;
  assert.deepEqual(await scrape('reader-token'), { status: 500, body: 'Authentication failed\n' });
  assert.equal((await scrape('reader-token')).status, 200, 'the failure was not cached');
});
