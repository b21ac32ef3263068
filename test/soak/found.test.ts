// Regressions found by the chaos soak, each reduced to a small deterministic test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import { loadKubeconfig, resourceClient, DeploymentResource, type Deployment } from '../../src/runtime/index.js';

let env: TestApiServer;
before(async () => {
  env = await startTestApiServer();
});
after(async () => {
  await env?.stop();
});

test('an object taken from a built-in list (no apiVersion/kind, as an informer cache filled by a list holds it) can be updated: the client sends the type', async () => {
  // Found by the soak: after a new leader listed its Deployments, every Deployment update was
  // refused with "Object 'Kind' is missing" and the operator never converged.
  const deployments = resourceClient<Deployment>(
    await loadKubeconfig({ path: env.kubeconfigPath }),
    DeploymentResource,
  ).namespace('default');
  const labels = { app: 'x' };
  await deployments.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x' },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'x', image: 'x:1' }] } },
    },
  });
  const listed = (await deployments.list()).items.find((d) => d.metadata?.name === 'x')!;
  assert.equal(listed.kind, undefined, 'built-in list items carry no kind (as the apiserver)');
  const updated = await deployments.update({ ...listed, spec: { ...listed.spec, replicas: 3 } });
  assert.equal(updated.spec?.replicas, 3);
  assert.equal(updated.kind, 'Deployment');
  const created = await deployments.create({ metadata: { name: 'y' }, spec: { ...listed.spec } });
  assert.equal(created.metadata?.name, 'y');
});
