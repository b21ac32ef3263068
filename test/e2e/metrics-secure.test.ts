// --metrics-secure on kube-apiserver (RBAC enforced): the generated DatabaseManager operator, as
// its own process, serves /metrics over HTTPS and asks the real API server who calls: 200 with
// the token (TokenRequest) of a ServiceAccount bound to a metrics-reader ClusterRole (get on the
// non-resource URL /metrics), 401 without a token or with a forged one, 403 with another
// ServiceAccount's. Then the generated config/metrics.yaml, applied with kubectl: the filter,
// acting as the operator's ServiceAccount, cannot decide (500) until its metrics-auth role is
// bound, and a ServiceAccount bound to its metrics-reader role is let in. Last, config/ as
// `kubectl kustomize` builds it (config/kustomization.yaml) passes `apply --dry-run=server`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import YAML from 'yaml';
import {
  NamespaceResource,
  ServiceAccountResource,
  metricsAuthFilter,
  restBackend,
  RestClient,
  startEndpointServer,
  createCertificate,
  type KubeObject,
  type RestConfig,
} from '../../src/runtime/index.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { controlPlaneAssets } from '../support/assets.js';
import { DM_CRD, generateOperator, startOperator, type OperatorProcess } from './support.js';

const NS = 'default';
/** config/rbac.yaml's ServiceAccount and namespace of the DatabaseManager operator. */
const OP_SA = 'databasemanager-operator';
const OP_NS = 'databasemanager-system';
const exec = promisify(execFile);
const rbac = (kind: string, resource: string) =>
  ({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource,
    kind,
    listKind: `${kind}List`,
    namespaced: false,
  }) as const;
const ClusterRoleResource = rbac('ClusterRole', 'clusterroles');
const ClusterRoleBindingResource = rbac('ClusterRoleBinding', 'clusterrolebindings');
let cp: ControlPlane;
let gen: ReturnType<typeof generateOperator>;
let op: OperatorProcess | undefined;

before(async () => {
  cp = await startControlPlane({ assets: controlPlaneAssets(), crds: [DM_CRD] });
  gen = generateOperator();
  const api = restBackend(cp.clientConfig);
  for (const name of ['prometheus', 'other', 'operator'])
    await api
      .resource(ServiceAccountResource, NS)
      .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NS } });
  const role = (name: string, rules: unknown[]): KubeObject =>
    ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules }) as KubeObject;
  const bind = (name: string, sa: string): KubeObject =>
    ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${name}-${sa}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: NS }],
    }) as KubeObject;
  await api
    .resource(ClusterRoleResource)
    .create(role('metrics-reader', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]));
  await api.resource(ClusterRoleBindingResource).create(bind('metrics-reader', 'prometheus'));
});
after(async () => {
  await op?.kill();
  gen?.cleanup();
  await cp?.stop();
});

/** A token of ServiceAccount `sa` from the TokenRequest API. */
async function tokenOf(sa: string, namespace = NS): Promise<string> {
  const r = await RestClient.for(cp.clientConfig).request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return r.status.token;
}

function get(url: string, token?: string): Promise<{ status: number; body: string }> {
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

test('the operator with --metrics-secure: HTTPS, 200 for the metrics reader, 401 without or with a forged token, 403 for another ServiceAccount', async () => {
  op = startOperator(gen.main, [
    '--kubeconfig',
    cp.kubeconfigPath,
    '--metrics-secure',
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '0',
  ]);
  const line = await op.waitForLog((l) => l.msg === 'serving metrics', 60_000);
  const url = String(line['url']);
  assert.match(url, /^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const [reader, other] = await Promise.all([tokenOf('prometheus'), tokenOf('other')]);
  const ok = await get(url, reader);
  assert.equal(ok.status, 200, ok.body);
  assert.match(ok.body, /^# HELP /m);
  assert.deepEqual(await get(url), { status: 401, body: 'Unauthorized\n' });
  assert.deepEqual(await get(url, `${reader.slice(0, -4)}AAAA`), { status: 401, body: 'Unauthorized\n' });
  assert.deepEqual(await get(url, other), {
    status: 403,
    body: `Authorization denied for user system:serviceaccount:${NS}:other\n`,
  });
});

test('the generated config/metrics.yaml, applied with kubectl: its metrics-auth role is what the filter needs, its metrics-reader role what a scraper needs', async () => {
  const kubectl = join(controlPlaneAssets(), 'kubectl');
  const kc = ['--kubeconfig', cp.kubeconfigPath];
  const api = restBackend(cp.clientConfig);
  // the operator's namespace and ServiceAccount (config/rbac.yaml's), then config/metrics.yaml
  await api.resource(NamespaceResource).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OP_NS } });
  await api
    .resource(ServiceAccountResource, OP_NS)
    .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: OP_SA, namespace: OP_NS } });
  const metricsYaml = join(dirname(gen.main), 'config', 'metrics.yaml');
  const caData = cp.caCert;
  assert.ok(caData);
  const asOperator: RestConfig = {
    server: cp.url,
    tls: { caData },
    auth: { bearerToken: await tokenOf(OP_SA, OP_NS) },
    qps: 0,
  };
  const [reader, other] = await Promise.all([tokenOf('prometheus'), tokenOf('other')]);
  const serve = async (): Promise<{ url: string; close(): Promise<void> }> => {
    const s = await startEndpointServer(
      { host: '127.0.0.1', port: 0 },
      { '/metrics': () => ({ status: 200, contentType: 'text/plain', body: 'up 1\n' }) },
      { tls: createCertificate({ commonName: 'm', hosts: ['127.0.0.1'] }), filter: metricsAuthFilter(asOperator) },
    );
    return { url: `${s.url}/metrics`, close: () => s.close() };
  };
  // before: the operator's ServiceAccount may not ask
  const without = await serve();
  try {
    assert.deepEqual(await get(without.url, reader), { status: 500, body: 'Authentication failed\n' });
  } finally {
    await without.close();
  }
  await exec(kubectl, [...kc, 'apply', '--dry-run=server', '-f', metricsYaml]);
  await exec(kubectl, [...kc, 'apply', '-f', metricsYaml]);
  await exec(kubectl, [
    ...kc,
    'create',
    'clusterrolebinding',
    'scraper',
    `--clusterrole=${OP_SA}-metrics-reader`,
    `--serviceaccount=${NS}:other`,
  ]);
  const granted = await serve();
  try {
    // RBAC's authorizer cache follows the new bindings within moments: poll, bounded
    const deadline = Date.now() + 60_000;
    let r = await get(granted.url, other);
    while (r.status !== 200 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 200));
      r = await get(granted.url, other);
    }
    assert.deepEqual(r, { status: 200, body: 'up 1\n' }, 'bound to the generated metrics-reader role');
    assert.equal((await get(granted.url)).status, 401);
  } finally {
    await granted.close();
  }
});

test('config/ builds with kubectl kustomize into one install.yaml that kube-apiserver accepts (apply --dry-run=server)', async () => {
  const kubectl = join(controlPlaneAssets(), 'kubectl');
  const config = join(dirname(gen.main), 'config');
  const built = await exec(kubectl, ['kustomize', config], { maxBuffer: 16 * 1024 * 1024 });
  const kinds = YAML.parseAllDocuments(built.stdout)
    .map((d) => d.toJSON() as KubeObject)
    .map((o) => `${o.kind}/${o.metadata?.name}`)
    .sort();
  assert.deepEqual(kinds, [
    'ClusterRole/databasemanager-operator',
    'ClusterRole/databasemanager-operator-metrics-auth',
    'ClusterRole/databasemanager-operator-metrics-reader',
    'ClusterRoleBinding/databasemanager-operator',
    'ClusterRoleBinding/databasemanager-operator-metrics-auth',
    'CustomResourceDefinition/databasemanagers.coolops.cn',
    'Deployment/databasemanager-operator',
    'Namespace/databasemanager-system',
    'Role/databasemanager-operator-leader-election',
    'RoleBinding/databasemanager-operator-leader-election',
    'Service/databasemanager-operator-metrics',
    'ServiceAccount/databasemanager-operator',
  ]);
  const install = join(dirname(config), 'install.yaml');
  writeFileSync(install, built.stdout);
  const dry = await exec(kubectl, ['--kubeconfig', cp.kubeconfigPath, 'apply', '--dry-run=server', '-f', install]);
  assert.match(dry.stdout, /deployment\.apps\/databasemanager-operator created \(server dry run\)/);
});
