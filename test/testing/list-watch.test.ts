// List and watch semantics: selectors, pages, resourceVersion rules, watch events,
// bookmarks and 410 Gone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, dm, watch } from './helpers.js';

const NS = '/api/v1/namespaces';

describe('list', () => {
  let env: TestApiServer;
  const base = '/apis/coolops.cn/v1alpha1/namespaces/lists/databasemanagers';
  before(async () => {
    env = await startTestApiServer({
      crds: [DM_CRD],
      objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lists' } }],
    });
    for (const [n, tier] of [
      ['a', 'db'],
      ['b', 'db'],
      ['c', 'web'],
      ['d', 'web'],
      ['e', 'cache'],
    ]) {
      const o = dm(n);
      (o.metadata as { labels: Record<string, string> }).labels.tier = tier!;
      await api(env.url, 'POST', base, o);
    }
  });
  after(() => env.stop());

  const names = (r: { body: { items: { metadata: { name: string } }[] } }): string[] =>
    r.body.items.map((i) => i.metadata.name);

  it('answers a DatabaseManagerList with items carrying apiVersion/kind and the list resourceVersion', async () => {
    const r = await api(env.url, 'GET', base);
    assert.equal(r.status, 200);
    assert.equal(r.body.kind, 'DatabaseManagerList');
    assert.equal(r.body.apiVersion, 'coolops.cn/v1alpha1');
    assert.deepEqual(names(r), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(r.body.items[0].kind, 'DatabaseManager');
    assert.ok(Number(r.body.metadata.resourceVersion) >= Number(r.body.items[4].metadata.resourceVersion));
  });

  it('label selectors: =, !=, in, notin, exists, !exists', async () => {
    const q = async (s: string): Promise<string[]> =>
      names(await api(env.url, 'GET', `${base}?labelSelector=${encodeURIComponent(s)}`));
    assert.deepEqual(await q('tier=db'), ['a', 'b']);
    assert.deepEqual(await q('tier!=db'), ['c', 'd', 'e']);
    assert.deepEqual(await q('tier in (web,cache)'), ['c', 'd', 'e']);
    assert.deepEqual(await q('tier notin (web,cache),app'), ['a', 'b']);
    assert.deepEqual(await q('!tier'), []);
    assert.deepEqual(await q('tier=db,app=b'), ['b']);
  });

  it('field selectors on metadata.name and metadata.namespace; others are refused with 400', async () => {
    assert.deepEqual(names(await api(env.url, 'GET', `${base}?fieldSelector=metadata.name%3Dc`)), ['c']);
    assert.deepEqual(names(await api(env.url, 'GET', `${base}?fieldSelector=metadata.name!%3Dc`)), [
      'a',
      'b',
      'd',
      'e',
    ]);
    const all = await api(
      env.url,
      'GET',
      '/apis/coolops.cn/v1alpha1/databasemanagers?fieldSelector=metadata.namespace%3Dlists',
    );
    assert.equal(all.body.items.length, 5);
    const bad = await api(env.url, 'GET', `${base}?fieldSelector=spec.replicas%3D2`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'field label not supported: spec.replicas');
  });

  it("a CRD's selectableFields are field selectors too", async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'colors.sel.example.com' },
      spec: {
        group: 'sel.example.com',
        scope: 'Namespaced',
        names: { kind: 'Color', plural: 'colors' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            selectableFields: [{ jsonPath: '.spec.hue' }, { jsonPath: '.spec.level' }],
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { hue: { type: 'string' }, level: { type: 'integer' } } },
                },
              },
            },
          },
        ],
      },
    };
    assert.equal(
      (await api(env.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
      201,
    );
    const path = '/apis/sel.example.com/v1/namespaces/lists/colors';
    for (const [n, hue, level] of [
      ['r', 'red', 1],
      ['g', 'green', 2],
      ['g2', 'green', 3],
    ] as const) {
      assert.equal(
        (
          await api(env.url, 'POST', path, {
            apiVersion: 'sel.example.com/v1',
            kind: 'Color',
            metadata: { name: n },
            spec: { hue, level },
          })
        ).status,
        201,
      );
    }
    assert.deepEqual(names(await api(env.url, 'GET', `${path}?fieldSelector=spec.hue%3Dgreen`)), ['g', 'g2']);
    assert.deepEqual(names(await api(env.url, 'GET', `${path}?fieldSelector=spec.hue%3Dgreen,spec.level!%3D3`)), ['g']);
    const bad = await api(env.url, 'GET', `${path}?fieldSelector=spec.other%3Dx`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'field label not supported: spec.other');
  });

  it('limit/continue pages through a consistent snapshot', async () => {
    const p1 = await api(env.url, 'GET', `${base}?limit=2`);
    assert.deepEqual(names(p1), ['a', 'b']);
    assert.equal(p1.body.metadata.remainingItemCount, 3);
    assert.ok(p1.body.metadata.continue);
    // A change between pages is not seen by the continued list (same snapshot).
    await api(env.url, 'DELETE', `${base}/c`);
    const p2 = await api(env.url, 'GET', `${base}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
    assert.deepEqual(names(p2), ['c', 'd']);
    assert.equal(p2.body.metadata.resourceVersion, p1.body.metadata.resourceVersion);
    const p3 = await api(env.url, 'GET', `${base}?limit=2&continue=${encodeURIComponent(p2.body.metadata.continue)}`);
    assert.deepEqual(names(p3), ['e']);
    assert.equal(p3.body.metadata.continue, '', 'the last page of a custom resource list: continue ""');
    await api(env.url, 'POST', base, dm('c'));
  });

  it('resourceVersion: Exact lists an earlier state; too large gets 504; a bad continue gets 400', async () => {
    const before = await api(env.url, 'GET', base);
    const rv = before.body.metadata.resourceVersion;
    await api(env.url, 'POST', base, dm('f'));
    const exact = await api(env.url, 'GET', `${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.deepEqual(names(exact), names(before));
    assert.equal(exact.body.metadata.resourceVersion, rv);
    const latest = await api(env.url, 'GET', `${base}?resourceVersion=0`);
    assert.ok(names(latest).includes('f'));
    const big = await api(env.url, 'GET', `${base}?resourceVersion=999999`);
    assert.equal(big.status, 504);
    assert.match(big.body.message, /^Too large resource version: 999999, current: \d+$/);
    const badc = await api(env.url, 'GET', `${base}?continue=garbage`);
    assert.equal(badc.status, 400);
  });

  it('Table output for kubectl get: Name + printer columns (Age when the CRD has none)', async () => {
    const r = await api(env.url, 'GET', base, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    assert.equal(r.body.kind, 'Table');
    assert.equal(r.body.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(
      r.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Age'],
    );
    assert.equal(r.body.rows[0].cells[0], 'a');
    assert.match(r.body.rows[0].cells[1], /^\d+s$/);
    assert.equal(r.body.rows[0].object.kind, 'PartialObjectMetadata');
  });

  it('namespaces: default exists; Namespace list is cluster-scoped', async () => {
    const r = await api(env.url, 'GET', NS);
    const ns = r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    for (const n of ['default', 'kube-system', 'kube-public', 'lists']) assert.ok(ns.includes(n), n);
    assert.equal(r.body.items[0].status.phase, 'Active');
  });
});

describe('watch', () => {
  let env: TestApiServer;
  const base = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD], historyLimit: 50, bookmarkIntervalMs: 50 });
  });
  after(() => env.stop());

  it('streams ADDED/MODIFIED/DELETED as JSON lines from a resourceVersion', async () => {
    const l = await api(env.url, 'GET', base);
    const w = await watch(env.url, `${base}?watch=true&resourceVersion=${l.body.metadata.resourceVersion}`);
    try {
      assert.equal(w.status, 200);
      assert.equal(w.contentType, 'application/json');
      const c = await api(env.url, 'POST', base, dm('w1'));
      const e0 = await w.at(0);
      assert.equal(e0.type, 'ADDED');
      assert.equal(e0.object.metadata.name, 'w1');
      assert.equal(e0.object.kind, 'DatabaseManager');
      await api(
        env.url,
        'PATCH',
        `${base}/w1`,
        { spec: { replicas: 3 } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
      const e1 = await w.at(1);
      assert.equal(e1.type, 'MODIFIED');
      assert.equal(e1.object.spec.replicas, 3);
      assert.ok(Number(e1.object.metadata.resourceVersion) > Number(c.body.metadata.resourceVersion));
      await api(env.url, 'DELETE', `${base}/w1`);
      assert.equal((await w.at(2)).type, 'DELETED');
    } finally {
      w.close();
    }
  });

  it('without a resourceVersion starts with ADDED for existing objects', async () => {
    await api(env.url, 'POST', base, dm('w2'));
    const w = await watch(env.url, `${base}?watch=1`);
    try {
      const e = await w.at(0);
      assert.equal(e.type, 'ADDED');
      assert.equal(e.object.metadata.name, 'w2');
    } finally {
      w.close();
    }
  });

  it('field selector on watch: only the named object, and DELETED when it goes', async () => {
    const l = await api(env.url, 'GET', base);
    const w = await watch(
      env.url,
      `${base}?watch=true&fieldSelector=metadata.name%3Dw3&resourceVersion=${l.body.metadata.resourceVersion}`,
    );
    try {
      await api(env.url, 'POST', base, dm('other'));
      await api(env.url, 'POST', base, dm('w3'));
      await api(env.url, 'DELETE', `${base}/w3`);
      assert.equal((await w.at(0)).object.metadata.name, 'w3');
      assert.equal((await w.at(1)).type, 'DELETED');
      assert.ok(w.events.every((e) => e.object.metadata.name === 'w3'));
    } finally {
      w.close();
    }
  });

  it('label selector: an object that stops matching is reported DELETED', async () => {
    await api(env.url, 'POST', base, dm('w4'));
    const l = await api(env.url, 'GET', base);
    const w = await watch(
      env.url,
      `${base}?watch=true&labelSelector=app%3Dw4&resourceVersion=${l.body.metadata.resourceVersion}`,
    );
    try {
      await api(
        env.url,
        'PATCH',
        `${base}/w4`,
        { metadata: { labels: { app: 'moved' } } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
      const e = await w.at(0);
      assert.equal(e.type, 'DELETED');
      assert.equal(e.object.metadata.labels.app, 'moved');
    } finally {
      w.close();
    }
  });

  it('sendInitialEvents: ADDED for the current state, then a BOOKMARK marking their end', async () => {
    await api(env.url, 'POST', base, dm('w5'));
    const w = await watch(
      env.url,
      `${base}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dw5`,
    );
    try {
      assert.equal((await w.at(0)).type, 'ADDED');
      const b = await w.at(1);
      assert.equal(b.type, 'BOOKMARK');
      assert.equal(b.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    } finally {
      w.close();
    }
  });

  it('sends BOOKMARKs when allowed', async () => {
    const l = await api(env.url, 'GET', base);
    const w = await watch(
      env.url,
      `${base}?watch=true&allowWatchBookmarks=true&resourceVersion=${l.body.metadata.resourceVersion}`,
    );
    try {
      const e = await w.at(0);
      assert.equal(e.type, 'BOOKMARK');
      assert.equal(e.object.kind, 'DatabaseManager');
      assert.ok(Number(e.object.metadata.resourceVersion) >= Number(l.body.metadata.resourceVersion));
    } finally {
      w.close();
    }
  });

  it('410 Gone: an ERROR event with an Expired Status, then the stream closes', async () => {
    const first = await api(env.url, 'GET', base);
    const old = first.body.metadata.resourceVersion;
    for (let i = 0; i < 60; i++)
      await api(
        env.url,
        'PATCH',
        `${base}/w2`,
        { spec: { replicas: (i % 9) + 1 } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
    const w = await watch(env.url, `${base}?watch=true&resourceVersion=${old}`);
    const e = await w.at(0);
    await w.ended;
    assert.equal(w.status, 200);
    assert.equal(e.type, 'ERROR');
    assert.equal(e.object.kind, 'Status');
    assert.equal(e.object.code, 410);
    assert.equal(e.object.reason, 'Expired');
    assert.match(e.object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
  });

  it('timeoutSeconds ends the stream', async () => {
    const w = await watch(env.url, `${base}?watch=true&timeoutSeconds=1&resourceVersion=0`);
    const started = Date.now();
    await w.ended;
    assert.ok(Date.now() - started < 2500);
  });
});
