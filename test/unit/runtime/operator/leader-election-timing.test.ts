// When a standby tries to take a Lease: at the jittered retry period, brought forward to the
// moment the lease it observed expires (observed time + lease duration + margin), judged on its own
// clock from when it saw the lease change — never from the holder's renewTime. On a fake clock
// and the fake clientset, so each attempt's time is exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACQUIRE_EXPIRY_MARGIN_MS,
  FakeClock,
  LeaderElector,
  LeaseResource,
  microTime,
  nextAcquireDelay,
  type Lease,
} from '../../../../src/runtime/index.js';
import { FakeClientBackend } from '../../../../src/runtime/fake/index.js';

const LEASE_MS = 15_000;
const RETRY_MS = 2_000;

test('nextAcquireDelay: the jittered retry unless the observed lease of another holder expires sooner', () => {
  const base = { jitteredRetryMs: 3_000, identity: 'b' };
  const held = (observedAt: number) => ({ holder: 'a', leaseDurationMs: LEASE_MS, observedAt });
  // nothing observed, no holder, our own lease: the retry period
  assert.equal(nextAcquireDelay({ ...base, now: 0 }), 3_000);
  assert.equal(nextAcquireDelay({ ...base, now: 0, observed: { ...held(0), holder: '' } }), 3_000);
  assert.equal(nextAcquireDelay({ ...base, now: 0, observed: { ...held(0), holder: 'b' } }), 3_000);
  // expiry far off: the retry period
  assert.equal(nextAcquireDelay({ ...base, now: 1_000, observed: held(1_000) }), 3_000);
  // expiry before the next tick: the expiry (plus the margin), counted from the observed time
  assert.equal(nextAcquireDelay({ ...base, now: 14_000, observed: held(1_000) }), 2_000 + ACQUIRE_EXPIRY_MARGIN_MS);
  assert.equal(nextAcquireDelay({ ...base, now: 15_999, observed: held(1_000) }), 1 + ACQUIRE_EXPIRY_MARGIN_MS);
  // already expired as observed (the attempt failed for another reason): the retry period, no busy loop
  assert.equal(nextAcquireDelay({ ...base, now: 16_000, observed: held(1_000) }), 3_000);
  assert.equal(nextAcquireDelay({ ...base, now: 20_000, observed: held(1_000) }), 3_000);
  // a lease without a duration: the retry period
  assert.equal(nextAcquireDelay({ ...base, now: 0, observed: { ...held(0), leaseDurationMs: 0 } }), 3_000);
});

/** Lets the fake backend's promises settle (it answers on microtasks and immediates). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** A Lease held by `holder`, its renewTime `renewMs` (the holder's clock, not ours). */
function heldLease(holder: string, renewMs: number): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'default' },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: LEASE_MS / 1000,
      acquireTime: microTime(renewMs),
      renewTime: microTime(renewMs),
      leaseTransitions: 0,
    },
  };
}

interface Run {
  /** Fake times of the candidate's GETs of the Lease. */
  gets: number[];
  /** Fake time of its winning update. */
  wonAt: number;
}

/**
 * Runs candidate `b` on a fake clock against a Lease held by `a` (renewTime from `holderClockMs`),
 * stepping fake time from timer to timer; `renewAt` lists fake times at which `a` renews (writes a
 * new renewTime) before b's next attempt. Returns when b leads.
 */
async function standby(
  holderClockMs: number,
  renewAt: number[] = [],
  opts: { watchLease?: boolean; releaseAt?: number } = {},
): Promise<Run> {
  const start = 1_000_000;
  const clock = new FakeClock(start);
  const backend = new FakeClientBackend([LeaseResource], [heldLease('a', holderClockMs)]);
  const gets: number[] = [];
  let wonAt = -1;
  backend.prependReactor('get', 'leases', () => {
    gets.push(clock.now());
    return undefined;
  });
  backend.prependReactor('update', 'leases', (action) => {
    const l = action.object as Lease;
    if (l.spec?.holderIdentity === 'b') wonAt = clock.now();
    return undefined;
  });
  const leases = backend.resource<Lease>(LeaseResource, 'default');
  const stop = new AbortController();
  const b = new LeaderElector({
    backend,
    namespace: 'default',
    name: 'l',
    identity: 'b',
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: 10_000,
    retryPeriodMs: RETRY_MS,
    clock,
    releaseOnCancel: false,
    ...(opts.watchLease !== undefined ? { watchLease: opts.watchLease } : {}),
  });
  const run = b.run(stop.signal, (s) => new Promise<void>((done) => s.addEventListener('abort', () => done())));
  const renewals = renewAt.map((t) => start + t);
  for (let steps = 0; !b.isLeader(); steps++) {
    assert.ok(steps < 1000, 'b never led');
    await settle();
    if (b.isLeader()) break;
    const next = clock.nextTimerAt();
    assert.ok(next !== undefined, 'b waits on its clock');
    if (renewals.length > 0 && renewals[0] <= next) {
      clock.setTime(Math.max(clock.now(), renewals.shift()!));
      const cur = await leases.get('l');
      await leases.update({ ...cur, spec: { ...cur.spec, renewTime: microTime(holderClockMs + clock.now()) } });
      continue;
    }
    if (opts.releaseAt !== undefined && start + opts.releaseAt <= next) {
      // the holder gives the lease up as a clean stop does (client-go's release)
      clock.setTime(Math.max(clock.now(), start + opts.releaseAt));
      opts = { ...opts, releaseAt: undefined };
      const cur = await leases.get('l');
      const at = microTime(holderClockMs + clock.now());
      await leases.update({
        ...cur,
        spec: { ...cur.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at, renewTime: at },
      });
      continue;
    }
    clock.setTime(next);
  }
  stop.abort();
  // the renew loop's wait ends on the fake clock
  while (clock.pendingTimers() > 0) {
    clock.step(RETRY_MS);
    await settle();
  }
  await run;
  return { gets: gets.map((t) => t - start), wonAt: wonAt - start };
}

test('a standby takes an abandoned lease at the observed expiry plus the margin, not at a later jittered tick', async () => {
  for (let i = 0; i < 20; i++) {
    // the holder's clock says it renewed an hour ago: ignored, as client-go ignores it
    const r = await standby(Date.now() - 3_600_000);
    // first seen at fake time 0: expired from 15 s on; taken then, by the margin (or by a jittered
    // tick that happens to fall within it), not up to a retry period later
    const what = `won at ${r.wonAt} (attempts at ${r.gets.join(', ')})`;
    assert.ok(r.wonAt >= LEASE_MS && r.wonAt <= LEASE_MS + ACQUIRE_EXPIRY_MARGIN_MS, what);
    assert.equal(r.gets[0], 0);
    assert.equal(r.gets.at(-1), r.wonAt);
    assert.ok(r.gets.at(-2)! < LEASE_MS, what);
    // before the expiry, attempts a jittered retry period apart (2–4.4 s), none after it
    for (let k = 1; k < r.gets.length - 1; k++) {
      const gap = r.gets[k] - r.gets[k - 1];
      assert.ok(gap >= RETRY_MS && gap < RETRY_MS * 2.2, `gap ${gap} ms`);
    }
    assert.ok(r.gets.at(-1)! - r.gets.at(-2)! <= RETRY_MS * 2.2);
  }
});

test('polling alone: a renewal seen at the next attempt moves the expiry to then; never taken earlier', async () => {
  for (let i = 0; i < 20; i++) {
    // the holder's clock runs 10 minutes ahead: its renewTime is never what the standby goes by
    const r = await standby(Date.now() + 600_000, [5_000], { watchLease: false });
    // the renewal at fake 5 s is the holder's; the standby sees it at its first attempt after
    const seen = r.gets.filter((t) => t !== 5_000).find((t) => t > 5_000)!;
    assert.ok(seen < 5_000 + RETRY_MS * 2.2);
    const what = `won at ${r.wonAt}, saw the renewal at ${seen}`;
    assert.ok(r.wonAt >= seen + LEASE_MS && r.wonAt <= seen + LEASE_MS + ACQUIRE_EXPIRY_MARGIN_MS, what);
    assert.ok(r.gets.every((t) => t <= r.wonAt));
  }
});

test('watching the lease: a renewal is observed when it arrives, so the expiry counts from the renewal itself', async () => {
  for (let i = 0; i < 20; i++) {
    // renewals at 5 s and 7 s (a live leader), then none: the leader died after 7 s
    const r = await standby(Date.now() + 600_000, [5_000, 7_000]);
    const what = `won at ${r.wonAt} (attempts at ${r.gets.join(', ')})`;
    // from the last renewal as it arrived, not from the next attempt that would have seen it
    assert.ok(r.wonAt >= 7_000 + LEASE_MS && r.wonAt <= 7_000 + LEASE_MS + ACQUIRE_EXPIRY_MARGIN_MS, what);
    assert.ok(r.gets.every((t) => t <= r.wonAt));
  }
});

test('watching the lease: a released lease is taken at once, not at the next jittered attempt', async () => {
  for (let i = 0; i < 5; i++) {
    const r = await standby(Date.now(), [], { releaseAt: 6_000 });
    assert.equal(r.wonAt, 6_000, `won at ${r.wonAt} (attempts at ${r.gets.join(', ')})`);
  }
  // polling alone it waits for its next attempt
  const polled = await standby(Date.now(), [], { releaseAt: 6_000, watchLease: false });
  assert.ok(polled.wonAt > 6_000, `won at ${polled.wonAt}`);
});
