// Semantics of create/get/update/delete on a custom resource, pinned with the
// apiserver's status codes and Status bodies.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, dm } from './helpers.js';

const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

describe('custom resource CRUD', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('create sets uid, creationTimestamp, generation 1 and a resourceVersion from the global counter', async () => {
    const a = await api(env.url, 'POST', DMS, dm('c1'));
    assert.equal(a.status, 201);
    const m = a.body.metadata;
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(m.generation, 1);
    assert.equal(m.namespace, 'default');
    const b = await api(env.url, 'POST', DMS, dm('c2'));
    assert.ok(Number(b.body.metadata.resourceVersion) > Number(m.resourceVersion));
    assert.notEqual(b.body.metadata.uid, m.uid);
  });

  it('create ignores status when the status subresource is on', async () => {
    const r = await api(env.url, 'POST', DMS, dm('c3', 2, { status: { availableReplicas: 5 } }));
    assert.equal(r.status, 201);
    assert.equal(r.body.status, undefined);
  });

  it('generateName picks a name; dryRun=All validates without storing', async () => {
    const g = await api(env.url, 'POST', DMS, { ...dm('ignored'), metadata: { generateName: 'gen-' } });
    assert.equal(g.status, 201);
    assert.match(g.body.metadata.name, /^gen-[a-z0-9]{5}$/);
    const d = await api(env.url, 'POST', `${DMS}?dryRun=All`, dm('dry'));
    assert.equal(d.status, 201);
    assert.equal((await api(env.url, 'GET', `${DMS}/dry`)).status, 404);
    const bad = await api(env.url, 'POST', `${DMS}?dryRun=All`, dm('dry', 50));
    assert.equal(bad.status, 422);
  });

  it('409 AlreadyExists with the apiserver body', async () => {
    await api(env.url, 'POST', DMS, dm('dup'));
    const r = await api(env.url, 'POST', DMS, dm('dup'));
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'databasemanagers.coolops.cn "dup" already exists',
      reason: 'AlreadyExists',
      details: { name: 'dup', group: 'coolops.cn', kind: 'databasemanagers' },
      code: 409,
    });
  });

  it('404 NotFound with the apiserver body', async () => {
    const r = await api(env.url, 'GET', `${DMS}/nope`);
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'databasemanagers.coolops.cn "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', group: 'coolops.cn', kind: 'databasemanagers' },
      code: 404,
    });
  });

  it('422 Invalid names the field and the bound, with details.causes', async () => {
    const r = await api(env.url, 'POST', DMS, dm('big', 11));
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, 'Invalid');
    assert.equal(
      r.body.message,
      'DatabaseManager.coolops.cn "big" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
    assert.deepEqual(r.body.details, {
      name: 'big',
      group: 'coolops.cn',
      kind: 'DatabaseManager',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 11: spec.replicas in body should be less than or equal to 10',
          field: 'spec.replicas',
        },
      ],
    });
  });

  it('several errors are bracketed, one cause each', async () => {
    const r = await api(env.url, 'POST', DMS, dm('two', 0, { spec: { replicas: 0, deploymentName: 5 } }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /^DatabaseManager\.coolops\.cn "two" is invalid: \[.*, .*\]$/);
    assert.equal(r.body.details.causes.length, 2);
    assert.deepEqual(r.body.details.causes.map((c: { field: string }) => c.field).sort(), [
      'spec.deploymentName',
      'spec.replicas',
    ]);
  });

  it('update with a stale resourceVersion gets 409 Conflict', async () => {
    const c = await api(env.url, 'POST', DMS, dm('occ'));
    const obj = c.body;
    obj.spec.replicas = 3;
    const ok = await api(env.url, 'PUT', `${DMS}/occ`, obj);
    assert.equal(ok.status, 200);
    obj.spec.replicas = 4; // still the old resourceVersion
    const r = await api(env.url, 'PUT', `${DMS}/occ`, obj);
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Operation cannot be fulfilled on databasemanagers.coolops.cn "occ": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'occ', group: 'coolops.cn', kind: 'databasemanagers' },
      code: 409,
    });
  });

  it('update of a custom resource without resourceVersion is refused (422)', async () => {
    await api(env.url, 'POST', DMS, dm('norv'));
    const r = await api(env.url, 'PUT', `${DMS}/norv`, dm('norv', 3));
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      'databasemanagers.coolops.cn "norv" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
    );
    assert.equal(r.body.details.kind, 'databasemanagers', 'the update strategy names the resource');
  });

  it('generation bumps on spec changes only; status writes go through /status only', async () => {
    const c = await api(env.url, 'POST', DMS, dm('gen'));
    let obj = c.body;
    obj.metadata.labels.extra = 'x';
    obj = (await api(env.url, 'PUT', `${DMS}/gen`, obj)).body;
    assert.equal(obj.metadata.generation, 1, 'metadata change keeps generation');
    obj.spec.replicas = 5;
    obj.status = { availableReplicas: 9 };
    obj = (await api(env.url, 'PUT', `${DMS}/gen`, obj)).body;
    assert.equal(obj.metadata.generation, 2);
    assert.equal(obj.status, undefined, 'main resource write ignores status');
    obj.status = { availableReplicas: 5 };
    obj.spec.replicas = 7;
    const s = await api(env.url, 'PUT', `${DMS}/gen/status`, obj);
    assert.equal(s.status, 200);
    assert.deepEqual(s.body.status, { availableReplicas: 5 });
    assert.equal(s.body.spec.replicas, 5, '/status write ignores spec');
    assert.equal(s.body.metadata.generation, 2, '/status write keeps generation');
  });

  it('a no-op update keeps the resourceVersion', async () => {
    const c = await api(env.url, 'POST', DMS, dm('noop'));
    const r = await api(env.url, 'PUT', `${DMS}/noop`, c.body);
    assert.equal(r.status, 200);
    assert.equal(r.body.metadata.resourceVersion, c.body.metadata.resourceVersion);
  });

  it('unknown fields are pruned; fieldValidation=Strict refuses them with 400', async () => {
    const r = await api(env.url, 'POST', DMS, dm('prune', 2, { spec: { replicas: 2, bogus: 1 } }));
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.spec, { replicas: 2 });
    assert.match(String(r.headers.warning ?? ''), /unknown field \\"spec\.bogus\\"/);
    const s = await api(
      env.url,
      'POST',
      `${DMS}?fieldValidation=Strict`,
      dm('strict', 2, { spec: { replicas: 2, bogus: 1 } }),
    );
    assert.equal(s.status, 400);
    assert.equal(
      s.body.message,
      'DatabaseManager in version "v1alpha1" cannot be handled as a DatabaseManager: strict decoding error: unknown field "spec.bogus"',
    );
  });

  it('delete with a finalizer returns the object (200) and it stays until the finalizer is removed; otherwise a Success Status', async () => {
    await api(env.url, 'POST', DMS, dm('fin', 2, { metadata: { name: 'fin', finalizers: ['example.com/keep'] } }));
    const d = await api(env.url, 'DELETE', `${DMS}/fin`);
    assert.equal(d.status, 200);
    assert.match(d.body.metadata.deletionTimestamp, /Z$/);
    assert.equal(d.body.metadata.generation, 2, 'setting deletionTimestamp bumps generation');
    const still = await api(env.url, 'GET', `${DMS}/fin`);
    assert.equal(still.status, 200);
    const p = await api(
      env.url,
      'PATCH',
      `${DMS}/fin`,
      { metadata: { finalizers: null } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.equal(p.status, 200);
    assert.equal((await api(env.url, 'GET', `${DMS}/fin`)).status, 404);
    await api(env.url, 'POST', DMS, dm('plain'));
    const d2 = await api(env.url, 'DELETE', `${DMS}/plain`);
    assert.equal(d2.status, 200);
    assert.equal(d2.body.kind, 'Status');
    assert.equal(d2.body.status, 'Success');
    assert.deepEqual(
      { ...d2.body.details, uid: undefined },
      { name: 'plain', group: 'coolops.cn', kind: 'databasemanagers', uid: undefined },
    );
  });

  it('delete preconditions: a wrong uid gets 409', async () => {
    await api(env.url, 'POST', DMS, dm('pre'));
    const r = await api(env.url, 'DELETE', `${DMS}/pre`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      preconditions: { uid: 'other' },
    });
    assert.equal(r.status, 409);
    assert.match(
      r.body.message,
      /^Operation cannot be fulfilled on DatabaseManager\.coolops\.cn "pre": the UID in the precondition \(other\) does not match the UID in record \([0-9a-f-]+\)\. The object might have been deleted and then recreated$/,
    );
  });

  it('deletecollection removes the selected objects', async () => {
    await api(env.url, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'coll' },
    });
    const base = '/apis/coolops.cn/v1alpha1/namespaces/coll/databasemanagers';
    for (const n of ['a', 'b', 'c']) await api(env.url, 'POST', base, dm(n));
    const r = await api(env.url, 'DELETE', `${base}?labelSelector=app%20in%20(a,b)`);
    assert.equal(r.status, 200);
    const left = await api(env.url, 'GET', base);
    assert.deepEqual(
      left.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['c'],
    );
  });
});

describe('bad input', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('malformed JSON → 400 with a clear message', async () => {
    const r = await api(env.url, 'POST', DMS, '{"apiVersion": ');
    assert.equal(r.status, 400);
    assert.equal(r.body.kind, 'Status');
    assert.equal(r.body.reason, 'BadRequest');
    assert.match(r.body.message, /json parse error/);
  });

  it('malformed YAML → 400', async () => {
    const r = await api(env.url, 'POST', DMS, 'kind: [unclosed', { 'Content-Type': 'application/yaml' });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /yaml/);
  });

  it('wrong apiVersion and missing kind → 400', async () => {
    const r = await api(env.url, 'POST', DMS, { ...dm('x'), apiVersion: 'coolops.cn/v1' });
    assert.equal(r.status, 400);
    assert.equal(
      r.body.message,
      'the API version in the data (coolops.cn/v1) does not match the expected API version (coolops.cn/v1alpha1)',
    );
    const k = await api(env.url, 'POST', DMS, { apiVersion: 'coolops.cn/v1alpha1', metadata: { name: 'x' } });
    assert.equal(k.status, 400);
    // kube-apiserver 1.37: custom resources are decoded as unstructured, which needs the kind
    assert.equal(
      k.body.message,
      `the object provided is unrecognized (must be of type DatabaseManager): Object 'Kind' is missing in '{"apiVersion":"coolops.cn/v1alpha1","metadata":{"name":"x"}}' ({"apiVersion":"coolops.cn/v1al ...)`,
    );
  });

  it('a name that is not DNS-1123 → 422 on metadata.name', async () => {
    const r = await api(env.url, 'POST', DMS, dm('Bad_Name'));
    assert.equal(r.status, 422);
    assert.equal(r.body.details.causes[0].field, 'metadata.name');
    assert.match(r.body.message, /a lowercase RFC 1123 subdomain must consist of/);
  });

  it('a namespace that does not exist → 404 namespaces "x" not found', async () => {
    const r = await api(env.url, 'POST', '/apis/coolops.cn/v1alpha1/namespaces/ghost/databasemanagers', dm('x'));
    assert.equal(r.status, 404);
    assert.equal(r.body.message, 'namespaces "ghost" not found');
    assert.deepEqual(r.body.details, { name: 'ghost', kind: 'namespaces' });
  });

  it('an oversize body → 413', async () => {
    const huge = JSON.stringify({ ...dm('huge'), spec: { pad: 'x'.repeat(3 * 1024 * 1024 + 10) } });
    const r = await api(env.url, 'POST', DMS, huge);
    assert.equal(r.status, 413);
    assert.equal(r.body.reason, 'RequestEntityTooLarge');
    assert.equal(r.body.message, 'Request entity too large: limit is 3145728');
  });

  it("unknown paths → 404 page not found (text, as the apiserver's mux); the server keeps its objects after bad requests", async () => {
    await api(env.url, 'POST', DMS, dm('keep'));
    const r = await api(env.url, 'GET', '/apis/nope.example.com/v1/things');
    assert.equal(r.status, 404);
    assert.equal(r.body, '404 page not found\n');
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.equal((await api(env.url, 'GET', `${DMS}/keep`)).status, 200);
  });

  it('a strategic merge patch on a custom resource → 415', async () => {
    await api(env.url, 'POST', DMS, dm('smp'));
    const r = await api(
      env.url,
      'PATCH',
      `${DMS}/smp`,
      { spec: { replicas: 3 } },
      { 'Content-Type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(r.status, 415);
    assert.equal(r.body.reason, 'UnsupportedMediaType');
  });
});
