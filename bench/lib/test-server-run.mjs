// One process of the test-server part of bench/go-peers.ts: starts an API server for tests with
// the DatabaseManager CRD — crdgen/testing's startTestApiServer(), or startControlPlane() (etcd +
// kube-apiserver, as envtest starts them) — from the built package, as a user's suite does; times
// the import of crdgen/testing and the first start in the process, runs the suite of 200 typical
// operator-test requests on it twice (the first run in a fresh process, then again), then times
// `later` more starts. Prints one JSON line.
//   node bench/lib/test-server-run.mjs <package root> <testenv|real> <assets> <crd> <later>
import { join } from 'node:path';

const [pkg, backend, assets, crd, laterText] = process.argv.slice(2);
const later = Number(laterText);
const t0 = performance.now();
const testing = await import(join(pkg, 'dist', 'testing', 'index.js'));
const runtime = await import(join(pkg, 'dist', 'runtime', 'index.js'));
const importMs = performance.now() - t0;
/** A port picked free can be taken by another process before etcd or kube-apiserver binds it (a shared machine): such a start is retried, and its time restarts. */
async function start() {
  for (let attempt = 1; ; attempt++) {
    const t = performance.now();
    try {
      const env = await (backend === 'real'
        ? testing.startControlPlane({ assets, crds: [crd] })
        : testing.startTestApiServer({ crds: [crd] }));
      return { env, ms: performance.now() - t };
    } catch (e) {
      if (attempt >= 3 || !/address already in use/.test(String(e?.message))) throw e;
    }
  }
}

const DM = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};

/**
 * 40 rounds of what an operator's test does to one object: create it, get it, list the
 * collection, wait for its watch event, write its status — 200 requests (the watch event counts
 * as one), each awaited before the next, through crdgen/runtime's client.
 */
async function suite(env, round) {
  const config = { ...(await runtime.loadConfig({ path: env.kubeconfigPath })), qps: 0 };
  const dms = runtime.resourceClient(config, DM, { namespace: 'default' });
  const ac = new AbortController();
  const watch = await dms.watch({ signal: ac.signal });
  const events = watch[Symbol.asyncIterator]();
  const t = performance.now();
  for (let i = 0; i < 40; i++) {
    const name = `suite-${round}-${i}`;
    await dms.create({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name },
      spec: { deploymentName: `${name}-db`, replicas: 1, dbtype: 'mysql' },
    });
    const got = await dms.get(name);
    await dms.list();
    for (;;) {
      const { value, done } = await events.next();
      if (done) throw new Error('the watch ended');
      if (value.type === 'ADDED' && value.object.metadata?.name === name) break;
    }
    await dms.updateStatus({ ...got, status: { availableReplicas: 1 } });
  }
  const ms = performance.now() - t;
  watch.stop();
  ac.abort();
  // untimed: the next run starts from an empty collection again
  for (let i = 0; i < 40; i++) await dms.delete(`suite-${round}-${i}`);
  return ms;
}

const { env, ms: firstStartMs } = await start();
const suiteMs = await suite(env, 0);
const suiteAgainMs = await suite(env, 1);
await env.stop();
const laterMs = [];
for (let i = 0; i < later; i++) {
  const s = await start();
  laterMs.push(s.ms);
  await s.env.stop();
}
process.stdout.write(`${JSON.stringify({ importMs, firstStartMs, suiteMs, suiteAgainMs, laterMs })}\n`);
