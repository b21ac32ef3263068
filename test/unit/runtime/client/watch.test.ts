import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  LineDecoder,
  parseWatchLine,
  StreamWatch,
  watchBatches,
  RestClient,
  ApiError,
  isResourceExpired,
  type WatchEvent,
} from '../../../../src/runtime/index.js';
import { json, startServer, status } from './server.js';
import { SEED, runs } from '../../../fuzz/support.js';

type Obj = { metadata: { name: string; resourceVersion?: string }; note?: string };

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

test('LineDecoder: lines survive any chunking, including inside multi-byte characters', () => {
  const lines = [
    '{"type":"ADDED","object":{"note":"数据库 ✓ 🚀"}}',
    '{"type":"MODIFIED","object":{"note":"é"}}',
    '{"x":"\\n"}',
  ];
  const bytes = new TextEncoder().encode(`${lines[0]}\n${lines[1]}\r\n\n${lines[2]}`);
  fc.assert(
    fc.property(fc.array(fc.nat(bytes.length), { maxLength: 12 }), (cuts) => {
      const d = new LineDecoder();
      const got: string[] = [];
      for (const c of splitAt(bytes, cuts)) got.push(...d.push(c));
      got.push(...d.end());
      assert.deepEqual(got, lines);
    }),
    { numRuns: runs(300), seed: SEED },
  );
  // One byte at a time, explicitly.
  const d = new LineDecoder();
  const got: string[] = [];
  for (const b of bytes) got.push(...d.push(Uint8Array.of(b)));
  got.push(...d.end());
  assert.deepEqual(got, lines);
});

test('parseWatchLine: valid events pass, malformed lines become a 500 InternalError ERROR event', () => {
  const ok = parseWatchLine<Obj>('{"type":"BOOKMARK","object":{"metadata":{"name":"","resourceVersion":"12"}}}');
  assert.equal(ok.malformed, false);
  assert.equal(ok.event.type, 'BOOKMARK');
  for (const bad of ['not json', '{"type":"EXPLODED","object":{}}', '{"type":"ADDED"}', '[1]', '42']) {
    const r = parseWatchLine<Obj>(bad);
    assert.equal(r.malformed, true, bad);
    assert.equal(r.event.type, 'ERROR');
    if (r.event.type === 'ERROR') {
      assert.equal(r.event.object.code, 500);
      assert.equal(r.event.object.reason, 'InternalError');
      assert.match(r.event.object.message ?? '', /unable to decode/);
    }
  }
});

async function collect<T>(w: AsyncIterable<WatchEvent<T>>, max = 100): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  for await (const e of w) {
    out.push(e);
    if (out.length >= max) break;
  }
  return out;
}

test('watch over HTTP: chunked events (split mid-character), ERROR passthrough, ends when the server closes', async (t) => {
  const events = [
    { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' }, note: 'ü日本' } },
    { type: 'MODIFIED', object: { metadata: { name: 'a', resourceVersion: '2' } } },
    { type: 'BOOKMARK', object: { metadata: { name: '', resourceVersion: '3' } } },
    { type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 1 (3)') },
  ];
  const srv = await startServer(async (req, res) => {
    assert.equal(req.query.get('watch'), 'true');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const bytes = Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const cut = bytes.indexOf(Buffer.from('日')) + 1; // inside a 3-byte character
    for (const part of [
      bytes.subarray(0, 5),
      bytes.subarray(5, cut),
      bytes.subarray(cut, cut + 7),
      bytes.subarray(cut + 7),
    ]) {
      res.write(part);
      await new Promise((r) => setTimeout(r, 5));
    }
    res.end();
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  const w = await rest.watch<Obj>('/apis/coolops.cn/v1alpha1/databasemanagers', {
    resourceVersion: '1',
    allowWatchBookmarks: true,
  });
  const got = await collect(w);
  assert.deepEqual(got, events);
  assert.equal(srv.requests[0]?.query.get('allowWatchBookmarks'), 'true');
  const last = got[3];
  assert.ok(last && last.type === 'ERROR' && isResourceExpired(last.object));
});

test('watch: stop() ends a pending iteration; abort ends it too; no events after stop', async (t) => {
  const open = new Set<import('node:http').ServerResponse>();
  const srv = await startServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x' } } }) + '\n');
    open.add(res); // keep the stream open
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });

  const w = await rest.watch<Obj>('/api/v1/namespaces');
  const it = w[Symbol.asyncIterator]();
  const first = await it.next();
  assert.equal(first.done, false);
  const pending = it.next();
  setTimeout(() => w.stop(), 20);
  assert.deepEqual(await pending, { done: true, value: undefined });
  w.stop(); // idempotent
  assert.equal((await it.next()).done, true);

  const ac = new AbortController();
  const w2 = await rest.watch<Obj>('/api/v1/namespaces', {}, ac.signal);
  setTimeout(() => ac.abort(), 20);
  const got = await collect(w2);
  assert.equal(got.length, 1);
  assert.ok((w2 as StreamWatch<Obj>).isStopped);
});

test('watch: breaking out of for-await closes the stream', async (t) => {
  let closed = false;
  const srv = await startServer((_req, res) => {
    res.writeHead(200);
    res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x' } } }) + '\n');
    res.on('close', () => {
      closed = true;
    });
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  const w = await rest.watch<Obj>('/api/v1/namespaces');
  for await (const e of w) {
    assert.equal(e.type, 'ADDED');
    break;
  }
  for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(closed, true);
});

test('watch: a garbage line yields one ERROR event and ends the watch; HTTP errors reject with ApiError', async (t) => {
  const srv = await startServer((req, res) => {
    if (req.query.get('resourceVersion') === 'old') {
      json(res, 410, status(410, 'Expired', 'too old'));
      return;
    }
    res.writeHead(200);
    res.end(
      `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x' } } })}\n<html>oops</html>\n${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'y' } } })}\n`,
    );
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  const got = await collect(await rest.watch<Obj>('/api/v1/pods'));
  assert.deepEqual(
    got.map((e) => e.type),
    ['ADDED', 'ERROR'],
  );
  await assert.rejects(
    rest.watch<Obj>('/api/v1/pods', { resourceVersion: 'old' }),
    (e: unknown) => e instanceof ApiError && e.code === 410 && e.reason === 'Expired',
  );
});

test('watch: a connection dropped mid-stream ends the iteration without throwing', async (t) => {
  const srv = await startServer((_req, res) => {
    res.writeHead(200);
    res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'x' } } }) + '\n{"type":"MODI');
    setTimeout(() => res.socket?.destroy(), 10);
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  const got = await collect(await rest.watch<Obj>('/api/v1/pods'));
  assert.deepEqual(
    got.map((e) => e.type),
    ['ADDED'],
  );
});

test('StreamWatch yields exactly the events sent, for random events and random chunk boundaries', async () => {
  const name = fc.string({
    unit: fc.constantFrom('a', 'z', '-', 'é', '数', '🚀', '"', '\\', '\n'),
    minLength: 1,
    maxLength: 8,
  });
  const event = fc.record({
    type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
    object: fc.record({ metadata: fc.record({ name, resourceVersion: fc.nat().map(String) }) }),
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(event, { maxLength: 20 }),
      fc.array(fc.nat(), { maxLength: 30 }),
      async (events, cuts) => {
        const bytes = new TextEncoder().encode(events.map((e) => JSON.stringify(e) + '\n').join(''));
        const chunks = splitAt(bytes, cuts);
        let destroyed = false;
        const body = {
          async *[Symbol.asyncIterator]() {
            for (const c of chunks) yield c;
          },
          destroy: () => {
            destroyed = true;
          },
        };
        const got = await collect(new StreamWatch<Obj>(body), 1000);
        assert.deepEqual(got, JSON.parse(JSON.stringify(events)));
        assert.equal(destroyed, true); // the body is released when the stream ends
      },
    ),
    { numRuns: runs(200), seed: SEED },
  );
});

test('a stream that never ends its line is cut off with an ERROR event instead of buffering for ever', async () => {
  let destroyed = false;
  const body = {
    async *[Symbol.asyncIterator]() {
      yield '{"type":"ADDED","object":{"metadata":{"name":"ok"}}}\n';
      for (let i = 0; i < 1000; i++) yield 'x'.repeat(50);
    },
    destroy: () => {
      destroyed = true;
    },
  };
  const got = await collect(new StreamWatch<Obj>(body, () => {}, 400));
  assert.deepEqual(
    got.map((e) => e.type),
    ['ADDED', 'ERROR'],
  );
  const err = got[1];
  assert.ok(err?.type === 'ERROR' && /exceeds 400 bytes/.test(err.object.message ?? ''));
  assert.equal(destroyed, true);
});

test('batches: the events of one chunk come as one batch; the next chunk is read only when asked for', async () => {
  const line = (name: string): string => `${JSON.stringify({ type: 'ADDED', object: { metadata: { name } } })}\n`;
  const chunks = [
    line('a') + line('b') + line('c').slice(0, 10),
    line('c').slice(10) + '\r\n' + line('d'),
    '{"type":"ADDED"}\n' + line('never'),
  ];
  let reads = 0;
  const body = {
    async *[Symbol.asyncIterator]() {
      for (const c of chunks) {
        reads++;
        yield c;
      }
    },
    destroy: () => {},
  };
  const w = new StreamWatch<Obj>(body);
  const names = (b: readonly WatchEvent<Obj>[]): string[] =>
    b.map((e) => (e.type === 'ERROR' ? 'ERROR' : e.object.metadata.name));
  const it = watchBatches(w)[Symbol.asyncIterator]();
  assert.deepEqual(names((await it.next()).value ?? []), ['a', 'b']);
  assert.equal(reads, 1, 'one chunk read for one batch');
  assert.deepEqual(names((await it.next()).value ?? []), ['c', 'd']);
  assert.equal(reads, 2);
  // A malformed line ends its batch with an ERROR event, and the watch with it.
  assert.deepEqual(names((await it.next()).value ?? []), ['ERROR']);
  assert.equal((await it.next()).done, true);
  assert.equal(w.isStopped, true);
});

test('watchBatches over a watch without batches yields one event per batch', async () => {
  const events: WatchEvent<Obj>[] = [
    { type: 'ADDED', object: { metadata: { name: 'a' } } },
    { type: 'DELETED', object: { metadata: { name: 'a' } } },
  ];
  const plain = {
    stop: () => {},
    async *[Symbol.asyncIterator]() {
      yield* events;
    },
  };
  const got: (readonly WatchEvent<Obj>[])[] = [];
  for await (const b of watchBatches<Obj>(plain)) got.push(b);
  assert.deepEqual(got, [[events[0]], [events[1]]]);
});

test('LineDecoder.pending counts the bytes of the unfinished line', () => {
  const d = new LineDecoder();
  assert.deepEqual(d.push('{"a":1}\n{"b":'), ['{"a":1}']);
  assert.equal(d.pending, 5);
  d.push(Buffer.from('"é'));
  assert.equal(d.pending, 8, 'é is two bytes');
  assert.deepEqual(d.push('"}\n  \n'), ['{"b":"é"}']);
  assert.equal(d.pending, 0);
  assert.deepEqual(d.end(), []);
});
