// Leader election on Leases against the test API server: one leader at a time,
// takeover only after the lease expires, transitions counted, release on clean stop,
// loss when renewals fail past the renew deadline. Short timings (lease 2 s, renew 1.5 s, retry 200 ms).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  loadKubeconfig,
  restBackend,
  type ClientBackend,
  LeaseResource,
  type Lease,
  LeaderElector,
  FakeClock,
} from '../../../../src/runtime/index.js';

let server: TestApiServer;
let backend: ClientBackend;
before(async () => {
  server = await startTestApiServer();
  backend = restBackend(await loadKubeconfig({ path: server.kubeconfigPath }));
});
after(async () => {
  await server?.stop();
});

const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 };

async function until(probe: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (
    !(await Promise.resolve()
      .then(probe)
      .catch(() => false))
  ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const lease = (name: string) => backend.resource<Lease>(LeaseResource, 'default').get(name);

test('config is checked as client-go does', () => {
  assert.throws(
    () =>
      new LeaderElector({
        backend,
        namespace: 'default',
        name: 'l',
        identity: 'a',
        leaseDurationMs: 1000,
        renewDeadlineMs: 1000,
        retryPeriodMs: 100,
      }),
    /greater than the renew deadline/,
  );
  assert.throws(
    () =>
      new LeaderElector({
        backend,
        namespace: 'default',
        name: 'l',
        identity: 'a',
        leaseDurationMs: 3000,
        renewDeadlineMs: 1000,
        retryPeriodMs: 900,
      }),
    /retry period/,
  );
  assert.throws(() => new LeaderElector({ backend, namespace: 'default', name: 'l', identity: '' }), /identity/);
});

test('one leader; a standby stays out while the lease is renewed; a clean stop releases and the standby takes over', async () => {
  const stopA = new AbortController();
  const stopB = new AbortController();
  let leading = 0;
  let maxLeading = 0;
  const work = (who: string, log: string[]) => async (signal: AbortSignal) => {
    leading++;
    maxLeading = Math.max(maxLeading, leading);
    log.push(who);
    await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
    leading--;
  };
  const log: string[] = [];
  const a = new LeaderElector({ backend, namespace: 'default', name: 'le1', identity: 'a', ...timing });
  const runA = a.run(stopA.signal, work('a', log));
  await until(() => a.isLeader(), 10_000, 'a to lead');
  const b = new LeaderElector({ backend, namespace: 'default', name: 'le1', identity: 'b', ...timing });
  const runB = b.run(stopB.signal, work('b', log));
  await until(() => b.getLeader() === 'a', 10_000, 'b to see a');
  await new Promise((r) => setTimeout(r, 2500)); // longer than the lease: a keeps renewing, b stays out
  assert.deepEqual(log, ['a']);
  assert.equal(a.isLeader(), true);
  assert.equal(b.isLeader(), false);
  assert.equal(b.getLeader(), 'a');
  stopA.abort();
  assert.deepEqual(await runA, { kind: 'Released' });
  const released = await lease('le1');
  assert.equal(released.spec?.holderIdentity, '');
  await until(() => b.isLeader(), 10_000, 'b to take over');
  assert.deepEqual(log, ['a', 'b']);
  assert.equal(maxLeading, 1, 'never two leaders at once');
  const l = await lease('le1');
  assert.equal(l.spec?.holderIdentity, 'b');
  assert.equal(l.spec?.leaseTransitions, 1);
  stopB.abort();
  assert.deepEqual(await runB, { kind: 'Released' });
});

test('renewals failing past the renew deadline: leadership lost, the work is told to stop', async () => {
  const stop = new AbortController();
  let workSignal: AbortSignal | undefined;
  const e = new LeaderElector({ backend, namespace: 'default', name: 'le2', identity: 'x', ...timing });
  const run = e.run(stop.signal, async (s) => {
    workSignal = s;
    await new Promise<void>((done) => s.addEventListener('abort', () => done(), { once: true }));
  });
  await until(() => e.isLeader(), 10_000, 'x to lead');
  // someone else takes the lease by force: our renewals now find another holder
  const cur = await lease('le2');
  await backend.resource<Lease>(LeaseResource, 'default').update({
    ...cur,
    spec: { ...cur.spec, holderIdentity: 'intruder', leaseDurationSeconds: 60, renewTime: new Date().toISOString() },
  });
  const outcome = await run;
  assert.equal(outcome.kind, 'Lost');
  assert.equal(workSignal?.aborted, true);
  assert.equal(e.isLeader(), false);
  stop.abort();
});

test('runs on a fake clock: a standby takes over an abandoned lease only once its lease duration has passed on that clock', async () => {
  // a leads, then stops without releasing: the lease stays held by a, renewed no more
  const stopA = new AbortController();
  const a = new LeaderElector({
    backend,
    namespace: 'default',
    name: 'le-fake',
    identity: 'a',
    releaseOnCancel: false,
    ...timing,
  });
  const runA = a.run(
    stopA.signal,
    (s) => new Promise<void>((done) => s.addEventListener('abort', () => done(), { once: true })),
  );
  await until(() => a.isLeader(), 10_000, 'a to lead');
  stopA.abort();
  await runA;
  const clock = new FakeClock(Date.now());
  const stopB = new AbortController();
  const b = new LeaderElector({ backend, namespace: 'default', name: 'le-fake', identity: 'b', clock, ...timing });
  const runB = b.run(
    stopB.signal,
    (s) => new Promise<void>((done) => s.addEventListener('abort', () => done(), { once: true })),
  );
  await until(() => b.getLeader() === 'a' && clock.pendingTimers() > 0, 10_000, 'b to see a and wait on its clock');
  await new Promise((r) => setTimeout(r, timing.leaseDurationMs + 500)); // real time passes, fake time does not
  assert.equal(b.isLeader(), false, 'real time does not expire the lease for a candidate on a fake clock');
  let stepped = 0;
  while (!b.isLeader()) {
    await until(() => b.isLeader() || clock.pendingTimers() > 0, 10_000, 'b to wait on its clock');
    if (b.isLeader()) break;
    await new Promise((r) => setTimeout(r, 50)); // let a request in flight answer before fake time moves on (its timeout is 1000 ms of fake time)
    clock.step(100);
    stepped += 100;
    assert.ok(stepped <= 10 * timing.leaseDurationMs, `b leads after ${stepped} ms of fake time`);
  }
  assert.ok(
    stepped >= timing.leaseDurationMs,
    `b took over after ${stepped} ms of fake time, before the lease duration`,
  );
  assert.equal((await lease('le-fake')).spec?.holderIdentity, 'b');
  stopB.abort();
  const done = runB;
  while (clock.pendingTimers() > 0) {
    clock.step(100); // the renew loop's wait ends on the fake clock too
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(await done, { kind: 'Released' });
});
