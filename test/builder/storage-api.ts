// The fake external storage API the docs' Bucket reconcilers talk to (an HTTP server on
// 127.0.0.1): PUT and DELETE /buckets/<id>; the first DELETE of each bucket answers 503, so a
// cleanup must be retried before the finalizer goes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The fake storage API: PUT and DELETE /buckets/<id>; the first DELETE of each bucket answers 503. */
export interface StorageApi {
  url: string;
  buckets: Map<string, { region: string }>;
  deletes: string[];
  close(): Promise<void>;
}

export async function startStorageApi(): Promise<StorageApi> {
  const buckets = new Map<string, { region: string }>();
  const deletes: string[] = [];
  const server: Server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace(/^\/buckets\//, ''));
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'PUT') {
        buckets.set(id, JSON.parse(body) as { region: string });
        res.writeHead(200).end('{}');
      } else if (req.method === 'DELETE') {
        deletes.push(id);
        if (deletes.filter((d) => d === id).length === 1) return void res.writeHead(503).end('try again');
        res.writeHead(buckets.delete(id) ? 204 : 404).end();
      } else res.writeHead(405).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    buckets,
    deletes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
