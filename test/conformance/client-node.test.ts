// Conformance: @kubernetes/client-node (CustomObjectsApi, Watch, makeInformer) against
// the test API server, through the kubeconfig file it writes, used as is.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, Watch, makeInformer } from '@kubernetes/client-node';
import type { KubernetesObject, KubernetesListObject } from '@kubernetes/client-node';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { DM_CRD, dm } from '../testing/helpers.js';

const G = { group: 'coolops.cn', version: 'v1alpha1', namespace: 'default', plural: 'databasemanagers' };
const PATH = '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';

type DM = KubernetesObject & { spec: { replicas: number } };

function waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const tick = (): void => {
      if (cond()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(tick, 20);
    };
    tick();
  });
}

describe('@kubernetes/client-node against the test API server', () => {
  let env: TestApiServer;
  let kc: KubeConfig;
  let api: CustomObjectsApi;
  before(async () => {
    env = await startTestApiServer({ crds: [DM_CRD] });
    kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfigPath);
    api = kc.makeApiClient(CustomObjectsApi);
  });
  after(() => env.stop());

  it('CustomObjectsApi: create, get, list with a label selector, patch, delete', async () => {
    const created = (await api.createNamespacedCustomObject({ ...G, body: dm('cn1') })) as DM;
    assert.equal(created.metadata?.generation, 1);
    const got = (await api.getNamespacedCustomObject({ ...G, name: 'cn1' })) as DM;
    assert.equal(got.metadata?.uid, created.metadata?.uid);
    await api.createNamespacedCustomObject({ ...G, body: dm('cn2') });
    const list = (await api.listNamespacedCustomObject({ ...G, labelSelector: 'app=cn2' })) as KubernetesListObject<DM>;
    assert.deepEqual(
      list.items.map((i) => i.metadata?.name),
      ['cn2'],
    );
    const patched = (await api.patchNamespacedCustomObject({
      ...G,
      name: 'cn1',
      body: [{ op: 'replace', path: '/spec/replicas', value: 4 }],
    })) as DM;
    assert.equal(patched.spec.replicas, 4);
    assert.equal(patched.metadata?.generation, 2);
    await api.deleteNamespacedCustomObject({ ...G, name: 'cn2' });
    await assert.rejects(
      api.getNamespacedCustomObject({ ...G, name: 'cn2' }),
      (e: unknown) => e instanceof ApiException && e.code === 404,
    );
  });

  it('a 422 reaches the client with the apiserver Status', async () => {
    await assert.rejects(api.createNamespacedCustomObject({ ...G, body: dm('cnbad', 11) }), (e: unknown) => {
      assert.ok(e instanceof ApiException);
      assert.equal(e.code, 422);
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      assert.equal(body.details.causes[0].field, 'spec.replicas');
      assert.match(
        body.message,
        /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/,
      );
      return true;
    });
  });

  it('Watch sees ADDED, MODIFIED and DELETED', async () => {
    const seen: string[] = [];
    const watch = new Watch(kc);
    let ended = false;
    const list = (await api.listNamespacedCustomObject({ ...G })) as KubernetesListObject<DM>;
    const ctl = await watch.watch(
      PATH,
      { resourceVersion: list.metadata?.resourceVersion },
      (phase, obj: DM) => {
        if (obj.metadata?.name === 'cnw') seen.push(phase);
      },
      () => {
        ended = true;
      },
    );
    try {
      await api.createNamespacedCustomObject({ ...G, body: dm('cnw') });
      await api.patchNamespacedCustomObject({
        ...G,
        name: 'cnw',
        body: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
      });
      await api.deleteNamespacedCustomObject({ ...G, name: 'cnw' });
      await waitFor(() => seen.length >= 3, 'three watch events');
      assert.deepEqual(seen, ['ADDED', 'MODIFIED', 'DELETED']);
    } finally {
      ctl.abort();
    }
    await waitFor(() => ended, 'the watch to end');
  });

  it('makeInformer lists, then follows adds, updates and deletes; survives dropped watches', async () => {
    const informer = makeInformer<DM>(
      kc,
      PATH,
      () => api.listNamespacedCustomObject({ ...G }) as Promise<KubernetesListObject<DM>>,
    );
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => events.push(`update:${o.metadata?.name}:${o.spec.replicas}`));
    informer.on('delete', (o) => events.push(`delete:${o.metadata?.name}`));
    let stopped = false;
    informer.on('error', () => {
      // client-node reports a dropped watch as an error; restart as its docs advise.
      if (!stopped) setTimeout(() => void (stopped ? undefined : informer.start()), 50);
    });
    await informer.start();
    try {
      await api.createNamespacedCustomObject({ ...G, body: dm('inf') });
      await waitFor(() => events.includes('add:inf'), 'informer add');
      await api.patchNamespacedCustomObject({
        ...G,
        name: 'inf',
        body: [{ op: 'replace', path: '/spec/replicas', value: 6 }],
      });
      await waitFor(() => events.includes('update:inf:6'), 'informer update');
      env.faults.dropWatches();
      await new Promise((r) => setTimeout(r, 200));
      await api.patchNamespacedCustomObject({
        ...G,
        name: 'inf',
        body: [{ op: 'replace', path: '/spec/replicas', value: 7 }],
      });
      await waitFor(() => events.includes('update:inf:7'), 'informer update after a dropped watch');
      await api.deleteNamespacedCustomObject({ ...G, name: 'inf' });
      await waitFor(() => events.includes('delete:inf'), 'informer delete');
      assert.equal(informer.get('inf', 'default'), undefined);
    } finally {
      stopped = true;
      await informer.stop();
    }
  });
});

describe('@kubernetes/client-node over HTTPS', () => {
  it('trusts the generated certificate through the kubeconfig object', async () => {
    const env = await startTestApiServer({ https: true });
    try {
      const kc = new KubeConfig();
      kc.loadFromString(JSON.stringify(env.kubeconfig));
      const core = kc.makeApiClient(CoreV1Api);
      const list = await core.listNamespace();
      assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
    } finally {
      await env.stop();
    }
  });
});
