// The informer over HTTP: ResourceClient (as its ListerWatcher) against crdgen/testing's
// in-process API server, with dropped watches, expired resource versions and 500s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../../../src/testing/index.js';
import {
  resourceClient,
  type ResourceDescriptor,
  newSharedIndexInformer,
  ExponentialBackoffManager,
  DeletedFinalStateUnknown,
  metaNamespaceKeyFunc,
  waitForCacheSync,
  ReflectorCounters,
  type KubeObject,
} from '../../../../src/runtime/index.js';

interface DatabaseManager extends KubeObject {
  spec: { deploymentName?: string; replicas?: number; dbtype?: string };
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'databasemanagers.coolops.cn' },
  spec: {
    group: 'coolops.cn',
    scope: 'Namespaced',
    names: {
      kind: 'DatabaseManager',
      plural: 'databasemanagers',
      singular: 'databasemanager',
      listKind: 'DatabaseManagerList',
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  deploymentName: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10 },
                  dbtype: { type: 'string' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const DM: ResourceDescriptor = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};

const dm = (name: string, replicas: number): DatabaseManager => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name, namespace: 'default' },
  spec: { deploymentName: name, replicas, dbtype: 'mysql' },
});

const snap = (xs: Iterable<KubeObject>): string[] =>
  Array.from(xs, (o) => `${metaNamespaceKeyFunc(o)}@${o.metadata?.resourceVersion}`).sort();

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('informer over HTTP survives dropped watches, expired versions and 500s; cache and handler match the server', async () => {
  const env = await startTestApiServer({ crds: [CRD], historyLimit: 5 });
  const ac = new AbortController();
  let run: Promise<void> | undefined;
  try {
    const client = resourceClient<DatabaseManager>({ server: env.url, qps: 0, maxRetries: 0 }, DM);
    const dms = client.namespace('default');
    await dms.create(dm('pre', 1));

    const metrics = new ReflectorCounters();
    const informer = newSharedIndexInformer<DatabaseManager>(client, {
      backoff: new ExponentialBackoffManager({ initialMs: 5, capMs: 50 }),
      pageSize: 2,
      metrics,
    });
    informer.setWatchErrorHandler(() => {});
    const view = new Map<string, DatabaseManager>();
    informer.addEventHandler({
      onAdd: (o) => void view.set(metaNamespaceKeyFunc(o), o),
      onUpdate: (_old, o) => void view.set(metaNamespaceKeyFunc(o), o),
      onDelete: (o) => void view.delete(o instanceof DeletedFinalStateUnknown ? o.key : metaNamespaceKeyFunc(o)),
    });
    run = informer.run(ac.signal);
    assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
    assert.deepEqual(informer.getStore().listKeys(), ['default/pre']);

    for (let i = 0; i < 5; i++) await dms.create(dm(`db${i}`, 1));
    env.faults.dropWatches();
    const db0 = await dms.get('db0');
    await dms.update({ ...db0, spec: { ...db0.spec, replicas: 3 } });
    env.faults.expireResourceVersions(); // the next re-watch gets 410 → relist
    env.faults.dropWatches();
    await dms.delete('db1');
    await dms.delete('pre');
    for (let i = 5; i < 8; i++) await dms.create(dm(`db${i}`, 2));
    const want = snap((await dms.list()).items); // the final state: no more changes
    env.faults.failNext(2, { code: 500 }); // the re-watch and the relist after it fail
    env.faults.dropWatches();

    const same = (xs: Iterable<KubeObject>): boolean => JSON.stringify(snap(xs)) === JSON.stringify(want);
    await until(() => same(informer.getStore().list()) && same(view.values()));
    assert.deepEqual(snap(view.values()), want);
    assert.equal(want.length, 7);
    assert.ok(metrics.watches >= 2, 'watches were re-opened');
  } finally {
    ac.abort();
    await run;
    await env.stop();
  }
});

test('informer over HTTP recovers from an API server restart (connection refused while down) without hammering it', async () => {
  const env = await startTestApiServer({ crds: [CRD] });
  const ac = new AbortController();
  let run: Promise<void> | undefined;
  try {
    const client = resourceClient<DatabaseManager>({ server: env.url, qps: 0, maxRetries: 0 }, DM);
    const dms = client.namespace('default');
    await dms.create(dm('before', 1));
    const metrics = new ReflectorCounters();
    const informer = newSharedIndexInformer<DatabaseManager>(client, {
      backoff: new ExponentialBackoffManager({ initialMs: 20, capMs: 100 }),
      metrics,
    });
    informer.setWatchErrorHandler(() => {});
    run = informer.run(ac.signal);
    assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
    await env.faults.restart(400);
    await dms.create(dm('after', 2));
    const want = snap((await dms.list()).items);
    await until(() => JSON.stringify(snap(informer.getStore().list())) === JSON.stringify(want));
    // 400 ms down with backoff from 20 ms: a handful of attempts, not a tight loop.
    assert.ok(metrics.lists + metrics.watchStartErrors < 40, `attempts: ${JSON.stringify(metrics)}`);
    if (process.env.H3_DEBUG) console.log(JSON.stringify(metrics));
  } finally {
    ac.abort();
    await run;
    await env.stop();
  }
});
