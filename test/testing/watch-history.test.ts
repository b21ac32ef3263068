// WatchHistory: the bounded window of changes both storages serve watches from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StorageError, type StorageEvent } from '../../src/testing/index.js';
import { WatchHistory } from '../../src/testing/storage/watch-history.js';

function ev(revision: number, key = `/k/${revision}`): StorageEvent {
  return { type: 'ADDED', key, revision, object: { metadata: { name: key, resourceVersion: String(revision) } } };
}

function replay(h: WatchHistory, from: number, prefix = '/'): number[] {
  const seen: number[] = [];
  h.watch(prefix, from, (e) => seen.push(e.revision)).stop();
  return seen;
}

describe('WatchHistory', () => {
  it('keeps the last `limit` changes; the floor follows the newest dropped one', () => {
    const h = new WatchHistory(100);
    for (let r = 1; r <= 5000; r++) h.append(ev(r));
    assert.equal(h.size, 100);
    assert.equal(h.floor, 4900);
    assert.deepEqual(
      replay(h, 4900),
      Array.from({ length: 100 }, (_, i) => 4901 + i),
    );
    assert.deepEqual(
      replay(h, 4990),
      Array.from({ length: 10 }, (_, i) => 4991 + i),
    );
    assert.throws(
      () => h.watch('/', 4899, () => undefined),
      (e: unknown) => e instanceof StorageError && e.code === 'Expired' && e.oldestRevision === 4900,
    );
  });

  it('compact drops up to a revision (between kept ones too) and never lowers the floor', () => {
    const h = new WatchHistory(1000);
    for (let r = 2; r <= 40; r += 2) h.append(ev(r));
    h.compact(11);
    assert.equal(h.floor, 11);
    assert.deepEqual(replay(h, 11).slice(0, 2), [12, 14]);
    h.compact(5);
    assert.equal(h.floor, 11);
    h.compact(40);
    assert.equal(h.size, 0);
    assert.deepEqual(replay(h, 40), []);
  });

  it('delivers new changes after the watch revision, under its prefix, as copies; stop ends delivery', () => {
    const h = new WatchHistory(10);
    h.append(ev(1, '/a/x'));
    const seen: StorageEvent[] = [];
    const w = h.watch('/a/', 0, (e) => seen.push(e));
    h.append(ev(2, '/b/x'));
    h.append(ev(3, '/a/y'));
    w.stop();
    h.append(ev(4, '/a/z'));
    assert.deepEqual(
      seen.map((e) => e.key),
      ['/a/x', '/a/y'],
    );
    seen[0].object.metadata!.name = 'changed';
    assert.deepEqual(replay(h, 0, '/a/'), [1, 3, 4]);
    const again: StorageEvent[] = [];
    h.watch('/a/', 0, (e) => again.push(e)).stop();
    assert.equal(again[0].object.metadata?.name, '/a/x');
  });

  it('a watch from a revision not reached yet skips changes up to it', () => {
    const h = new WatchHistory(10);
    const seen: number[] = [];
    h.watch('/', 3, (e) => seen.push(e.revision));
    for (let r = 1; r <= 5; r++) h.append(ev(r));
    assert.deepEqual(seen, [4, 5]);
  });

  it('newestFirst lists the changes after a revision, newest first', () => {
    const h = new WatchHistory(3);
    for (let r = 1; r <= 6; r++) h.append(ev(r));
    assert.deepEqual(
      [...h.newestFirst(4)].map((e) => e.revision),
      [6, 5],
    );
    assert.deepEqual(
      [...h.newestFirst(0)].map((e) => e.revision),
      [6, 5, 4],
    );
  });

  it('expireAll forgets the window, raises the floor and ends every watch with onExpired once', () => {
    const h = new WatchHistory(10);
    for (let r = 1; r <= 3; r++) h.append(ev(r));
    const expired: StorageError[] = [];
    const seen: number[] = [];
    h.watch(
      '/',
      3,
      (e) => seen.push(e.revision),
      (e) => expired.push(e),
    );
    h.watch(
      '/',
      3,
      () => undefined,
      () => {
        throw new Error('callback bug');
      },
    );
    h.expireAll(7, new StorageError('Expired', 'lost changes', 7));
    h.append(ev(8));
    assert.equal(expired.length, 1);
    assert.equal(expired[0].oldestRevision, 7);
    assert.deepEqual(seen, [], 'an ended watch gets nothing more');
    assert.equal(h.floor, 7);
    assert.deepEqual(replay(h, 7), [8]);
  });
});
