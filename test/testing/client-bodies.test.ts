// What real clients send, answered as kube-apiserver v1.37.1 answers it (each expected value
// was read from the real apiserver): bodies without apiVersion/kind (the Python client's typed
// objects and dicts), boolean query parameters spelled `True` (the Python client), wrong kinds
// and versions, and DELETE's answers (200 with the object while finalizers remain, a Success
// Status once gone, 202 only for orphanDependents=false).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, api, deployment, dm, eventually, watch } from './helpers.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const DEPS = '/apis/apps/v1/namespaces/default/deployments';
const DMS = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

describe('bodies without apiVersion or kind', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('a built-in kind takes both from the endpoint (create and replace, JSON and YAML)', async () => {
    const c = await api(env.url, 'POST', CMS, { metadata: { name: 'plain' }, data: { a: '1' } });
    assert.equal(c.status, 201, c.body.message);
    assert.equal(c.body.kind, 'ConfigMap');
    assert.equal(c.body.apiVersion, 'v1');
    assert.deepEqual(c.body.data, { a: '1' });
    const r = await api(env.url, 'PUT', `${CMS}/plain`, { metadata: { name: 'plain' }, data: { a: '2' } });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(r.body.data, { a: '2' });
    assert.equal((await api(env.url, 'POST', CMS, { kind: 'ConfigMap', metadata: { name: 'kind-only' } })).status, 201);
    assert.equal(
      (await api(env.url, 'POST', CMS, { apiVersion: 'v1', metadata: { name: 'version-only' } })).status,
      201,
    );
    const y = await api(env.url, 'POST', CMS, 'metadata:\n  name: yaml\n', { 'Content-Type': 'application/yaml' });
    assert.equal(y.status, 201, y.body.message);
    const d = await api(env.url, 'POST', DEPS, { ...deployment('typed'), apiVersion: undefined, kind: undefined });
    assert.equal(d.status, 201, d.body.message);
    assert.equal(d.body.kind, 'Deployment');
    const ns = await api(env.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'no-kind' } });
    assert.equal(ns.status, 201, ns.body.message);
    assert.equal(ns.body.status.phase, 'Active');
  });

  it("a Secret's stringData is merged into data (base64) and not kept; type defaults to Opaque", async () => {
    const s = await api(env.url, 'POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'typed-secret' },
      data: { a: 'YQ==' },
      stringData: { k: 'v', a: 'b' },
    });
    assert.equal(s.status, 201, s.body.message);
    assert.deepEqual(s.body.data, { a: 'Yg==', k: 'dg==' });
    assert.equal(s.body.stringData, undefined);
    assert.equal(s.body.type, 'Opaque');
    const p = await api(
      env.url,
      'PATCH',
      '/api/v1/namespaces/default/secrets/typed-secret',
      { stringData: { k: 'w' } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    assert.deepEqual(p.body.data, { a: 'Yg==', k: 'dw==' });
    assert.equal(p.body.stringData, undefined);
  });

  it('a Scale replaced without apiVersion/kind is an autoscaling/v1 Scale', async () => {
    const s = await api(env.url, 'PUT', `${DEPS}/typed/scale`, { metadata: { name: 'typed' }, spec: { replicas: 3 } });
    assert.equal(s.status, 200, s.body.message);
    assert.equal(s.body.kind, 'Scale');
    assert.equal(s.body.spec.replicas, 3);
  });

  it('another kind or version of a built-in: the decoder’s 400', async () => {
    const k = await api(env.url, 'POST', CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    assert.equal(k.status, 400);
    assert.equal(
      k.body.message,
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
    const v = await api(env.url, 'POST', CMS, { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } });
    assert.equal(v.status, 400);
    assert.equal(
      v.body.message,
      'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:111"',
    );
    const g = await api(env.url, 'POST', CMS, { apiVersion: 'apps/v1', metadata: { name: 'x' } });
    assert.equal(
      g.body.message,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"',
    );
    const d = await api(env.url, 'POST', DEPS, { apiVersion: 'v1', kind: 'Deployment', metadata: { name: 'x' } });
    assert.equal(
      d.body.message,
      'Deployment in version "v1" cannot be handled as a Deployment: no kind "Deployment" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"',
    );
    const e = await api(env.url, 'POST', CMS, '');
    assert.equal(e.status, 400);
    assert.equal(
      e.body.message,
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)",
    );
    const a = await api(env.url, 'POST', CMS, '[]');
    assert.equal(
      a.body.message,
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b5d)',
    );
  });

  it('a custom resource needs its kind and apiVersion; another kind is a 422 on kind', async () => {
    const body = '{"metadata": {"name": "custom-nokind"}, "spec": {"deploymentName": "custom-nokind", "replicas": 1}}';
    const n = await api(env.url, 'POST', DMS, body);
    assert.equal(n.status, 400);
    assert.equal(
      n.body.message,
      `the object provided is unrecognized (must be of type DatabaseManager): Object 'Kind' is missing in '${body}' ({"metadata": {"name": "custom- ...)`,
    );
    const y = await api(env.url, 'POST', DMS, 'metadata:\n  name: y1\nspec:\n  replicas: 1\n', {
      'Content-Type': 'application/yaml',
    });
    assert.equal(
      y.body.message,
      "the object provided is unrecognized (must be of type DatabaseManager): Object 'Kind' is missing in 'metadata:\n  name: y1\nspec:\n  replicas: 1\n' (6d657461646174613a0a20206e616d653a2079310a737065633a0a202072 ...)",
    );
    const v = await api(env.url, 'POST', DMS, { ...dm('no-version'), apiVersion: undefined });
    assert.equal(v.status, 400);
    assert.equal(
      v.body.message,
      'the API version in the data () does not match the expected API version (coolops.cn/v1alpha1)',
    );
    const k = await api(env.url, 'POST', DMS, { ...dm('w1'), kind: 'Bar', spec: { replicas: 100 } });
    assert.equal(k.status, 422);
    assert.deepEqual(k.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Bar.coolops.cn "w1" is invalid: kind: Invalid value: "Bar": must be DatabaseManager',
      reason: 'Invalid',
      details: {
        name: 'w1',
        group: 'coolops.cn',
        kind: 'Bar',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "Bar": must be DatabaseManager', field: 'kind' },
        ],
      },
      code: 422,
    });
    const put = await api(env.url, 'PUT', `${DMS}/w1`, { metadata: { name: 'w1' } });
    assert.equal(put.status, 400);
    assert.match(
      put.body.message,
      /^the object provided is unrecognized \(must be of type DatabaseManager\): Object 'Kind' is missing in/,
    );
  });
});

describe('boolean query parameters as the apiserver reads them', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({
      bookmarkIntervalMs: 200,
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seen', namespace: 'default' } }],
    });
  });
  after(() => env.stop());

  // anything but 0 and false (in any case) is true; the Python client sends watch=True
  for (const [value, watches] of [
    ['true', true],
    ['True', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['', true],
    ['false', false],
    ['False', false],
    ['FALSE', false],
    ['0', false],
  ] as const) {
    it(`watch=${value} ${watches ? 'watches' : 'lists'}`, async () => {
      const r = await api(env.url, 'GET', `${CMS}?watch=${value}&timeoutSeconds=1`);
      assert.equal(r.status, 200);
      const first = JSON.parse(String(typeof r.body === 'string' ? r.body.split('\n')[0] : JSON.stringify(r.body))) as {
        type?: string;
        kind?: string;
      };
      if (watches) assert.equal(first.type, 'ADDED', `watch=${value} answered ${JSON.stringify(r.body).slice(0, 80)}`);
      else assert.equal(first.kind, 'ConfigMapList');
    });
  }

  it('a bare ?watch watches', async () => {
    const w = await watch(env.url, `${CMS}?watch`);
    assert.equal((await w.at(0, 15000)).type, 'ADDED');
    w.close();
  });

  it('allowWatchBookmarks=True gets bookmarks', async () => {
    const list = await api(env.url, 'GET', CMS);
    const w = await watch(
      env.url,
      `${CMS}?watch=True&allowWatchBookmarks=True&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    assert.equal((await w.at(0, 15000)).type, 'BOOKMARK');
    w.close();
  });
});

describe('DELETE answers', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());

  it('a Deployment kept by a finalizer: 200 with the object, generation bumped once; orphanDependents=false answers 202', async () => {
    const d = deployment('kept');
    (d.metadata as Record<string, unknown>).finalizers = ['example.com/keep'];
    assert.equal((await api(env.url, 'POST', DEPS, d)).status, 201);
    const first = await api(env.url, 'DELETE', `${DEPS}/kept`);
    assert.equal(first.status, 200);
    assert.equal(first.body.kind, 'Deployment');
    assert.equal(first.body.metadata.generation, 2);
    const again = await api(env.url, 'DELETE', `${DEPS}/kept?orphanDependents=false`);
    assert.equal(again.status, 202);
    assert.equal(again.body.metadata.generation, 2);
    assert.equal(
      (
        await api(
          env.url,
          'PATCH',
          `${DEPS}/kept`,
          { metadata: { finalizers: null } },
          { 'Content-Type': 'application/merge-patch+json' },
        )
      ).status,
      200,
    );
    await eventually(async () => (await api(env.url, 'GET', `${DEPS}/kept`)).status === 404, 15000);
  });

  it('a custom resource deleted at once: a Success Status naming it', async () => {
    const c = await api(env.url, 'POST', DMS, dm('gone'));
    const r = await api(env.url, 'DELETE', `${DMS}/gone`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', group: 'coolops.cn', kind: 'databasemanagers', uid: c.body.metadata.uid },
    });
  });
});

describe('404s as kube-apiserver answers them', () => {
  let env: TestApiServer;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
  });
  after(() => env.stop());
  const generic = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server could not find the requested resource',
    reason: 'NotFound',
    details: {},
    code: 404,
  };

  it('under /api and built-in groups: a JSON Status', async () => {
    for (const p of [
      '/api/v9/pods',
      '/api/v1/nothings',
      '/api/v1/configmaps/x',
      '/apis/apps/v9/deployments',
      '/apis/apps/v1/namespaces/default/deployments/x/bogus',
      '/api/v1/namespaces/default/configmaps/x/y/z',
    ]) {
      const r = await api(env.url, 'GET', p);
      assert.equal(r.status, 404, p);
      assert.deepEqual(r.body, generic, p);
    }
  });

  it('custom resource groups and unknown groups: the mux’s text', async () => {
    for (const p of [
      '/foo',
      '/apis/nogroup/v1/things',
      '/apis/coolops.cn/v1/databasemanagers',
      '/apis/coolops.cn/v1alpha1/others',
      '/apis/coolops.cn/v1alpha1/databasemanagers/x',
    ]) {
      const r = await api(env.url, 'GET', p);
      assert.equal(r.status, 404, p);
      assert.equal(r.body, '404 page not found\n', p);
      assert.match(String(r.headers['content-type']), /^text\/plain/, p);
    }
  });

  it('a subresource a CRD does not serve: NotFound naming the object (what sample-controller’s UpdateStatus gets)', async () => {
    for (const p of [`${DMS}/x/scale`, `${DMS}/x/bogus`, `${DMS}/x/bogus/more`]) {
      const r = await api(env.url, 'PUT', p, dm('x'));
      assert.equal(r.status, 404, p);
      assert.deepEqual(r.body.details, { name: 'x', group: 'coolops.cn', kind: 'databasemanagers' }, p);
      assert.equal(r.body.message, 'databasemanagers.coolops.cn "x" not found');
    }
  });
});
