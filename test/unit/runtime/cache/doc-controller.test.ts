// The hand-written controller of docs/runtime.md: the doc shows exactly doc-controller.ts
// (imports from 'crdgen/runtime'), and that controller works against the test server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestApiServer } from '../../../../src/testing/index.js';
import { resourceClient, DeploymentResource, type Deployment } from '../../../../src/runtime/index.js';
import { runController, type DatabaseManager } from './doc-controller.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

test('docs/runtime.md shows the tested controller, in under 60 lines', () => {
  const doc = readFileSync(here('../../../../docs/runtime.md'), 'utf8');
  const code = readFileSync(here('./doc-controller.ts'), 'utf8').replace(
    "'../../../../src/runtime/index.js'",
    "'crdgen/runtime'",
  );
  assert.ok(
    doc.includes('```ts\n' + code + '```'),
    'the controller block of docs/runtime.md differs from doc-controller.ts',
  );
  assert.ok(code.trimEnd().split('\n').length < 60);
});

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
            },
          },
        },
      },
    ],
  },
};

async function until<T>(get: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the doc controller creates and scales the Deployment of a DatabaseManager, and stops on abort', async () => {
  const env = await startTestApiServer({ crds: [CRD] });
  const ac = new AbortController();
  let done: Promise<void> | undefined;
  try {
    const config = { server: env.url, qps: 0 };
    done = runController(config, 2, ac.signal);
    const dms = resourceClient<DatabaseManager>(config, {
      group: 'coolops.cn',
      version: 'v1alpha1',
      resource: 'databasemanagers',
      kind: 'DatabaseManager',
      listKind: 'DatabaseManagerList',
      namespaced: true,
    }).namespace('default');
    const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
    const created = await dms.create({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { name: 'orders' },
      spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'mysql' },
    });
    const d = await until(async () => (await deployments.list()).items.find((x) => x.metadata?.name === 'orders-db'));
    assert.equal(d.spec?.replicas, 2);
    assert.equal(d.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
    await dms.update({ ...created, spec: { ...created.spec, replicas: 5 } });
    await until(async () => ((await deployments.get('orders-db')).spec?.replicas === 5 ? true : undefined));
  } finally {
    ac.abort();
    await done;
    await env.stop();
  }
});
