// Fuzzing request bodies at the test API server, on memory and on etcd: mutated and random
// DatabaseManagers sent by POST, PUT, PATCH (every patch type) and to /status never get a
// 5xx, every 4xx is a Status, and afterwards the store is consistent: each listed object
// reads back identically, satisfies the CRD schema, and no prototype was polluted.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { DM_CRD, api, dm } from '../testing/helpers.js';
import { startTestEtcd } from '../etcd/support.js';
import { SEED, counter, junk, mutateTree, runs as scaled } from './support.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const PATCH_TYPES = [
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

const body = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('a', 'b', 'c', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7'),
        fc.integer({ min: 1, max: 10 }),
        fc.oneof(
          fc.constant([] as [number, unknown, boolean][]),
          fc.array(fc.tuple(fc.nat(), junk as fc.Arbitrary<unknown>, fc.boolean()), { minLength: 1, maxLength: 2 }),
        ),
      )
      .map(([n, r, m]) => JSON.stringify(mutateTree(dm(n, r), m))),
  },
  { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":"yes"},"metadata":{"name":"a","__proto__":{"polluted":"yes"}},"spec":{"__proto__":{"replicas":99}}}',
      '{"constructor":{"prototype":{"polluted":"yes"}},"metadata":{"name":"a"}}',
      '[{"op":"add","path":"/spec/__proto__","value":{"polluted":"yes"}}]',
      '[{"op":"replace","path":"/spec/replicas","value":1000}]',
      '[{"op":"move","from":"/metadata","path":"/spec/x"}]',
      '{"metadata":{"name":"a","resourceVersion":"1"},"spec":{"replicas":3}}',
      '{"metadata":{"name":"../a"}}',
      '{"spec":{"replicas":1e400}}',
    ),
  },
);

const request = fc.record({
  method: fc.constantFrom('POST', 'PUT', 'PATCH', 'PUT-status', 'PATCH-status'),
  // The path names the object of the body (most often), or another one.
  name: fc.option(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor', '..'), { freq: 3 }),
  type: fc.constantFrom(...PATCH_TYPES),
  body,
  /** For PUT: put the stored object's resourceVersion into the body (as a client would). */
  fresh: fc.boolean(),
});

function fuzzServer(backend: string, start: () => Promise<TestApiServer>, runs: number): void {
  describe(`fuzz: request bodies (${backend})`, () => {
    let env: TestApiServer;
    before(async () => {
      env = await start();
      for (const n of ['a', 'b', 'c']) assert.equal((await api(env.url, 'POST', DMS, dm(n, 2))).status, 201);
    });
    after(async () => {
      await env?.stop();
    });

    it('never a 5xx for a client mistake; 4xx are Status objects; the store stays consistent', async (t) => {
      const count = counter(`request bodies on ${backend}`);
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          count.inc();
          const sub = r.method.endsWith('-status') ? '/status' : '';
          const method = r.method.replace('-status', '');
          let bodyName = 'a';
          try {
            bodyName = String(JSON.parse(r.body)?.metadata?.name ?? 'a');
          } catch {
            /* not JSON */
          }
          const name = encodeURIComponent(r.name ?? bodyName);
          const path =
            method === 'POST' ? DMS : `${DMS}/${name}${sub}${r.type.includes('apply') ? '?fieldManager=fuzz' : ''}`;
          const headers = { 'Content-Type': method === 'PATCH' ? r.type : 'application/json' };
          let sent = r.body;
          if (method === 'PUT' && r.fresh) {
            const cur = await api(env.url, 'GET', `${DMS}/${name}`);
            try {
              const b = JSON.parse(r.body);
              if (cur.status === 200 && b?.metadata && typeof b.metadata === 'object') {
                b.metadata.resourceVersion = cur.body.metadata.resourceVersion;
                sent = JSON.stringify(b);
              }
            } catch {
              /* not JSON: sent as is */
            }
          }
          const res = await api(env.url, method, path, sent, headers);
          // kube-apiserver itself answers 500 to an apply whose configuration does not fit the
          // schema (structured-merge-diff's typed conversion fails); testenv answers the same
          const applySchemaError =
            res.status === 500 &&
            r.type.includes('apply') &&
            method === 'PATCH' &&
            /^failed to create typed patch object \(/.test(String(res.body?.message));
          assert.ok(
            res.status < 500 || applySchemaError,
            `${method} ${path} ${headers['Content-Type']} (sent ${sent.slice(0, 300)}) → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
          );
          // a path no API serves (a name of `..` leaves the resource) gets the mux's text 404, as from kube-apiserver
          if (res.status === 404 && res.body === '404 page not found\n') return;
          if (res.status >= 400) assert.equal(res.body.kind, 'Status');
          else accepted++;
        }),
        { numRuns: runs, seed: SEED },
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype polluted');
      assert.deepEqual(Object.keys(Object.prototype), []);
      const list = await api(env.url, 'GET', DMS);
      assert.equal(list.status, 200);
      const listRv = Number(list.body.metadata.resourceVersion);
      for (const o of list.body.items) {
        const got = await api(env.url, 'GET', `${DMS}/${o.metadata.name}`);
        assert.equal(got.status, 200);
        assert.deepEqual(got.body, o, `${o.metadata.name} reads back as listed`);
        assert.ok(Number(o.metadata.resourceVersion) <= listRv);
        assert.match(o.metadata.uid, /^[0-9a-f-]{36}$/);
        const replicas = o.spec?.replicas;
        if (replicas !== undefined)
          assert.ok(Number.isInteger(replicas) && replicas >= 1 && replicas <= 10, `stored replicas ${replicas}`);
        for (const f of ['deploymentName', 'dbtype'])
          if (o.spec?.[f] !== undefined) assert.equal(typeof o.spec[f], 'string');
        assert.equal(Object.getPrototypeOf(o.spec ?? {}), Object.prototype);
        assert.equal((o.spec ?? {}).polluted, undefined);
      }
      count.report((s) => t.diagnostic(`${s}, ${accepted} accepted`));
      assert.ok(accepted >= runs / 20, `only ${accepted} requests were accepted: the fuzz barely writes`);
    });
  });
}

fuzzServer('memory', () => startTestApiServer({ crds: [DM_CRD] }), scaled(150));

let etcd: EtcdProcess | undefined;
after(async () => {
  await etcd?.stop();
});
fuzzServer(
  'etcd',
  async () => {
    etcd = await startTestEtcd();
    return startTestApiServer({ crds: [DM_CRD], etcd: { endpoints: [etcd.endpoint], prefix: '/fuzz' } });
  },
  scaled(80),
);
