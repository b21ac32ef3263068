import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DeltaFIFO,
  FIFOClosedError,
  type Deltas,
  DeletedFinalStateUnknown,
  newIndexer,
  type KubeObject,
} from '../../../../src/runtime/index.js';

interface Obj extends KubeObject {
  v?: number;
}
const o = (name: string, v = 0): Obj => ({ metadata: { namespace: 'ns', name, resourceVersion: String(v) }, v });

/** Pops one key and returns its deltas as [type, name, v] triples plus the initial-list flag. */
async function popOne(f: DeltaFIFO<Obj>): Promise<{ deltas: [string, string, number | string][]; initial: boolean }> {
  let out: { deltas: [string, string, number | string][]; initial: boolean } | undefined;
  await f.pop((deltas: Deltas<Obj>, initial) => {
    out = {
      initial,
      deltas: deltas.map((d) =>
        d.object instanceof DeletedFinalStateUnknown
          ? [d.type, `tombstone:${d.object.key}`, d.object.obj.v ?? '?']
          : [d.type, d.object.metadata?.name ?? '', d.object.v ?? 0],
      ),
    };
  });
  return out as { deltas: [string, string, number | string][]; initial: boolean };
}

test('deltas of one key are compressed into one queue entry, in order, keys in first-change order', async () => {
  const f = new DeltaFIFO<Obj>();
  f.add(o('a', 1));
  f.add(o('b', 1));
  f.update(o('a', 2));
  f.update(o('a', 3));
  assert.equal(f.len(), 2);
  assert.deepEqual(f.listKeys(), ['ns/a', 'ns/b']);
  assert.deepEqual((await popOne(f)).deltas, [
    ['Added', 'a', 1],
    ['Updated', 'a', 2],
    ['Updated', 'a', 3],
  ]);
  assert.deepEqual((await popOne(f)).deltas, [['Added', 'b', 1]]);
});

test('repeated deletes are de-duplicated; the real object wins over a tombstone', async () => {
  const f = new DeltaFIFO<Obj>();
  f.add(o('a', 1));
  f.delete(o('a', 2));
  f.delete(o('a', 3));
  f.delete(new DeletedFinalStateUnknown('ns/a', o('a', 4)));
  assert.deepEqual((await popOne(f)).deltas, [
    ['Added', 'a', 1],
    ['Deleted', 'a', 3],
  ]);
  const g = new DeltaFIFO<Obj>();
  g.add(o('b', 1));
  g.delete(new DeletedFinalStateUnknown('ns/b', o('b', 1)));
  g.delete(o('b', 2));
  assert.deepEqual((await popOne(g)).deltas, [
    ['Added', 'b', 1],
    ['Deleted', 'b', 2],
  ]);
});

test('delete of an object neither queued nor known is dropped', () => {
  const known = newIndexer<Obj>();
  const f = new DeltaFIFO<Obj>({ knownObjects: known });
  f.delete(o('ghost'));
  assert.equal(f.len(), 0);
  known.add(o('real'));
  f.delete(o('real'));
  assert.equal(f.len(), 1);
  const noKnown = new DeltaFIFO<Obj>();
  noKnown.delete(o('ghost'));
  assert.equal(noKnown.len(), 0);
});

test('replace: Replaced deltas, DeletedFinalStateUnknown for known and queued objects missing from the list', async () => {
  const known = newIndexer<Obj>();
  known.add(o('stays', 1));
  known.add(o('vanished', 1));
  const f = new DeltaFIFO<Obj>({ knownObjects: known, emitDeltaTypeReplaced: true });
  f.add(o('queued-then-gone', 5));
  f.replace([o('stays', 2), o('new', 1)], '10');
  const all = [await popOne(f), await popOne(f), await popOne(f), await popOne(f)];
  const byName = new Map(all.map((x) => [x.deltas[0]?.[1], x.deltas]));
  assert.deepEqual(byName.get('queued-then-gone'), [
    ['Added', 'queued-then-gone', 5],
    ['Deleted', 'tombstone:ns/queued-then-gone', 5],
  ]);
  assert.deepEqual(byName.get('stays'), [['Replaced', 'stays', 2]]);
  assert.deepEqual(byName.get('new'), [['Replaced', 'new', 1]]);
  assert.deepEqual(byName.get('tombstone:ns/vanished'), [['Deleted', 'tombstone:ns/vanished', 1]]);
  assert.equal(f.len(), 0);
});

test('replace without emitDeltaTypeReplaced records Sync', async () => {
  const f = new DeltaFIFO<Obj>();
  f.replace([o('a', 1)], '1');
  assert.deepEqual((await popOne(f)).deltas, [['Sync', 'a', 1]]);
});

test('hasSynced: only after every item of the first replace (and its deletions) was popped; isInInitialList flags them', async () => {
  const known = newIndexer<Obj>();
  known.add(o('old', 1));
  const f = new DeltaFIFO<Obj>({ knownObjects: known, emitDeltaTypeReplaced: true });
  assert.equal(f.hasSynced(), false);
  f.replace([o('a', 1), o('b', 1)], '5');
  assert.equal(f.hasSynced(), false);
  f.add(o('c', 1)); // after the list: not initial
  assert.equal((await popOne(f)).initial, true);
  assert.equal((await popOne(f)).initial, true);
  assert.equal(f.hasSynced(), false, 'the deletion of "old" is part of the initial population');
  assert.equal((await popOne(f)).initial, true);
  assert.equal(f.hasSynced(), true);
  assert.equal((await popOne(f)).initial, false);
  f.replace([], '6'); // later replaces do not reset sync
  assert.equal(f.hasSynced(), true);
});

test('resync queues Sync only for known objects without pending deltas', async () => {
  const known = newIndexer<Obj>();
  known.add(o('a', 1));
  known.add(o('b', 1));
  const f = new DeltaFIFO<Obj>({ knownObjects: known });
  f.update(o('b', 2));
  f.resync();
  const first = await popOne(f);
  const second = await popOne(f);
  assert.deepEqual(first.deltas, [['Updated', 'b', 2]]);
  assert.deepEqual(second.deltas, [['Sync', 'a', 1]]);
});

test('the transformer is applied to objects, not to tombstones', async () => {
  const known = newIndexer<Obj>();
  known.add(o('gone', 7));
  const f = new DeltaFIFO<Obj>({
    knownObjects: known,
    emitDeltaTypeReplaced: true,
    transformer: (x) => ({ ...x, v: (x.v ?? 0) * 100 }),
  });
  f.add(o('a', 1));
  f.replace([o('a', 2)], '3');
  assert.deepEqual((await popOne(f)).deltas, [
    ['Added', 'a', 100],
    ['Replaced', 'a', 200],
  ]);
  assert.deepEqual((await popOne(f)).deltas, [['Deleted', 'tombstone:ns/gone', 7]]);
});

test('pop waits for an item; close rejects waiting pops with FIFOClosedError once empty', async () => {
  const f = new DeltaFIFO<Obj>();
  const p = popOne(f);
  f.add(o('late', 1));
  assert.deepEqual((await p).deltas, [['Added', 'late', 1]]);
  const waiting = popOne(f);
  f.close();
  await assert.rejects(waiting, FIFOClosedError);
  assert.equal(f.isClosed(), true);
});

test('popBatch pops up to max keys in queue order, one at a time, handing each its key', async () => {
  const f = new DeltaFIFO<Obj>();
  for (const n of ['a', 'b', 'c', 'd', 'e']) f.add(o(n, 1));
  f.update(o('a', 2));
  const seen: string[] = [];
  const process = (deltas: Deltas<Obj>, _initial: boolean, key: string): void => {
    assert.equal(f.getByKey(key), undefined, 'the key is off the queue while it is processed');
    seen.push(`${key}:${deltas.map((d) => (d.object as Obj).v).join(',')}`);
  };
  assert.equal(await f.popBatch(process, 3), 3);
  assert.deepEqual(seen, ['ns/a:1,2', 'ns/b:1', 'ns/c:1']);
  assert.deepEqual(f.listKeys(), ['ns/d', 'ns/e']);
  assert.equal(await f.popBatch(process, 10), 2, 'a batch ends when the queue is empty');
  const waiting = f.popBatch(process, 10);
  f.add(o('late', 1));
  assert.equal(await waiting, 1, 'waits for the first key');
  f.close();
  await assert.rejects(f.popBatch(process, 10), FIFOClosedError);
});

test('popBatch: a throwing process ends the batch there; the later keys stay queued', async () => {
  const f = new DeltaFIFO<Obj>();
  for (const n of ['a', 'b', 'c']) f.add(o(n));
  const seen: string[] = [];
  await assert.rejects(
    f.popBatch((_d, _i, key) => {
      seen.push(key);
      if (key === 'ns/b') throw new Error('boom');
    }, 10),
    /boom/,
  );
  assert.deepEqual(seen, ['ns/a', 'ns/b']);
  assert.deepEqual(f.listKeys(), ['ns/c']);
});

test('first replace: hasSynced counts distinct keys, with and without objects to delete', async () => {
  // Nothing known: no key set is needed, duplicates in the list still count once.
  const f = new DeltaFIFO<Obj>({ knownObjects: newIndexer<Obj>(), emitDeltaTypeReplaced: true });
  f.replace([o('a', 1), o('b', 1), o('a', 2)], '5');
  assert.deepEqual(f.listKeys(), ['ns/a', 'ns/b']);
  assert.equal(f.hasSynced(), false);
  assert.deepEqual((await popOne(f)).deltas, [
    ['Replaced', 'a', 1],
    ['Replaced', 'a', 2],
  ]);
  assert.equal(f.hasSynced(), false);
  assert.equal((await popOne(f)).initial, true);
  assert.equal(f.hasSynced(), true);
  // Something known: the vanished object becomes a tombstone and counts too.
  const known = newIndexer<Obj>();
  known.add(o('gone', 3));
  const g = new DeltaFIFO<Obj>({ knownObjects: known, emitDeltaTypeReplaced: true });
  g.replace([o('a', 1), o('a', 2)], '5');
  assert.deepEqual(g.listKeys(), ['ns/a', 'ns/gone']);
  await popOne(g);
  assert.equal(g.hasSynced(), false);
  assert.deepEqual(await popOne(g), { initial: true, deltas: [['Deleted', 'tombstone:ns/gone', 3]] });
  assert.equal(g.hasSynced(), true);
});
