// ONE behavioural suite for the generated DatabaseManager clientset, run against the
// real clientset on crdgen/testing and against the fake clientset: the fake must
// answer as the server does (resourceVersions, errors, status rules, watch, informers).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  PatchType,
  parseSelector,
  type WatchEvent,
} from '../../src/runtime/index.js';
import type { ClientsetInterface, DatabaseManager, Generated } from './support.js';

/** What a suite run needs: a clientset and how to tear it down. */
export interface SuiteEnv {
  clientset: ClientsetInterface;
  close(): Promise<void>;
}

const NS = 'default';
const NS2 = 'kube-public';

function dm(name: string, labels: Record<string, string> = {}, replicas = 1, namespace = NS): DatabaseManager {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name, namespace, labels },
    spec: { deploymentName: `${name}-deploy`, replicas, dbtype: 'mysql' },
  };
}

async function rejects(p: Promise<unknown>, pred: (e: unknown) => boolean, what: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(pred(e), `${what}: got ${String(e)}`);
    return true;
  });
}

/** Reads events from `it` until `n` arrived or `ms` passed. */
async function take<T>(it: AsyncIterator<WatchEvent<T>>, n: number, ms = 5000): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  const deadline = Date.now() + ms;
  while (out.length < n) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      it.next(),
      new Promise<'timeout'>((res) => {
        timer = setTimeout(() => res('timeout'), left);
      }),
    ]);
    clearTimeout(timer);
    if (r === 'timeout' || r.done) break;
    out.push(r.value);
  }
  return out;
}

/** Polls `cond` every 20 ms for up to `ms`. */
async function eventually(cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Registers the suite under `name`. */
export function clientsetBehaviour(
  name: string,
  gen: () => Promise<Generated>,
  setup: (g: Generated) => Promise<SuiteEnv>,
): void {
  describe(name, () => {
    let g: Generated;
    let env: SuiteEnv;
    let cs: ClientsetInterface;
    before(async () => {
      g = await gen();
      env = await setup(g);
      cs = env.clientset;
    });
    after(async () => {
      await env?.close();
      g?.cleanup();
    });

    test('create sets identity and versions, drops status (status subresource), refuses duplicates', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const created = await c.create({ ...dm('create-a'), status: { availableReplicas: 3 } });
      assert.equal(created.metadata?.name, 'create-a');
      assert.equal(created.metadata?.namespace, NS);
      assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
      assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
      assert.equal(created.metadata?.generation, 1);
      assert.equal(created.status, undefined);
      assert.deepEqual(created.spec, dm('create-a').spec);
      await rejects(c.create(dm('create-a')), isAlreadyExists, 'duplicate create');
      const noKind = await c.create({ metadata: { name: 'create-b' }, spec: { replicas: 2 } });
      assert.equal(noKind.kind, 'DatabaseManager');
      assert.equal(noKind.apiVersion, 'coolops.cn/v1alpha1');
    });

    test('get returns the stored object; a missing name is NotFound', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const created = await c.create(dm('get-a'));
      const got = await c.get('get-a');
      assert.equal(got.metadata?.uid, created.metadata?.uid);
      assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
      await rejects(c.get('get-missing'), isNotFound, 'get missing');
      await rejects(cs.coolopsV1alpha1().databaseManagers(NS2).get('get-a'), isNotFound, 'get in other namespace');
    });

    test('list filters by label selector (text or Selector) and spans namespaces with ""', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      await c.create(dm('list-a', { suite: 'list', tier: 'a' }));
      await c.create(dm('list-b', { suite: 'list', tier: 'b' }));
      await c.create(dm('list-c', { suite: 'list', legacy: 'yes' }));
      await cs
        .coolopsV1alpha1()
        .databaseManagers(NS2)
        .create(dm('list-d', { suite: 'list', tier: 'a' }, 1, NS2));
      const names = (l: { items: DatabaseManager[] }) => l.items.map((o) => o.metadata?.name).sort();
      assert.deepEqual(names(await c.list({ labelSelector: 'suite=list' })), ['list-a', 'list-b', 'list-c']);
      assert.deepEqual(names(await c.list({ labelSelector: 'suite=list,tier in (a,b),!legacy' })), [
        'list-a',
        'list-b',
      ]);
      assert.deepEqual(names(await c.list({ labelSelector: parseSelector('suite=list,tier notin (b)') as never })), [
        'list-a',
        'list-c',
      ]);
      const all = await cs.coolopsV1alpha1().databaseManagers('').list({ labelSelector: 'suite=list,tier=a' });
      assert.deepEqual(all.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort(), [
        `${NS}/list-a`,
        `${NS2}/list-d`,
      ]);
      assert.match(all.metadata?.resourceVersion ?? '', /^\d+$/);
      assert.equal(all.kind, 'DatabaseManagerList');
    });

    test('update: stale resourceVersion is a Conflict, missing one Invalid; spec change bumps generation; status ignored', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const v1 = await c.create(dm('upd-a'));
      const v2 = await c.update({ ...v1, spec: { ...v1.spec, replicas: 5 }, status: { availableReplicas: 9 } });
      assert.notEqual(v2.metadata?.resourceVersion, v1.metadata?.resourceVersion);
      assert.equal(v2.metadata?.generation, 2);
      assert.equal(v2.spec?.replicas, 5);
      assert.equal(v2.status, undefined, 'update does not write status when the status subresource is on');
      await rejects(c.update({ ...v1, spec: { ...v1.spec, replicas: 6 } }), isConflict, 'stale update');
      // what the server returned always has a resourceVersion (Stored); an object to send need not
      const noRv: DatabaseManager = { ...v2, metadata: { ...v2.metadata } };
      delete noRv.metadata!.resourceVersion;
      await rejects(c.update(noRv), isInvalid, 'update without resourceVersion');
      await rejects(c.update(dm('upd-missing')), (e) => isNotFound(e) || isInvalid(e), 'update of a missing object');
    });

    test('updateStatus writes only status and keeps generation', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const v1 = await c.create(dm('status-a'));
      const v2 = await c.updateStatus({ ...v1, spec: { ...v1.spec, replicas: 7 }, status: { availableReplicas: 1 } });
      assert.deepEqual(v2.status, { availableReplicas: 1 });
      assert.equal(v2.spec?.replicas, 1, 'spec changes through /status are ignored');
      assert.equal(v2.metadata?.generation, 1);
      await rejects(c.updateStatus({ ...v1, status: { availableReplicas: 2 } }), isConflict, 'stale status update');
    });

    test('patch: merge and JSON patch', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      await c.create(dm('patch-a', { app: 'db' }));
      const m = await c.patch('patch-a', PatchType.Merge, {
        metadata: { labels: { app: null, tier: 'x' } },
        spec: { replicas: 4 },
      });
      assert.deepEqual(m.metadata?.labels, { tier: 'x' });
      assert.equal(m.spec?.replicas, 4);
      assert.equal(m.spec?.dbtype, 'mysql');
      const j = await c.patch('patch-a', PatchType.JSON, [
        { op: 'replace', path: '/spec/dbtype', value: 'pg' },
        { op: 'add', path: '/metadata/labels/added', value: 'y' },
      ]);
      assert.equal(j.spec?.dbtype, 'pg');
      assert.equal(j.metadata?.labels?.['added'], 'y');
      assert.equal(j.metadata?.generation, 3);
      await rejects(
        c.patch('patch-missing', PatchType.Merge, { spec: { replicas: 2 } }),
        isNotFound,
        'patch of a missing object',
      );
    });

    test('apply creates, then updates; applyStatus sets status', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const cfg = g.databaseManager('apply-a', NS);
      const created = await c.apply(
        { ...cfg, spec: { replicas: 2, dbtype: 'redis' } },
        { fieldManager: 'suite', force: true },
      );
      assert.equal(created.spec?.replicas, 2);
      assert.equal(created.metadata?.generation, 1);
      const updated = await c.apply(
        { ...cfg, spec: { replicas: 3, dbtype: 'redis' } },
        { fieldManager: 'suite', force: true },
      );
      assert.equal(updated.spec?.replicas, 3);
      assert.equal(updated.metadata?.uid, created.metadata?.uid);
      const st = await c.applyStatus(
        { ...cfg, status: { availableReplicas: 3 } },
        { fieldManager: 'suite', force: true },
      );
      assert.deepEqual(st.status, { availableReplicas: 3 });
      assert.equal(st.spec?.replicas, 3);
    });

    test('delete removes (then NotFound); finalizers keep the object with a deletionTimestamp until removed', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      await c.create(dm('del-a'));
      await c.delete('del-a');
      await rejects(c.get('del-a'), isNotFound, 'get after delete');
      await rejects(c.delete('del-a'), isNotFound, 'second delete');
      const fin = await c.create({
        ...dm('del-b'),
        metadata: { ...dm('del-b').metadata, finalizers: ['coolops.cn/cleanup'] },
      });
      await c.delete('del-b');
      const pending = await c.get('del-b');
      assert.ok(pending.metadata?.deletionTimestamp, 'deletionTimestamp set');
      assert.equal(pending.metadata?.uid, fin.metadata?.uid);
      await c.update({ ...pending, metadata: { ...pending.metadata, finalizers: [] } });
      await eventuallyAsync(async () => {
        try {
          await c.get('del-b');
          return false;
        } catch (e) {
          return isNotFound(e);
        }
      });
    });

    test('deleteCollection deletes only what the selector matches', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      await c.create(dm('dc-a', { suite: 'dc', drop: 'yes' }));
      await c.create(dm('dc-b', { suite: 'dc', drop: 'yes' }));
      await c.create(dm('dc-c', { suite: 'dc' }));
      await c.deleteCollection({ labelSelector: 'suite=dc,drop=yes' });
      await eventuallyAsync(async () => (await c.list({ labelSelector: 'suite=dc' })).items.length === 1);
      assert.deepEqual(
        (await c.list({ labelSelector: 'suite=dc' })).items.map((o) => o.metadata?.name),
        ['dc-c'],
      );
    });

    test('watch from a list resourceVersion delivers ADDED, MODIFIED, DELETED in order', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const list = await c.list({ labelSelector: 'suite=watch' });
      const ac = new AbortController();
      const w = await c.watch({
        labelSelector: 'suite=watch',
        resourceVersion: list.metadata?.resourceVersion,
        signal: ac.signal,
      });
      const it = w[Symbol.asyncIterator]();
      try {
        const v1 = await c.create(dm('watch-a', { suite: 'watch' }));
        await c.create(dm('watch-other', { suite: 'other' }));
        await c.update({ ...v1, spec: { ...v1.spec, replicas: 2 } });
        await c.delete('watch-a');
        const events = await take(it, 3);
        assert.deepEqual(
          events.map((e) => [e.type, (e.object as DatabaseManager).metadata?.name]),
          [
            ['ADDED', 'watch-a'],
            ['MODIFIED', 'watch-a'],
            ['DELETED', 'watch-a'],
          ],
        );
        const modified = events[1].object as DatabaseManager;
        assert.equal(modified.spec?.replicas, 2);
      } finally {
        w.stop();
        ac.abort();
      }
    });

    test('a watch with a label selector sees objects enter (ADDED) and leave (DELETED) the selection', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const v1 = await c.create(dm('sel-a', { suite: 'sel', phase: 'out' }));
      const ac = new AbortController();
      const w = await c.watch({
        labelSelector: 'suite=sel,phase=in',
        resourceVersion: v1.metadata?.resourceVersion,
        signal: ac.signal,
      });
      const it = w[Symbol.asyncIterator]();
      try {
        const v2 = await c.update({ ...v1, metadata: { ...v1.metadata, labels: { suite: 'sel', phase: 'in' } } });
        const v3 = await c.update({ ...v2, spec: { ...v2.spec, replicas: 3 } });
        await c.update({ ...v3, metadata: { ...v3.metadata, labels: { suite: 'sel', phase: 'out' } } });
        const events = await take(it, 3);
        assert.deepEqual(
          events.map((e) => e.type),
          ['ADDED', 'MODIFIED', 'DELETED'],
        );
      } finally {
        w.stop();
        ac.abort();
      }
    });

    test('generateName, dryRun, field selectors, paging and delete preconditions', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      const gen = await c.create({
        ...dm(''),
        metadata: { generateName: 'gen-', namespace: NS, labels: { suite: 'misc' } },
      });
      assert.match(gen.metadata?.name ?? '', /^gen-[a-z0-9]{5}$/);
      const dry = await c.create(dm('misc-dry', { suite: 'misc' }), { dryRun: true });
      assert.equal(dry.metadata?.name, 'misc-dry');
      await rejects(c.get('misc-dry'), isNotFound, 'a dry-run create is not stored');
      for (const n of ['misc-a', 'misc-b', 'misc-c']) await c.create(dm(n, { suite: 'misc' }));
      const byName = await c.list({ fieldSelector: 'metadata.name=misc-b' });
      assert.deepEqual(
        byName.items.map((o) => o.metadata?.name),
        ['misc-b'],
      );
      const notB = await c.list({ labelSelector: 'suite=misc', fieldSelector: 'metadata.name!=misc-b' });
      assert.ok(!notB.items.some((o) => o.metadata?.name === 'misc-b') && notB.items.length === 3);
      const page1 = await c.list({ labelSelector: 'suite=misc', limit: 2 });
      assert.equal(page1.items.length, 2);
      assert.ok(page1.metadata?.continue, 'a continue token');
      // follow the tokens to the end: with a selector the apiserver may hand out a token while
      // keys follow the page even if none of them match, so the last page can be empty
      const pagedNames = page1.items.map((o) => o.metadata?.name);
      let token: string | undefined = page1.metadata?.continue;
      for (let pages = 1; token; pages++) {
        assert.ok(pages < 10, 'paging ends');
        const page = await c.list({ labelSelector: 'suite=misc', limit: 2, continue: token });
        assert.ok(page.items.length <= 2);
        pagedNames.push(...page.items.map((o) => o.metadata?.name));
        token = page.metadata?.continue;
      }
      assert.deepEqual([...new Set(pagedNames)].sort(), [gen.metadata.name, 'misc-a', 'misc-b', 'misc-c'].sort());
      assert.equal(pagedNames.length, 4, 'no object on two pages');
      const a = await c.get('misc-a');
      await rejects(
        c.delete('misc-a', { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }),
        isConflict,
        'uid precondition',
      );
      await rejects(
        c.delete('misc-a', { preconditions: { resourceVersion: '1' } }),
        isConflict,
        'resourceVersion precondition',
      );
      await c.delete('misc-a', { preconditions: { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion } });
      await rejects(c.get('misc-a'), isNotFound, 'deleted');
    });

    test('a watch without a resourceVersion starts with the current objects as ADDED', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      await c.create(dm('init-a', { suite: 'init' }));
      await c.create(dm('init-b', { suite: 'init' }));
      const ac = new AbortController();
      const w = await c.watch({ labelSelector: 'suite=init', signal: ac.signal });
      try {
        const events = await take(w[Symbol.asyncIterator](), 2);
        assert.deepEqual(events.map((e) => `${e.type} ${(e.object as DatabaseManager).metadata?.name}`).sort(), [
          'ADDED init-a',
          'ADDED init-b',
        ]);
      } finally {
        w.stop();
        ac.abort();
      }
    });

    test('informer syncs, delivers add/update/delete to handlers; lister answers from the cache', async () => {
      const c = cs.coolopsV1alpha1().databaseManagers(NS);
      await c.create(dm('inf-pre', { suite: 'inf' }));
      const factory = g.newSharedInformerFactory(cs as never, 0, {
        tweakListOptions: (o) => ({ ...o, labelSelector: 'suite=inf' }),
      });
      const inf = factory.coolops().v1alpha1().databaseManagers();
      const seen: string[] = [];
      inf.informer().addEventHandler({
        onAdd: (o: DatabaseManager) => void seen.push(`add ${o.metadata?.name}`),
        onUpdate: (_old: DatabaseManager, o: DatabaseManager) =>
          void seen.push(`update ${o.metadata?.name} ${o.spec?.replicas}`),
        onDelete: (o: unknown) => void seen.push(`delete ${(o as DatabaseManager).metadata?.name ?? 'tombstone'}`),
      });
      const ac = new AbortController();
      factory.start(ac.signal);
      factory.start(ac.signal); // idempotent
      try {
        const synced = await factory.waitForCacheSync(AbortSignal.timeout(10_000));
        assert.deepEqual([...synced], [['databasemanagers.v1alpha1.coolops.cn', true]]);
        const lister = inf.lister();
        assert.equal(lister.databaseManagers(NS).get('inf-pre').spec?.replicas, 1);
        assert.throws(
          () => lister.databaseManagers(NS).get('inf-missing'),
          (e: unknown) =>
            isNotFound(e) && /databasemanager.coolops.cn "inf-missing" not found/.test(String((e as Error).message)),
        );
        const v1 = await c.create(dm('inf-a', { suite: 'inf' }));
        await c.update({ ...v1, spec: { ...v1.spec, replicas: 3 } });
        await c.delete('inf-a');
        await eventually(() => seen.includes('delete inf-a'));
        assert.deepEqual(seen, ['add inf-pre', 'add inf-a', 'update inf-a 3', 'delete inf-a']);
        assert.deepEqual(
          lister.list().map((o) => o.metadata?.name),
          ['inf-pre'],
        );
        assert.deepEqual(lister.list('suite=inf').length, 1);
        assert.deepEqual(lister.databaseManagers(NS2).list(), []);
        const generic = factory.forResource({ group: 'coolops.cn', version: 'v1alpha1', resource: 'databasemanagers' });
        assert.equal(generic.informer(), inf.informer(), 'one shared informer per resource');
        assert.throws(
          () => factory.forResource({ group: 'x', version: 'v1', resource: 'y' }),
          /no informer for resource "y.v1.x"/,
        );
      } finally {
        ac.abort();
        await factory.shutdown();
      }
    });
  });
}

async function eventuallyAsync(cond: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
