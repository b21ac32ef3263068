// The short chaos soak in `npm test`: 100 DatabaseManagers for 2 minutes at a fixed seed,
// against the test server on a real etcd (the etcd 3.6 npm test's set-up builds). Any
// violation fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak } from './driver.js';
import { parseSoakArgs } from './options.js';

const SEED = 20261130;

test(
  `chaos soak: 100 objects, 2 minutes, seed ${SEED}: converges, no overlap, no dual leader, request rate within the backoff bound`,
  { timeout: 8 * 60_000 },
  async (t) => {
    const opts = parseSoakArgs(['--objects', '100', '--minutes', '2', '--seed', String(SEED), '--fault-every', '4']);
    assert.notEqual(opts, 'help');
    if (opts === 'help') return;
    const r = await runSoak(opts);
    t.diagnostic(r.summary);
    assert.deepEqual(r.violations, [], r.summary);
    assert.ok(r.convergedSeconds !== undefined, 'converged');
    const kinds = Object.values(r.faults).filter((n) => n > 0).length;
    const total = Object.values(r.faults).reduce((a, b) => a + b, 0);
    assert.ok(total >= 15 && kinds >= 6, `faults were injected: ${JSON.stringify(r.faults)}`);
    assert.equal(r.overlaps, 0, 'the overlap counter is exposed and 0 on every replica');
    assert.ok(r.reconciles > 100, `the operator reconciled (${r.reconciles})`);
  },
);
