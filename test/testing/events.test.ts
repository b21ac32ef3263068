// core/v1 and events.k8s.io/v1 Events are one resource, as in kube-apiserver v1.37.1: one
// storage, each version converted to and from it, listed, watched and gotten through both,
// each version validated by its own rules; nothing invented on create.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { eventFromCore, eventToCore } from '../../src/testing/events.js';
import { api, watch } from './helpers.js';

const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('event conversion', () => {
  it('maps every member both ways, leaving out what the target version omits when empty', () => {
    const v1 = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' },
      reportingController: 'ctl',
      reportingInstance: 'ctl-1',
      action: 'Do',
      reason: 'Did',
      regarding: { kind: 'Pod', name: 'p' },
      related: { kind: 'Node', name: 'n' },
      note: 'done',
      type: 'Normal',
      deprecatedSource: { component: 'c' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-02T00:00:00Z',
      deprecatedCount: 3,
    };
    const core = eventToCore(v1) as Record<string, unknown>;
    assert.deepEqual(core, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'Did',
      message: 'done',
      source: { component: 'c' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-02T00:00:00Z',
      count: 3,
      type: 'Normal',
      eventTime: '2026-01-01T00:00:00.000000Z',
      series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' },
      action: 'Do',
      related: { kind: 'Node', name: 'n' },
      reportingComponent: 'ctl',
      reportingInstance: 'ctl-1',
    });
    assert.deepEqual(eventFromCore(core as never), v1);
    // a bare core event: the events.k8s.io form has its always-written members, nothing else
    assert.deepEqual(
      eventFromCore({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'x' },
        involvedObject: {},
        source: {},
        reportingComponent: '',
        reportingInstance: '',
      } as never),
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'x' },
        eventTime: null,
        regarding: {},
        deprecatedSource: {},
        deprecatedFirstTimestamp: null,
        deprecatedLastTimestamp: null,
      },
    );
  });
});

describe('events over HTTP', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer();
  });
  after(() => env.stop());

  it('a core/v1 event: nothing invented (no count, timestamps or type), the zero members written as Go writes them', async () => {
    const r = await api(env.url, 'POST', CORE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'bare' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'R',
      message: 'm',
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.count, undefined);
    assert.equal(r.body.type, undefined);
    assert.equal(r.body.firstTimestamp, null);
    assert.equal(r.body.lastTimestamp, null);
    assert.equal(r.body.eventTime, null);
    assert.deepEqual(r.body.source, {});
    assert.equal(r.body.reportingComponent, '');
    const owned = Object.keys(r.body.metadata.managedFields[0].fieldsV1).sort();
    assert.deepEqual(owned, ['f:involvedObject', 'f:message', 'f:reason']);
  });

  it('created through one version, gotten, listed and watched through the other, each in its own shape', async () => {
    const from = (await api(env.url, 'GET', V1)).body.metadata.resourceVersion;
    const w = await watch(env.url, `${V1}?watch=true&resourceVersion=${from}`);
    await api(env.url, 'POST', CORE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'c1' },
      involvedObject: { kind: 'ConfigMap', name: 'cm', namespace: 'default' },
      reason: 'Test',
      message: 'hello',
      type: 'Normal',
      count: 2,
    });
    const ev = await w.at(0);
    assert.equal(ev.type, 'ADDED');
    assert.equal(ev.object.apiVersion, 'events.k8s.io/v1');
    assert.equal(ev.object.note, 'hello');
    assert.deepEqual(ev.object.regarding, { kind: 'ConfigMap', name: 'cm', namespace: 'default' });
    assert.equal(ev.object.deprecatedCount, 2);
    w.close();
    const k = await api(env.url, 'POST', V1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'k1' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Reconcile',
      reason: 'Synced',
      type: 'Warning',
      regarding: { kind: 'Pod', name: 'p' },
      note: 'done',
    });
    assert.equal(k.status, 201);
    const core = await api(env.url, 'GET', `${CORE}/k1`);
    assert.equal(core.body.apiVersion, 'v1');
    assert.equal(core.body.message, 'done');
    assert.equal(core.body.reportingComponent, 'example.com/ctl');
    assert.deepEqual(core.body.involvedObject, { kind: 'Pod', name: 'p' });
    const names = async (path: string): Promise<string[]> =>
      (await api(env.url, 'GET', path)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
    assert.deepEqual(await names(CORE), await names(V1));
    assert.ok((await names(V1)).includes('c1') && (await names(CORE)).includes('k1'));
    assert.deepEqual(await names(`${V1}?fieldSelector=regarding.kind%3DPod`), ['bare', 'k1']);
    assert.deepEqual(await names(`${CORE}?fieldSelector=reportingComponent%3Dexample.com%2Fctl`), ['k1']);
    assert.equal((await api(env.url, 'DELETE', `${V1}/c1`)).status, 200);
    assert.equal((await api(env.url, 'GET', `${CORE}/c1`)).status, 404);
  });

  it("each version's rules: events.k8s.io/v1 requires eventTime, a type and its reporting fields and keeps the note immutable; core/v1 does not", async () => {
    const bad = await api(env.url, 'POST', V1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'k2' },
      reason: 'x',
      type: 'Bogus',
      deprecatedCount: 3,
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'Event "k2" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: Bogus, count: Invalid value: "": needs to be unset]',
    );
    assert.equal(bad.body.details.group, undefined, 'validated as the internal core Event');
    const noReporter = await api(env.url, 'POST', CORE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'c2' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'R',
      action: 'A',
      reportingInstance: 'i',
    });
    assert.match(noReporter.body.message, /reportingComponent: Required value/);
    const ns = await api(env.url, 'POST', CORE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'c3' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
    });
    assert.equal(
      ns.body.message,
      'Event "c3" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
    const imm = await api(env.url, 'PATCH', `${V1}/k1`, { note: 'changed' }, MERGE);
    assert.equal(imm.body.message, 'Event "k1" is invalid: message: Invalid value: "changed": field is immutable');
    const coreUpd = await api(env.url, 'PATCH', `${CORE}/k1`, { message: 'changed through core' }, MERGE);
    assert.equal(coreUpd.status, 200, 'core/v1 updates keep the legacy rules');
  });
});
