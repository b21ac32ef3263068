// The soak's own parts, without processes: the seeded PRNG, the command line, the request
// bound, the overlap counter parser, and the dual-leadership check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrng } from './prng.js';
import { parseSoakArgs, SoakUsageError } from './options.js';
import { requestBound, RequestLog } from './request-rate.js';
import { dualLeadership, parseOverlaps, type Incarnation } from './replicas.js';

test('the PRNG replays the same sequence for a seed and another for another seed', () => {
  const draw = (seed: number): number[] => {
    const p = createPrng(seed);
    return Array.from({ length: 50 }, () => p.int(0, 1000));
  };
  assert.deepEqual(draw(42), draw(42));
  assert.notDeepEqual(draw(42), draw(43));
  const p = createPrng(1);
  for (let i = 0; i < 1000; i++) {
    const v = p.int(3, 5);
    assert.ok(v >= 3 && v <= 5 && Number.isInteger(v));
  }
  assert.throws(() => p.pick([]), RangeError);
});

test('command line: defaults, values, and clear errors', () => {
  const d = parseSoakArgs([]);
  assert.notEqual(d, 'help');
  if (d === 'help') return;
  assert.equal(d.objects, 100);
  assert.equal(d.minutes, 2);
  assert.equal(d.convergeTimeoutMs, (60 + 15) * 1000);
  const o = parseSoakArgs(['--objects', '1000', '--minutes', '30', '--seed', '7']);
  assert.ok(o !== 'help' && o.objects === 1000 && o.minutes === 30 && o.seed === 7);
  assert.equal(parseSoakArgs(['--help']), 'help');
  assert.throws(
    () => parseSoakArgs(['--objects', '0']),
    (e: unknown) => e instanceof SoakUsageError && /--objects: "0"/.test(e.message),
  );
  assert.throws(() => parseSoakArgs(['--minutes', 'x']), SoakUsageError);
  assert.throws(() => parseSoakArgs(['--bogus']), SoakUsageError);
});

test('request bound: the client bucket binds long windows, the backoffs short ones with few objects; it grows with time and processes', () => {
  const p = { objects: 100, qps: 20, burst: 30, retryPeriodSeconds: 0.5, workers: 1 };
  const long = requestBound(60, 2, p);
  assert.deepEqual(long, { bound: 2 * (30 + 20 * 60), limitedBy: 'client-bucket' });
  const unthrottled = requestBound(2, 1, { ...p, objects: 1, qps: 1e6, burst: 1e6 });
  assert.equal(unthrottled.limitedBy, 'backoff');
  assert.ok(requestBound(10, 2, p).bound > requestBound(5, 2, p).bound);
  assert.ok(requestBound(5, 3, p).bound > requestBound(5, 2, p).bound);
});

test('request log: counts only the operator, by path prefix and start time', () => {
  const r = new RequestLog();
  r.log('GET /apis/coolops.cn/v1alpha1/databasemanagers 500 0ms "databasemanager-controller"');
  r.log('PUT /apis/apps/v1/namespaces/a/deployments/x 500 0ms "databasemanager-controller"');
  r.log('GET /api/v1/namespaces 200 0ms "crdgen-soak-driver"');
  r.log('controller error: boom');
  const now = Date.now();
  assert.equal(r.operatorRequests, 2);
  assert.equal(r.allRequests, 3);
  assert.equal(r.count('/api', now - 1000, now + 1000), 2);
  assert.equal(r.count('/apis/apps/', now - 1000, now + 1000), 1);
  assert.equal(r.count('/apis/coolops.cn/', now + 5000, now + 6000), 0);
  const [v] = r.verdicts([{ start: now - 1000, end: now + 1000, prefix: '/api', code: 500, processes: 2 }], {
    objects: 10,
    qps: 20,
    burst: 30,
    retryPeriodSeconds: 0.5,
    workers: 1,
  });
  assert.equal(v.sent, 2);
  assert.ok(v.bound >= 2);
});

test('overlap counter: summed over label sets, undefined when not exposed', () => {
  const text = '# HELP x\ndatabasemanager_controller_reconcile_overlaps_total 0\nother_total 5\n';
  assert.equal(parseOverlaps(text), 0);
  assert.equal(
    parseOverlaps('a_reconcile_overlaps_total{controller="a"} 2\na_reconcile_overlaps_total{controller="b"} 1\n'),
    3,
  );
  assert.equal(parseOverlaps('workqueue_adds_total 3\n'), undefined);
});

test('dual leadership: overlapping working intervals of two processes are found, handovers are not', () => {
  const inc = (id: number, from: number, to?: number): Incarnation => ({
    id,
    proc: undefined as never,
    startedAt: from,
    workFrom: from,
    ...(to !== undefined ? { leaderTo: to } : {}),
    tail: [],
  });
  assert.deepEqual(dualLeadership([inc(0, 0, 10), inc(1, 13, 20), inc(2, 25)]), []);
  const clash = dualLeadership([inc(0, 0, 10), inc(1, 9, 20)]);
  assert.deepEqual(
    clash.map(([a, b]) => [a.id, b.id]),
    [[0, 1]],
  );
});
