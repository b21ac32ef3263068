// --metrics-secure on kube-apiserver (RBAC enforced): the generated DatabaseManager operator, as
// its own process, serves /metrics over HTTPS and asks the real API server who calls: 200 with
// the token (TokenRequest) of a ServiceAccount bound to a metrics-reader ClusterRole (get on the
// non-resource URL /metrics), 401 without a token or with a forged one, 403 with another
// ServiceAccount's. Then the generated metrics roles (config/rbac/metrics_*_role.yaml), applied
// with kubectl: the filter, acting as the operator's ServiceAccount, cannot decide (500) until its
// metrics-auth role is bound, and a ServiceAccount bound to its metrics-reader role is let in.
// Last, the install each operator's config/default overlay builds (`kubectl kustomize`, as
// `crdgen manifests` runs it) passes `apply --dry-run=server` — the DatabaseManager plain, with
// --webhooks and sharded, and the Gateway API operator — and so does each overlay with every
// optional part turned on (network-policy, the prometheus and certmanager components) once the
// Prometheus Operator's and cert-manager's CRDs are installed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import YAML from 'yaml';
import {
  NamespaceResource,
  ServiceAccountResource,
  metricsAuthFilter,
  restBackend,
  startEndpointServer,
  createCertificate,
  isAlreadyExists,
  type KubeObject,
  type RestConfig,
} from '../../src/runtime/index.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { controlPlaneAssets } from '../support/assets.js';
import { ROOT } from '../golden/support.js';
import {
  DM_CRD,
  generateOperator,
  httpsGet,
  serviceAccountToken,
  startOperator,
  type OperatorProcess,
} from './support.js';

const NS = 'default';
/** config/rbac/role.yaml's ServiceAccount and namespace of the DatabaseManager operator. */
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
  return serviceAccountToken(cp.clientConfig, sa, namespace);
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
  const ok = await httpsGet(url, reader);
  assert.equal(ok.status, 200, ok.body);
  assert.match(ok.body, /^# HELP /m);
  assert.deepEqual(await httpsGet(url), { status: 401, body: 'Unauthorized\n' });
  assert.deepEqual(await httpsGet(url, `${reader.slice(0, -4)}AAAA`), { status: 401, body: 'Unauthorized\n' });
  assert.deepEqual(await httpsGet(url, other), {
    status: 403,
    body: `Authorization denied for user system:serviceaccount:${NS}:other\n`,
  });
});

test('the generated metrics roles, applied with kubectl: the metrics-auth role is what the filter needs, the metrics-reader role what a scraper needs', async () => {
  const kubectl = join(controlPlaneAssets(), 'kubectl');
  const kc = ['--kubeconfig', cp.kubeconfigPath];
  const api = restBackend(cp.clientConfig);
  // the operator's namespace and ServiceAccount (config/rbac/role.yaml's), then the metrics roles
  await api.resource(NamespaceResource).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OP_NS } });
  await api
    .resource(ServiceAccountResource, OP_NS)
    .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: OP_SA, namespace: OP_NS } });
  const metricsYaml = ['metrics_auth_role.yaml', 'metrics_reader_role.yaml'].flatMap((f) => [
    '-f',
    join(dirname(gen.main), 'config', 'rbac', f),
  ]);
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
    assert.deepEqual(await httpsGet(without.url, reader), { status: 500, body: 'Authentication failed\n' });
  } finally {
    await without.close();
  }
  await exec(kubectl, [...kc, 'apply', '--dry-run=server', ...metricsYaml]);
  await exec(kubectl, [...kc, 'apply', ...metricsYaml]);
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
    let r = await httpsGet(granted.url, other);
    while (r.status !== 200 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 200));
      r = await httpsGet(granted.url, other);
    }
    assert.deepEqual(r, { status: 200, body: 'up 1\n' }, 'bound to the generated metrics-reader role');
    assert.equal((await httpsGet(granted.url)).status, 401);
  } finally {
    await granted.close();
  }
});

/** The install `kubectl kustomize` builds from `overlay`, as `crdgen manifests` runs it: its objects' kind/name, sorted. */
async function build(overlay: string): Promise<{ yaml: string; objects: string[] }> {
  const kubectl = join(controlPlaneAssets(), 'kubectl');
  const built = await exec(kubectl, ['kustomize', overlay], { maxBuffer: 64 * 1024 * 1024 });
  const objects = YAML.parseAllDocuments(built.stdout)
    .map((d) => d.toJSON() as KubeObject)
    .map((o) => `${o.kind}/${o.metadata?.name}`)
    .sort();
  return { yaml: built.stdout, objects };
}

/** `kubectl apply --dry-run=server` of `yaml` (server-side: a CRD of the corpus outgrows the last-applied annotation); its output. */
async function dryRun(yaml: string, where: string): Promise<string> {
  const kubectl = join(controlPlaneAssets(), 'kubectl');
  const file = join(where, 'install.yaml');
  writeFileSync(file, yaml);
  const r = await exec(kubectl, ['--kubeconfig', cp.kubeconfigPath, 'apply', '--dry-run=server', '-f', file], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return r.stdout;
}

/** Creates namespace `name` for real: a dry run creates none, and the namespaced objects need theirs. */
async function namespace(name: string): Promise<void> {
  const api = restBackend(cp.clientConfig);
  try {
    await api.resource(NamespaceResource).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** An overlay beside `config/default` that turns every optional part on (what the user uncomments). */
function everything(config: string, webhooks: boolean): string {
  const dir = join(config, 'everything');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    [
      'resources: [../default, ../network-policy]',
      `components: [${webhooks ? '../certmanager, ' : ''}../prometheus]`,
      '',
    ].join('\n'),
  );
  return dir;
}

const DM_OBJECTS = [
  'ClusterRole/databasemanager-admin-role',
  'ClusterRole/databasemanager-editor-role',
  'ClusterRole/databasemanager-operator',
  'ClusterRole/databasemanager-operator-metrics-auth',
  'ClusterRole/databasemanager-operator-metrics-reader',
  'ClusterRole/databasemanager-viewer-role',
  'ClusterRoleBinding/databasemanager-operator',
  'ClusterRoleBinding/databasemanager-operator-metrics-auth',
  'CustomResourceDefinition/databasemanagers.coolops.cn',
  'Deployment/databasemanager-operator',
  'Namespace/databasemanager-system',
  'Role/databasemanager-operator-leader-election',
  'RoleBinding/databasemanager-operator-leader-election',
  'Service/databasemanager-operator-metrics',
  'ServiceAccount/databasemanager-operator',
];
const OPTIONAL = (op: string): string[] => [
  `NetworkPolicy/${op}-allow-metrics-traffic`,
  `ServiceMonitor/${op}-metrics-monitor`,
];

test('config/default builds with kubectl kustomize into one install.yaml that kube-apiserver accepts (apply --dry-run=server): DatabaseManager, with --webhooks, sharded, and the Gateway API operator; every optional part on too', async () => {
  // the CRDs the optional parts need: the Prometheus Operator's ServiceMonitor, cert-manager's
  // Certificate and Issuer (the corpus has cert-manager's ClusterIssuer CRD: Issuer is the same
  // schema, namespaced, as cert-manager ships it)
  const kubectl = join(controlPlaneAssets(), 'kubectl');
  const kc = ['--kubeconfig', cp.kubeconfigPath];
  const corpus = join(ROOT, '..', 'shared', 'corpus', 'crds');
  const issuers = YAML.parse(
    readFileSync(join(corpus, 'cert-manager', 'cert-manager.io_clusterissuers.yaml'), 'utf8'),
  ) as { metadata: { name: string }; spec: { scope: string; names: Record<string, unknown> } };
  issuers.metadata.name = 'issuers.cert-manager.io';
  issuers.spec.scope = 'Namespaced';
  issuers.spec.names = { kind: 'Issuer', listKind: 'IssuerList', plural: 'issuers', singular: 'issuer' };
  const issuersFile = join(gen.dir, 'issuers.cert-manager.io.yaml');
  writeFileSync(issuersFile, YAML.stringify(issuers));
  await exec(
    kubectl,
    [
      ...kc,
      'apply',
      '--server-side',
      '-f',
      join(corpus, 'prometheus-operator', 'monitoring.coreos.com_servicemonitors.yaml'),
      '-f',
      join(corpus, 'cert-manager', 'cert-manager.io_certificates.yaml'),
      '-f',
      issuersFile,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  await exec(kubectl, [
    ...kc,
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/servicemonitors.monitoring.coreos.com',
    'crd/certificates.cert-manager.io',
    'crd/issuers.cert-manager.io',
  ]);

  const webhooks = generateOperator('fixtures/databasemanager-webhooks/crd.yaml', 'DatabaseManager', {
    webhooks: true,
  });
  const sharded = generateOperator(undefined, undefined, { sharding: true });
  const gateway = generateOperator(
    '../shared/corpus/crds/gateway-api/gateway.networking.k8s.io_gateways.yaml',
    'Gateway',
    { owns: ['apps/v1/Deployment', 'v1/Service'] },
  );
  try {
    await namespace(OP_NS);
    await namespace('gateway-system');
    const cases = [
      { name: 'DatabaseManager', gen, op: 'databasemanager-operator', objects: DM_OBJECTS, webhooks: false },
      {
        name: 'DatabaseManager --webhooks',
        gen: webhooks,
        op: 'databasemanager-operator',
        objects: [
          ...DM_OBJECTS,
          'MutatingWebhookConfiguration/databasemanager-mutating-webhook-configuration',
          'Service/databasemanager-webhook-service',
          'ValidatingWebhookConfiguration/databasemanager-validating-webhook-configuration',
        ].sort(),
        webhooks: true,
      },
      {
        name: 'DatabaseManager sharded',
        gen: sharded,
        op: 'databasemanager-operator',
        objects: DM_OBJECTS,
        webhooks: false,
      },
      {
        name: 'Gateway',
        gen: gateway,
        op: 'gateway-operator',
        objects: DM_OBJECTS.map((o) =>
          o
            .replace('databasemanagers.coolops.cn', 'gateways.gateway.networking.k8s.io')
            .replace(/databasemanager/g, 'gateway'),
        ).sort(),
        webhooks: false,
      },
    ];
    for (const c of cases) {
      const config = join(dirname(c.gen.main), 'config');
      const install = await build(join(config, 'default'));
      assert.deepEqual(install.objects, c.objects, c.name);
      const dry = await dryRun(install.yaml, dirname(config));
      assert.match(dry, new RegExp(`deployment\\.apps/${c.op} created \\(server dry run\\)`), c.name);
      const all = await build(everything(config, c.webhooks));
      const extra = [
        ...OPTIONAL(c.op),
        ...(c.webhooks
          ? [
              `NetworkPolicy/${c.op}-allow-webhook-traffic`,
              'Certificate/databasemanager-serving-cert',
              'Issuer/databasemanager-selfsigned-issuer',
            ]
          : []),
      ];
      assert.deepEqual(all.objects, [...c.objects, ...extra].sort(), `${c.name}, everything on`);
      const dryAll = await dryRun(all.yaml, dirname(config));
      assert.match(dryAll, /servicemonitor\.monitoring\.coreos\.com\/\S+ created \(server dry run\)/, c.name);
      if (c.webhooks) {
        assert.match(dryAll, /certificate\.cert-manager\.io\/databasemanager-serving-cert created \(server dry run\)/);
        // cert-manager's variant: the Secret mounted at --webhook-cert-dir instead of self mode, the CA injected
        const objects = YAML.parseAllDocuments(all.yaml).map((d) => d.toJSON() as Record<string, any>);
        const deploy = objects.find((o) => o['kind'] === 'Deployment')!;
        const container = deploy['spec'].template.spec.containers[0];
        assert.ok(container.args.includes('--webhook-cert-dir=/tmp/k8s-webhook-server/serving-certs'));
        assert.ok(!container.args.includes('--webhook-cert-mode=self'));
        assert.deepEqual(
          container.volumeMounts.map((m: { name: string }) => m.name),
          ['webhook-certs'],
        );
        for (const kind of [
          'MutatingWebhookConfiguration',
          'ValidatingWebhookConfiguration',
          'CustomResourceDefinition',
        ])
          assert.equal(
            objects.find((o) => o['kind'] === kind)!['metadata'].annotations?.['cert-manager.io/inject-ca-from'],
            'databasemanager-system/databasemanager-serving-cert',
            kind,
          );
        // self mode (the default overlay): the operator's own certificate, nothing of cert-manager's
        assert.doesNotMatch(install.yaml, /cert-manager/);
        assert.match(install.yaml, /- --webhook-cert-mode=self\n/);
      }
    }
  } finally {
    webhooks.cleanup();
    sharded.cleanup();
    gateway.cleanup();
  }
});
