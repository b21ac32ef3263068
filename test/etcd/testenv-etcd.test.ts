// The test API server on etcd: resourceVersions are etcd revisions, a server stopped and
// started again on the same etcd loses nothing and resumes watches, compaction gives a
// real 410 Gone to watches and exact lists.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { api, dm, DM_CRD, watch } from '../testing/helpers.js';
import { startTestEtcd } from './support.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

describe('crdgen/testing on etcd', () => {
  let etcd: EtcdProcess;
  const servers: TestApiServer[] = [];
  const start = async (prefix: string): Promise<TestApiServer> => {
    const s = await startTestApiServer({ crds: [DM_CRD], etcd: { endpoints: [etcd.endpoint], prefix } });
    servers.push(s);
    return s;
  };
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    for (const s of servers) await s.stop();
    await etcd?.stop();
  });

  it('stop and start again on the same etcd: objects, CRDs and resourceVersions survive; a watch resumes', async () => {
    const a = await start('/srv1');
    const created = await api(a.url, 'POST', DMS, dm('db1', 2));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const rv1 = created.body.metadata.resourceVersion as string;
    const scaled = await api(a.url, 'PUT', `${DMS}/db1`, {
      ...created.body,
      spec: { ...created.body.spec, replicas: 3 },
    });
    assert.equal(scaled.status, 200, JSON.stringify(scaled.body));
    await a.stop();

    const b = await start('/srv1');
    const got = await api(b.url, 'GET', `${DMS}/db1`);
    assert.equal(got.status, 200, 'the CRD is served again and the object is there');
    assert.deepEqual(got.body, scaled.body);
    const w = await watch(b.url, `${DMS}?watch=true&resourceVersion=${rv1}`);
    try {
      const first = await w.at(0);
      assert.equal(first.type, 'MODIFIED');
      assert.equal(first.object.metadata.resourceVersion, scaled.body.metadata.resourceVersion);
      const del = await api(b.url, 'DELETE', `${DMS}/db1`);
      assert.equal(del.status, 200);
      const second = await w.at(1, 5000);
      assert.equal(second.type, 'DELETED');
    } finally {
      w.close();
    }
  });

  it('compaction: a watch or an exact list from before it gets 410 Gone (Expired)', async () => {
    const s = await start('/srv2');
    const c = await api(s.url, 'POST', DMS, dm('db2', 1));
    const old = c.body.metadata.resourceVersion as string;
    await api(s.url, 'PUT', `${DMS}/db2`, { ...c.body, spec: { ...c.body.spec, replicas: 4 } });
    s.faults.expireResourceVersions();
    const w = await watch(s.url, `${DMS}?watch=true&resourceVersion=${old}`);
    try {
      const ev = await w.at(0);
      assert.equal(ev.type, 'ERROR');
      assert.equal(ev.object.code, 410);
      assert.equal(ev.object.reason, 'Expired');
    } finally {
      w.close();
    }
    const list = await api(s.url, 'GET', `${DMS}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    assert.equal(list.status, 410);
    const fresh = await api(s.url, 'GET', DMS);
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.items.length, 1);
  });

  it('an etcd restart under a running server: requests keep working and the open watch sees the next change', async () => {
    const s = await start('/srv3');
    const c = await api(s.url, 'POST', DMS, dm('db3', 1));
    const w = await watch(s.url, `${DMS}?watch=true&resourceVersion=${c.body.metadata.resourceVersion}`);
    try {
      await etcd.restart();
      const up = await api(s.url, 'PUT', `${DMS}/db3`, { ...c.body, spec: { ...c.body.spec, replicas: 5 } });
      assert.equal(up.status, 200, JSON.stringify(up.body));
      const ev = await w.at(0, 10000);
      assert.equal(ev.type, 'MODIFIED');
      assert.equal(ev.object.spec.replicas, 5);
    } finally {
      w.close();
    }
  });
});
