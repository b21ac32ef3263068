// The limit of a list for a JavaScript client (bench/scale.ts), each half in a fresh process:
//   discard <kubeconfig> <path>          GETs `path` as the clients do (gzip accepted: crdgen, client-go
//                                        and client-node all ask for it), throws the bytes away as they
//                                        come: the time until the last byte arrived, and how many
//   save <kubeconfig> <path> <file>      GETs `path` into `file` (the bytes the parse half reads)
//   parse <file>                         JSON.parse of the file's bytes (decoded as UTF-8): its time
// A client that parses the bytes as they come can at best finish when the later of the two
// would: the larger of (a) the last byte and (b) the parse is the limit an informer's sync is
// measured against.
import { createWriteStream, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import { target } from './list-floor.js';

function get(
  kubeconfigPath: string,
  path: string,
  onResponse: (res: IncomingMessage) => void,
  gzip = false,
  attempt = 0,
): void {
  const { server, ca, token } = target(kubeconfigPath);
  const url = new URL(path, server);
  const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
    url,
    {
      headers: {
        accept: 'application/json',
        ...(gzip ? { 'accept-encoding': 'gzip' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(ca ? { ca } : {}),
    },
    (res) => {
      // kube-apiserver still filling its watch cache (a fresh one): asks to come back, as clients do
      if (res.statusCode === 429 && attempt < 30) {
        res.resume();
        setTimeout(
          () => get(kubeconfigPath, path, onResponse, gzip, attempt + 1),
          1000 * Number(res.headers['retry-after'] ?? 1),
        );
        return;
      }
      if (res.statusCode !== 200) {
        process.stderr.write(`GET ${path}: HTTP ${res.statusCode}\n`);
        process.exit(1);
      }
      onResponse(res);
    },
  );
  req.on('error', (e) => {
    process.stderr.write(`GET ${path}: ${e.message}\n`);
    process.exit(1);
  });
  req.end();
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'discard') {
  const [kubeconfigPath, path] = args;
  const t0 = performance.now();
  get(
    kubeconfigPath,
    path,
    (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => void (bytes += c.length));
      res.on('end', () =>
        process.stdout.write(
          `${JSON.stringify({ ms: performance.now() - t0, bytes, encoding: res.headers['content-encoding'] ?? 'identity' })}\n`,
        ),
      );
    },
    true,
  );
} else if (mode === 'save') {
  const [kubeconfigPath, path, file] = args;
  get(
    kubeconfigPath,
    path,
    (res) => void pipeline(res, createWriteStream(file)).then(() => process.stdout.write('{}\n')),
  );
} else if (mode === 'parse') {
  const buf = readFileSync(args[0]);
  const t0 = performance.now();
  const list = JSON.parse(buf.toString('utf8')) as { items: unknown[] };
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ms, items: list.items.length, bytes: buf.length })}\n`);
} else {
  process.stderr.write(
    'usage: list-limit.ts discard <kubeconfig> <path> | save <kubeconfig> <path> <file> | parse <file>\n',
  );
  process.exit(2);
}
