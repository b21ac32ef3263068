import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newIndexer,
  newStore,
  NAMESPACE_INDEX,
  KeyError,
  deletionHandlingMetaNamespaceKeyFunc,
  metaNamespaceKeyFunc,
  splitMetaNamespaceKey,
  DeletedFinalStateUnknown,
  type KubeObject,
} from '../../../../src/runtime/index.js';

interface Obj extends KubeObject {
  spec?: { dbtype?: string; tags?: string[] };
}

const obj = (ns: string, name: string, spec: Obj['spec'] = {}, rv = '1'): Obj => ({
  metadata: { ...(ns ? { namespace: ns } : {}), name, resourceVersion: rv },
  spec,
});

const sorted = (xs: string[]): string[] => [...xs].sort();
const names = (xs: Obj[]): string[] => sorted(xs.map((o) => metaNamespaceKeyFunc(o)));

test('key functions: namespace/name, name, tombstones, split, clear errors', () => {
  assert.equal(metaNamespaceKeyFunc(obj('ns', 'a')), 'ns/a');
  assert.equal(metaNamespaceKeyFunc(obj('', 'node1')), 'node1');
  assert.equal(metaNamespaceKeyFunc('already/key'), 'already/key');
  assert.equal(
    deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/gone', obj('ns', 'gone'))),
    'ns/gone',
  );
  assert.deepEqual(splitMetaNamespaceKey('ns/a'), { namespace: 'ns', name: 'a' });
  assert.deepEqual(splitMetaNamespaceKey('a'), { namespace: '', name: 'a' });
  assert.throws(() => splitMetaNamespaceKey('a/b/c'), KeyError);
  assert.throws(() => splitMetaNamespaceKey(''), KeyError);
  assert.throws(() => metaNamespaceKeyFunc({}), /no metadata/);
  assert.throws(() => metaNamespaceKeyFunc({ metadata: {} }), /no metadata.name/);
});

test('store: add, update, delete (also by tombstone), get, list, listKeys, replace', () => {
  const s = newStore<Obj>();
  s.add(obj('ns', 'a'));
  s.add(obj('ns', 'b'));
  s.update(obj('ns', 'a', { dbtype: 'mysql' }, '2'));
  assert.equal(s.getByKey('ns/a')?.spec?.dbtype, 'mysql');
  assert.equal(s.get(obj('ns', 'b'))?.metadata?.name, 'b');
  assert.deepEqual(sorted(s.listKeys()), ['ns/a', 'ns/b']);
  s.delete(new DeletedFinalStateUnknown('ns/b', obj('ns', 'b')));
  assert.equal(s.getByKey('ns/b'), undefined);
  s.delete(obj('ns', 'missing')); // no-op
  s.replace([obj('x', 'c'), obj('x', 'd')], '10');
  assert.deepEqual(names(s.list()), ['x/c', 'x/d']);
});

test('indexer: namespace index built in, custom index functions, byIndex, index, indexKeys, listIndexFuncValues', () => {
  const idx = newIndexer<Obj>({
    byTag: (o) => o.spec?.tags ?? [],
  });
  idx.add(obj('ns1', 'a', { tags: ['x', 'y'] }));
  idx.add(obj('ns1', 'b', { tags: ['y'] }));
  idx.add(obj('ns2', 'c', { tags: [] }));
  idx.add(obj('', 'cluster', {}));
  assert.deepEqual(names(idx.byIndex(NAMESPACE_INDEX, 'ns1')), ['ns1/a', 'ns1/b']);
  assert.deepEqual(names(idx.byIndex(NAMESPACE_INDEX, '')), ['cluster']);
  assert.deepEqual(names(idx.byIndex('byTag', 'y')), ['ns1/a', 'ns1/b']);
  assert.deepEqual(sorted(idx.indexKeys('byTag', 'x')), ['ns1/a']);
  assert.deepEqual(names(idx.index('byTag', obj('any', 'q', { tags: ['x'] }))), ['ns1/a']);
  assert.deepEqual(sorted(idx.listIndexFuncValues('byTag')), ['x', 'y']);
  assert.deepEqual(sorted(idx.listIndexFuncValues(NAMESPACE_INDEX)), ['', 'ns1', 'ns2']);
  assert.throws(() => idx.byIndex('nope', 'x'), /index with name "nope" does not exist/);
});

test('indexer keeps indices exact through updates, deletes and replace; empty buckets disappear', () => {
  const idx = newIndexer<Obj>({ byTag: (o) => o.spec?.tags ?? [] });
  idx.add(obj('ns', 'a', { tags: ['old'] }));
  idx.update(obj('ns', 'a', { tags: ['new'] }));
  assert.deepEqual(idx.byIndex('byTag', 'old'), []);
  assert.deepEqual(idx.listIndexFuncValues('byTag'), ['new']);
  idx.delete(obj('ns', 'a'));
  assert.deepEqual(idx.listIndexFuncValues('byTag'), []);
  assert.deepEqual(idx.listIndexFuncValues(NAMESPACE_INDEX), []);
  idx.add(obj('ns', 'z', { tags: ['gone'] }));
  idx.replace([obj('r', 'a', { tags: ['t'] })], '5');
  assert.deepEqual(idx.listIndexFuncValues('byTag'), ['t']);
  assert.deepEqual(idx.listIndexFuncValues(NAMESPACE_INDEX), ['r']);
});

test('addIndexers indexes existing objects; a duplicate index name is refused', () => {
  const idx = newIndexer<Obj>();
  idx.add(obj('ns', 'a', { dbtype: 'mysql' }));
  idx.add(obj('ns', 'b', { dbtype: 'pg' }));
  idx.addIndexers({ byDb: (o) => (o.spec?.dbtype ? [o.spec.dbtype] : []) });
  assert.deepEqual(names(idx.byIndex('byDb', 'pg')), ['ns/b']);
  assert.throws(() => idx.addIndexers({ byDb: () => [] }), /already exists/);
  assert.deepEqual(Object.keys(idx.getIndexers()).sort(), ['byDb', NAMESPACE_INDEX]);
});

test('reader() is a read-only view that follows the store', () => {
  const idx = newIndexer<Obj>();
  const r = idx.reader();
  assert.equal((r as unknown as { add?: unknown }).add, undefined);
  assert.ok(Object.isFrozen(r));
  idx.add(obj('ns', 'a'));
  assert.deepEqual(r.listKeys(), ['ns/a']);
  assert.deepEqual(names(r.byIndex(NAMESPACE_INDEX, 'ns')), ['ns/a']);
});

test('a reader never sees half of a replace (the swap is atomic)', async () => {
  const idx = newIndexer<Obj>();
  idx.replace(
    Array.from({ length: 1000 }, (_, i) => obj('old', `o${i}`)),
    '1',
  );
  const seen = new Set<number>();
  let stop = false;
  const reader = (async () => {
    while (!stop) {
      const list = idx.list();
      const namespaces = new Set(list.map((o) => o.metadata?.namespace));
      assert.equal(namespaces.size, 1, 'a list mixes two generations');
      assert.equal(idx.byIndex(NAMESPACE_INDEX, [...namespaces][0] as string).length, list.length);
      seen.add(list.length);
      await new Promise((r) => setImmediate(r));
    }
  })();
  for (let g = 0; g < 20; g++) {
    idx.replace(
      Array.from({ length: 500 + g }, (_, i) => obj(`gen${g}`, `o${i}`)),
      String(g),
    );
    await new Promise((r) => setImmediate(r));
  }
  stop = true;
  await reader;
  assert.ok(seen.size > 1);
});

test('putByKey returns the object it replaced and keeps the indices; deleteByKey removes', () => {
  const s = newIndexer<Obj>();
  const a1: Obj = { metadata: { namespace: 'x', name: 'a', resourceVersion: '1' } };
  const a2: Obj = { metadata: { namespace: 'x', name: 'a', resourceVersion: '2' } };
  assert.equal(s.putByKey('x/a', a1), undefined);
  assert.equal(s.putByKey('x/a', a2), a1);
  assert.equal(s.getByKey('x/a'), a2);
  assert.deepEqual(s.indexKeys(NAMESPACE_INDEX, 'x'), ['x/a']);
  s.deleteByKey('x/a');
  s.deleteByKey('x/missing');
  assert.equal(s.getByKey('x/a'), undefined);
  assert.deepEqual(s.listIndexFuncValues(NAMESPACE_INDEX), []);
});
