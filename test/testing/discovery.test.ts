// Discovery and OpenAPI as kubectl reads them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api } from './helpers.js';

describe('discovery', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('/version, /api and /apis', async () => {
    const v = await api(env.url, 'GET', '/version');
    assert.equal(v.body.major, '1');
    assert.match(v.body.gitVersion, /^v1\.\d+\.\d+/);
    const a = await api(env.url, 'GET', '/api');
    assert.equal(a.body.kind, 'APIVersions');
    assert.deepEqual(a.body.versions, ['v1']);
    const g = await api(env.url, 'GET', '/apis');
    assert.equal(g.body.kind, 'APIGroupList');
    const names = g.body.groups.map((x: { name: string }) => x.name);
    for (const n of ['apiextensions.k8s.io', 'apps', 'events.k8s.io', 'coordination.k8s.io', 'coolops.cn'])
      assert.ok(names.includes(n), n);
    const dm = g.body.groups.find((x: { name: string }) => x.name === 'coolops.cn');
    assert.deepEqual(dm.preferredVersion, { groupVersion: 'coolops.cn/v1alpha1', version: 'v1alpha1' });
  });

  it('/api/v1 and /apis/apps/v1 list resources with verbs, short names and subresources', async () => {
    const core = await api(env.url, 'GET', '/api/v1');
    const ns = core.body.resources.find((r: { name: string }) => r.name === 'namespaces');
    assert.equal(ns.namespaced, false);
    assert.deepEqual(ns.shortNames, ['ns']);
    const apps = await api(env.url, 'GET', '/apis/apps/v1');
    const names = apps.body.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ['deployments', 'deployments/status', 'deployments/scale']);
    const dep = apps.body.resources[0];
    assert.deepEqual(dep.categories, ['all']);
    assert.ok(dep.verbs.includes('watch') && dep.verbs.includes('patch'));
    assert.equal(apps.body.resources[2].kind, 'Scale');
    assert.equal((await api(env.url, 'GET', '/apis/nothing.example.com/v1')).status, 404);
  });

  it('/openapi/v2 answers protobuf to kubectl (a gnostic Document with swagger "2.0") and JSON otherwise', async () => {
    const buf = await new Promise<{ type: string | undefined; body: Buffer }>((resolve, reject) => {
      const req = request(
        `${env.url}/openapi/v2`,
        { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' }, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ type: res.headers['content-type'], body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(buf.type, 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // field 1 (swagger), wire type 2, length 3, "2.0"
    assert.deepEqual([...buf.body.subarray(0, 5)], [0x0a, 0x03, 0x32, 0x2e, 0x30]);
    // the definitions are in it: the built-ins' and each CRD's (kubectl explain reads them)
    assert.ok(buf.body.includes(Buffer.from('io.k8s.api.apps.v1.Deployment')));
    const j = await api(env.url, 'GET', '/openapi/v2');
    assert.equal(j.body.swagger, '2.0');
    assert.ok(j.body.definitions['io.k8s.api.core.v1.ConfigMap'], 'the built-in definitions');
  });

  it("/openapi/v3 indexes every served group version; a CRD version's document has its kind, list and operations", async () => {
    const index = await api(env.url, 'GET', '/openapi/v3');
    assert.equal(index.status, 200);
    assert.match(index.body.paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    const crdPath = Object.keys(index.body.paths).find((p) => p.startsWith('apis/coolops.cn/'));
    assert.ok(crdPath, JSON.stringify(Object.keys(index.body.paths)));
    const doc = await api(env.url, 'GET', `/openapi/v3/${crdPath}`);
    const schemas = doc.body.components.schemas;
    const kind = schemas[`cn.coolops.${crdPath.split('/').pop()}.DatabaseManager`];
    assert.deepEqual(kind['x-kubernetes-group-version-kind'], [
      { group: 'coolops.cn', kind: 'DatabaseManager', version: crdPath.split('/').pop() },
    ]);
    assert.deepEqual(kind.properties.metadata.allOf, [
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
    ]);
    assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], 'what the kind references comes with it');
    const item = Object.entries(doc.body.paths).find(([p]) => p.endsWith('/databasemanagers/{name}'))![1] as Record<
      string,
      Record<string, unknown>
    >;
    assert.equal(item.get['x-kubernetes-action'], 'get');
    assert.equal((await api(env.url, 'GET', '/openapi/v3/apis/nope.example.com/v1')).status, 404);
  });
});
