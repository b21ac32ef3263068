// The API server of the informer benchmark: crdgen/testing's server (what `crdgen testenv`
// runs) in its own process, with the DatabaseManager CRD and namespaces of seeded objects
// created in-process. Prints one JSON line {kubeconfigPath, url, seconds, before} once ready,
// where before[ns] is the resourceVersion just before that namespace's objects were created (a
// watch from there replays their creation); stops when its standard input closes.
//   node bench/lib/informer-server.mjs <package root> <n1k=1000,n10k=10000,...>
import { join } from 'node:path';

const [pkg, spec] = process.argv.slice(2);
const { startTestApiServer } = await import(join(pkg, 'dist', 'testing', 'index.js'));
const crd = join(import.meta.dirname, '..', '..', 'fixtures', 'databasemanager', 'crd.yaml');
const t0 = performance.now();
const env = await startTestApiServer({
  crds: [crd],
  historyLimit: 1_000_000,
  bookmarkIntervalMs: 600_000,
});

/** A DatabaseManager as a user creates it. */
const dm = (ns, i) => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: {
    name: `db-${i}`,
    namespace: ns,
    labels: { app: `db-${i}`, tier: 'database', 'app.kubernetes.io/managed-by': 'crdgen' },
    annotations: { 'coolops.cn/owner': 'team-data' },
  },
  spec: { deploymentName: `db-${i}-deploy`, replicas: 3, dbtype: 'mysql' },
});

const before = {};
for (const part of spec.split(',')) {
  const [ns, count] = part.split('=');
  const [created] = await env.create([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }]);
  before[ns] = created.metadata.resourceVersion;
  for (let i = 0; i < Number(count); i += 1000) {
    await env.create(Array.from({ length: Math.min(1000, Number(count) - i) }, (_, k) => dm(ns, i + k)));
  }
}
process.stdout.write(
  `${JSON.stringify({ kubeconfigPath: env.kubeconfigPath, url: env.url, seconds: (performance.now() - t0) / 1000, before })}\n`,
);
process.stdin.resume();
process.stdin.on('end', () => void env.stop().then(() => process.exit(0)));
