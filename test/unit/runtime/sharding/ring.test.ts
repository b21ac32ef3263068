// The consistent-hash ring and the sharding names: balance over 3 shards, about 1/N moved when
// a shard joins or leaves (and only to or from it), the same answer in every process, and
// label-safe names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HashRing,
  checkShardNames,
  defaultShardName,
  drainLabel,
  objectHashKey,
  shardLabel,
} from '../../../../src/runtime/index.js';

const keys = Array.from({ length: 3000 }, (_, i) =>
  objectHashKey('coolops.cn', 'DatabaseManager', `ns-${i % 7}`, `dm-${i}`),
);

function spread(ring: HashRing): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) {
    const s = ring.shardFor(k)!;
    out.set(s, (out.get(s) ?? 0) + 1);
  }
  return out;
}

test('3 shards hold 1/3 ± 20 % of 3,000 keys each; the answer does not depend on the order shards are given in', () => {
  const ring = new HashRing(['shard-a', 'shard-b', 'shard-c']);
  const counts = spread(ring);
  assert.equal(counts.size, 3);
  for (const [s, n] of counts) assert.ok(n >= 800 && n <= 1200, `${s} holds ${n}`);
  const again = new HashRing(['shard-c', 'shard-a', 'shard-b']);
  assert.ok(keys.every((k) => again.shardFor(k) === ring.shardFor(k)));
  assert.equal(new HashRing([]).shardFor(keys[0]), undefined);
});

test('a 4th shard takes about 1/4 of the keys, all from the others; removing one moves only its keys', () => {
  const three = new HashRing(['shard-a', 'shard-b', 'shard-c']);
  const four = new HashRing(['shard-a', 'shard-b', 'shard-c', 'shard-d']);
  const moved = keys.filter((k) => three.shardFor(k) !== four.shardFor(k));
  assert.ok(
    moved.every((k) => four.shardFor(k) === 'shard-d'),
    'keys move only to the new shard',
  );
  assert.ok(moved.length >= 0.15 * keys.length && moved.length <= 0.35 * keys.length, `${moved.length} moved`);
  const two = new HashRing(['shard-a', 'shard-c']);
  for (const k of keys) {
    if (three.shardFor(k) !== 'shard-b')
      assert.equal(two.shardFor(k), three.shardFor(k), 'a key of a staying shard stays');
  }
  assert.ok(three.sameShards(new HashRing(['shard-c', 'shard-b', 'shard-a'])));
  assert.ok(!three.sameShards(four));
});

test('names: labels per ring; shard names are label values and Lease names; bad ones are refused with the reason', () => {
  assert.equal(shardLabel('databasemanager-controller'), 'shard.crdgen.io/databasemanager-controller');
  assert.equal(drainLabel('databasemanager-controller'), 'drain.shard.crdgen.io/databasemanager-controller');
  for (let i = 0; i < 20; i++) {
    const n = defaultShardName('Some.Host_Name.example.com');
    assert.match(n, /^some-host-name-example-com-[0-9a-f]{6}$/);
    checkShardNames('ring', n);
  }
  assert.match(defaultShardName('x'.repeat(80)), /^x{50}-[0-9a-f]{6}$/);
  assert.throws(() => checkShardNames('ring', 'Upper'), /shard name "Upper"/);
  assert.throws(() => checkShardNames('ring', 'a'.repeat(64)), /at most 63/);
  assert.throws(() => checkShardNames('bad ring', 'a'), /ring "bad ring" cannot name a label/);
});
