import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../../../src/runtime/index.js';
import { excludedByNoProxy, proxyFromEnvironment } from '../../../../src/runtime/client/proxy-env.js';
import { json, startServer } from './server.js';
import { makePki, type Pki } from './tls.js';

let pki: Pki;
before(() => {
  pki = makePki();
});
after(() => pki.cleanup());

/** A CONNECT-only forward proxy on 127.0.0.1:0 that records the targets and auth it saw. */
async function startProxy(
  t: import('node:test').TestContext,
  opts: { refuse?: boolean; hosts?: Record<string, string> } = {},
) {
  const seen: Array<{ target: string; auth: string | undefined }> = [];
  const sockets = new Set<net.Socket>();
  const proxy = http.createServer((_req, res) => {
    res.writeHead(405);
    res.end();
  });
  proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    sockets.add(client);
    if (opts.refuse) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const [name, port] = (req.url ?? '').split(':');
    const host = opts.hosts?.[name ?? ''] ?? name;
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        proxy.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, seen };
}

test('https through an http:// proxy with CONNECT (proxy credentials from the URL); TLS is still verified end to end', async (t) => {
  const api = await startServer(
    (req, res) => json(res, 200, { path: req.path, auth: req.headers.authorization }),
    https.createServer({ cert: pki.serverCert, key: pki.serverKey }),
  );
  t.after(() => api.close());
  const proxy = await startProxy(t);
  const proxyUrl = proxy.url.replace('http://', 'http://user:p%40ss@');
  const rest = new RestClient({
    server: api.url,
    proxyUrl,
    tls: { caData: pki.ca },
    auth: { bearerToken: 't' },
    qps: 0,
  });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/api/v1'), { path: '/api/v1', auth: 'Bearer t' });
  assert.deepEqual(await rest.get('/apis'), { path: '/apis', auth: 'Bearer t' });
  const port = new URL(api.url).port;
  assert.equal(proxy.seen[0]?.target, `127.0.0.1:${port}`);
  assert.equal(proxy.seen[0]?.auth, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  assert.equal(proxy.seen.length, 1); // keep-alive: the tunnel is reused

  const untrusted = new RestClient({ server: api.url, proxyUrl: proxy.url, tls: { caData: pki.otherCa }, qps: 0 });
  t.after(() => untrusted.close());
  await assert.rejects(untrusted.get('/api'), /certificate/i);
});

test('plain http servers also go through the tunnel; a refusing proxy is a clear error', async (t) => {
  const api = await startServer((req, res) => json(res, 200, { path: req.path }));
  t.after(() => api.close());
  const proxy = await startProxy(t);
  const rest = new RestClient({ server: api.url, proxyUrl: proxy.url, qps: 0 });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/healthz'), { path: '/healthz' });
  assert.equal(proxy.seen.length, 1);

  const refusing = await startProxy(t, { refuse: true });
  const rest2 = new RestClient({ server: api.url, proxyUrl: refusing.url, qps: 0 });
  t.after(() => rest2.close());
  await assert.rejects(rest2.get('/healthz'), /proxy 127\.0\.0\.1:\d+ refused CONNECT 127\.0\.0\.1:\d+: HTTP 403/);
  const dead = new RestClient({ server: api.url, proxyUrl: 'http://127.0.0.1:1', qps: 0 });
  t.after(() => dead.close());
  await assert.rejects(dead.get('/healthz'), /cannot reach proxy 127\.0\.0\.1:1/);
});

test('proxyFromEnvironment: HTTPS_PROXY/HTTP_PROXY by scheme, NO_PROXY, loopback never proxied', () => {
  const env = {
    HTTPS_PROXY: 'proxy.corp:3128',
    http_proxy: 'http://p2:80',
    NO_PROXY: '.svc,internal.example.com,10.0.0.0/8,192.168.1.5,api.local:6443,[fd00::1]',
  };
  const p = (u: string, e: NodeJS.ProcessEnv = env) => proxyFromEnvironment(new URL(u), e);
  assert.equal(p('https://api.example.com'), 'http://proxy.corp:3128'); // no scheme: http://
  assert.equal(p('http://api.example.com'), 'http://p2:80'); // lower-case variant
  assert.equal(p('https://kubernetes.default.svc'), undefined); // .svc suffix
  assert.equal(p('https://internal.example.com'), undefined);
  assert.equal(p('https://a.internal.example.com'), undefined); // subdomain
  assert.equal(p('https://notinternal.example.com'), 'http://proxy.corp:3128');
  assert.equal(p('https://10.96.0.1:443'), undefined); // CIDR
  assert.equal(p('https://11.0.0.1'), 'http://proxy.corp:3128');
  assert.equal(p('https://192.168.1.5:6443'), undefined);
  assert.equal(p('https://api.local:6443'), undefined); // host:port entry
  assert.equal(p('https://api.local:443'), 'http://proxy.corp:3128');
  assert.equal(p('https://[fd00::1]:6443'), undefined);
  for (const u of ['https://127.0.0.1:6443', 'https://localhost', 'https://[::1]:6443', 'https://x.localhost'])
    assert.equal(p(u), undefined, u);
  assert.equal(p('https://api.example.com', { NO_PROXY: '*', HTTPS_PROXY: 'http://p' }), undefined);
  assert.equal(p('https://api.example.com', {}), undefined);
  assert.equal(excludedByNoProxy('*.example.com', 'a.example.com', '443'), true);
  assert.equal(excludedByNoProxy('2001:db8::/32', '2001:db8:0:1::5', '443'), true);
  assert.equal(excludedByNoProxy('2001:db8::/32', '2001:db9::5', '443'), false);
});

test('without proxy-url the environment proxy is used (and proxyFromEnvironment: false turns it off)', async (t) => {
  const api = await startServer((req, res) => json(res, 200, { host: req.headers.host }));
  t.after(() => api.close());
  const proxy = await startProxy(t, { hosts: { 'api.test': '127.0.0.1' } });
  const port = new URL(api.url).port;
  const env = { HTTP_PROXY: proxy.url };
  const rest = new RestClient({ server: `http://api.test:${port}`, qps: 0 }, { env });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/api'), { host: `api.test:${port}` });
  assert.equal(proxy.seen[0]?.target, `api.test:${port}`);
  const direct = new RestClient({ server: api.url, qps: 0 }, { env }); // loopback: direct
  t.after(() => direct.close());
  await direct.get('/api');
  assert.equal(proxy.seen.length, 1);
  // 0.0.0.0 is not loopback for proxy selection, yet reaches the local server directly (Linux).
  const viaEnv = new RestClient({ server: `http://0.0.0.0:${port}`, qps: 0 }, { env });
  const off = new RestClient({ server: `http://0.0.0.0:${port}`, qps: 0, proxyFromEnvironment: false }, { env });
  t.after(() => {
    viaEnv.close();
    off.close();
  });
  await off.get('/api');
  assert.equal(proxy.seen.length, 1);
  await viaEnv.get('/api');
  assert.equal(proxy.seen.length, 2);
  assert.throws(
    () => new RestClient({ server: 'https://api.example.com' }, { env: { HTTPS_PROXY: 'socks5://p:1080' } }),
    /from the HTTPS_PROXY\/HTTP_PROXY environment.*only http:\/\/ proxies/,
  );
});
