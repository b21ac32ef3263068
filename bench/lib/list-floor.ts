// The floor of a list in JavaScript: one GET of the whole list with node's own http(s) module,
// the body gathered into one Buffer and `JSON.parse`d. Every JS client pays at least this for a
// list (reading it and parsing it); an informer adds decoding into its cache and its handlers.
// Reads the kubeconfig as crdgen/testing and startControlPlane write it (JSON: server, CA data,
// bearer token).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data'?: string } }[];
  users?: { user: { token?: string } }[];
}

/** Where and how to connect, from a kubeconfig file. */
export function target(kubeconfigPath: string): { server: URL; ca?: string; token?: string } {
  const doc = JSON.parse(readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig;
  const cluster = doc.clusters[0]?.cluster;
  if (!cluster) throw new Error(`${kubeconfigPath}: no cluster`);
  const caData = cluster['certificate-authority-data'];
  return {
    server: new URL(cluster.server),
    ca: caData ? Buffer.from(caData, 'base64').toString() : undefined,
    token: doc.users?.[0]?.user.token,
  };
}

/** GETs `path` and parses the body: the wall time of both, the number of items, the list. */
export function fetchAndParse(
  kubeconfigPath: string,
  path: string,
): Promise<{ ms: number; items: number; list: { items: unknown[] } }> {
  const { server, ca, token } = target(kubeconfigPath);
  const url = new URL(path, server);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(ca ? { ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode !== 200)
            return reject(
              new Error(`GET ${path}: HTTP ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 200)}`),
            );
          try {
            const list = JSON.parse(Buffer.concat(chunks).toString()) as { items: unknown[] };
            resolve({ ms: performance.now() - t0, items: list.items.length, list });
          } catch (e) {
            reject(e);
          }
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
