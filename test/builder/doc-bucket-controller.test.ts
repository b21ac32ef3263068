// The reconciler of docs/controllers.md: the doc shows exactly doc-bucket-controller.ts
// (imports from 'crdgen/runtime'), and that controller works against a fake storage API (an
// HTTP server in this test) on crdgen/testing's server and on the real control plane: the
// bucket is created, the finalizer holds the Bucket until the (first failing) DELETE succeeds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  newManager,
  restBackend,
  ConfigMapResource,
  NamespaceResource,
  type ConfigMap,
  isNotFound,
  findCondition,
  PatchType,
  type KubeObject,
} from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { BACKENDS } from '../support/backends.js';
import { BucketResource, setupBucketController, type Bucket } from './doc-bucket-controller.js';
import { waitFor } from './support.js';
import { startStorageApi, type StorageApi } from './storage-api.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

test('docs/controllers.md shows the tested reconciler, in under 60 lines', () => {
  const doc = readFileSync(here('../../docs/controllers.md'), 'utf8');
  const code = readFileSync(here('./doc-bucket-controller.ts'), 'utf8').replace(
    "'../../src/runtime/index.js'",
    "'crdgen/runtime'",
  );
  assert.ok(
    doc.includes('```ts\n' + code + '```'),
    'the reconciler block of docs/controllers.md differs from doc-bucket-controller.ts',
  );
  assert.ok(code.trimEnd().split('\n').length < 60);
});

const BUCKET_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'buckets.storage.example.com' },
  spec: {
    group: 'storage.example.com',
    scope: 'Namespaced',
    names: { kind: 'Bucket', plural: 'buckets', singular: 'bucket', listKind: 'BucketList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', required: ['region'], properties: { region: { type: 'string' } } },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
        subresources: { status: {} },
      },
    ],
  },
} as KubeObject;

for (const backend of BACKENDS) {
  describe(`the docs' Bucket reconciler on ${backend.name}`, () => {
    let handle: ApiServerHandle;
    let storage: StorageApi;
    before(async () => {
      [handle, storage] = await Promise.all([backend.start({ crds: [BUCKET_CRD] }), startStorageApi()]);
    });
    after(async () => {
      await handle?.stop();
      await storage?.close();
    });

    test('creates the bucket and its ConfigMap, follows the region, and deletes the bucket before the Bucket goes', async () => {
      const api = restBackend(handle.clientConfig);
      await api
        .resource(NamespaceResource)
        .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
      const manager = newManager({ client: handle.clientConfig, name: 'bucket-operator' });
      setupBucketController(manager, storage.url);
      const ac = new AbortController();
      const running = manager.start(ac.signal);
      try {
        const buckets = api.resource<Bucket>(BucketResource, 'team-a');
        await buckets.create({
          apiVersion: 'storage.example.com/v1',
          kind: 'Bucket',
          metadata: { name: 'logs', namespace: 'team-a' },
          spec: { region: 'eu-west' },
        });
        await waitFor(() => storage.buckets.get('team-a.logs')?.region === 'eu-west', 'the bucket in the storage API');
        const cm = await waitFor(
          () => api.resource<ConfigMap>(ConfigMapResource, 'team-a').get('logs-bucket'),
          'the ConfigMap',
        );
        assert.equal(cm.data?.['BUCKET_URL'], `${storage.url}/buckets/team-a.logs`);
        assert.equal(cm.metadata?.ownerReferences?.[0]?.kind, 'Bucket');
        assert.deepEqual((await buckets.get('logs')).metadata?.finalizers, ['storage.example.com/bucket']);
        // the status condition the reconciler writes (setCondition's return decides whether it writes)
        const ready = await waitFor(
          async () => findCondition((await buckets.get('logs')).status?.conditions, 'Ready'),
          'the Ready condition',
        );
        assert.deepEqual(
          { ...ready, lastTransitionTime: typeof ready.lastTransitionTime },
          {
            type: 'Ready',
            status: 'True',
            reason: 'Provisioned',
            message: `${storage.url}/buckets/team-a.logs in eu-west`,
            observedGeneration: 1,
            lastTransitionTime: 'string',
          },
        );
        await buckets.patch('logs', PatchType.Merge, { spec: { region: 'us-east' } });
        await waitFor(() => storage.buckets.get('team-a.logs')?.region === 'us-east', 'the bucket moved to us-east');
        // the message and observedGeneration follow; the status stayed True, so lastTransitionTime stays
        const moved = await waitFor(async () => {
          const c = findCondition((await buckets.get('logs')).status?.conditions, 'Ready');
          return c?.observedGeneration === 2 ? c : undefined;
        }, 'the Ready condition of generation 2');
        assert.equal(moved.message, `${storage.url}/buckets/team-a.logs in us-east`);
        assert.equal(moved.lastTransitionTime, ready.lastTransitionTime);
        await waitFor(
          async () =>
            (await api.resource<ConfigMap>(ConfigMapResource, 'team-a').get('logs-bucket')).data?.['BUCKET_REGION'] ===
            'us-east',
          'the ConfigMap at us-east',
        );
        await buckets.delete('logs');
        await waitFor(async () => {
          try {
            await buckets.get('logs');
            return false;
          } catch (e) {
            return isNotFound(e);
          }
        }, 'the Bucket gone');
        assert.equal(storage.buckets.has('team-a.logs'), false);
        // the first DELETE failed (503) and was retried; a cleanup may run once more from a stale cache (it must be idempotent)
        assert.ok(
          storage.deletes.length >= 2 && storage.deletes.every((d) => d === 'team-a.logs'),
          `DELETEs: ${storage.deletes.join(', ')}`,
        );
      } finally {
        ac.abort();
        await running;
      }
    });
  });
}
