// The generated DatabaseManager operator installed as a cluster admin installs it, on
// kube-apiserver with RBAC enforced (`--authorization-mode=RBAC`, as `crdgen testenv --real`):
// its kustomization built by `kubectl kustomize` and applied with kubectl; the operator process
// run with the in-cluster configuration of its ServiceAccount (a TokenRequest token, the CA and
// the namespace in a folder CRDGEN_SERVICE_ACCOUNT_DIR names, KUBERNETES_SERVICE_HOST/PORT, the
// Deployment's own args), so it acts as its pod would. Then: the end-to-end flow passes; `kubectl
// auth can-i --list` with its token grants nothing beyond the generated rules (and what every
// ServiceAccount has); and each verb of each generated rule is needed: with that one verb taken
// away the operator meets a Forbidden naming it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import {
  CoreEventResource,
  DeploymentResource,
  PatchType,
  RestClient,
  ServiceResource,
  isNotFound,
  resourceClient,
  restBackend,
  type Condition,
  type CoreEvent,
  type Deployment,
  type KubeObject,
  type Service,
} from '../../src/runtime/index.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { controlPlaneAssets } from '../support/assets.js';
import { generateOperator, startOperator, waitFor, type LogLine, type OperatorProcess } from './support.js';

/** The generated kustomization `kubectl kustomize` builds, relative to controllers/<kind>/. */
const KUSTOMIZATION = 'config';

interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: { availableReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
}
const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
/** A generous bound for what the controller does: the control plane schedules kwok's pods. */
const CONVERGE_MS = 90_000;

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}
interface RoleObject extends KubeObject {
  rules?: PolicyRule[];
}
interface BindingObject extends KubeObject {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

const exec = promisify(execFile);
let cp: ControlPlane;
let gen: ReturnType<typeof generateOperator>;
let kubectl: string;
let objects: KubeObject[];
let deployment: Deployment;
/** The operator's ServiceAccount and namespace, as the built manifests have them. */
let sa: { name: string; namespace: string };
const dirs: string[] = [];
const operators: OperatorProcess[] = [];

async function kc(args: string[], input?: string): Promise<string> {
  const child = exec(kubectl, ['--kubeconfig', cp.kubeconfigPath, ...args], { maxBuffer: 16 * 1024 * 1024 });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  return (await child).stdout;
}

/** A token of ServiceAccount `name` from the TokenRequest API. */
async function tokenOf(name: string, namespace: string): Promise<string> {
  const r = await RestClient.for(cp.clientConfig).request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return r.status.token;
}

/** A folder as the kubelet mounts a ServiceAccount: token, ca.crt, namespace. */
async function mountServiceAccount(name: string, namespace: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-sa-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'token'), await tokenOf(name, namespace));
  writeFileSync(join(dir, 'ca.crt'), cp.caCert!);
  writeFileSync(join(dir, 'namespace'), namespace);
  return dir;
}

/**
 * The operator process as the Deployment's pod runs it: its container's args (the bind
 * addresses on 127.0.0.1, any free port) and POD_NAMESPACE, the service-account files and the
 * API server's service environment.
 */
async function startInCluster(account: { name: string; namespace: string }, extraArgs: string[] = []) {
  const container = deployment.spec!.template.spec!.containers[0];
  const args = (container.args ?? []).map((a) =>
    a.replace(/^(--(?:metrics|health-probe)-bind-address=)\S*:(\d+)$/, '$1127.0.0.1:0'),
  );
  assert.ok(
    (container.env ?? []).some((e) => e.name === 'POD_NAMESPACE'),
    'the Deployment sets POD_NAMESPACE from the pod',
  );
  const op = startOperator(gen.main, [...args, ...extraArgs], {
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String(cp.port),
    CRDGEN_SERVICE_ACCOUNT_DIR: await mountServiceAccount(account.name, account.namespace),
    POD_NAMESPACE: account.namespace,
  });
  operators.push(op);
  return op;
}

function getJson(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { rejectUnauthorized: false, headers: token !== undefined ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Every string a log line carries (its message, its error…), one per line. */
function logText(l: LogLine): string {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(l);
  return out.join('\n');
}

/** The roles bound to the operator's ServiceAccount in the built manifests, with where they apply. */
function operatorRoles(): { role: RoleObject; binding: BindingObject; namespace?: string }[] {
  const out: { role: RoleObject; binding: BindingObject; namespace?: string }[] = [];
  for (const b of objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding') as BindingObject[]) {
    if (!b.subjects?.some((s) => s.kind === 'ServiceAccount' && s.name === sa.name && s.namespace === sa.namespace))
      continue;
    const role = objects.find(
      (o) =>
        o.kind === b.roleRef.kind &&
        o.metadata?.name === b.roleRef.name &&
        (o.kind === 'ClusterRole' || o.metadata?.namespace === b.metadata?.namespace),
    ) as RoleObject | undefined;
    assert.ok(role, `${b.kind} ${b.metadata?.name}: its ${b.roleRef.kind} ${b.roleRef.name} is in the manifests`);
    out.push({ role, binding: b, ...(b.kind === 'RoleBinding' ? { namespace: b.metadata!.namespace! } : {}) });
  }
  return out;
}

before(async () => {
  cp = await startControlPlane({ assets: controlPlaneAssets(), workloads: true });
  kubectl = join(controlPlaneAssets(), 'kubectl');
  gen = generateOperator();
  const built = await kc(['kustomize', join(dirname(gen.main), KUSTOMIZATION)]);
  objects = YAML.parseAllDocuments(built).map((d) => d.toJSON() as KubeObject);
  deployment = objects.find((o) => o.kind === 'Deployment') as Deployment;
  const spec = deployment.spec!.template.spec!;
  sa = { name: spec.serviceAccountName!, namespace: deployment.metadata!.namespace! };
  const install = join(dirname(gen.main), 'install.yaml');
  writeFileSync(install, built);
  await kc(['apply', '-f', install]);
  await kc(['wait', '--for=condition=Established', '--timeout=120s', 'crd/databasemanagers.coolops.cn']);
  // discovery and the watch cache follow the CRD by moments
  await waitFor(
    () => resourceClient<DM>(cp.clientConfig, DM_RESOURCE).namespace('default').list({ limit: 1 }),
    60_000,
    'databasemanagers to be served',
  );
});

after(async () => {
  await Promise.all(operators.map((o) => o.kill()));
  await cp?.stop();
  gen?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('in-cluster, with its ServiceAccount only: create → Deployment, Service, status, Events; update; a Service edited by hand put back; delete; the Lease held and renewed; /metrics for the metrics reader only', async () => {
  const NS = 'default';
  const op = await startInCluster(sa);
  const inCluster = await op.waitForLog((l) => l.msg === 'serving metrics', 60_000);
  const metricsUrl = String(inCluster['url']);
  await op.waitForLog((l) => l.msg === 'caches synced; starting workers', 60_000);
  const dms = resourceClient<DM>(cp.clientConfig, DM_RESOURCE).namespace(NS);
  const deployments = resourceClient<Deployment>(cp.clientConfig, DeploymentResource).namespace(NS);
  const services = resourceClient<Service>(cp.clientConfig, ServiceResource).namespace(NS);
  const events = resourceClient<CoreEvent>(cp.clientConfig, CoreEventResource).namespace(NS);
  const maybe = async <T>(p: Promise<T>): Promise<T | undefined> => {
    try {
      return await p;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };

  const created = await dms.create({
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'orders', namespace: NS },
    spec: { deploymentName: 'orders-db', replicas: 1, dbtype: 'postgres' },
  });
  const d = await waitFor(() => maybe(deployments.get('orders-db')), CONVERGE_MS, 'the Deployment');
  assert.equal(d.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  const svc = await waitFor(() => maybe(services.get('orders-db')), CONVERGE_MS, 'the Service');
  assert.equal(svc.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  await waitFor(
    async () => {
      const cur = await dms.get('orders');
      return cur.status?.availableReplicas === 1 &&
        cur.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
        ? cur
        : undefined;
    },
    CONVERGE_MS,
    'availableReplicas 1 and Ready=True',
  );
  // update
  await dms.patch('orders', PatchType.Merge, { spec: { replicas: 2 } });
  await waitFor(async () => (await deployments.get('orders-db')).spec?.replicas === 2, CONVERGE_MS, 'replicas 2');
  await waitFor(
    async () => (await dms.get('orders')).status?.availableReplicas === 2,
    CONVERGE_MS,
    'availableReplicas 2',
  );
  // the Service (cached as metadata only) edited by hand: read whole and put back
  await services.patch('orders-db', PatchType.Merge, { spec: { selector: { app: 'elsewhere' } } });
  await waitFor(
    async () => (await services.get('orders-db')).spec?.selector?.['app'] === 'orders-db',
    CONVERGE_MS,
    'the Service put back',
  );
  // the Synced event repeated: created once, then its count patched
  await waitFor(
    async () =>
      (await events.list()).items.find(
        (e) => e.involvedObject.name === 'orders' && e.reason === 'Synced' && (e.count ?? 0) >= 2,
      ),
    CONVERGE_MS,
    'a Synced event counted twice',
  );
  // the leader-election Lease held by this process and renewed
  const leases = resourceClient<KubeObject & { spec?: { holderIdentity?: string; renewTime?: string } }>(
    cp.clientConfig,
    {
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      kind: 'Lease',
      listKind: 'LeaseList',
      namespaced: true,
    },
  ).namespace(sa.namespace);
  const lease = await waitFor(
    async () => (await leases.list()).items.find((l) => l.spec?.holderIdentity),
    CONVERGE_MS,
    'a held Lease',
  );
  await waitFor(
    async () => (await leases.get(lease.metadata!.name!)).spec?.renewTime !== lease.spec?.renewTime,
    CONVERGE_MS,
    'the Lease renewed',
  );
  // /metrics: the generated metrics-reader role lets a scraper in; nobody else
  const reader = await kc(['create', 'serviceaccount', 'prometheus', '-n', NS]).then(() => tokenOf('prometheus', NS));
  await kc(['create', 'serviceaccount', 'other', '-n', NS]);
  const readerRole = objects.find((o) => o.kind === 'ClusterRole' && o.metadata?.name?.endsWith('-metrics-reader'));
  assert.ok(readerRole, 'a metrics-reader ClusterRole in the manifests');
  await kc([
    'create',
    'clusterrolebinding',
    'prometheus-metrics',
    `--clusterrole=${readerRole.metadata!.name!}`,
    `--serviceaccount=${NS}:prometheus`,
  ]);
  const other = await tokenOf('other', NS);
  const ok = await waitFor(
    async () => {
      const r = await getJson(metricsUrl, reader);
      return r.status === 200 ? r : undefined;
    },
    30_000,
    '200 for the metrics reader',
  );
  assert.match(ok.body, /controller_runtime_reconcile_total\{controller="databasemanager-controller",result="success"\}/);
  assert.equal((await getJson(metricsUrl)).status, 401);
  assert.equal((await getJson(metricsUrl, other)).status, 403);
  // delete: the garbage collector removes what it owned; the operator does not recreate it
  await dms.delete('orders');
  await waitFor(async () => (await maybe(deployments.get('orders-db'))) === undefined, CONVERGE_MS, 'the Deployment gone');
  await waitFor(async () => (await maybe(services.get('orders-db'))) === undefined, CONVERGE_MS, 'the Service gone');
  const forbidden = op.logs.map(logText).concat(op.other).filter((t) => /forbidden/i.test(t));
  assert.deepEqual(forbidden, [], 'no request of the operator was forbidden');
});
