// Controller runtime helpers: flags, bind addresses, durations, and the owned-object handler
// (controller owner only, tombstones, resyncs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, parseDuration, parseOperatorFlags } from '../../../../src/runtime/controller/flags.js';
import { parseBindAddress, startEndpointServer } from '../../../../src/runtime/controller/http-server.js';
import { enqueueHandler, ownedObjectHandler } from '../../../../src/runtime/controller/handlers.js';
import { DeletedFinalStateUnknown } from '../../../../src/runtime/cache/deleted-final-state-unknown.js';
import type { Deployment } from '../../../../src/runtime/client/builtin.js';
import { setupSignalHandler } from '../../../../src/runtime/controller/signals.js';
import { dropManagedFields, stripManagedFields } from '../../../../src/runtime/controller/transform.js';

test('flags: defaults (client-go leader election timings, kubebuilder ports) and overrides', () => {
  const d = parseOperatorFlags([], 'op', {});
  assert.ok(d !== 'help');
  assert.equal(d.workers, 2);
  assert.equal(d.namespace, '');
  assert.equal(d.leaderElect, false);
  assert.deepEqual([d.leaseDurationMs, d.renewDeadlineMs, d.retryPeriodMs], [15_000, 10_000, 2_000]);
  assert.equal(d.metricsBindAddress, ':8080');
  assert.equal(d.healthProbeBindAddress, ':8081');
  assert.equal(d.leaderElectionId, 'op-leader');
  assert.equal(d.leaderElectionNamespace, 'default');
  assert.deepEqual([d.webhookBindAddress, d.webhookCertDir], [':9443', '/tmp/k8s-webhook-server/serving-certs']);
  const w = parseOperatorFlags(['--webhook-bind-address', '127.0.0.1:9443', '--webhook-cert-dir', '/certs'], 'op', {});
  assert.ok(w !== 'help');
  assert.deepEqual([w.webhookBindAddress, w.webhookCertDir], ['127.0.0.1:9443', '/certs']);
  const o = parseOperatorFlags(
    [
      '--workers',
      '5',
      '--namespace',
      'prod',
      '--resync',
      '30s',
      '--leader-elect',
      '--leader-elect-lease-duration',
      '1m30s',
    ],
    'op',
    { POD_NAMESPACE: 'ops' },
  );
  assert.ok(o !== 'help');
  assert.deepEqual(
    [o.workers, o.namespace, o.resyncMs, o.leaderElect, o.leaseDurationMs, o.leaderElectionNamespace],
    [5, 'prod', 30_000, true, 90_000, 'ops'],
  );
  assert.equal(parseOperatorFlags(['-h'], 'op'), 'help');
  assert.throws(() => parseOperatorFlags(['--workers', '0'], 'op'), FlagError);
  assert.throws(() => parseOperatorFlags(['--bogus'], 'op'), FlagError);
  assert.throws(() => parseOperatorFlags(['--resync', '5 minutes'], 'op'), /not a duration/);
  assert.equal(parseDuration('500ms', 'x'), 500);
  assert.equal(parseDuration('2', 'x'), 2000);
});

test('bind addresses: kubebuilder forms, "0" disables, junk is a clear error', () => {
  assert.deepEqual(parseBindAddress(':8080'), { host: '0.0.0.0', port: 8080 });
  assert.deepEqual(parseBindAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  assert.deepEqual(parseBindAddress('[::1]:9090'), { host: '::1', port: 9090 });
  assert.equal(parseBindAddress('0'), undefined);
  assert.throws(() => parseBindAddress('localhost'), /bad bind address/);
  assert.throws(() => parseBindAddress(':99999'), /bad port/);
});

test('endpoint server: routes answer, others 404, non-GET 405', async () => {
  const s = await startEndpointServer(
    { host: '127.0.0.1', port: 0 },
    { '/healthz': () => ({ status: 200, contentType: 'text/plain', body: 'ok' }) },
  );
  try {
    const r = await fetch(`${s.url}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'ok');
    assert.equal((await fetch(`${s.url}/x`)).status, 404);
    assert.equal((await fetch(`${s.url}/healthz`, { method: 'POST' })).status, 405);
  } finally {
    await s.close();
  }
});

test('ownedObjectHandler: controller owner of the right kind only; tombstones unwrapped; same-resourceVersion resyncs skipped', () => {
  const keys: string[] = [];
  const h = ownedObjectHandler<Deployment>({ group: 'coolops.cn', kind: 'DatabaseManager' }, (k) => keys.push(k));
  const owned = (rv: string, ref: Record<string, unknown>): Deployment => ({
    metadata: {
      name: 'x',
      namespace: 'ns',
      resourceVersion: rv,
      ownerReferences: [
        { apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', name: 'owner', uid: 'u', ...ref },
      ],
    },
    spec: { selector: {}, template: {} },
  });
  void h.onAdd!(owned('1', { controller: true }), false);
  void h.onAdd!(owned('1', { controller: false }), false);
  void h.onAdd!(owned('1', { controller: true, apiVersion: 'other.io/v1' }), false);
  void h.onUpdate!(owned('1', { controller: true }), owned('1', { controller: true }));
  void h.onUpdate!(owned('1', { controller: true }), owned('2', { controller: true }));
  void h.onDelete!(new DeletedFinalStateUnknown('ns/x', owned('3', { controller: true })));
  assert.deepEqual(keys, ['ns/owner', 'ns/owner', 'ns/owner']);
  const prim: string[] = [];
  const e = enqueueHandler<Deployment>((k) => prim.push(k));
  void e.onUpdate!(owned('1', {}), owned('1', {}));
  void e.onDelete!(new DeletedFinalStateUnknown('ns/gone', owned('1', {})));
  assert.deepEqual(prim, ['ns/x', 'ns/gone'], 'the primary kind enqueues resyncs and tombstone keys');
});

test('signals: the first SIGTERM aborts (reason = the signal), the second calls onSecondSignal; dispose removes the listeners', () => {
  const before = process.listenerCount('SIGTERM');
  const seconds: string[] = [];
  const h = setupSignalHandler({ signals: ['SIGTERM'], onSecondSignal: (s) => void seconds.push(s) });
  try {
    assert.equal(h.signal.aborted, false);
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(h.signal.aborted, true);
    assert.equal(h.signal.reason, 'SIGTERM');
    assert.deepEqual(seconds, []);
    process.emit('SIGTERM', 'SIGTERM');
    assert.deepEqual(seconds, ['SIGTERM']);
  } finally {
    h.dispose();
  }
  assert.equal(process.listenerCount('SIGTERM'), before);
});

test('stripManagedFields drops managedFields only, without touching the input', () => {
  const obj = { metadata: { name: 'a', managedFields: [{ manager: 'kubectl' }], labels: { x: 'y' } }, spec: { n: 1 } };
  const out = stripManagedFields(obj);
  assert.deepEqual(out, { metadata: { name: 'a', labels: { x: 'y' } }, spec: { n: 1 } });
  assert.equal(obj.metadata.managedFields.length, 1);
  const plain = { metadata: { name: 'b' } };
  assert.equal(stripManagedFields(plain), plain);
});

test('dropManagedFields gives the object itself a metadata without managedFields, and is idempotent', () => {
  const managedFields = [{ manager: 'kubectl' }];
  const meta = JSON.parse('{"name":"a","managedFields":[],"labels":{"x":"y"},"__proto__":{"polluted":true},"uid":"u"}');
  meta.managedFields = managedFields;
  const spec = { n: 1 };
  const obj = { metadata: meta, spec };
  const out = dropManagedFields(obj);
  assert.equal(out, obj, 'the same object');
  assert.equal(out.spec, spec, 'nothing else replaced');
  assert.notEqual(out.metadata, meta, 'a new metadata');
  assert.deepEqual(Object.keys(out.metadata), ['name', 'labels', '__proto__', 'uid'], 'the other keys, in order');
  assert.equal(Object.getPrototypeOf(out.metadata), Object.prototype, '__proto__ stays an own key');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(meta.managedFields, managedFields, 'the old metadata is left as it was');
  const again = out.metadata;
  assert.equal(dropManagedFields(out), out);
  assert.equal(out.metadata, again, 'a second call changes nothing');
  const bare = { kind: 'X' };
  assert.equal(dropManagedFields(bare), bare);
});
