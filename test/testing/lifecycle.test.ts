// CRD lifecycle, garbage collection and namespace deletion.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, deployment, dm, eventually, watch } from './helpers.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crdObject = (): Record<string, any> => parse(readFileSync(DM_CRD, 'utf8'));

describe('CustomResourceDefinitions', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer();
  });
  after(() => env.stop());

  it('a CRD whose default breaks its own schema is refused at install, as the apiserver refuses it', async () => {
    const crd = crdObject();
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas = {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      default: 20,
    };
    const r = await api(env.url, 'POST', CRDS, crd);
    assert.equal(r.status, 422);
    const field = 'spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default';
    assert.deepEqual(r.body.details.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: 20:  in body should be less than or equal to 10', field },
    ]);
    await assert.rejects(
      startTestApiServer({ crds: [crd] }),
      /is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[replicas\]\.default: Invalid value: 20: {2}in body should be less than or equal to 10/,
    );
  });

  it('the seed typo `type: strin` gets 422 with the apiserver message and field', async () => {
    const crd = crdObject();
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.deploymentName.type = 'strin';
    const r = await api(env.url, 'POST', CRDS, crd);
    assert.equal(r.status, 422);
    const field = 'spec.validation.openAPIV3Schema.properties[spec].properties[deploymentName].type';
    const body =
      'Unsupported value: "strin": supported values: "array", "boolean", "integer", "number", "object", "string"';
    assert.equal(
      r.body.message,
      `CustomResourceDefinition.apiextensions.k8s.io "databasemanagers.coolops.cn" is invalid: ${field}: ${body}`,
    );
    assert.deepEqual(r.body.details.causes, [{ reason: 'FieldValueNotSupported', message: body, field }]);
    assert.equal((await api(env.url, 'GET', '/apis/coolops.cn/v1alpha1')).status, 404, 'nothing served');
  });

  it('creating a CRD establishes it and starts serving its version; discovery lists it', async () => {
    const r = await api(env.url, 'POST', CRDS, crdObject());
    assert.equal(r.status, 201);
    const conds = r.body.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`);
    assert.deepEqual(conds, ['NamesAccepted=True', 'Established=True']);
    assert.deepEqual(r.body.status.storedVersions, ['v1alpha1']);
    assert.equal(r.body.status.acceptedNames.listKind, 'DatabaseManagerList');
    // kube-apiserver adds the cleanup finalizer when the CRD is deleted, not at create
    assert.equal(r.body.metadata.finalizers, undefined);
    const groups = await api(env.url, 'GET', '/apis');
    assert.ok(groups.body.groups.some((g: { name: string }) => g.name === 'coolops.cn'));
    const res = await api(env.url, 'GET', '/apis/coolops.cn/v1alpha1');
    assert.equal(res.body.resources[0].name, 'databasemanagers');
    assert.deepEqual(res.body.resources[0].shortNames, ['dm']);
    assert.equal(res.body.resources[1].name, 'databasemanagers/status');
    assert.equal(
      (await api(env.url, 'POST', '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers', dm('x'))).status,
      201,
    );
  });

  it('deleting a CRD removes its objects, then the CRD, and stops serving it (open watches end)', async () => {
    const w = await watch(env.url, '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers?watch=true');
    assert.equal((await w.at(0)).object.metadata.name, 'x');
    const d = await api(env.url, 'DELETE', `${CRDS}/databasemanagers.coolops.cn`);
    assert.equal(d.status, 200);
    assert.deepEqual(d.body.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    assert.ok(
      d.body.status.conditions.some(
        (c: { type: string; status: string; reason: string }) =>
          c.type === 'Terminating' && c.status === 'True' && c.reason === 'InstanceDeletionPending',
      ),
    );
    await eventually(async () => (await api(env.url, 'GET', `${CRDS}/databasemanagers.coolops.cn`)).status === 404);
    await w.ended;
    assert.deepEqual(
      w.events.map((e) => e.type),
      ['ADDED', 'DELETED'],
    );
    assert.equal(
      (await api(env.url, 'GET', '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers')).status,
      404,
    );
    // Re-creating it serves an empty collection.
    assert.equal((await api(env.url, 'POST', CRDS, crdObject())).status, 201);
    const l = await api(env.url, 'GET', '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers');
    assert.deepEqual(l.body.items, []);
  });

  it('additionalPrinterColumns drive the Table', async () => {
    const crd = crdObject();
    crd.metadata.name = 'widgets.example.com';
    crd.spec.group = 'example.com';
    crd.spec.names = { kind: 'Widget', plural: 'widgets' };
    crd.spec.versions[0].additionalPrinterColumns = [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }];
    assert.equal((await api(env.url, 'POST', CRDS, crd)).status, 201);
    const w = { ...dm('w1', 4), apiVersion: 'example.com/v1alpha1', kind: 'Widget' };
    assert.equal((await api(env.url, 'POST', '/apis/example.com/v1alpha1/namespaces/default/widgets', w)).status, 201);
    const t = await api(env.url, 'GET', '/apis/example.com/v1alpha1/namespaces/default/widgets', undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    assert.deepEqual(
      t.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Replicas'],
    );
    assert.deepEqual(t.body.rows[0].cells, ['w1', 4]);
  });
});

describe('garbage collection', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
  const DEPS = '/apis/apps/v1/namespaces/default/deployments';
  const owned = (
    name: string,
    owner: { metadata: { name: string; uid: string } },
    block = true,
  ): Record<string, unknown> => {
    const d = deployment(name);
    (d.metadata as Record<string, unknown>).ownerReferences = [
      {
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        name: owner.metadata.name,
        uid: owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: block,
      },
    ];
    return d;
  };

  it('background: deleting a DatabaseManager removes its Deployment', async () => {
    const owner = (await api(env.url, 'POST', DMS, dm('gc1'))).body;
    assert.equal((await api(env.url, 'POST', DEPS, owned('gc1-dep', owner))).status, 201);
    assert.equal((await api(env.url, 'DELETE', `${DMS}/gc1`)).status, 200);
    await env.settle();
    assert.equal((await api(env.url, 'GET', `${DEPS}/gc1-dep`)).status, 404);
  });

  it('foreground: the owner stays (foregroundDeletion) until blocking dependents are gone', async () => {
    const owner = (await api(env.url, 'POST', DMS, dm('gc2'))).body;
    await api(env.url, 'POST', DEPS, owned('gc2-dep', owner));
    const d = await api(env.url, 'DELETE', `${DMS}/gc2`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
    });
    assert.equal(d.status, 200, 'pending deletion: 200 with the object (202 is only for orphanDependents=false)');
    assert.deepEqual(d.body.metadata.finalizers, ['foregroundDeletion']);
    await env.settle();
    assert.equal((await api(env.url, 'GET', `${DEPS}/gc2-dep`)).status, 404);
    assert.equal((await api(env.url, 'GET', `${DMS}/gc2`)).status, 404);
  });

  it('orphan: dependents stay, without the owner reference', async () => {
    const owner = (await api(env.url, 'POST', DMS, dm('gc3'))).body;
    await api(env.url, 'POST', DEPS, owned('gc3-dep', owner));
    const d = await api(env.url, 'DELETE', `${DMS}/gc3?propagationPolicy=Orphan`);
    assert.equal(d.status, 200);
    assert.deepEqual(d.body.metadata.finalizers, ['orphan']);
    await env.settle();
    assert.equal((await api(env.url, 'GET', `${DMS}/gc3`)).status, 404);
    const dep = await api(env.url, 'GET', `${DEPS}/gc3-dep`);
    assert.equal(dep.status, 200);
    assert.equal(dep.body.metadata.ownerReferences, undefined);
  });

  it('a dependent whose owner does not exist is collected', async () => {
    const ghost = { metadata: { name: 'ghost', uid: '00000000-0000-0000-0000-000000000000' } };
    assert.equal((await api(env.url, 'POST', DEPS, owned('orphaned-dep', ghost, false))).status, 201);
    await env.settle();
    assert.equal((await api(env.url, 'GET', `${DEPS}/orphaned-dep`)).status, 404);
  });

  it('a dependent with another live owner only loses the dangling reference... and is kept', async () => {
    const a = (await api(env.url, 'POST', DMS, dm('gc4a'))).body;
    const b = (await api(env.url, 'POST', DMS, dm('gc4b'))).body;
    const dep = owned('gc4-dep', a, false);
    (dep.metadata as { ownerReferences: unknown[] }).ownerReferences.push({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      name: 'gc4b',
      uid: b.metadata.uid,
    });
    await api(env.url, 'POST', DEPS, dep);
    await api(env.url, 'DELETE', `${DMS}/gc4a`);
    await env.settle();
    assert.equal((await api(env.url, 'GET', `${DEPS}/gc4-dep`)).status, 200);
  });
});

describe('namespaces', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('default, kube-system and kube-public may not be deleted (403)', async () => {
    const r = await api(env.url, 'DELETE', '/api/v1/namespaces/default');
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'namespaces "default" is forbidden: this namespace may not be deleted');
  });

  it('deleting a namespace marks it Terminating, removes its content, then the namespace', async () => {
    await api(env.url, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'doomed' },
    });
    await api(env.url, 'POST', '/apis/coolops.cn/v1alpha1/namespaces/doomed/databasemanagers', dm('x'));
    const d = await api(env.url, 'DELETE', '/api/v1/namespaces/doomed');
    assert.equal(d.status, 200);
    assert.equal(d.body.status.phase, 'Terminating');
    assert.equal(d.body.metadata.deletionGracePeriodSeconds, undefined, 'a namespace deletion is not graceful');
    await env.settle();
    assert.equal((await api(env.url, 'GET', '/api/v1/namespaces/doomed')).status, 404);
    assert.deepEqual(
      (await api(env.url, 'GET', '/apis/coolops.cn/v1alpha1/namespaces/doomed/databasemanagers')).body.items,
      [],
    );
  });
});
