// The sharded operator's chaos run in its short, seeded form (test/e2e/sharding-chaos.ts):
// 100 objects for 60 s on the real control plane. `npm run soak -- --sharded` runs it long.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runShardingChaos } from './sharding-chaos.js';

const SEED = 33033;

test(
  `sharded chaos: seed ${SEED}, 100 objects, 60 s: no overlap, no lost update, no reconcile after a freeze`,
  { timeout: 10 * 60_000 },
  async (t) => {
    const r = await runShardingChaos({ objects: 100, seconds: 60, seed: SEED });
    t.diagnostic(r.summary);
    assert.deepEqual(r.violations, [], r.summary);
  },
);
