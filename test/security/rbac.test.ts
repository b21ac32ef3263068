// Least privilege of the generated RBAC: the generated DatabaseManager operator (leader election
// on) runs through the e2e scenario against the test server, every request it makes is recorded
// (its user agent tells it from the test's), mapped to an RBAC verb and resource, and compared
// with config/rbac/role.yaml: every verb used is granted, and every verb granted is used or justified.
// test/e2e/install-rbac.test.ts proves the same role on kube-apiserver with RBAC enforced.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  ServiceResource,
  type Deployment,
  type Service,
  type KubeObject,
  PatchType,
  CoreEventResource,
  type CoreEvent,
} from '../../src/runtime/index.js';
import { DM_CRD, generateOperator, startOperator, waitFor, type OperatorProcess } from '../e2e/support.js';

const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const NS = 'default';
type DM = KubeObject & { spec?: Record<string, unknown>; status?: { availableReplicas?: number } };

/** One RBAC permission: `group/resource[/subresource] verb`. */
type Permission = string;

/** Verbs granted but not used, each with the reason it stays. Anything else unused fails the test. */
const JUSTIFIED: Record<Permission, string> = {
  // No request: the OwnerReferencesPermissionEnforcement admission plugin checks it when the
  // operator sets blockOwnerDeletion on what it owns (test/e2e/install-rbac.test.ts shows the
  // Deployment refused without it).
  'coolops.cn/databasemanagers/finalizers update': 'an owner reference with blockOwnerDeletion',
  // Informers stream their initial lists (a watch with sendInitialEvents): `list` is what they
  // fall back to, in pages, on a server without streaming lists (the WatchList feature off).
  'coolops.cn/databasemanagers list': 'the paged-list fallback of streaming lists',
  'apps/deployments list': 'the paged-list fallback of streaming lists',
  '/services list': 'the paged-list fallback of streaming lists',
  // A standby watches its Lease while another replica leads; the scenario runs one replica, which
  // leads at once (test/e2e/install-rbac.test.ts runs a standby and shows it refused without it).
  'coordination.k8s.io/leases watch': "a standby's watch of the Lease",
};

/**
 * The RBAC verb and resource of one request, as the apiserver's RequestInfoFactory derives them:
 * GET on a collection is list (watch with ?watch=true), on an object get; POST create; PUT update;
 * PATCH patch; DELETE delete (deletecollection on a collection). Undefined for non-resource URLs.
 */
export function permissionOf(method: string, url: string): Permission | undefined {
  const [path, query = ''] = url.split('?') as [string, string?];
  const parts = path.split('/').filter(Boolean);
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else return undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  if (rest.length === 0) return undefined;
  const [resource, name, sub] = rest;
  const watch = /(^|&)watch=(true|1)(&|$)/.test(query ?? '');
  const verb =
    method === 'GET'
      ? name === undefined
        ? watch
          ? 'watch'
          : 'list'
        : 'get'
      : method === 'POST'
        ? 'create'
        : method === 'PUT'
          ? 'update'
          : method === 'PATCH'
            ? 'patch'
            : method === 'DELETE'
              ? name === undefined
                ? 'deletecollection'
                : 'delete'
              : method.toLowerCase();
  return `${group}/${resource}${sub ? `/${sub}` : ''} ${verb}`;
}

/** The permissions an RBAC document grants (every rule of every Role and ClusterRole). */
function granted(rbacYaml: string): Set<Permission> {
  const out = new Set<Permission>();
  for (const doc of YAML.parseAllDocuments(rbacYaml)) {
    const o = doc.toJSON() as {
      kind?: string;
      rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
    };
    if (o?.kind !== 'Role' && o?.kind !== 'ClusterRole') continue;
    for (const r of o.rules ?? [])
      for (const g of r.apiGroups) for (const res of r.resources) for (const v of r.verbs) out.add(`${g}/${res} ${v}`);
  }
  return out;
}

let server: TestApiServer;
let gen: ReturnType<typeof generateOperator>;
let op: OperatorProcess;
const used = new Map<Permission, number>();
const nonResource = new Set<string>();

before(async () => {
  gen = generateOperator();
  server = await startTestApiServer({
    crds: [DM_CRD],
    simulateWorkloads: 50,
    log: (line) => {
      const m = /^(\S+) (\S+) \d{3} \d+ms "(.*)"$/.exec(line);
      if (!m || !m[3].startsWith('databasemanager-controller')) return;
      const p = permissionOf(m[1], m[2]);
      if (p) used.set(p, (used.get(p) ?? 0) + 1);
      else nonResource.add(`${m[1]} ${m[2].split('?')[0]}`);
    },
  });
  op = startOperator(gen.main, [
    '--kubeconfig',
    server.kubeconfigPath,
    '--leader-elect',
    '--leader-election-namespace',
    NS,
    '--leader-elect-lease-duration',
    '3s',
    '--leader-elect-renew-deadline',
    '2s',
    '--leader-elect-retry-period',
    '500ms',
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
  ]);
  await op.waitForLog((l) => l.msg === 'caches synced; starting workers', 30_000);
});

after(async () => {
  await op?.kill();
  await server?.stop();
  gen?.cleanup();
});

test('the e2e scenario uses exactly the verbs config/rbac/role.yaml grants (least privilege)', async () => {
  const config = await loadKubeconfig({ path: server.kubeconfigPath });
  const dms = resourceClient<DM>(config, DM_RESOURCE).namespace(NS);
  const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace(NS);
  const events = resourceClient<CoreEvent>(config, CoreEventResource).namespace(NS);
  const services = resourceClient<Service>(config, ServiceResource).namespace(NS);
  const dep = (name: string) => deployments.get(name).catch(() => undefined);

  // create → Deployment and status; scale → update; edited behind its back → put back; deleted → recreated
  await dms.create({
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'orders' },
    spec: { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' },
  });
  await waitFor(async () => (await dms.get('orders')).status?.availableReplicas === 2, 60_000, 'orders available');
  await dms.patch('orders', PatchType.Merge, { spec: { replicas: 3 } });
  await waitFor(async () => (await dep('orders-db'))?.spec?.replicas === 3, 60_000, 'scaled to 3');
  const d = (await dep('orders-db'))!;
  // a patch, not a read-modify-write: the workload simulator writes the status meanwhile
  await deployments.patch('orders-db', PatchType.Merge, { spec: { replicas: 9 } });
  await waitFor(async () => (await dep('orders-db'))?.spec?.replicas === 3, 60_000, 'put back to 3');
  // the Service edited behind its back → put back (an update)
  await waitFor(() => services.get('orders-db'), 60_000, 'the Service');
  await services.patch('orders-db', PatchType.Merge, { spec: { selector: { app: 'elsewhere' } } });
  await waitFor(
    async () => (await services.get('orders-db')).spec?.selector?.['app'] === 'orders-db',
    60_000,
    'the Service put back',
  );
  await deployments.delete('orders-db');
  await waitFor(
    async () => (await dep('orders-db'))?.metadata?.uid !== d.metadata?.uid && (await dep('orders-db')) !== undefined,
    60_000,
    'recreated',
  );
  // a squatter: ErrResourceExists, repeated (the repeats are aggregated: an Event patch)
  const labels = { app: 'squatter' };
  await deployments.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'taken-db' },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'x', image: 'busybox' }] } },
    },
  });
  await dms.create({
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'taken' },
    spec: { deploymentName: 'taken-db', replicas: 1, dbtype: 'redis' },
  });
  await waitFor(
    async () =>
      ((await events.list()).items.find((e) => e.involvedObject.name === 'taken' && e.reason === 'ErrResourceExists')
        ?.count ?? 0) >= 2,
    60_000,
    'an aggregated ErrResourceExists event',
  );
  // an unknown dbtype: Ready=False
  await dms.create({
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'weird' },
    spec: { deploymentName: 'weird-db', replicas: 1, dbtype: 'oracle' },
  });
  await waitFor(
    async () =>
      (await events.list()).items.some((e) => e.involvedObject.name === 'weird' && e.reason === 'UnknownDBType'),
    60_000,
    'UnknownDBType event',
  );
  // deletes: the garbage collector removes the Deployment, the operator deletes nothing
  await dms.delete('orders');
  await waitFor(async () => (await dep('orders-db')) === undefined, 60_000, 'orders-db collected');
  // the server ends the open watches, so their requests are logged (a watch is logged when it ends)
  server.faults.dropWatches();
  await waitFor(
    () =>
      used.has('apps/deployments watch') &&
      used.has('/services watch') &&
      used.has('coolops.cn/databasemanagers watch'),
    60_000,
    'the watches to be logged',
  );
  // a clean stop releases the lease (an update)
  op.proc.kill('SIGTERM');
  assert.equal(await op.exited, 0);

  const rbac = readFileSync(join(gen.dir, 'controllers', 'databasemanager', 'config', 'rbac', 'role.yaml'), 'utf8');
  const grants = granted(rbac);
  const usedList = [...used.keys()].sort();
  const notGranted = usedList.filter((p) => !grants.has(p));
  assert.deepEqual(
    notGranted,
    [],
    `used but not granted (the operator would be forbidden): ${notGranted.join(', ')}\nused: ${usedList.join(', ')}`,
  );
  const unused = [...grants].filter((p) => !used.has(p) && !(p in JUSTIFIED)).sort();
  assert.deepEqual(
    unused,
    [],
    `granted but never used (more privilege than needed): ${unused.join(', ')}\nused: ${usedList.join(', ')}`,
  );
  assert.deepEqual(
    [...nonResource].filter((u) => !/^GET \/(api|apis|version)$/.test(u)),
    [],
    'non-resource requests other than discovery',
  );
});

test('request → permission mapping follows the apiserver (list/watch/get, subresources, cluster scope)', () => {
  assert.equal(permissionOf('GET', '/apis/apps/v1/deployments?limit=500'), 'apps/deployments list');
  assert.equal(permissionOf('GET', '/apis/apps/v1/deployments?watch=true&resourceVersion=5'), 'apps/deployments watch');
  assert.equal(
    permissionOf('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/x'),
    'coordination.k8s.io/leases get',
  );
  assert.equal(
    permissionOf('PUT', '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers/a/status'),
    'coolops.cn/databasemanagers/status update',
  );
  assert.equal(permissionOf('PATCH', '/api/v1/namespaces/default/events/e.1'), '/events patch');
  assert.equal(permissionOf('POST', '/api/v1/namespaces/default/events'), '/events create');
  assert.equal(permissionOf('DELETE', '/api/v1/namespaces/default/events'), '/events deletecollection');
  assert.equal(permissionOf('GET', '/api/v1/namespaces'), '/namespaces list');
  assert.equal(permissionOf('GET', '/apis'), undefined);
  assert.equal(permissionOf('GET', '/version'), undefined);
});
