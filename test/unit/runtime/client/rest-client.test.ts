import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEventListeners } from 'node:events';
import {
  RestClient,
  RequestTimeoutError,
  defaultUserAgent,
  withQuery,
  applicationName,
  ApiError,
  isTooManyRequests,
  TokenBucketRateLimiter,
  type LimiterClock,
  type RestConfig,
} from '../../../../src/runtime/index.js';
import { json, startServer, status, type Handler } from './server.js';

async function withServer(t: import('node:test').TestContext, handler: Handler, config: Partial<RestConfig> = {}) {
  const srv = await startServer(handler);
  const rest = new RestClient({ server: srv.url, qps: 0, ...config });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  return { srv, rest };
}

test('withQuery encodes values, repeats arrays, drops undefined', () => {
  assert.equal(
    withQuery('/p', { a: 'x y', b: undefined, c: 3, d: true, e: ['1', '2'] }),
    '/p?a=x+y&c=3&d=true&e=1&e=2',
  );
  assert.equal(withQuery('/p', {}), '/p');
});

test('requests carry Accept, User-Agent, bearer token, Content-Type and JSON body', async (t) => {
  const { srv, rest } = await withServer(
    t,
    (req, res) => json(res, 200, { ok: true, echo: req.body ? JSON.parse(req.body) : null }),
    {
      auth: { bearerToken: 'tok-1' },
      headers: { 'X-Extra': 'yes' },
    },
  );
  const r = await rest.request<{ ok: boolean; echo: unknown }>({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { a: 'ü' },
  });
  assert.deepEqual(r, { ok: true, echo: { a: 'ü' } });
  const h = srv.requests[0].headers;
  assert.equal(h.authorization, 'Bearer tok-1');
  assert.equal(h.accept, 'application/json');
  assert.equal(h['content-type'], 'application/json');
  assert.equal(h['x-extra'], 'yes');
  // client-go's shape with the application's name first (the API server's default field manager)
  assert.match(h['user-agent'] ?? '', /^[^/ ]+\/\d+\.\d+\.\d+ \(\w+\/\w+\) node\/v\d+/);
  assert.equal((h['user-agent'] ?? '').split('/')[0], applicationName());
  assert.equal(h['user-agent'], defaultUserAgent());
});

test('basic auth and a custom user agent', async (t) => {
  const { srv, rest } = await withServer(t, (_req, res) => json(res, 200, {}), {
    auth: { username: 'ad:min', password: 'p@ss' },
    userAgent: 'my-op/1.0',
  });
  await rest.get('/version');
  assert.equal(srv.requests[0].headers.authorization, `Basic ${Buffer.from('ad:min:p@ss').toString('base64')}`);
  assert.equal(srv.requests[0].headers['user-agent'], 'my-op/1.0');
});

test('token file: read, and re-read after a 401 so a rotated token is used', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  writeFileSync(file, 'old-token\n');
  const { srv, rest } = await withServer(
    t,
    (req, res) => {
      if (req.headers.authorization === 'Bearer new-token') json(res, 200, { ok: 1 });
      else json(res, 401, status(401, 'Unauthorized'));
    },
    { auth: { bearerTokenFile: file } },
  );
  await assert.rejects(rest.get('/api'), (e: unknown) => e instanceof ApiError && e.code === 401);
  // Unchanged file after a 401: no retry loop (one request per call).
  assert.equal(srv.requests.length, 1);
  writeFileSync(file, 'new-token');
  assert.deepEqual(await rest.get('/api'), { ok: 1 });
  assert.deepEqual(
    srv.requests.map((r) => r.headers.authorization),
    ['Bearer old-token', 'Bearer old-token', 'Bearer new-token'],
  );
});

test('a missing token file is a clear error', async (t) => {
  const { rest } = await withServer(t, (_req, res) => json(res, 200, {}), {
    auth: { bearerTokenFile: '/nonexistent/token' },
  });
  await assert.rejects(rest.get('/api'), /cannot read bearer token file \/nonexistent\/token/);
});

test('429 with Retry-After is retried (bounded by maxRetries); 500 without Retry-After is not', async (t) => {
  let n = 0;
  const { srv, rest } = await withServer(
    t,
    (req, res) => {
      if (req.path === '/busy') {
        n++;
        if (n < 3) json(res, 429, status(429, 'TooManyRequests'), { 'Retry-After': '0' });
        else json(res, 200, { attempt: n });
      } else if (req.path === '/always') json(res, 429, status(429, 'TooManyRequests'), { 'Retry-After': '0' });
      else json(res, 500, status(500, 'InternalError'));
    },
    { maxRetries: 4 },
  );
  const retries: number[] = [];
  rest.config.metrics = { requestRetry: (i) => retries.push(i.code) };
  assert.deepEqual(await rest.get('/busy'), { attempt: 3 });
  assert.deepEqual(retries, [429, 429]);
  await assert.rejects(
    rest.get('/always'),
    (e: unknown) => isTooManyRequests(e) && (e as ApiError).retryAfterSeconds === 0,
  );
  assert.equal(srv.requests.filter((r) => r.path === '/always').length, 5); // 1 + maxRetries
  await assert.rejects(rest.get('/fail'), (e: unknown) => e instanceof ApiError && e.code === 500);
  assert.equal(srv.requests.filter((r) => r.path === '/fail').length, 1);
});

test('Retry-After is honoured: the retry waits that long', async (t) => {
  let first = 0;
  const { srv, rest } = await withServer(t, (_req, res) => {
    if (!first) {
      first = Date.now();
      json(res, 503, status(503, 'ServiceUnavailable'), { 'Retry-After': '1' });
    } else json(res, 200, { at: Date.now() - first });
  });
  const r = await rest.get<{ at: number }>('/slow');
  assert.ok(r.at >= 950, `retried after ${r.at} ms`);
  assert.equal(srv.requests.length, 2);
});

test('timeouts and aborts', async (t) => {
  const { rest } = await withServer(t, (_req, res) => {
    setTimeout(() => json(res, 200, {}), 2000).unref();
  });
  await assert.rejects(
    rest.request({ method: 'GET', path: '/hang', timeoutMs: 50 }),
    (e: unknown) => e instanceof RequestTimeoutError && /timed out after 50 ms/.test(e.message),
  );
  const ac = new AbortController();
  setTimeout(() => ac.abort(new Error('caller gave up')), 30);
  await assert.rejects(rest.get('/hang', undefined, ac.signal), /caller gave up/);
  await assert.rejects(rest.get('/x', undefined, AbortSignal.abort()), { name: 'AbortError' });
});

test('connection errors name the server and path; bad URLs fail at construction', async () => {
  const rest = new RestClient({ server: 'http://127.0.0.1:1', qps: 0 });
  await assert.rejects(rest.get('/api'), /GET http:\/\/127\.0\.0\.1:1\/api: .*ECONNREFUSED/);
  rest.close();
  assert.throws(() => new RestClient({ server: 'not a url' }), /invalid API server URL/);
  assert.throws(() => new RestClient({ server: 'ftp://x' }), /must be http:\/\/ or https:\/\//);
  assert.throws(() => new RestClient({ server: 'https://x', proxyUrl: 'socks5://p:1080' }), /only http:\/\/ proxies/);
});

test('metrics hooks see every request with its code', async (t) => {
  const seen: Array<string> = [];
  const { rest } = await withServer(
    t,
    (req, res) => (req.path === '/missing' ? json(res, 404, status(404, 'NotFound')) : json(res, 200, {})),
    {
      metrics: { requestDone: (i) => seen.push(`${i.method} ${i.host} ${i.path} ${i.code}`) },
    },
  );
  await rest.get('/ok');
  await assert.rejects(rest.get('/missing'));
  const host = new URL(rest.config.server).host;
  assert.deepEqual(seen, [`GET ${host} /ok 200`, `GET ${host} /missing 404`]);
});

test('the server path prefix of the config URL is kept', async (t) => {
  const srv = await startServer((_req, res) => json(res, 200, {}));
  const rest = new RestClient({ server: `${srv.url}/k8s/clusters/c-1/`, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  await rest.get('/api/v1/namespaces');
  assert.equal(srv.requests[0].path, '/k8s/clusters/c-1/api/v1/namespaces');
});

function fakeClock(): LimiterClock & { t: number; sleeps: number[] } {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
  return c;
}

test('token bucket: burst passes at once, then one request per 1/qps; aborted waits give the token back', async () => {
  const clock = fakeClock();
  const tb = new TokenBucketRateLimiter(5, 10, clock);
  for (let i = 0; i < 10; i++) await tb.wait();
  assert.deepEqual(clock.sleeps, []);
  await tb.wait();
  assert.equal(Math.round(clock.sleeps[0]), 200);
  assert.equal(tb.tryAccept(), false);
  clock.t += 1000; // refill 5 tokens
  for (let i = 0; i < 5; i++) assert.equal(tb.tryAccept(), true);
  assert.equal(tb.tryAccept(), false);
  clock.t += 10_000; // never more than burst
  let n = 0;
  while (tb.tryAccept()) n++;
  assert.equal(n, 10);
  await assert.rejects(tb.wait(AbortSignal.abort()), { name: 'AbortError' });
  assert.throws(() => new TokenBucketRateLimiter(0, 10), /qps must be a positive number/);
  assert.throws(() => new TokenBucketRateLimiter(5, 0), /burst must be an integer >= 1/);
});

test('the default client limiter (5 qps, burst 10) makes the 12th request wait', async (t) => {
  const { rest } = await withServer(t, (_req, res) => json(res, 200, {}), { qps: undefined });
  const waits: number[] = [];
  rest.config.metrics = { rateLimiterWait: (i) => waits.push(i.seconds) };
  const start = performance.now();
  await Promise.all(Array.from({ length: 12 }, () => rest.get('/x')));
  const elapsed = performance.now() - start;
  assert.ok(elapsed >= 350, `12 requests took ${elapsed} ms`); // tokens 11 and 12 wait 200 and 400 ms
  assert.ok(waits.length >= 2);
});

test('Warning headers reach onWarning', async (t) => {
  const warnings: string[] = [];
  const { rest } = await withServer(
    t,
    (_req, res) => {
      res.setHeader('Warning', [
        '299 - "v1beta1 Foo is deprecated; use v1"',
        '299 - "unknown field \\"spec.replica\\""',
      ]);
      json(res, 200, {});
    },
    { onWarning: (m) => warnings.push(m) },
  );
  await rest.get('/apis/x/v1beta1/foos');
  assert.deepEqual(warnings, ['v1beta1 Foo is deprecated; use v1', 'unknown field "spec.replica"']);
});

test('a GET whose connection is reset is sent again once; a POST is not', async (t) => {
  let n = 0;
  const { srv, rest } = await withServer(t, (req, res) => {
    n++;
    if (n === 1 || req.method === 'POST') res.socket?.destroy();
    else json(res, 200, { n });
  });
  assert.deepEqual(await rest.get('/api'), { n: 2 });
  await assert.rejects(
    rest.request({ method: 'POST', path: '/api/v1/namespaces', body: {} }),
    /POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces: socket hang up/,
  );
  assert.equal(srv.requests.filter((r) => r.method === 'POST').length, 1);
});

test('RestClient.for shares one client per config object', () => {
  const cfg: RestConfig = { server: 'https://127.0.0.1:6443' };
  assert.equal(RestClient.for(cfg), RestClient.for(cfg));
  assert.notEqual(RestClient.for(cfg), RestClient.for({ ...cfg }));
});

test('calls with a timeout leave no listeners on a long-lived caller signal', async (t) => {
  const { rest } = await withServer(t, (_req, res) => json(res, 200, {}), { timeoutMs: 5000 });
  const ac = new AbortController();
  for (let i = 0; i < 20; i++) await rest.get('/api', undefined, ac.signal);
  assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
});

test('requestText returns non-JSON bodies; request refuses them clearly', async (t) => {
  const { rest } = await withServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  });
  assert.equal(await rest.requestText({ method: 'GET', path: '/healthz' }), 'ok');
  await assert.rejects(rest.get('/healthz'), /GET \/healthz: the server answered 200 with a body that is not JSON/);
});

test('bodies arrive intact when chunks split UTF-8 characters, with and without Content-Length', async (t) => {
  const value = { name: 'ünïcødé €uro 😀 日本語', items: Array.from({ length: 300 }, (_, i) => `é${i}😀`) };
  const bytes = Buffer.from(JSON.stringify(value));
  /** Writes the body a few bytes at a time, so chunk edges fall inside multi-byte characters. */
  const trickle = async (res: import('node:http').ServerResponse): Promise<void> => {
    for (let i = 0; i < bytes.length; i += 7) {
      res.write(bytes.subarray(i, i + 7));
      if (i % 700 === 0) await new Promise((r) => setImmediate(r));
    }
    res.end();
  };
  const { rest } = await withServer(t, async (req, res) => {
    if (req.path === '/sized')
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
    else res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked transfer encoding
    await trickle(res);
  });
  assert.deepEqual(await rest.get('/sized'), value);
  assert.deepEqual(await rest.get('/chunked'), value);
  assert.equal(await rest.requestText({ method: 'GET', path: '/sized' }), bytes.toString('utf8'));
});

test('a body cut short by the server is an error, never partial text', async (t) => {
  const { rest } = await withServer(t, (req, res) => {
    if (req.path === '/sized') res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 1000 });
    else res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked transfer encoding
    res.write('{"items":[1,2,');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  for (const path of ['/sized', '/chunked']) {
    await assert.rejects(
      rest.requestText({ method: 'GET', path }),
      new RegExp(`^Error: GET ${path}: the response ended before its whole body arrived \\(`),
    );
    await assert.rejects(rest.get(path), /the response ended before its whole body arrived/);
  }
});
