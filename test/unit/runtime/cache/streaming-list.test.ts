// Streaming lists, on crdgen's test server and on kube-apiserver v1.37: the informer's reflector
// fills its cache from one watch with sendInitialEvents, synced at the initial-events-end bookmark
// and kept as its watch; where the server refuses (the WatchList feature off) it lists in pages
// of 500, and says once which way it lists. On the test server also: a server that ignores
// sendInitialEvents (no end bookmark) and a 410 while watching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane, startTestApiServer } from '../../../../src/testing/index.js';
import type { ApiServerHandle } from '../../../../src/testing/index.js';
import { resourceClient } from '../../../../src/runtime/client/resource-client.js';
import type { ResourceDescriptor } from '../../../../src/runtime/client/resource.js';
import type { ListOptions, ListerWatcher } from '../../../../src/runtime/client/types.js';
import { newSharedIndexInformer } from '../../../../src/runtime/cache/shared-index-informer.js';
import { ExponentialBackoffManager } from '../../../../src/runtime/cache/backoff.js';
import { waitForCacheSync } from '../../../../src/runtime/cache/wait-for-cache-sync.js';
import { ReflectorCounters } from '../../../../src/runtime/metrics/reflector.js';
import type { KubeObject } from '../../../../src/runtime/meta/types.js';
import { ApiError } from '../../../../src/runtime/client/errors.js';
import { controlPlaneAssets } from '../../../support/assets.js';
import { DM_CRD } from '../../../testing/helpers.js';

const DM: ResourceDescriptor = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const dm = (name: string): KubeObject & { spec: Record<string, unknown> } => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name, namespace: 'default' },
  spec: { deploymentName: name, replicas: 1, dbtype: 'mysql' },
});

async function until(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Start = (o: { watchList: boolean }) => Promise<ApiServerHandle>;
const BACKENDS: { name: string; start: Start }[] = [
  {
    name: 'testenv',
    start: (o) => startTestApiServer({ crds: [DM_CRD], featureGates: { WatchList: o.watchList } }),
  },
  {
    name: 'real',
    start: (o) =>
      startControlPlane({ assets: controlPlaneAssets(), crds: [DM_CRD], featureGates: { WatchList: o.watchList } }),
  },
];

/** A ListerWatcher over the REST client that records the options of every call. */
function recording(h: ApiServerHandle): {
  lw: ListerWatcher<KubeObject>;
  lists: ListOptions[];
  watches: ListOptions[];
  create: (obj: KubeObject) => Promise<KubeObject>;
} {
  const client = resourceClient<KubeObject>({ ...h.clientConfig, qps: 0 }, DM);
  const lists: ListOptions[] = [];
  const watches: ListOptions[] = [];
  const strip = ({ signal: _s, ...o }: ListOptions = {}): ListOptions => o;
  return {
    lists,
    watches,
    lw: {
      list: (o) => (lists.push(strip(o)), client.list(o)),
      watch: (o) => (watches.push(strip(o)), client.watch(o)),
      streamingLists: client.streamingLists,
    },
    create: (obj) => client.namespace('default').create(obj),
  };
}

async function createMany(create: (o: KubeObject) => Promise<KubeObject>, names: string[]): Promise<void> {
  for (let i = 0; i < names.length; i += 25) await Promise.all(names.slice(i, i + 25).map((n) => create(dm(n))));
}

for (const backend of BACKENDS) {
  test(`${backend.name}: the informer streams its initial list and keeps that watch`, async () => {
    const h = await backend.start({ watchList: true });
    const ac = new AbortController();
    try {
      const rec = recording(h);
      await createMany(rec.create, ['a', 'b', 'c']);
      const metrics = new ReflectorCounters();
      const log: string[] = [];
      const informer = newSharedIndexInformer(rec.lw, { metrics, log: (l) => log.push(l) });
      const run = informer.run(ac.signal);
      assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
      assert.deepEqual(informer.getStore().listKeys().sort(), ['default/a', 'default/b', 'default/c']);
      await rec.create(dm('late'));
      await until('the late object', () => informer.getStore().getByKey('default/late') !== undefined);
      assert.deepEqual(rec.lists, [], 'no list request');
      assert.equal(rec.watches.length, 1, 'one watch: the streaming list, kept as the watch');
      assert.equal(rec.watches[0].sendInitialEvents, true);
      assert.equal(rec.watches[0].resourceVersionMatch, 'NotOlderThan');
      assert.equal(rec.watches[0].allowWatchBookmarks, true);
      assert.equal(rec.watches[0].resourceVersion, '');
      assert.equal(metrics.streamingLists, 1);
      assert.equal(metrics.pagedLists, 0);
      assert.deepEqual(log, ['informer: streaming lists (watch with sendInitialEvents)']);
      ac.abort();
      await run;
    } finally {
      ac.abort();
      await h.stop();
    }
  });

  test(`${backend.name}: with the WatchList feature off the informer falls back to pages of 500 and says so once`, async () => {
    const h = await backend.start({ watchList: false });
    const ac = new AbortController();
    try {
      const rec = recording(h);
      const names = Array.from({ length: 1001 }, (_, i) => `db-${String(i).padStart(4, '0')}`);
      await createMany(rec.create, names);
      const metrics = new ReflectorCounters();
      const log: string[] = [];
      const informer = newSharedIndexInformer(rec.lw, { metrics, log: (l) => log.push(l) });
      const run = informer.run(ac.signal);
      assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
      assert.equal(informer.getStore().list().length, 1001);
      // pages of 500; kube-apiserver serves a list at resourceVersion 0 from its watch cache,
      // which ignores the limit (one page), the test server too
      assert.deepEqual(
        rec.lists.map((o) => [o.limit, o.resourceVersion, o.continue ? 'continue' : 'first']),
        [[500, '0', 'first']],
      );
      assert.equal(rec.watches[0].sendInitialEvents, true, 'it asked for a streaming list first');
      assert.equal(rec.watches[1].sendInitialEvents, undefined, 'then watched as after a list');
      await rec.create(dm('late'));
      await until('the late object', () => informer.getStore().getByKey('default/late') !== undefined);
      assert.equal(metrics.pagedLists, 1);
      assert.equal(metrics.streamingLists, 0);
      assert.equal(log.length, 1, log.join('\n'));
      assert.match(
        log[0],
        /^informer: paged lists of 500 \(the server refused a streaming list: .*sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/,
      );
      ac.abort();
      await run;
    } finally {
      ac.abort();
      await h.stop();
    }
  });
}

test('testenv: a server that ignores sendInitialEvents sends no end bookmark: a plain bookmark, or silence, means a paged list', async () => {
  const h = await startTestApiServer({ crds: [DM_CRD], featureGates: { WatchList: false }, bookmarkIntervalMs: 100 });
  try {
    const rec = recording(h);
    await createMany(rec.create, ['a', 'b']);
    // an older apiserver: the parameters it does not know are dropped, the watch is a legacy one
    const legacy = (bookmarks: boolean): ListerWatcher<KubeObject> => ({
      ...rec.lw,
      watch: ({ sendInitialEvents: _s, resourceVersionMatch: _m, allowWatchBookmarks, ...o } = {}) =>
        rec.lw.watch({ ...o, allowWatchBookmarks: bookmarks && allowWatchBookmarks }),
    });
    for (const [bookmarks, reason] of [
      [true, /a bookmark came before the k8s\.io\/initial-events-end one/],
      [false, /no k8s\.io\/initial-events-end bookmark: nothing arrived for 300 ms/],
    ] as const) {
      const ac = new AbortController();
      const metrics = new ReflectorCounters();
      const log: string[] = [];
      const informer = newSharedIndexInformer(legacy(bookmarks), {
        metrics,
        log: (l) => log.push(l),
        initialEventsTimeoutMs: 300,
      });
      const run = informer.run(ac.signal);
      assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
      assert.deepEqual(informer.getStore().listKeys().sort(), ['default/a', 'default/b']);
      assert.equal(metrics.pagedLists, 1);
      assert.match(log[0] ?? '', reason);
      ac.abort();
      await run;
    }
  } finally {
    await h.stop();
  }
});

test('testenv: a 410 ends the watch and the next cycle streams again from the last version; a 410 on that streaming list streams from the latest', async () => {
  const h = await startTestApiServer({ crds: [DM_CRD] });
  const ac = new AbortController();
  try {
    const rec = recording(h);
    await createMany(rec.create, ['a', 'b']);
    // the next `gone` watch requests are answered 410 Expired, as a server whose history was compacted
    let gone = 0;
    const lw: ListerWatcher<KubeObject> = {
      ...rec.lw,
      watch: (o) => {
        if (gone > 0) {
          gone--;
          rec.watches.push({ ...o, signal: undefined, limit: -410 });
          return Promise.reject(
            ApiError.fromStatus({
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              code: 410,
              reason: 'Expired',
              message: 'too old resource version',
            }),
          );
        }
        return rec.lw.watch(o);
      },
    };
    const metrics = new ReflectorCounters();
    const informer = newSharedIndexInformer(lw, {
      metrics,
      backoff: new ExponentialBackoffManager({ initialMs: 10, capMs: 50 }),
    });
    informer.setWatchErrorHandler(() => {});
    const run = informer.run(ac.signal);
    assert.equal(await waitForCacheSync(ac.signal, () => informer.hasSynced()), true);
    await rec.create(dm('c'));
    await until('c', () => informer.getStore().getByKey('default/c') !== undefined);
    const lastRV = informer.lastSyncResourceVersion();
    rec.watches.length = 0;
    gone = 2;
    h.faults.dropWatches();
    await until('a second streaming list', () => metrics.streamingLists >= 2);
    await rec.create(dm('d'));
    await until('d', () => informer.getStore().getByKey('default/d') !== undefined);
    assert.deepEqual(informer.getStore().listKeys().sort(), ['default/a', 'default/b', 'default/c', 'default/d']);
    assert.deepEqual(rec.lists, [], 'no paged list');
    assert.deepEqual(
      rec.watches.map((o) => [o.sendInitialEvents ? 'stream' : 'watch', o.resourceVersion, o.limit === -410]),
      [
        ['watch', lastRV, true], // the re-watch: 410, the cycle ends
        ['stream', lastRV, true], // a streaming list from the last version: 410 too
        ['stream', '', false], // so from the latest
      ],
    );
    ac.abort();
    await run;
  } finally {
    ac.abort();
    await h.stop();
  }
});
