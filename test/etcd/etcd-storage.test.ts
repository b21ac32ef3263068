// What only etcd gives: resourceVersions are etcd revisions, nothing is lost when etcd is
// restarted or killed, a second storage (an API server restarted) resumes watches from a
// revision, and compaction done by etcd itself makes old revisions Expired.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/runtime/index.js';
import { openEtcdStorage } from '../../src/testing/storage/etcd.js';
import type { EtcdStorage } from '../../src/testing/storage/etcd.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { StorageError, type StorageEvent } from '../../src/testing/index.js';
import { startTestEtcd } from './support.js';

const cm = (name: string, v = '0'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { v } }) as KubeObject;
const rv = (o: KubeObject): number => Number(o.metadata?.resourceVersion);

async function until(what: string, cond: () => boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('EtcdStorage on a real etcd', () => {
  let etcd: EtcdProcess;
  const open: EtcdStorage[] = [];
  const openStorage = async (prefix: string): Promise<EtcdStorage> => {
    const s = await openEtcdStorage({ endpoints: [etcd.endpoint], prefix });
    open.push(s);
    return s;
  };
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    for (const s of open) await s.close();
    await etcd?.stop();
  });

  it('resourceVersion is the key mod_revision in etcd, and is not stored in the value', async () => {
    const s = await openStorage('/rv');
    const a = await s.create('/core/configmaps/ns/a', cm('a'));
    const { Etcd3 } = await import('etcd3');
    const raw = new Etcd3({ hosts: [etcd.endpoint] });
    try {
      const res = await raw.kv.range({ key: Buffer.from('/rv/core/configmaps/ns/a') });
      assert.equal(res.kvs[0].mod_revision, a.metadata?.resourceVersion);
      assert.equal(JSON.parse(res.kvs[0].value.toString()).metadata.resourceVersion, undefined);
      assert.equal(Number(res.header.revision), await s.currentRevision());
    } finally {
      raw.close();
    }
  });

  it('a watch survives an etcd restart and a SIGKILL without losing or repeating a change', async () => {
    const s = await openStorage('/restart');
    const seen: StorageEvent[] = [];
    const w = s.watch('/', await s.currentRevision(), (e) => seen.push(e));
    const a = await s.create('/core/configmaps/ns/a', cm('a'));
    await etcd.restart();
    const a2 = await s.update('/core/configmaps/ns/a', cm('a', '1'), rv(a));
    await s.create('/core/configmaps/ns/b', cm('b'));
    await etcd.kill();
    await etcd.restart();
    await s.delete('/core/configmaps/ns/a', rv(a2));
    await until('4 events', () => seen.length >= 4);
    w.stop();
    assert.deepEqual(
      seen.map((e) => `${e.type} ${e.key}`),
      [
        'ADDED /core/configmaps/ns/a',
        'MODIFIED /core/configmaps/ns/a',
        'ADDED /core/configmaps/ns/b',
        'DELETED /core/configmaps/ns/a',
      ],
    );
    assert.deepEqual((await s.list('/')).keys, ['/core/configmaps/ns/b'], 'the killed etcd kept its data');
  });

  it('a second storage on the same prefix (an API server restarted) finds everything and resumes a watch', async () => {
    const first = await openStorage('/again');
    const a = await first.create('/core/configmaps/ns/a', cm('a'));
    const a2 = await first.update('/core/configmaps/ns/a', cm('a', '2'));
    await first.create('/core/configmaps/ns/b', cm('b'));
    await first.close();
    const other = await openStorage('/elsewhere');
    await other.create('/core/configmaps/ns/zzz', cm('zzz'));
    const second = await openStorage('/again');
    assert.deepEqual((await second.list('/')).keys, ['/core/configmaps/ns/a', '/core/configmaps/ns/b']);
    assert.deepEqual(await second.get('/core/configmaps/ns/a'), a2);
    const seen: string[] = [];
    const w = second.watch('/', rv(a), (e) => seen.push(`${e.type} ${e.object.metadata?.name} ${e.revision}`));
    await second.delete('/core/configmaps/ns/b');
    w.stop();
    assert.equal(seen.length, 3);
    assert.deepEqual(seen.slice(0, 1), [`MODIFIED a ${rv(a2)}`]);
    assert.match(seen[1], /^ADDED b /);
    assert.match(seen[2], /^DELETED b /);
    assert.deepEqual((await second.list('/', rv(a))).keys, ['/core/configmaps/ns/a'], 'exact list at an old revision');
  });

  it('compaction by etcd itself (not through the storage) makes exact lists at old revisions Expired', async () => {
    const s = await openStorage('/compact');
    const a = await s.create('/core/configmaps/ns/a', cm('a'));
    const b = await s.update('/core/configmaps/ns/a', cm('a', '1'));
    const { Etcd3 } = await import('etcd3');
    const raw = new Etcd3({ hosts: [etcd.endpoint] });
    try {
      await raw.kv.compact({ revision: rv(b), physical: true });
    } finally {
      raw.close();
    }
    await assert.rejects(s.list('/', rv(a)), (e: unknown) => e instanceof StorageError && e.code === 'Expired');
    assert.equal((await s.list('/', rv(b))).items.length, 1);
    // A storage opened after that compaction knows it at once.
    const later = await openStorage('/compact');
    assert.ok(later.compactedRevision() >= rv(b) - 1);
    assert.throws(
      () => later.watch('/', rv(a) - 1, () => undefined),
      (e: unknown) => e instanceof StorageError && e.code === 'Expired',
    );
  });

  it('when the watch cache loses changes, open watches end with Expired (clients relist) instead of going quiet', async () => {
    const s = await openStorage('/gap');
    const a = await s.create('/core/configmaps/ns/a', cm('a'));
    const seen: string[] = [];
    const expired: StorageError[] = [];
    s.watch(
      '/',
      rv(a),
      (e) => seen.push(e.key),
      (e) => expired.push(e),
    );
    await s.create('/core/configmaps/ns/x', cm('x'));
    const now = await s.currentRevision();
    s.onGap(now);
    assert.equal(expired.length, 1);
    assert.equal(expired[0].code, 'Expired');
    await s.create('/core/configmaps/ns/b', cm('b'));
    assert.deepEqual(seen, ['/core/configmaps/ns/x'], 'an ended watch gets nothing more');
    assert.throws(
      () => s.watch('/', rv(a), () => undefined),
      (e: unknown) => e instanceof StorageError && e.code === 'Expired',
    );
    const fresh: string[] = [];
    const w = s.watch('/', now, (e) => fresh.push(e.key));
    await s.create('/core/configmaps/ns/c', cm('c'));
    w.stop();
    assert.deepEqual(fresh, ['/core/configmaps/ns/b', '/core/configmaps/ns/c']);
  });

  it('refuses bad endpoints with a clear message', async () => {
    await assert.rejects(openEtcdStorage({ endpoints: ['not a url'] }), /"not a url" is not an etcd endpoint/);
    await assert.rejects(openEtcdStorage({ endpoints: [] }), /at least one endpoint/);
  });
});
