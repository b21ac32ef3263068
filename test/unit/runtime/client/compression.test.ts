// gzip on the wire: GETs ask for it (client-go's default), watches only with watchCompression; a
// gzip-encoded list, error and watch stream are unpacked as they arrive; disableCompression asks
// for nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { gzipSync, createGzip } from 'node:zlib';
import { ApiError, RestClient } from '../../../../src/runtime/index.js';

async function withServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  body: (url: string) => Promise<void>,
): Promise<void> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await body(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

test('GETs ask for gzip; a gzip list, a gzip error and a gzip watch stream are unpacked', async () => {
  const seen: (string | undefined)[] = [];
  const list = {
    kind: 'ConfigMapList',
    items: Array.from({ length: 500 }, (_, i) => ({ metadata: { name: `c${i}` } })),
  };
  await withServer(
    (req, res) => {
      seen.push(req.headers['accept-encoding']);
      const gzip = req.headers['accept-encoding'] === 'gzip';
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'Content-Type': 'application/json', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
        const out = gzip ? createGzip() : undefined;
        if (out) out.pipe(res);
        const w = out ?? res;
        for (let i = 0; i < 3; i++) w.write(`{"type":"ADDED","object":{"metadata":{"name":"w${i}"}}}\n`);
        if (out) out.flush();
        setTimeout(() => w.end(), 20);
        return;
      }
      const status = req.url?.includes('missing') ? 404 : 200;
      const text = JSON.stringify(
        status === 404
          ? { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'gone' }
          : list,
      );
      res.writeHead(status, { 'Content-Type': 'application/json', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
      res.end(gzip ? gzipSync(text) : text);
    },
    async (url) => {
      const c = new RestClient({ server: url, qps: 0, watchCompression: true });
      const got = await c.get<typeof list>('/api/v1/configmaps');
      assert.equal(got.items.length, 500);
      await assert.rejects(
        c.get('/api/v1/configmaps/missing'),
        (e: unknown) => e instanceof ApiError && e.code === 404,
      );
      const w = await c.watch<{ metadata: { name: string } }>('/api/v1/configmaps');
      const names: string[] = [];
      for await (const ev of w) if (ev.type === 'ADDED') names.push(ev.object.metadata.name);
      assert.deepEqual(names, ['w0', 'w1', 'w2']);
      await c.request({ method: 'DELETE', path: '/api/v1/configmaps/x' });
      assert.deepEqual(seen, ['gzip', 'gzip', 'gzip', undefined], 'GETs ask for gzip, other verbs do not');
      c.close();
      seen.length = 0;
      const plain = new RestClient({ server: url, qps: 0, disableCompression: true, watchCompression: true });
      assert.equal((await plain.get<typeof list>('/api/v1/configmaps')).items.length, 500);
      for await (const ev of await plain.watch('/api/v1/configmaps')) assert.equal(ev.type, 'ADDED');
      assert.deepEqual(seen, [undefined, undefined]);
      plain.close();
    },
  );
});

test('watches ask for gzip only with watchCompression (default false); other GETs ask either way', async () => {
  const seen: [string, string | undefined][] = [];
  await withServer(
    (req, res) => {
      const watch = req.url?.includes('watch=true') ?? false;
      seen.push([watch ? 'watch' : 'get', req.headers['accept-encoding']]);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(watch ? '{"type":"ADDED","object":{"metadata":{"name":"w0"}}}\n' : '{"kind":"ConfigMapList","items":[]}');
    },
    async (url) => {
      for (const watchCompression of [undefined, true, false]) {
        seen.length = 0;
        const c = new RestClient({
          server: url,
          qps: 0,
          ...(watchCompression === undefined ? {} : { watchCompression }),
        });
        await c.get('/api/v1/configmaps');
        const w = await c.watch('/api/v1/configmaps', { sendInitialEvents: 'true', allowWatchBookmarks: 'true' });
        for await (const ev of w) assert.equal(ev.type, 'ADDED');
        const wanted = watchCompression === true ? 'gzip' : undefined;
        assert.deepEqual(
          seen,
          [
            ['get', 'gzip'],
            ['watch', wanted],
          ],
          `watchCompression ${String(watchCompression)}`,
        );
        c.close();
      }
    },
  );
});
