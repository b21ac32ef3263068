// The test environment itself: several servers at once, kubeconfig, HTTPS, workload
// simulation, fault injection (failures, latency, dropped watches, expired versions,
// restart on the same port keeping objects) and the storage interface.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { MemoryStorage, StorageError, startTestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, deployment, dm, eventually, watch } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

describe('startTestApiServer', () => {
  it('runs several servers at once on free ports, each with its own objects and kubeconfig file', async () => {
    const [a, b] = await Promise.all([startTestApiServer({ crds: [DM_CRD] }), startTestApiServer({ crds: [DM_CRD] })]);
    try {
      assert.notEqual(a.port, b.port);
      assert.match(a.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      await api(a.url, 'POST', DMS, dm('only-a'));
      assert.equal((await api(b.url, 'GET', `${DMS}/only-a`)).status, 404);
      const kc = JSON.parse(readFileSync(a.kubeconfigPath, 'utf8'));
      assert.deepEqual(kc, a.kubeconfig);
      assert.equal(kc.clusters[0].cluster.server, a.url);
      assert.equal(kc.clusters[0].cluster['insecure-skip-tls-verify'], true);
      assert.equal(kc.contexts[0].context.user, kc.users[0].name);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    assert.equal(existsSync(a.kubeconfigPath), false, 'stop() removes the temporary kubeconfig');
    await a.stop(); // idempotent
  });

  it('refuses a bad CRD at start with the apiserver message', async () => {
    await assert.rejects(
      startTestApiServer({
        crds: [
          {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: { name: 'x' },
            spec: {},
          } as never,
        ],
      }),
      /cannot create CustomResourceDefinition x: CustomResourceDefinition.apiextensions.k8s.io "x" is invalid: /,
    );
    await assert.rejects(
      startTestApiServer({ crds: ['/nonexistent/crd.yaml'] }),
      /cannot read CRD file \/nonexistent\/crd.yaml/,
    );
  });

  it('serves HTTPS with a generated certificate that the kubeconfig trusts', async () => {
    const env = await startTestApiServer({ https: true });
    try {
      assert.match(env.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = Buffer.from(
        String(env.kubeconfig.clusters[0].cluster['certificate-authority-data']),
        'base64',
      ).toString();
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(`${env.url}/version`, { ca, agent: false }, (res) => {
          let s = '';
          res.on('data', (c: Buffer) => (s += c.toString()));
          res.on('end', () => resolve(s));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(JSON.parse(body).major, '1');
    } finally {
      await env.stop();
    }
  });
});

describe('workload simulation', () => {
  it('makes a Deployment available after the delay, and again after a spec change', async () => {
    const env = await startTestApiServer({ simulateWorkloads: 30 });
    try {
      const D = '/apis/apps/v1/namespaces/default/deployments';
      await api(env.url, 'POST', D, deployment('sim', 3));
      const ready = await eventually(async () => {
        const d = (await api(env.url, 'GET', `${D}/sim`)).body;
        return d.status?.availableReplicas === 3 ? d : undefined;
      });
      assert.equal(ready.status.observedGeneration, 1);
      assert.equal(ready.status.readyReplicas, 3);
      assert.equal(ready.status.updatedReplicas, 3);
      assert.deepEqual(
        ready.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`),
        ['Available=True', 'Progressing=True'],
      );
      await api(
        env.url,
        'PATCH',
        `${D}/sim`,
        { spec: { replicas: 5 } },
        { 'Content-Type': 'application/merge-patch+json' },
      );
      const again = await eventually(async () => {
        const d = (await api(env.url, 'GET', `${D}/sim`)).body;
        return d.status?.availableReplicas === 5 ? d : undefined;
      });
      assert.equal(again.status.observedGeneration, 2);
    } finally {
      await env.stop();
    }
  });

  it('is off by default', async () => {
    const env = await startTestApiServer();
    try {
      const D = '/apis/apps/v1/namespaces/default/deployments';
      await api(env.url, 'POST', D, deployment('nosim', 1));
      await new Promise((r) => setTimeout(r, 150));
      // no controller wrote it: the empty status kube-apiserver stores
      assert.deepEqual((await api(env.url, 'GET', `${D}/nosim`)).body.status, {});
    } finally {
      await env.stop();
    }
  });
});

describe('fault injection', () => {
  it('fails the next N requests with 500, or 429 with Retry-After', async () => {
    const env = await startTestApiServer({ crds: [DM_CRD] });
    try {
      env.faults.failNext(2);
      const a = await api(env.url, 'GET', DMS);
      assert.equal(a.status, 500);
      assert.equal(a.body.reason, 'InternalError');
      assert.equal((await api(env.url, 'GET', DMS)).status, 500);
      assert.equal((await api(env.url, 'GET', DMS)).status, 200);
      env.faults.failNext(1, { code: 429, retryAfterSeconds: 3 });
      const t = await api(env.url, 'GET', DMS);
      assert.equal(t.status, 429);
      assert.equal(t.headers['retry-after'], '3');
      assert.equal(t.body.reason, 'TooManyRequests');
      assert.equal(t.body.details.retryAfterSeconds, 3);
      env.faults.failFraction(1);
      assert.equal((await api(env.url, 'GET', DMS)).status, 500);
      env.faults.reset();
      assert.equal((await api(env.url, 'GET', DMS)).status, 200);
    } finally {
      await env.stop();
    }
  });

  it('adds latency', async () => {
    const env = await startTestApiServer();
    try {
      env.faults.setLatency(120);
      const t0 = Date.now();
      await api(env.url, 'GET', '/api/v1/namespaces');
      assert.ok(Date.now() - t0 >= 110);
    } finally {
      await env.stop();
    }
  });

  it('drops open watches and expires resourceVersions (next watch gets 410)', async () => {
    const env = await startTestApiServer({ crds: [DM_CRD] });
    try {
      const rv = (await api(env.url, 'GET', DMS)).body.metadata.resourceVersion;
      const w = await watch(env.url, `${DMS}?watch=true&resourceVersion=${rv}`);
      env.faults.dropWatches();
      await w.ended;
      await api(env.url, 'POST', DMS, dm('after'));
      env.faults.expireResourceVersions();
      const w2 = await watch(env.url, `${DMS}?watch=true&resourceVersion=${rv}`);
      const e = await w2.at(0);
      await w2.ended;
      assert.equal(e.type, 'ERROR');
      assert.equal(e.object.code, 410);
    } finally {
      await env.stop();
    }
  });

  it('restarts on the same port keeping objects; open watches drop', async () => {
    const env = await startTestApiServer({ crds: [DM_CRD] });
    try {
      await api(env.url, 'POST', DMS, dm('survivor'));
      const w = await watch(env.url, `${DMS}?watch=true`);
      await w.at(0);
      await env.faults.restart(50);
      await w.ended;
      const r = await api(env.url, 'GET', `${DMS}/survivor`);
      assert.equal(r.status, 200);
    } finally {
      await env.stop();
    }
  });
});

describe('MemoryStorage', () => {
  it('one global revision; conflicts and not-found as StorageErrors; watch from a revision; compaction', async () => {
    const s = new MemoryStorage({ historyLimit: 3 });
    const a = await s.create('/g/r/ns/a', { metadata: { name: 'a' } });
    const b = await s.create('/g/other/ns/b', { metadata: { name: 'b' } });
    assert.equal(a.metadata?.resourceVersion, '1');
    assert.equal(b.metadata?.resourceVersion, '2');
    await assert.rejects(
      s.create('/g/r/ns/a', {}),
      (e: unknown) => e instanceof StorageError && e.code === 'AlreadyExists',
    );
    await assert.rejects(
      s.update('/g/r/ns/a', { metadata: { name: 'a' } }, 2),
      (e: unknown) => e instanceof StorageError && e.code === 'Conflict',
    );
    await assert.rejects(s.delete('/g/r/ns/zz'), (e: unknown) => e instanceof StorageError && e.code === 'NotFound');
    const seen: string[] = [];
    const w = s.watch('/g/r/', 1, (e) => seen.push(`${e.type}@${e.revision}`));
    await s.update('/g/r/ns/a', { metadata: { name: 'a', labels: { x: 'y' } } }, 1);
    await s.delete('/g/r/ns/a');
    w.stop();
    assert.deepEqual(seen, ['MODIFIED@3', 'DELETED@4']);
    assert.deepEqual(
      (await s.list('/g/r/', 3)).items.map((o) => o.metadata?.labels),
      [{ x: 'y' }],
    );
    await s.create('/g/r/ns/c', {});
    assert.throws(
      () => s.watch('/g/r/', 0, () => {}),
      (e: unknown) => e instanceof StorageError && e.code === 'Expired',
    );
    const got = await s.get('/g/r/ns/c');
    got!.metadata!.name = 'mutated';
    assert.equal((await s.get('/g/r/ns/c'))!.metadata!.name, undefined, 'stored objects are copies');
  });
});
