// Built-in objects as kube-apiserver v1.37.1 holds them after the Go struct round trip
// (omitempty, pointers, omitzero, field order), and the patched JSON its Strict patch errors quote.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { goRoundTrip, mergePatchDecoded, patchedJson } from '../../src/testing/go-json.js';
import { api } from './helpers.js';

describe('the Go struct round trip', () => {
  it('drops empty omitempty members, writes the ones without omitempty, keeps pointers, orders as the struct', () => {
    const cm = goRoundTrip('core/v1.ConfigMap', {
      data: {},
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { labels: {}, name: 'x', finalizers: [] },
      immutable: false,
    });
    assert.deepEqual(cm, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, immutable: false });
    assert.deepEqual(Object.keys(cm), ['kind', 'apiVersion', 'metadata', 'immutable']);
    const lease = goRoundTrip('coordination/v1.Lease', { metadata: { name: 'l' } });
    assert.deepEqual(lease, { metadata: { name: 'l' }, spec: {} }, 'a struct without omitempty is always written');
    const ev = goRoundTrip('core/v1.Event', { metadata: { name: 'e' }, reason: '', count: 0 });
    assert.deepEqual(ev, {
      metadata: { name: 'e' },
      involvedObject: {},
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
    const dep = goRoundTrip('apps/v1.Deployment', {
      spec: {
        replicas: 0,
        paused: false,
        template: { metadata: {}, spec: { containers: [{ name: 'c', stdin: false, args: [] }] } },
      },
    });
    assert.deepEqual((dep.spec as Record<string, unknown>).replicas, 0, 'a pointer is kept even when zero');
    assert.equal((dep.spec as Record<string, unknown>).paused, undefined);
    assert.deepEqual(
      (dep.spec as { template: unknown }).template,
      { metadata: {}, spec: { containers: [{ name: 'c', resources: {} }] } },
      'omitzero: no creationTimestamp: null in the template',
    );
  });

  it("a merge patch's result as json-patch writes it: the objects the patch merged into and the values it brought sorted, the rest as stored", () => {
    const current = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'x', namespace: 'n' },
      data: { b: '1', a: '2' },
    };
    const patch = { metadata: { labels: { z: '1', y: '2' } }, extra: { d: 1, c: 2 } };
    const doc = { ...current, metadata: { ...current.metadata, labels: { z: '1', y: '2' } }, extra: { d: 1, c: 2 } };
    assert.equal(
      patchedJson(doc, mergePatchDecoded(current, patch)),
      '{"apiVersion":"v1","data":{"b":"1","a":"2"},"extra":{"c":2,"d":1},"kind":"ConfigMap","metadata":{"labels":{"y":"2","z":"1"},"name":"x","namespace":"n"}}',
    );
  });
});

describe('the round trip over HTTP', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer();
  });
  after(() => env.stop());

  it('a ConfigMap of empty members is stored without them, and nobody owns them', async () => {
    const r = await api(env.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'g1', labels: {}, annotations: {} },
      data: {},
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.data, undefined);
    assert.equal(r.body.metadata.labels, undefined);
    assert.equal(r.body.metadata.managedFields, undefined);
  });

  it('a Strict merge patch of a Deployment with a nested unknown field quotes the patched object as the apiserver does', async () => {
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'sd' },
      spec: {
        selector: { matchLabels: { app: 'sd' } },
        template: { metadata: { labels: { app: 'sd' } }, spec: { containers: [{ name: 'db', image: 'mysql:8' }] } },
      },
    };
    await api(env.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', d);
    const r = await api(
      env.url,
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/sd?fieldValidation=Strict',
      { spec: { template: { spec: { containers: [{ name: 'db', image: 'mysql:8', bogus: true }] } } } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(r.status, 422);
    const quoted = JSON.parse(
      r.body.details.causes[0].message.replace(/^Invalid value: /, '').replace(/: strict decoding error: .*$/, ''),
    ) as string;
    assert.match(
      quoted,
      /^\{"apiVersion":"apps\/v1","kind":"Deployment","metadata":\{"name":"sd","namespace":"default","uid":/,
      'the root sorted, metadata (untouched) in ObjectMeta order',
    );
    assert.match(
      quoted,
      /"spec":\{"containers":\[\{"bogus":true,"image":"mysql:8","name":"db"\}\],"dnsPolicy":"ClusterFirst","restartPolicy":"Always"/,
      'what the patch brought, and the objects it went into, sorted',
    );
    assert.match(r.body.message, /strict decoding error: unknown field "spec.template.spec.containers\[0\].bogus"$/);
  });
});
