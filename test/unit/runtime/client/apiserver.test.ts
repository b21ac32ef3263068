// The client end to end over HTTPS, configured from the kubeconfig the server writes, on
// crdgen/testing's API server and on the real kube-apiserver: every ResourceClient verb,
// typed errors, paging, watch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS } from '../../../support/backends.js';
import {
  loadKubeconfig,
  resourceClient,
  PatchType,
  type ResourceDescriptor,
  NamespaceResource,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type ApiError,
  newControllerRef,
  isControlledBy,
  setCondition,
  type WatchEvent,
  type Condition,
  type KubeObject,
} from '../../../../src/runtime/index.js';

interface DatabaseManager extends KubeObject {
  spec: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: { availableReplicas?: number; conditions?: Condition[] };
}

const DM: ResourceDescriptor = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'databasemanagers.coolops.cn' },
  spec: {
    group: 'coolops.cn',
    scope: 'Namespaced',
    names: {
      kind: 'DatabaseManager',
      plural: 'databasemanagers',
      singular: 'databasemanager',
      listKind: 'DatabaseManagerList',
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  deploymentName: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10 },
                  dbtype: { type: 'string' },
                },
              },
              status: {
                type: 'object',
                properties: {
                  availableReplicas: { type: 'integer' },
                  conditions: {
                    type: 'array',
                    items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
const dm = (name: string, replicas = 1, labels: Record<string, string> = {}): DatabaseManager => ({
  apiVersion: 'coolops.cn/v1alpha1',
  kind: 'DatabaseManager',
  metadata: { name, namespace: 'default', labels },
  spec: { deploymentName: name, replicas, dbtype: 'mysql' },
});

for (const backend of BACKENDS)
  test(`ResourceClient verbs against ${backend.name} over HTTPS (kubeconfig from the server)`, async () => {
    const env = await backend.start({ crds: [CRD], https: true });
    try {
      const config = await loadKubeconfig({ path: env.kubeconfigPath });
      assert.ok(config.server.startsWith('https://'));
      const all = resourceClient<DatabaseManager>({ ...config, qps: 0 }, DM);
      const dms = all.namespace('default');

      // Watch from "now" while we work; collect until the delete arrives.
      const start = await dms.list();
      const ac = new AbortController();
      const w = await dms.watch({ resourceVersion: start.metadata?.resourceVersion, signal: ac.signal });
      const seen: WatchEvent<DatabaseManager>[] = [];
      const watched = (async () => {
        for await (const e of w) {
          seen.push(e);
          if (e.type === 'DELETED' && e.object.metadata?.name === 'db') break;
        }
      })();

      const created = await dms.create(dm('db', 1, { app: 'db' }));
      assert.ok(created.metadata?.uid);
      await assert.rejects(dms.create(dm('db')), (e: unknown) => isAlreadyExists(e));
      await assert.rejects(
        dms.create(dm('bad', 11)),
        (e: unknown) => isInvalid(e) && (e as ApiError).causes.some((c) => c.field === 'spec.replicas'),
      );

      const got = await dms.get('db');
      const updated = await dms.update({ ...got, spec: { ...got.spec, replicas: 2 } });
      assert.equal(updated.spec.replicas, 2);
      await assert.rejects(dms.update({ ...got, spec: { ...got.spec, replicas: 3 } }), (e: unknown) => isConflict(e)); // stale resourceVersion

      const conditions: Condition[] = [];
      setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Available', message: 'ok' });
      const withStatus = await dms.updateStatus({ ...updated, status: { availableReplicas: 2, conditions } });
      assert.equal(withStatus.status?.availableReplicas, 2);
      assert.equal(withStatus.spec.replicas, 2);

      assert.equal((await dms.patch('db', PatchType.Merge, { spec: { replicas: 4 } })).spec.replicas, 4);
      assert.equal(
        (await dms.patch('db', PatchType.JSON, [{ op: 'replace', path: '/spec/replicas', value: 5 }])).spec.replicas,
        5,
      );
      assert.equal(
        (await dms.patchStatus('db', PatchType.Merge, { status: { availableReplicas: 5 } })).status?.availableReplicas,
        5,
      );
      const applied = await dms.apply(
        { apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name: 'db' }, spec: { replicas: 6 } },
        { fieldManager: 'crdgen-test', force: true },
      );
      assert.equal(applied.spec.replicas, 6);
      assert.ok(applied.metadata?.managedFields?.some((f) => f.manager === 'crdgen-test'));

      // Ownership helpers on real objects.
      const child = await dms.create({
        ...dm('child'),
        metadata: {
          name: 'child',
          namespace: 'default',
          ownerReferences: [
            newControllerRef(applied, { group: 'coolops.cn', version: 'v1alpha1', kind: 'DatabaseManager' }),
          ],
        },
      });
      assert.equal(isControlledBy(child, applied), true);

      // Paging.
      for (let i = 0; i < 5; i++) await dms.create(dm(`page-${i}`, 1, { app: 'page' }));
      const page = await dms.list({ labelSelector: 'app=page', limit: 2 });
      assert.equal(page.items.length, 2);
      assert.ok(page.metadata?.continue);
      const everything = await dms.listAll({ labelSelector: 'app=page', limit: 2 });
      assert.deepEqual(everything.items.map((i) => i.metadata?.name).sort(), [
        'page-0',
        'page-1',
        'page-2',
        'page-3',
        'page-4',
      ]);
      assert.equal((await all.list()).items.length, 7); // across namespaces
      assert.ok(
        (await resourceClient({ ...config, qps: 0 }, NamespaceResource).list()).items.some(
          (n) => n.metadata?.name === 'default',
        ),
      );

      // Deletes: preconditions, then for real.
      await assert.rejects(dms.delete('db', { preconditions: { uid: 'not-the-uid' } }), (e: unknown) => isConflict(e));
      await dms.delete('db', { preconditions: { uid: created.metadata?.uid } });
      await watched;
      await assert.rejects(dms.get('db'), (e: unknown) => isNotFound(e));
      await dms.deleteCollection({ labelSelector: 'app=page' });
      assert.equal((await dms.list({ labelSelector: 'app=page' })).items.length, 0);
      ac.abort();

      const types = seen.flatMap((e) => (e.type !== 'ERROR' && e.object.metadata?.name === 'db' ? [e.type] : []));
      assert.equal(types[0], 'ADDED');
      assert.equal(types.at(-1), 'DELETED');
      assert.ok(types.filter((t) => t === 'MODIFIED').length >= 6, types.join(','));
    } finally {
      await env.stop();
    }
  });
