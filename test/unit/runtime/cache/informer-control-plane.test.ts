// The informer and the watch on the real kube-apiserver: a 410 after etcd compaction makes the
// reflector list again and the cache still equals the server; a watch with sendInitialEvents
// ends its initial events with the apiserver's bookmark; watches re-open as they time out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from '../../../../src/testing/index.js';
import type { ControlPlane } from '../../../../src/testing/index.js';
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
import { controlPlaneAssets } from '../../../support/assets.js';
import { rawWatch } from '../../../support/raw.js';
import { DM_CRD } from '../../../testing/helpers.js';

interface DatabaseManager extends KubeObject {
  spec: { deploymentName?: string; replicas?: number; dbtype?: string };
}

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

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function withControlPlane(
  args: { compaction?: number; apiserverArgs?: string[] },
  body: (cp: ControlPlane) => Promise<void>,
): Promise<void> {
  const cp = await startControlPlane({
    assets: controlPlaneAssets(),
    crds: [DM_CRD],
    etcdCompactionIntervalSeconds: args.compaction,
    apiserverArgs: args.apiserverArgs,
  });
  try {
    await body(cp);
  } finally {
    await cp.stop();
  }
}

test('real kube-apiserver: after etcd compaction a watch from an old version gets 410 and the informer lists again; its cache equals the server', async () => {
  // Without the watch cache, watches are served from etcd, whose compaction (every 2 s) makes old versions 410.
  await withControlPlane({ compaction: 2, apiserverArgs: ['--watch-cache=false'] }, async (cp) => {
    const client = resourceClient<DatabaseManager>({ ...cp.clientConfig, maxRetries: 3 }, DM);
    const dms = client.namespace('default');
    const first = await dms.create(dm('pre', 1));

    // the raw fact first: a watch from the first object's version is refused once compacted
    let expired: { type: string; object: { code?: number; reason?: string } } | undefined;
    await until('a watch from an old version to get 410', async () => {
      await dms.patch('pre', 'application/merge-patch+json', { spec: { replicas: 2 } });
      const w = await rawWatch(
        cp,
        `/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers?watch=true&resourceVersion=${first.metadata!.resourceVersion}`,
      );
      try {
        const e = await w.waitFor(1, 10_000);
        if (e[0].type === 'ERROR') expired = e[0];
      } finally {
        w.close();
      }
      return expired !== undefined;
    });
    assert.equal(expired!.object.code, 410);
    assert.equal(expired!.object.reason, 'Expired');

    // The informer's watch times out every 1-2 s; while nothing changes its version falls behind
    // the compaction, so re-watching gets 410 and it lists again.
    const metrics = new ReflectorCounters();
    const informer = newSharedIndexInformer<DatabaseManager>(client, {
      backoff: new ExponentialBackoffManager({ initialMs: 20, capMs: 200 }),
      minWatchTimeoutMs: 1000,
      metrics,
    });
    informer.setWatchErrorHandler(() => {});
    const view = new Map<string, DatabaseManager>();
    informer.addEventHandler({
      onAdd: (o) => void view.set(metaNamespaceKeyFunc(o), o),
      onUpdate: (_old, o) => void view.set(metaNamespaceKeyFunc(o), o),
      onDelete: (o) => void view.delete(o instanceof DeletedFinalStateUnknown ? o.key : metaNamespaceKeyFunc(o)),
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    try {
      assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
      await until('a relist after 410', () => metrics.lists >= 2);
      for (let i = 0; i < 5; i++) await dms.create(dm(`db${i}`, 1));
      await dms.delete('pre');
      const want = snap((await dms.list()).items);
      const same = (xs: Iterable<KubeObject>): boolean => JSON.stringify(snap(xs)) === JSON.stringify(want);
      await until(
        'the cache and the handler to equal the server',
        () => same(informer.getStore().list()) && same(view.values()),
      );
      assert.equal(want.length, 5);
      assert.ok(metrics.watches >= 2, 'watches were re-opened');
    } finally {
      ac.abort();
      await run;
    }
  });
});

test('real kube-apiserver: sendInitialEvents delivers the objects, then the initial-events-end bookmark; the informer syncs through timeouts with bookmarks', async () => {
  await withControlPlane({}, async (cp) => {
    const client = resourceClient<DatabaseManager>({ ...cp.clientConfig, maxRetries: 3 }, DM);
    const dms = client.namespace('default');
    for (let i = 0; i < 3; i++) await dms.create(dm(`db${i}`, 1));
    const w = await rawWatch(
      cp,
      '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan',
    );
    try {
      const bm = await w.until((e) => e.type === 'BOOKMARK', 30_000);
      const before = w.events.slice(0, w.events.indexOf(bm));
      assert.deepEqual(before.map((e) => `${e.type} ${e.object.metadata.name}`).sort(), [
        'ADDED db0',
        'ADDED db1',
        'ADDED db2',
      ]);
      assert.equal(bm.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    } finally {
      w.close();
    }

    const informer = newSharedIndexInformer<DatabaseManager>(client, { minWatchTimeoutMs: 1000 });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    try {
      assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
      await new Promise((r) => setTimeout(r, 2500)); // at least one watch timed out and re-opened
      await dms.create(dm('late', 2));
      await until(
        'the late object in the cache',
        () => informer.getStore().getByKey('default/late') !== undefined,
        30_000,
      );
      assert.deepEqual(informer.getStore().listKeys().sort(), [
        'default/db0',
        'default/db1',
        'default/db2',
        'default/late',
      ]);
    } finally {
      ac.abort();
      await run;
    }
  });
});
