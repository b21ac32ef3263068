// The operator's helpers: flags, durations, bind addresses and the endpoint server of its
// metrics and health probes, and signals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FlagError,
  parseDuration,
  parseOperatorFlags,
  parseBindAddress,
  startEndpointServer,
  setupSignalHandler,
} from '../../../../src/runtime/index.js';

test('flags: defaults (client-go leader election timings, kubebuilder ports) and overrides', () => {
  const d = parseOperatorFlags([], 'op', {});
  assert.ok(d !== 'help');
  assert.equal(d.workers, 2);
  assert.equal(d.namespace, '');
  assert.equal(d.leaderElect, false);
  assert.equal(d.warmStandby, true);
  assert.deepEqual([d.leaseDurationMs, d.renewDeadlineMs, d.retryPeriodMs], [15_000, 10_000, 2_000]);
  const cold = parseOperatorFlags(['--leader-elect', '--warm-standby=false'], 'op', {});
  assert.ok(cold !== 'help');
  assert.equal(cold.warmStandby, false);
  assert.throws(
    () => parseOperatorFlags(['--warm-standby=maybe'], 'op', {}),
    /--warm-standby: "maybe" is not true or false/,
  );
  assert.equal(d.metricsBindAddress, ':8080');
  assert.deepEqual([d.metricsSecure, d.metricsCertDir], [false, ''], 'plain HTTP by default, as controller-runtime');
  const secure = parseOperatorFlags(['--metrics-secure', '--metrics-cert-dir', '/certs'], 'op', {});
  assert.ok(secure !== 'help');
  assert.deepEqual([secure.metricsSecure, secure.metricsBindAddress, secure.metricsCertDir], [true, ':8443', '/certs']);
  const bound = parseOperatorFlags(['--metrics-secure', '--metrics-bind-address', ':9000'], 'op', {});
  assert.equal(bound !== 'help' && bound.metricsBindAddress, ':9000');
  assert.equal(d.healthProbeBindAddress, ':8081');
  assert.equal(d.leaderElectionId, 'op-leader');
  assert.equal(d.leaderElectionNamespace, 'default');
  assert.deepEqual([d.webhookBindAddress, d.webhookCertDir], [':9443', '/tmp/k8s-webhook-server/serving-certs']);
  const w = parseOperatorFlags(['--webhook-bind-address', '127.0.0.1:9443', '--webhook-cert-dir', '/certs'], 'op', {});
  assert.ok(w !== 'help');
  assert.deepEqual([w.webhookBindAddress, w.webhookCertDir], ['127.0.0.1:9443', '/certs']);
  // the certificate's mode: a folder given means dir; none given leaves the choice to the operator (self when it names targets)
  assert.equal(w.webhookCertMode, 'dir');
  assert.equal(d.webhookCertMode, undefined);
  const self = parseOperatorFlags(
    [
      '--webhook-cert-mode=self',
      '--webhook-cert-secret',
      'hooks-cert',
      '--webhook-service-name',
      'hooks',
      '--webhook-namespace',
      'hooks-system',
      '--webhook-cert-hosts',
      '127.0.0.1, hooks.example.com',
      '--webhook-ca-validity',
      '720h',
      '--webhook-cert-validity',
      '20s',
      '--webhook-cert-sync-period',
      '1s',
    ],
    'op',
    {},
  );
  assert.ok(self !== 'help');
  assert.deepEqual(
    [
      self.webhookCertMode,
      self.webhookCertSecret,
      self.webhookServiceName,
      self.webhookNamespace,
      self.webhookCertHosts,
      self.webhookCaValidityMs,
      self.webhookCertValidityMs,
      self.webhookCertSyncPeriodMs,
    ],
    ['self', 'hooks-cert', 'hooks', 'hooks-system', ['127.0.0.1', 'hooks.example.com'], 720 * 3_600_000, 20_000, 1000],
  );
  assert.throws(() => parseOperatorFlags(['--webhook-cert-mode=cm'], 'op', {}), /"cm" is not dir or self/);
  assert.throws(
    () => parseOperatorFlags(['--webhook-cert-mode=self', '--webhook-cert-dir', '/c'], 'op', {}),
    /--webhook-cert-dir is for --webhook-cert-mode=dir/,
  );
  assert.throws(() => parseOperatorFlags(['--webhook-cert-secret', 'Bad_Name'], 'op', {}), /is not an object name/);
  assert.throws(() => parseOperatorFlags(['--webhook-cert-hosts', 'a b'], 'op', {}), /is not a DNS name or an IP/);
  assert.throws(() => parseOperatorFlags(['--webhook-cert-validity', '0s'], 'op', {}), /must be at least 1ms/);
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

test('flags: --sharded and --shard-name; not with --leader-elect; a shard name must be a label value', () => {
  const d = parseOperatorFlags([], 'op', {});
  assert.ok(d !== 'help');
  assert.equal(d.sharded, false);
  assert.equal(d.shardName, undefined);
  const s = parseOperatorFlags(['--sharded', '--shard-name', 'op-0'], 'op', {});
  assert.ok(s !== 'help');
  assert.equal(s.sharded, true);
  assert.equal(s.shardName, 'op-0');
  assert.throws(() => parseOperatorFlags(['--sharded', '--leader-elect'], 'op', {}), /exclude each other/);
  assert.throws(() => parseOperatorFlags(['--shard-name', 'x'], 'op', {}), /--shard-name needs --sharded/);
  assert.throws(
    () => parseOperatorFlags(['--sharded', '--shard-name', 'Op_0'], 'op', {}),
    /--shard-name: "Op_0" is not a shard name/,
  );
});
