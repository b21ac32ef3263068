// Types carry through: a TypedResource gives the builder's client its object type, and a
// generated apply configuration is what client.apply takes. The `@ts-expect-error` lines are
// checked by `npm run typecheck`; the test runs the same calls on the fake.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DatabaseManager } from '../../fixtures/databasemanager/expected/apis/coolops.cn/v1alpha1/types.js';
import { DatabaseManagerResource } from '../../fixtures/databasemanager/expected/apis/coolops.cn/v1alpha1/register.js';
import {
  databaseManager,
  type DatabaseManagerApplyConfiguration,
} from '../../fixtures/databasemanager/expected/applyconfigurations/coolops.cn/v1alpha1/databasemanager.js';
import {
  typedResource,
  DeploymentResource,
  type Deployment,
  FakeClientBackend,
  newManager,
  newControllerManagedBy,
  generationChanged,
} from '../../src/runtime/index.js';

const DM = typedResource<DatabaseManager>(DatabaseManagerResource);

test('a generated descriptor, typed, drives the builder and the client; a generated apply configuration applies', async () => {
  const fake = new FakeClientBackend([
    { ...DatabaseManagerResource, subresources: { status: true } },
    DeploymentResource,
  ]);
  const manager = newManager({ client: fake, name: 'typing' });
  const seen: number[] = [];
  newControllerManagedBy(manager)
    .for(DM, { predicates: [generationChanged, { update: (e) => (e.objectNew.spec?.replicas ?? 0) > 0 }] })
    .owns(DeploymentResource, { predicates: [{ create: (e) => e.object.spec?.replicas !== 0 }] })
    .watches(DeploymentResource, (d: Deployment) => [
      { namespace: d.metadata?.namespace ?? '', name: d.metadata?.labels?.['dm'] ?? '' },
    ])
    .complete(async (req, ctx) => {
      const dm: DatabaseManager = await ctx.client.get(DM, req);
      // @ts-expect-error: DatabaseManagerSpec has no such field
      void dm.spec?.nope;
      seen.push(dm.spec?.replicas ?? 0);
      return { requeueAfterMs: 60_000 };
    });
  const ac = new AbortController();
  const done = manager.start(ac.signal);
  try {
    const cfg: DatabaseManagerApplyConfiguration = {
      ...databaseManager('orders', 'ns'),
      spec: { replicas: 3, dbtype: 'postgres', deploymentName: 'orders-db' },
    };
    const applied = await manager.client.apply(DM, cfg);
    const replicas: number | undefined = applied.spec?.replicas;
    assert.equal(replicas, 3);
    // @ts-expect-error: a Deployment field is not a DatabaseManager apply configuration field
    void (() => manager.client.apply(DM, { metadata: { name: 'x', namespace: 'ns' }, spec: { template: {} } }));
    const deadline = Date.now() + 30_000;
    while (!seen.includes(3)) {
      if (Date.now() > deadline) throw new Error('no reconcile of orders');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    ac.abort();
    await done;
  }
});
