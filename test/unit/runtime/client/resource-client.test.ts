import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RestClient,
  resourceClient,
  groupVersionPath,
  PatchType,
  type ResourceClient,
  type ResourceDescriptor,
  DeploymentResource,
  NamespaceResource,
  LeaseResource,
  EventsV1EventResource,
  type Deployment,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type ListerWatcher,
  type KubeList,
  type KubeObject,
  CoreEventResource,
} from '../../../../src/runtime/index.js';
import { json, startServer, status, type SeenRequest } from './server.js';

interface DatabaseManager extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: { availableReplicas?: number };
}
const DM: ResourceDescriptor = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const BASE = '/apis/coolops.cn/v1alpha1';

function dm(name: string, ns = 'default'): DatabaseManager {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name, namespace: ns },
    spec: { deploymentName: name, replicas: 1, dbtype: 'mysql' },
  };
}

async function setup(
  t: import('node:test').TestContext,
  handler?: (req: SeenRequest) => { code: number; body: unknown } | undefined,
) {
  const srv = await startServer((req, res) => {
    const r = handler?.(req);
    if (r) json(res, r.code, r.body);
    else json(res, 200, { kind: 'Echo', method: req.method, body: req.body ? JSON.parse(req.body) : null });
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  return { srv, rest, client: resourceClient<DatabaseManager>(rest, DM) };
}

test('a ResourceClient is a ListerWatcher (type-level) and paths follow the GVR and scope', async (t) => {
  const { srv, client, rest } = await setup(t);
  const lw: ListerWatcher<DatabaseManager, KubeList<DatabaseManager>> = client;
  assert.ok(lw);
  assert.equal(groupVersionPath('', 'v1'), '/api/v1');
  const ns = client.namespace('team-a');
  assert.equal(ns.namespaceName, 'team-a');
  await ns.get('db-1');
  await client.list(); // all namespaces
  await ns.list();
  await ns.create(dm('db-2', 'team-a'));
  await client.create(dm('db-3', 'team-b')); // namespace from the object
  await ns.update(dm('db-2', 'team-a'));
  await ns.updateStatus({ ...dm('db-2', 'team-a'), status: { availableReplicas: 1 } });
  await resourceClient(rest, NamespaceResource).get('kube-system');
  await resourceClient(rest, NamespaceResource, { namespace: 'ignored' }).list();
  await resourceClient<Deployment>(rest, DeploymentResource).namespace('default').get('web');
  await resourceClient(rest, LeaseResource).namespace('kube-system').get('my-op');
  await resourceClient(rest, CoreEventResource).namespace('default').list();
  await resourceClient(rest, EventsV1EventResource).namespace('default').list();
  assert.deepEqual(
    srv.requests.map((r) => `${r.method} ${r.path}`),
    [
      `GET ${BASE}/namespaces/team-a/databasemanagers/db-1`,
      `GET ${BASE}/databasemanagers`,
      `GET ${BASE}/namespaces/team-a/databasemanagers`,
      `POST ${BASE}/namespaces/team-a/databasemanagers`,
      `POST ${BASE}/namespaces/team-b/databasemanagers`,
      `PUT ${BASE}/namespaces/team-a/databasemanagers/db-2`,
      `PUT ${BASE}/namespaces/team-a/databasemanagers/db-2/status`,
      'GET /api/v1/namespaces/kube-system',
      'GET /api/v1/namespaces',
      'GET /apis/apps/v1/namespaces/default/deployments/web',
      'GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/my-op',
      'GET /api/v1/namespaces/default/events',
      'GET /apis/events.k8s.io/v1/namespaces/default/events',
    ],
  );
});

test('namespace and name mistakes are clear errors, not requests', async (t) => {
  const { srv, client } = await setup(t);
  await assert.rejects(client.get('db'), /databasemanagers are namespaced; bind the client with namespace\(ns\)/);
  await assert.rejects(client.create({ metadata: { name: 'x' } }), /no namespace/);
  await assert.rejects(client.namespace('a').update(dm('x', 'b')), /does not match the client's "a"/);
  await assert.rejects(client.namespace('a').get(''), /non-empty name is required/);
  await assert.rejects(client.namespace('a').get('a/b'), /invalid name/);
  await assert.rejects(client.namespace('a').delete('..'), /invalid name/);
  assert.throws(() => client.namespace('x/y'), /invalid name/);
  assert.equal(srv.requests.length, 0);
});

test('list options, write options and delete options become the apiserver query and body', async (t) => {
  const { srv, client } = await setup(t);
  const c = client.namespace('default');
  await c.list({
    labelSelector: 'app=db,tier in (a,b)',
    fieldSelector: 'metadata.name=x',
    limit: 5,
    continue: 'tok',
    resourceVersion: '0',
    resourceVersionMatch: 'NotOlderThan',
    timeoutSeconds: 30,
  });
  const q = srv.requests[0].query;
  assert.equal(q.get('labelSelector'), 'app=db,tier in (a,b)');
  assert.equal(q.get('fieldSelector'), 'metadata.name=x');
  assert.equal(q.get('limit'), '5');
  assert.equal(q.get('continue'), 'tok');
  assert.equal(q.get('resourceVersion'), '0');
  assert.equal(q.get('resourceVersionMatch'), 'NotOlderThan');
  assert.equal(q.get('timeoutSeconds'), '30');
  await c.create(dm('x'), { dryRun: true, fieldManager: 'op', fieldValidation: 'Strict' });
  assert.equal(
    srv.requests[1].url,
    `${BASE}/namespaces/default/databasemanagers?dryRun=All&fieldManager=op&fieldValidation=Strict`,
  );
  await c.delete('x', {
    propagationPolicy: 'Foreground',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u1', resourceVersion: '7' },
  });
  assert.deepEqual(JSON.parse(srv.requests[2].body), {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    propagationPolicy: 'Foreground',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'u1', resourceVersion: '7' },
  });
  await c.delete('y');
  assert.equal(srv.requests[3].body, '');
  await c.deleteCollection({ labelSelector: 'app=db', propagationPolicy: 'Background' });
  assert.equal(srv.requests[4].method, 'DELETE');
  assert.equal(srv.requests[4].url, `${BASE}/namespaces/default/databasemanagers?labelSelector=app%3Ddb`);
  assert.equal(JSON.parse(srv.requests[4].body).propagationPolicy, 'Background');
});

test('patch flavours send their content type; apply needs a fieldManager and may force', async (t) => {
  const { srv, client } = await setup(t);
  const c = client.namespace('default');
  await c.patch('x', PatchType.JSON, [{ op: 'replace', path: '/spec/replicas', value: 3 }]);
  await c.patch('x', PatchType.Merge, { spec: { replicas: 2 } });
  await c.patch('x', PatchType.StrategicMerge, { spec: { replicas: 2 } });
  await c.patchStatus('x', PatchType.Merge, { status: { availableReplicas: 2 } });
  await c.apply(
    { apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name: 'x' }, spec: { replicas: 4 } },
    { fieldManager: 'crdgen-op', force: true },
  );
  await c.applyStatus(
    {
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name: 'x' },
      status: { availableReplicas: 4 },
    },
    { fieldManager: 'crdgen-op' },
  );
  const r = srv.requests;
  assert.deepEqual(
    r.map((x) => x.headers['content-type']),
    [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
      'application/apply-patch+yaml',
    ],
  );
  assert.ok(r.every((x) => x.method === 'PATCH'));
  assert.equal(r[3].path, `${BASE}/namespaces/default/databasemanagers/x/status`);
  assert.equal(r[4].url, `${BASE}/namespaces/default/databasemanagers/x?fieldManager=crdgen-op&force=true`);
  assert.deepEqual(JSON.parse(r[4].body).spec, { replicas: 4 });
  assert.equal(r[5].url, `${BASE}/namespaces/default/databasemanagers/x/status?fieldManager=crdgen-op`);
  await assert.rejects(
    c.apply({ apiVersion: 'v', kind: 'k', metadata: { name: 'x' } }, { fieldManager: '' }),
    /fieldManager is required/,
  );
  await assert.rejects(c.patch('x', PatchType.Apply, {}), /apply patch needs a fieldManager/);
  await assert.rejects(c.patch('x', PatchType.Merge, {}, { force: true }), /force is only allowed/);
  await assert.rejects(c.patch('x', 'text/plain' as PatchType, {}), /unknown patch type/);
  assert.equal(srv.requests.length, 6);
});

test('apiserver Status errors come back typed', async (t) => {
  const { client } = await setup(t, (req) => {
    if (req.method === 'GET')
      return { code: 404, body: status(404, 'NotFound', 'databasemanagers.coolops.cn "nope" not found') };
    if (req.method === 'POST') return { code: 409, body: status(409, 'AlreadyExists') };
    if (req.method === 'PUT') return { code: 409, body: status(409, 'Conflict', 'the object has been modified') };
    return {
      code: 422,
      body: {
        ...status(422, 'Invalid'),
        details: { causes: [{ field: 'spec.replicas', reason: 'FieldValueInvalid' }] },
      },
    };
  });
  const c: ResourceClient<DatabaseManager> = client.namespace('default');
  await assert.rejects(c.get('nope'), (e: unknown) => isNotFound(e));
  await assert.rejects(c.create(dm('x')), (e: unknown) => isAlreadyExists(e));
  await assert.rejects(c.update(dm('x')), (e: unknown) => isConflict(e));
  await assert.rejects(
    c.patch('x', PatchType.Merge, { spec: { replicas: 11 } }),
    (e: unknown) => isInvalid(e) && (e as { causes: Array<{ field?: string }> }).causes[0]?.field === 'spec.replicas',
  );
});

test('listAll follows continue tokens with the page size, and keeps the first page resourceVersion', async (t) => {
  const all = Array.from({ length: 7 }, (_, i) => dm(`db-${i}`));
  const { srv, client } = await setup(t, (req) => {
    const limit = Number(req.query.get('limit'));
    const start = Number(req.query.get('continue') ?? '0');
    const items = all.slice(start, start + limit);
    const next = start + limit < all.length ? String(start + limit) : undefined;
    return {
      code: 200,
      body: {
        kind: 'DatabaseManagerList',
        metadata: {
          resourceVersion: `rv${start}`,
          ...(next ? { continue: next, remainingItemCount: all.length - start - limit } : {}),
        },
        items,
      },
    };
  });
  const list = await client.listAll({ limit: 3, labelSelector: 'app=db' });
  assert.deepEqual(
    list.items.map((i) => i.metadata?.name),
    all.map((i) => i.metadata?.name),
  );
  assert.deepEqual(list.metadata, { resourceVersion: 'rv0' });
  assert.equal(srv.requests.length, 3);
  assert.ok(srv.requests.every((r) => r.query.get('limit') === '3' && r.query.get('labelSelector') === 'app=db'));
  assert.deepEqual(
    srv.requests.map((r) => r.query.get('continue')),
    [null, '3', '6'],
  );
});

test('an empty list answered with "items": null (kube-apiserver\'s empty PartialObjectMetadataList) is a list of no items', async (t) => {
  const { srv, rest } = await setup(t, () => ({
    code: 200,
    body: {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '7' },
      items: null,
    },
  }));
  const metadataOnly = resourceClient<DatabaseManager>(rest, DM, { metadataOnly: true });
  const page = await metadataOnly.list({ limit: 500 });
  assert.deepEqual(page.items, []);
  assert.equal(page.metadata?.resourceVersion, '7');
  assert.match(srv.requests[0].headers['accept'] ?? '', /as=PartialObjectMetadataList/);
  assert.deepEqual((await metadataOnly.listAll()).items, []);
  assert.deepEqual((await resourceClient<DatabaseManager>(rest, DM).list()).items, []);
});

test('listAll falls back to a full list when a continue token expired (410)', async (t) => {
  const { srv, client } = await setup(t, (req) => {
    if (req.query.get('continue'))
      return { code: 410, body: status(410, 'Expired', 'The provided continue parameter is too old') };
    if (req.query.get('limit'))
      return { code: 200, body: { metadata: { resourceVersion: '5', continue: 'c1' }, items: [dm('a')] } };
    return { code: 200, body: { metadata: { resourceVersion: '9' }, items: [dm('a'), dm('b')] } };
  });
  const list = await client.listAll({ limit: 1 });
  assert.deepEqual(
    list.items.map((i) => i.metadata?.name),
    ['a', 'b'],
  );
  assert.equal(list.metadata?.resourceVersion, '9');
  assert.deepEqual(
    srv.requests.map((r) => r.query.get('limit')),
    ['1', '1', null],
  );
});

test('watch through the resource client passes list options and yields typed events', async (t) => {
  const srv = await startServer((req, res) => {
    res.writeHead(200);
    res.end(JSON.stringify({ type: 'ADDED', object: dm('w') }) + '\n');
    void req;
  });
  const rest = new RestClient({ server: srv.url, qps: 0 });
  t.after(async () => {
    rest.close();
    await srv.close();
  });
  const w = await resourceClient<DatabaseManager>(rest, DM)
    .namespace('default')
    .watch({ resourceVersion: '42', allowWatchBookmarks: true, timeoutSeconds: 300, labelSelector: 'a=b' });
  const names: string[] = [];
  for await (const e of w) if (e.type === 'ADDED') names.push(e.object.metadata?.name ?? '');
  assert.deepEqual(names, ['w']);
  const q = srv.requests[0];
  assert.equal(q.path, `${BASE}/namespaces/default/databasemanagers`);
  assert.deepEqual(Object.fromEntries(q.query), {
    resourceVersion: '42',
    timeoutSeconds: '300',
    allowWatchBookmarks: 'true',
    labelSelector: 'a=b',
    watch: 'true',
  });
});
