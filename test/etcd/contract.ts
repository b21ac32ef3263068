// The Storage contract, written once and run on every backend (memory and etcd): what the
// handlers of the test API server rely on.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/runtime/index.js';
import { StorageError, type Storage, type StorageEvent } from '../../src/testing/index.js';

/** A backend under test: a fresh, empty storage per call, and how to dispose of it. */
export interface BackendFactory {
  name: string;
  make(): Promise<{ storage: Storage; dispose: () => Promise<void> }>;
}

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data } as KubeObject;
}

const rv = (o: KubeObject): number => Number(o.metadata?.resourceVersion);

async function rejectsWith(p: Promise<unknown>, code: string): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StorageError, `expected a StorageError, got ${String(e)}`);
    assert.equal(e.code, code);
    return e;
  }
  assert.fail(`expected ${code}`);
}

/** Registers the contract suite for one backend. */
export function storageContract(backend: BackendFactory): void {
  describe(`Storage contract: ${backend.name}`, () => {
    let storage: Storage;
    let dispose: () => Promise<void>;
    let n = 0;
    // Each test works under its own prefix, so one storage serves the whole suite.
    const prefix = (): string => `/core/configmaps/t${++n}/`;
    before(async () => {
      ({ storage, dispose } = await backend.make());
    });
    after(async () => {
      await dispose?.();
    });

    it('create stamps the next global revision; currentRevision follows; duplicates are AlreadyExists', async () => {
      const p = prefix();
      const before = await storage.currentRevision();
      const a = await storage.create(`${p}a`, cm('a'));
      assert.ok(rv(a) > before);
      assert.equal(await storage.currentRevision(), rv(a));
      const b = await storage.create(`${p}b`, cm('b'));
      assert.ok(rv(b) > rv(a), 'one counter across keys');
      await rejectsWith(storage.create(`${p}a`, cm('a')), 'AlreadyExists');
      assert.deepEqual(await storage.get(`${p}a`), a);
      assert.equal(await storage.get(`${p}missing`), undefined);
    });

    it('update: unconditional, with a matching revision, Conflict on a stale one, NotFound when absent', async () => {
      const p = prefix();
      const a = await storage.create(`${p}a`, cm('a'));
      const a2 = await storage.update(`${p}a`, { ...a, data: { x: '1' } } as KubeObject);
      assert.ok(rv(a2) > rv(a));
      const a3 = await storage.update(`${p}a`, { ...a2, data: { x: '2' } } as KubeObject, rv(a2));
      assert.equal((a3 as { data?: Record<string, string> }).data?.x, '2');
      await rejectsWith(storage.update(`${p}a`, a, rv(a)), 'Conflict');
      await rejectsWith(storage.update(`${p}nope`, cm('nope')), 'NotFound');
      await rejectsWith(storage.update(`${p}nope`, cm('nope'), rv(a)), 'NotFound');
      assert.deepEqual(await storage.get(`${p}a`), a3);
    });

    it('delete returns the last state at the revision of the delete; NotFound and Conflict', async () => {
      const p = prefix();
      const a = await storage.create(`${p}a`, cm('a', { k: 'v' }));
      await storage.update(`${p}a`, a);
      await rejectsWith(storage.delete(`${p}a`, rv(a)), 'Conflict');
      const last = await storage.delete(`${p}a`);
      assert.equal(await storage.currentRevision(), rv(last));
      assert.deepEqual((last as { data?: unknown }).data, { k: 'v' });
      assert.equal(await storage.get(`${p}a`), undefined);
      await rejectsWith(storage.delete(`${p}a`), 'NotFound');
    });

    it('list: only the prefix, sorted by key, with keys; at a past revision it shows the past', async () => {
      const p = prefix();
      const b = await storage.create(`${p}b`, cm('b'));
      await storage.create(`${p}a`, cm('a'));
      await storage.create(`${p}c`, cm('c'));
      await storage.create(`${p.slice(0, -1)}x/other`, cm('other'));
      const mid = await storage.currentRevision();
      await storage.delete(`${p}a`);
      await storage.update(`${p}b`, { ...b, data: { changed: 'yes' } } as KubeObject);
      await storage.create(`${p}d`, cm('d'));
      const now = await storage.list(p);
      assert.deepEqual(now.keys, [`${p}b`, `${p}c`, `${p}d`]);
      assert.deepEqual(
        now.items.map((o) => o.metadata?.name),
        ['b', 'c', 'd'],
      );
      assert.equal(now.revision, await storage.currentRevision());
      const past = await storage.list(p, mid);
      assert.equal(past.revision, mid);
      assert.deepEqual(past.keys, [`${p}a`, `${p}b`, `${p}c`]);
      assert.deepEqual((past.items[1] as { data?: unknown }).data, {});
      assert.equal(rv(past.items[1]), rv(b));
    });

    it('list pages: start, limit and predicate; more and remaining count the keys after the page', async () => {
      const p = prefix();
      for (const n of ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
        await storage.create(`${p}${n}`, cm(n, { odd: String('aceg'.includes(n)) }));
      await storage.create(`${p.slice(0, -1)}z/after`, cm('after'));
      const names = (l: { items: KubeObject[] }): (string | undefined)[] => l.items.map((o) => o.metadata?.name);
      const p1 = await storage.list(p, undefined, { limit: 3 });
      assert.deepEqual(names(p1), ['a', 'b', 'c']);
      assert.deepEqual(p1.keys, [`${p}a`, `${p}b`, `${p}c`]);
      assert.equal(p1.more, true);
      assert.equal(p1.remaining, 4);
      const p2 = await storage.list(p, p1.revision, { limit: 3, start: `${p}c\u0000` });
      assert.deepEqual(names(p2), ['d', 'e', 'f']);
      assert.equal(p2.revision, p1.revision);
      assert.equal(p2.remaining, 1);
      const p3 = await storage.list(p, p1.revision, { limit: 3, start: `${p}f\u0000` });
      assert.deepEqual(names(p3), ['g']);
      assert.equal(p3.more, false);
      assert.equal(p3.remaining, undefined);
      // A predicate fills the page with matching objects; skipped keys still make `more`.
      const odd = (o: KubeObject): boolean => (o as { data?: Record<string, string> }).data?.odd === 'true';
      const q1 = await storage.list(p, undefined, { limit: 2, predicate: odd });
      assert.deepEqual(names(q1), ['a', 'c']);
      assert.equal(q1.more, true);
      const q2 = await storage.list(p, q1.revision, { limit: 2, predicate: odd, start: `${p}c\u0000` });
      assert.deepEqual(names(q2), ['e', 'g']);
      assert.equal(q2.more, false);
      const all = await storage.list(p, undefined, { predicate: odd });
      assert.deepEqual(names(all), ['a', 'c', 'e', 'g']);
      assert.equal(all.more, undefined);
    });

    it('pages at a past revision show that revision while keys are created, changed and deleted', async () => {
      const p = prefix();
      for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) await storage.create(`${p}${n}`, cm(n, { v: '1' }));
      const first = await storage.list(p, undefined, { limit: 2 });
      await storage.delete(`${p}b`);
      await storage.delete(`${p}c`);
      await storage.create(`${p}bb`, cm('bb'));
      const e = (await storage.get(`${p}e`))!;
      await storage.update(`${p}e`, { ...e, data: { v: '2' } } as KubeObject);
      await storage.create(`${p}z`, cm('z'));
      const second = await storage.list(p, first.revision, { limit: 2, start: `${first.keys[1]}\u0000` });
      assert.deepEqual(
        second.items.map((o) => o.metadata?.name),
        ['c', 'd'],
      );
      assert.equal(second.remaining, 2, 'e and f existed at that revision; z did not');
      const third = await storage.list(p, first.revision, { limit: 2, start: `${second.keys[1]}\u0000` });
      assert.deepEqual(
        third.items.map((o) => [o.metadata?.name, (o as { data?: Record<string, string> }).data?.v]),
        [
          ['e', '1'],
          ['f', '1'],
        ],
      );
      assert.equal(third.more, false);
      const now = await storage.list(p, undefined, { limit: 10 });
      assert.deepEqual(
        now.items.map((o) => o.metadata?.name),
        ['a', 'bb', 'd', 'e', 'f', 'z'],
      );
      assert.equal(now.more, false);
    });

    it('watch replays history after the revision, then live changes, in order, with prevObject', async () => {
      const p = prefix();
      const a = await storage.create(`${p}a`, cm('a'));
      const from = rv(a);
      const a2 = await storage.update(`${p}a`, { ...a, data: { v: '2' } } as KubeObject);
      const seen: StorageEvent[] = [];
      const w = storage.watch(p, from, (e) => seen.push(e));
      await storage.create(`${p.slice(0, -1)}y/elsewhere`, cm('elsewhere'));
      await storage.create(`${p}b`, cm('b'));
      await storage.delete(`${p}a`);
      w.stop();
      await storage.create(`${p}c`, cm('c'));
      assert.deepEqual(
        seen.map((e) => [e.type, e.key]),
        [
          ['MODIFIED', `${p}a`],
          ['ADDED', `${p}b`],
          ['DELETED', `${p}a`],
        ],
      );
      assert.equal(seen[0].revision, rv(a2));
      assert.equal(seen[0].object.metadata?.resourceVersion, String(rv(a2)));
      assert.equal(seen[0].prevObject?.metadata?.resourceVersion, String(rv(a)));
      assert.deepEqual((seen[2].object as { data?: unknown }).data, { v: '2' }, 'DELETED carries the last state');
      assert.equal(seen[2].object.metadata?.resourceVersion, String(seen[2].revision));
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i].revision > seen[i - 1].revision);
    });

    it('compaction: watches and exact lists from before it are Expired; from it they work', async () => {
      const p = prefix();
      const a = await storage.create(`${p}a`, cm('a'));
      const b = await storage.update(`${p}a`, a);
      await storage.update(`${p}a`, b);
      storage.compact(rv(b));
      assert.equal(storage.compactedRevision(), rv(b));
      assert.throws(
        () => storage.watch(p, rv(a), () => undefined),
        (e: unknown) => e instanceof StorageError && e.code === 'Expired' && e.oldestRevision >= rv(b),
      );
      await rejectsWith(storage.list(p, rv(a)), 'Expired');
      const seen: StorageEvent[] = [];
      const w = storage.watch(p, rv(b), (e) => seen.push(e));
      w.stop();
      assert.deepEqual(
        seen.map((e) => e.type),
        ['MODIFIED'],
      );
      assert.equal((await storage.list(p, rv(b))).items.length, 1);
    });

    it('hands out copies: changing a returned or watched object does not change the store', async () => {
      const p = prefix();
      const a = await storage.create(`${p}a`, cm('a', { k: 'v' }));
      (a as { data: Record<string, string> }).data.k = 'changed';
      const got = (await storage.get(`${p}a`)) as { data: Record<string, string> };
      assert.equal(got.data.k, 'v');
      got.data.k = 'changed';
      const w = storage.watch(p, rv(a) - 1, (e) => ((e.object as { data: Record<string, string> }).data.k = 'x'));
      w.stop();
      assert.equal(((await storage.list(p)).items[0] as { data: Record<string, string> }).data.k, 'v');
    });

    it('a throwing watch listener breaks neither the write nor other watchers', async () => {
      const p = prefix();
      const seen: string[] = [];
      const from = await storage.currentRevision();
      const bad = storage.watch(p, from, () => {
        throw new Error('listener bug');
      });
      const good = storage.watch(p, from, (e) => seen.push(e.key));
      await storage.create(`${p}a`, cm('a'));
      bad.stop();
      good.stop();
      assert.deepEqual(seen, [`${p}a`]);
    });

    it('keys and values survive unusual characters and __proto__ keys without polluting prototypes', async () => {
      const p = prefix();
      const hostile = JSON.parse(
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"__proto__":{"polluted":"yes"},"constructor":"c","q":"\\"\'`${x}*/\\n"}}',
      ) as KubeObject;
      await storage.create(`${p}x.y-z_ü`, hostile);
      const got = (await storage.get(`${p}x.y-z_ü`)) as { data: Record<string, unknown> };
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.deepEqual(Object.keys(got.data).sort(), ['__proto__', 'constructor', 'q']);
      assert.equal(got.data.q, '"\'`${x}*/\n');
      assert.deepEqual((await storage.list(p)).keys, [`${p}x.y-z_ü`]);
    });
  });
}
