import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  listAll,
  listAllByNamespace,
  newGenericLister,
  type LabelMatcher,
  newIndexer,
  newStore,
  type KubeObject,
} from '../../../../src/runtime/index.js';

const o = (ns: string, name: string, labels?: Record<string, string>): KubeObject => ({
  metadata: { ...(ns ? { namespace: ns } : {}), name, ...(labels ? { labels } : {}) },
});

/** A matcher for `key=value`, counting its calls. */
function eq(key: string, value: string): LabelMatcher & { calls: number } {
  const m = {
    calls: 0,
    matches(labels: Readonly<Record<string, string>> | undefined) {
      m.calls++;
      return labels?.[key] === value;
    },
    empty: () => false,
  };
  return m;
}

const keys = (xs: KubeObject[]): string[] => xs.map((x) => `${x.metadata?.namespace ?? ''}/${x.metadata?.name}`).sort();

test('listAll and listAllByNamespace filter by selector and namespace (through the namespace index)', () => {
  const idx = newIndexer<KubeObject>();
  idx.add(o('a', 'db1', { app: 'db' }));
  idx.add(o('a', 'web', { app: 'web' }));
  idx.add(o('b', 'db2', { app: 'db' }));
  idx.add(o('b', 'nolabels'));
  const out: KubeObject[] = [];
  listAll(idx, eq('app', 'db'), (x) => out.push(x));
  assert.deepEqual(keys(out), ['a/db1', 'b/db2']);
  const inA: KubeObject[] = [];
  const sel = eq('app', 'db');
  listAllByNamespace(idx, 'a', sel, (x) => inA.push(x));
  assert.deepEqual(keys(inA), ['a/db1']);
  assert.equal(sel.calls, 2, 'only namespace a was scanned');
  const everything: KubeObject[] = [];
  listAllByNamespace(idx, '', undefined, (x) => everything.push(x));
  assert.equal(everything.length, 4);
  const emptySel: LabelMatcher = { matches: () => false, empty: () => true };
  const viaEmpty: KubeObject[] = [];
  listAll(idx, emptySel, (x) => viaEmpty.push(x));
  assert.equal(viaEmpty.length, 4, 'an empty selector selects everything without matching');
});

test('listAllByNamespace on a store without the namespace index scans', () => {
  const s = newStore<KubeObject>();
  s.add(o('a', 'x'));
  s.add(o('b', 'y'));
  const out: KubeObject[] = [];
  listAllByNamespace(s, 'b', undefined, (x) => out.push(x));
  assert.deepEqual(keys(out), ['b/y']);
});

test('GenericLister: list, get, byNamespace(ns).list/get', () => {
  const idx = newIndexer<KubeObject>();
  idx.add(o('a', 'db1', { app: 'db' }));
  idx.add(o('b', 'db1', { app: 'db' }));
  idx.add(o('', 'node1'));
  const l = newGenericLister(idx.reader());
  assert.equal(l.list().length, 3);
  assert.deepEqual(keys(l.list(eq('app', 'db'))), ['a/db1', 'b/db1']);
  assert.equal(l.get('node1')?.metadata?.name, 'node1');
  assert.equal(l.byNamespace('b').get('db1')?.metadata?.namespace, 'b');
  assert.equal(l.byNamespace('b').get('nope'), undefined);
  assert.deepEqual(keys(l.byNamespace('a').list()), ['a/db1']);
});
