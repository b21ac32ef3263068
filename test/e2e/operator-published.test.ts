// End to end: the operator generated from the article's DatabaseManager CRD exactly as published
// (its `type: strin` typo fixed, nothing added: no status subresource, a status with only
// availableReplicas), as its own process against crdgen's test API server with simulated
// workloads. It must do the worked example's work — create, scale, repair and garbage-collect the
// Deployment — and report availableReplicas, written through the object itself (no /status).
// A second operator, for a kind of another shape, shows the stub hooks' start-up warning.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  type Deployment,
  isNotFound,
  type KubeObject,
} from '../../src/runtime/index.js';
import { ROOT } from '../golden/support.js';
import { PUBLISHED_DM_CRD, generateOperator, startOperator, waitFor, type OperatorProcess } from './support.js';
import { isReconcileEnd } from '../support/logs.js';

interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: Record<string, unknown> & { availableReplicas?: number };
}
const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const GATEWAY_CLASS_CRD = join(ROOT, 'fixtures', 'gatewayclass', 'gateway.networking.k8s.io_gatewayclasses.yaml');
const NS = 'default';

let server: TestApiServer;
let op: OperatorProcess;
let gen: ReturnType<typeof generateOperator>;
let dms: ReturnType<typeof resourceClient<DM>>;
let deployments: ReturnType<typeof resourceClient<Deployment>>;

async function getDeployment(name: string): Promise<Deployment | undefined> {
  try {
    return await deployments.namespace(NS).get(name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

const STUB_WARNING = /still has the generated stub hooks/;

before(async () => {
  gen = generateOperator('fixtures/databasemanager-published/crd.yaml');
  server = await startTestApiServer({ crds: [PUBLISHED_DM_CRD, GATEWAY_CLASS_CRD], simulateWorkloads: 100 });
  const config = await loadKubeconfig({ path: server.kubeconfigPath });
  dms = resourceClient<DM>(config, DM_RESOURCE);
  deployments = resourceClient<Deployment>(config, DeploymentResource);
  op = startOperator(gen.main, [
    '--kubeconfig',
    server.kubeconfigPath,
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
    // the line that ends each reconcile is at debug
    '--log-level',
    'debug',
  ]);
  await op.waitForLog((l) => l.msg === 'caches synced; starting workers', 30_000);
});

after(async () => {
  await op?.kill();
  await server?.stop();
  gen?.cleanup();
});

test('the generated reconcile.ts is the worked example, not the stub; the operator does not warn', () => {
  const reconcile = readFileSync(join(gen.dir, 'controllers', 'databasemanager', 'reconcile.ts'), 'utf8');
  assert.match(reconcile, /export const DATABASES/);
  assert.doesNotMatch(reconcile, /stubHooks/);
  assert.equal(
    op.logs.some((l) => STUB_WARNING.test(String(l.msg))),
    false,
  );
});

test('create: a Deployment named spec.deploymentName with the right replicas, image and controller ownerReference; availableReplicas follows', async () => {
  const created = await dms.namespace(NS).create({
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'orders', namespace: NS },
    spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' },
  });
  const d = await waitFor(
    () => getDeployment('orders-db'),
    10_000,
    'the Deployment',
    () => JSON.stringify(op.logs.slice(-5)),
  );
  assert.equal(d.spec?.replicas, 2);
  assert.equal(d.spec?.template.spec?.containers[0]?.image, 'postgres:17');
  assert.deepEqual(d.metadata?.ownerReferences, [
    {
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      name: 'orders',
      uid: created.metadata!.uid!,
      controller: true,
      blockOwnerDeletion: true,
    },
  ]);
  const done = await waitFor(
    async () => {
      const cur = await dms.namespace(NS).get('orders');
      return cur.status?.availableReplicas === 2 ? cur : undefined;
    },
    10_000,
    'status.availableReplicas 2',
  );
  // only what the published status schema declares: no conditions, no observedGeneration
  assert.deepEqual(done.status, { availableReplicas: 2 });
});

test('scale: spec.replicas 2 → 4 updates the Deployment and availableReplicas', async () => {
  const cur = await dms.namespace(NS).get('orders');
  await dms.namespace(NS).update({ ...cur, spec: { ...cur.spec, replicas: 4 } });
  await waitFor(async () => (await getDeployment('orders-db'))?.spec?.replicas === 4, 10_000, 'Deployment replicas 4');
  await waitFor(
    async () => (await dms.namespace(NS).get('orders')).status?.availableReplicas === 4,
    10_000,
    'availableReplicas 4',
  );
});

test('repair: replicas edited on the Deployment are put back; a deleted Deployment is recreated', async () => {
  const d = (await getDeployment('orders-db'))!;
  await deployments.namespace(NS).update({ ...d, spec: { ...d.spec, replicas: 7 } });
  await waitFor(
    async () => (await getDeployment('orders-db'))?.spec?.replicas === 4,
    10_000,
    'Deployment replicas put back to 4',
  );
  const before = (await getDeployment('orders-db'))!;
  await deployments.namespace(NS).delete('orders-db');
  const again = await waitFor(
    async () => {
      const x = await getDeployment('orders-db');
      return x && x.metadata?.uid !== before.metadata?.uid ? x : undefined;
    },
    10_000,
    'a recreated Deployment',
  );
  assert.equal(again.spec?.replicas, 4);
  await waitFor(
    async () => (await dms.namespace(NS).get('orders')).status?.availableReplicas === 4,
    10_000,
    'availableReplicas 4 again',
  );
});

test('garbage collection: the DatabaseManager deleted → its Deployment is deleted, no error loop', async () => {
  await dms.namespace(NS).delete('orders');
  await waitFor(
    async () => (await getDeployment('orders-db')) === undefined,
    10_000,
    'the Deployment to be garbage-collected',
  );
  const failures = (): number =>
    op.logs.filter((l) => l.msg?.startsWith('reconcile failed') && l['key'] === `${NS}/orders`).length;
  const before = failures();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(failures(), before, 'no reconcile errors after the delete');
  assert.equal(await getDeployment('orders-db'), undefined, 'not recreated');
  const results = op.logs.filter((l) => isReconcileEnd(l) && l['key'] === `${NS}/orders`).map((l) => l['result']);
  assert.ok(results.includes('success'), JSON.stringify(results));
});

test('an operator whose reconcile.ts is the stub warns at start-up, naming reconcile.ts', async () => {
  const stub = generateOperator('fixtures/gatewayclass/gateway.networking.k8s.io_gatewayclasses.yaml', 'GatewayClass');
  const other = startOperator(stub.main, [
    '--kubeconfig',
    server.kubeconfigPath,
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
  ]);
  try {
    const line = await other.waitForLog((l) => STUB_WARNING.test(String(l.msg)), 30_000);
    assert.equal(line.level, 'warn');
    assert.equal(line['file'], 'controllers/gatewayclass/reconcile.ts');
    assert.match(String(line.msg), /controllers\/gatewayclass\/reconcile\.ts/);
  } finally {
    await other.kill();
    stub.cleanup();
  }
});
