// Patches (JSON, merge, strategic merge on built-ins), server-side apply with field
// managers, and the Deployment's /status and /scale subresources.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { jsonPatch, mergePatch, strategicMergePatch } from '../../src/testing/patch.js';
import { DM_CRD, api, deployment, dm } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const DEPS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const JSONP = { 'Content-Type': 'application/json-patch+json' };
const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };

describe('patch functions', () => {
  it('merge patch: null deletes, objects merge, arrays replace', () => {
    assert.deepEqual(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { a: null, b: { c: 9 }, l: [3] }), {
      b: { c: 9, d: 3 },
      l: [3],
    });
  });

  it('JSON patch: add/remove/replace/test; a failing test op is an error', () => {
    const doc = { spec: { list: [1, 2] } };
    assert.deepEqual(
      jsonPatch(doc, [
        { op: 'add', path: '/spec/list/-', value: 3 },
        { op: 'replace', path: '/spec/list/0', value: 0 },
        { op: 'remove', path: '/spec/list/1' },
      ]),
      { spec: { list: [0, 3] } },
    );
    assert.throws(
      () => jsonPatch(doc, [{ op: 'test', path: '/spec/list/0', value: 9 }]),
      /the server rejected our request due to an error in our request/,
    );
    assert.deepEqual(doc, { spec: { list: [1, 2] } }, 'input untouched');
  });

  it('strategic merge: containers merge by name, $patch: delete, primitive list directive', () => {
    const live = {
      spec: {
        containers: [
          { name: 'a', image: 'x:1' },
          { name: 'b', image: 'y:1' },
        ],
      },
      metadata: { finalizers: ['f1', 'f2'] },
    };
    const out = strategicMergePatch(live, {
      spec: {
        containers: [
          { name: 'b', image: 'y:2' },
          { name: 'a', $patch: 'delete' },
          { name: 'c', image: 'z:1' },
        ],
      },
      metadata: { '$deleteFromPrimitiveList/finalizers': ['f1'] },
    }) as { spec: { containers: { name: string; image: string }[] }; metadata: { finalizers: string[] } };
    assert.deepEqual(out.spec.containers, [
      { name: 'b', image: 'y:2' },
      { name: 'c', image: 'z:1' },
    ]);
    assert.deepEqual(out.metadata.finalizers, ['f2']);
  });
});

describe('patch and apply over HTTP', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('merge and JSON patches on a custom resource bump generation and validate', async () => {
    await api(env.url, 'POST', DMS, dm('p1'));
    const m = await api(env.url, 'PATCH', `${DMS}/p1`, { spec: { replicas: 3 } }, MERGE);
    assert.equal(m.status, 200);
    assert.equal(m.body.metadata.generation, 2);
    const j = await api(env.url, 'PATCH', `${DMS}/p1`, [{ op: 'replace', path: '/spec/replicas', value: 12 }], JSONP);
    assert.equal(j.status, 422);
    assert.match(j.body.message, /spec\.replicas: Invalid value: 12/);
    const rv = await api(
      env.url,
      'PATCH',
      `${DMS}/p1`,
      { metadata: { resourceVersion: '1' }, spec: { replicas: 4 } },
      MERGE,
    );
    assert.equal(rv.status, 409, 'a resourceVersion in a patch is a precondition');
    const nf = await api(env.url, 'PATCH', `${DMS}/none`, { spec: {} }, MERGE);
    assert.equal(nf.status, 404);
  });

  it('server-side apply creates, records the manager, and removes fields the manager stops applying', async () => {
    const body = JSON.stringify({ ...dm('ssa'), spec: { replicas: 2, dbtype: 'mysql' } });
    const before = (await api(env.url, 'GET', DMS)).body.metadata.resourceVersion;
    const c = await api(env.url, 'PATCH', `${DMS}/ssa?fieldManager=alice`, body, APPLY);
    assert.equal(c.status, 201);
    assert.equal(Number(c.body.metadata.resourceVersion), Number(before) + 1, 'one write: created with its owner');
    const mf = c.body.metadata.managedFields;
    assert.equal(mf.length, 1);
    assert.equal(mf[0].manager, 'alice');
    assert.equal(mf[0].operation, 'Apply');
    assert.deepEqual(mf[0].fieldsV1['f:spec'], { 'f:dbtype': {}, 'f:replicas': {} });
    const u = await api(
      env.url,
      'PATCH',
      `${DMS}/ssa?fieldManager=alice`,
      JSON.stringify({ ...dm('ssa'), spec: { replicas: 2 } }),
      APPLY,
    );
    assert.equal(u.status, 200);
    assert.deepEqual(u.body.spec, { replicas: 2 });
  });

  it('server-side apply: a conflict with another manager is 409 unless forced', async () => {
    await api(
      env.url,
      'PATCH',
      `${DMS}/ssa2?fieldManager=alice`,
      JSON.stringify({ ...dm('ssa2'), spec: { replicas: 2 } }),
      APPLY,
    );
    const r = await api(
      env.url,
      'PATCH',
      `${DMS}/ssa2?fieldManager=bob`,
      JSON.stringify({ ...dm('ssa2'), spec: { replicas: 5 } }),
      APPLY,
    );
    assert.equal(r.status, 409);
    assert.equal(r.body.reason, 'Conflict');
    // an applier is named without an apiVersion (updaters are "x" using <apiVersion>)
    assert.equal(r.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    assert.deepEqual(r.body.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' },
    ]);
    const f = await api(
      env.url,
      'PATCH',
      `${DMS}/ssa2?fieldManager=bob&force=true`,
      JSON.stringify({ ...dm('ssa2'), spec: { replicas: 5 } }),
      APPLY,
    );
    assert.equal(f.status, 200);
    assert.equal(f.body.spec.replicas, 5);
    const alice = f.body.metadata.managedFields.find((m: { manager: string }) => m.manager === 'alice');
    assert.ok(!alice || !alice.fieldsV1['f:spec']?.['f:replicas'], 'ownership moved to bob');
    const noMgr = await api(env.url, 'PATCH', `${DMS}/ssa2`, JSON.stringify(dm('ssa2')), APPLY);
    assert.equal(noMgr.status, 422);
    assert.equal(
      noMgr.body.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  });

  it('server-side apply takes over fields from client-side apply without a conflict', async () => {
    const obj = dm('csa');
    (obj.metadata as Record<string, unknown>).annotations = {
      'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(dm('csa')),
    };
    assert.equal((await api(env.url, 'POST', `${DMS}?fieldManager=kubectl-client-side-apply`, obj)).status, 201);
    const r = await api(env.url, 'PATCH', `${DMS}/csa?fieldManager=kubectl`, JSON.stringify(dm('csa', 8)), APPLY);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.spec.replicas, 8);
    const other = await api(env.url, 'PATCH', `${DMS}/csa?fieldManager=someone`, { spec: { dbtype: 'pg' } }, MERGE);
    assert.equal(other.status, 200);
    const c = await api(
      env.url,
      'PATCH',
      `${DMS}/csa?fieldManager=kubectl`,
      JSON.stringify({ ...dm('csa', 8), spec: { ...(dm('csa', 8).spec as object), dbtype: 'mysql' } }),
      APPLY,
    );
    assert.equal(c.status, 409, 'a field another (non client-side-apply) manager changed still conflicts');
  });

  it('managedFields sent by a client replace the live ones ([{}] clears them)', async () => {
    await api(
      env.url,
      'PATCH',
      `${DMS}/mf?fieldManager=alice`,
      JSON.stringify({ ...dm('mf'), spec: { replicas: 2 } }),
      APPLY,
    );
    const cleared = await api(env.url, 'PATCH', `${DMS}/mf`, { metadata: { managedFields: [{}] } }, MERGE);
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.metadata.managedFields, undefined);
    const upd = await api(env.url, 'PATCH', `${DMS}/mf?fieldManager=carol`, { spec: { dbtype: 'pg' } }, MERGE);
    assert.equal(
      upd.body.metadata.managedFields,
      undefined,
      'updates do not start tracking an object that has no managedFields',
    );
    // the first apply gives what is there to a before-first-apply manager, so the applier conflicts with it
    const first = await api(
      env.url,
      'PATCH',
      `${DMS}/mf?fieldManager=bob`,
      JSON.stringify({ ...dm('mf'), spec: { replicas: 6 } }),
      APPLY,
    );
    assert.equal(first.status, 409);
    assert.equal(
      first.body.message,
      'Apply failed with 1 conflict: conflict with "before-first-apply" using coolops.cn/v1alpha1: .spec.replicas',
    );
    const forced = await api(
      env.url,
      'PATCH',
      `${DMS}/mf?fieldManager=bob&force=true`,
      JSON.stringify({ ...dm('mf'), spec: { replicas: 6 } }),
      APPLY,
    );
    assert.equal(forced.status, 200);
    assert.deepEqual(
      forced.body.metadata.managedFields.map(
        (m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`,
      ),
      ['bob/Apply', 'before-first-apply/Update'],
    );
  });

  it('Deployments: strategic merge patch, defaults, /status and /scale', async () => {
    const c = await api(env.url, 'POST', DEPS, deployment('web', 2));
    assert.equal(c.status, 201);
    assert.equal(c.body.spec.strategy.type, 'RollingUpdate');
    assert.equal(c.body.spec.revisionHistoryLimit, 10);
    const p = await api(
      env.url,
      'PATCH',
      `${DEPS}/web`,
      {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'c', image: 'nginx:1.26' },
                { name: 'side', image: 'busybox' },
              ],
            },
          },
        },
      },
      SMP,
    );
    assert.equal(p.status, 200);
    assert.deepEqual(
      p.body.spec.template.spec.containers.map((x: { name: string; image: string }) => `${x.name}=${x.image}`),
      ['c=nginx:1.26', 'side=busybox'],
    );
    assert.equal(p.body.metadata.generation, 2);
    const s = await api(
      env.url,
      'PATCH',
      `${DEPS}/web/status`,
      { status: { readyReplicas: 2, replicas: 2 }, spec: { replicas: 9 } },
      MERGE,
    );
    assert.equal(s.status, 200);
    assert.equal(s.body.status.readyReplicas, 2);
    assert.equal(s.body.spec.replicas, 2);
    const g = await api(env.url, 'GET', `${DEPS}/web/scale`);
    assert.deepEqual(
      { kind: g.body.kind, apiVersion: g.body.apiVersion, spec: g.body.spec, status: g.body.status },
      {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        spec: { replicas: 2 },
        status: { replicas: 2, selector: 'app=web' },
      },
    );
    const u = await api(env.url, 'PUT', `${DEPS}/web/scale`, { ...g.body, spec: { replicas: 4 } });
    assert.equal(u.status, 200);
    assert.equal(u.body.spec.replicas, 4);
    assert.equal((await api(env.url, 'GET', `${DEPS}/web`)).body.spec.replicas, 4);
    const stale = await api(env.url, 'PUT', `${DEPS}/web/scale`, { ...g.body, spec: { replicas: 5 } });
    assert.equal(stale.status, 409);
  });

  it('a Deployment whose selector does not match its template labels is refused', async () => {
    const d = deployment('bad');
    (d.spec as { selector: unknown }).selector = { matchLabels: { app: 'other' } };
    const r = await api(env.url, 'POST', DEPS, d);
    assert.equal(r.status, 422);
    assert.equal(r.body.details.causes[0].field, 'spec.template.metadata.labels');
    assert.match(
      r.body.message,
      /^Deployment\.apps "bad" is invalid: spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`$/,
    );
  });

  it('leases and events are served for leader election and event recording', async () => {
    const l = await api(env.url, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader' },
      spec: { holderIdentity: 'me', leaseDurationSeconds: 15 },
    });
    assert.equal(l.status, 201);
    const e = await api(env.url, 'POST', '/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'ev1' },
      involvedObject: { kind: 'DatabaseManager', name: 'p1', namespace: 'default' },
      reason: 'Synced',
      message: 'ok',
    });
    assert.equal(e.status, 201);
    const q = await api(env.url, 'GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp1');
    assert.equal(q.body.items.length, 1);
    const ev2 = await api(env.url, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev2' },
      reason: 'Synced',
      action: 'Reconcile',
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'x',
      reportingInstance: 'y',
      type: 'Normal',
    });
    assert.equal(ev2.status, 201);
    const core = await api(env.url, 'GET', '/api/v1/namespaces/default/events/ev2');
    assert.equal(core.body.reportingComponent, 'x', 'one resource: the events.k8s.io event read as a core/v1 one');
  });
});

describe('YAML bodies', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('are read as YAML 1.1, as the apiserver reads them: `on`, `y` and `no` are booleans', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml11\n  labels:\n    x: on\n';
    const r = await api(env.url, 'PATCH', '/api/v1/namespaces/default/configmaps/yaml11?fieldManager=t', body, {
      'Content-Type': 'application/apply-patch+yaml',
    });
    // a label value must be a string: YAML 1.1 made it the boolean true
    assert.equal(r.status, 500, JSON.stringify(r.body));
    const ok = await api(
      env.url,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/yaml11?fieldManager=t',
      body.replace('x: on', 'x: "on"'),
      { 'Content-Type': 'application/apply-patch+yaml' },
    );
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });
});
