import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../../../src/runtime/index.js';
import { json, startServer, status } from './server.js';

test('a legacy auth-provider user (gcp access-token) gets its header from @kubernetes/client-node', async (t) => {
  const srv = await startServer((req, res) =>
    req.headers.authorization === 'Bearer gcp-token'
      ? json(res, 200, { ok: true })
      : json(res, 401, status(401, 'Unauthorized')),
  );
  t.after(() => srv.close());
  const expiry = new Date(Date.now() + 3600_000).toISOString();
  const rest = new RestClient({
    server: srv.url,
    qps: 0,
    auth: { authProvider: { name: 'gcp', config: { 'access-token': 'gcp-token', expiry } } },
  });
  t.after(() => rest.close());
  assert.deepEqual(await rest.get('/api'), { ok: true });
  // An expired token without a refresh command: client-node's error surfaces.
  const stale = new RestClient({
    server: srv.url,
    qps: 0,
    auth: { authProvider: { name: 'gcp', config: { 'access-token': 'old', expiry: '2000-01-01T00:00:00Z' } } },
  });
  t.after(() => stale.close());
  await assert.rejects(stale.get('/api'), /Token is expired/);
  assert.equal(srv.requests.length, 1);
});
