// The helpers of the benchmark on the real control plane (bench/go-peers.ts): objects seeded
// in etcd must look as kube-apiserver stores them, and the counts read from the audit log, the
// fidelity run and the operators' logs must be read right.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { seededObject, storageKey } from '../../../bench/lib/etcd-seed.js';
import { countAudit } from '../../../bench/lib/go-peers-operator.js';
import { parseFidelity } from '../../../bench/lib/go-peers-testserver.js';
import { logMsg } from '../../../bench/lib/operator-process.js';

const stored = {
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: {
    name: 'db-template',
    namespace: 'template',
    uid: 'u-1',
    generation: 1,
    labels: { app: 'db-template', tier: 'database' },
    creationTimestamp: '2026-12-01T00:00:00Z',
  },
  spec: { deploymentName: 'db-template-deploy', replicas: 3, dbtype: 'mysql' },
};

describe('bench go-peers helpers', () => {
  it('storageKey is where kube-apiserver keeps a namespaced object (no group part for the core group)', () => {
    assert.equal(
      storageKey('coolops.cn', 'databasemanagers', 'n1k', 'db-0'),
      '/registry/coolops.cn/databasemanagers/n1k/db-0',
    );
    assert.equal(storageKey('', 'pods', 'ns', ''), '/registry/pods/ns/');
  });

  it('seededObject renames the template, gives it a new uid and app label, and leaves the template alone', () => {
    const a = seededObject(stored, 'n1k', 'db-7');
    const b = seededObject(stored, 'n1k', 'db-8');
    assert.equal(a.metadata.name, 'db-7');
    assert.equal(a.metadata.namespace, 'n1k');
    assert.equal(a.metadata.labels?.app, 'db-7');
    assert.equal(a.spec?.deploymentName, 'db-7-deploy');
    assert.equal(a.spec?.dbtype, 'mysql');
    assert.notEqual(a.metadata.uid, b.metadata.uid);
    assert.notEqual(a.metadata.uid, 'u-1');
    assert.equal(stored.metadata.name, 'db-template');
    assert.deepEqual(Object.keys(a.metadata), Object.keys(stored.metadata), 'the stored key order stays');
    const m = seededObject(stored, 'x', 'db-1', (o) => (o.spec!.replicas = 4));
    assert.equal(m.spec?.replicas, 4);
  });

  it('countAudit counts one request per line, and those on Events', () => {
    const lines = [
      { verb: 'create', objectRef: { resource: 'deployments' } },
      { verb: 'create', objectRef: { resource: 'events' } },
      { verb: 'patch', objectRef: { resource: 'events' } },
      { verb: 'update', objectRef: { resource: 'databasemanagers', subresource: 'status' } },
    ].map((x) => JSON.stringify(x));
    assert.deepEqual(countAudit(`${lines.join('\n')}\n`), { all: 4, events: 2 });
    assert.deepEqual(countAudit(''), { all: 0, events: 0 });
  });

  it('parseFidelity reads the summary line of test/fidelity/run.ts and fails clearly without it', () => {
    assert.deepEqual(parseFidelity('fidelity: 350/351 responses identical\n- a / b / c: testenv 1 | real 2\n'), {
      line: 'fidelity: 350/351 responses identical',
      identical: 350,
      total: 351,
    });
    assert.throws(() => parseFidelity('no summary'), /printed no fidelity line/);
  });

  it('logMsg reads the msg of a pino or zap JSON line', () => {
    assert.equal(
      logMsg('{"level":30,"time":1,"msg":"caches synced; starting workers","workers":4}'),
      'caches synced; starting workers',
    );
    assert.equal(
      logMsg('{"level":"info","ts":1.5,"msg":"Starting workers","controller":"databasemanager-controller"}'),
      'Starting workers',
    );
    assert.equal(logMsg('{"msg":"a \\"quoted\\" word"}'), 'a \\"quoted\\" word');
    assert.equal(logMsg('plain text'), undefined);
  });
});
