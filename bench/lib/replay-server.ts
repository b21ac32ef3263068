// A watch source that is never the bottleneck: serves a pre-rendered watch stream (the exact
// bytes crdgen/testing sent for a replay) to every watch request, as fast as the socket takes
// it, then holds the connection open until the client closes it. The informer benchmark uses
// it to measure a client's event throughput on its own: crdgen/testing serialises each event
// as it sends it (~28 µs of its CPU per DatabaseManager event here, ~35,000 events/s at most),
// so a stream from it runs at the server's pace, not the client's.
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';

/** Reads a watch from `url` until `count` events (lines) have arrived; writes exactly those lines to `file`. */
export async function captureWatch(url: string, count: number, file: string): Promise<void> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`watch ${url}: HTTP ${res.status}`);
  const chunks: Buffer[] = [];
  let lines = 0;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`watch ${url} ended after ${lines} of ${count} events`);
      const b = Buffer.from(value);
      let end = -1;
      for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) {
        if (++lines === count) {
          end = i + 1;
          break;
        }
      }
      chunks.push(end === -1 ? b : b.subarray(0, end));
      if (end !== -1) break;
    }
  } finally {
    await reader.cancel();
  }
  writeFileSync(file, Buffer.concat(chunks));
}

/** A server answering every `watch=true` request with `streamFile`'s bytes; 404 otherwise. */
export async function startReplayServer(streamFile: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const body = readFileSync(streamFile);
  const server: Server = createServer((req, res) => {
    const watch = new URL(req.url ?? '/', 'http://replay').searchParams.get('watch');
    if (req.method !== 'GET' || (watch !== 'true' && watch !== '1')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: 'the replay server serves watches only',
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(body); // then stays open, as a watch does, until the client goes away
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A copy of the kubeconfig at `from` (as crdgen/testing writes it: JSON) pointing at `url`, written to `to`. */
export function retargetKubeconfig(from: string, url: string, to: string): void {
  const doc = JSON.parse(readFileSync(from, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  for (const c of doc.clusters) c.cluster.server = url;
  writeFileSync(to, JSON.stringify(doc, null, 2), { mode: 0o600 });
}
