// The generated DatabaseManager operator installed as a cluster admin installs it, on
// kube-apiserver with RBAC enforced (`--authorization-mode=RBAC`, as `crdgen testenv --real`, and
// the OwnerReferencesPermissionEnforcement admission plugin hardened clusters and OpenShift run):
// its kustomization built by `kubectl kustomize` and applied with kubectl; the operator process
// run with the in-cluster configuration of its ServiceAccount (a TokenRequest token, the CA and
// the namespace in a folder CRDGEN_SERVICE_ACCOUNT_DIR names, KUBERNETES_SERVICE_HOST/PORT, the
// Deployment's own args), so it acts as its pod would. Then: the end-to-end flow passes; `kubectl
// auth can-i --list` with its token grants nothing beyond the generated rules (and what every
// ServiceAccount has); and each verb of each generated rule is needed: with that one verb taken
// away, the operator meets a Forbidden naming it. The same install and in-cluster run for two more
// operators: the Gateway API one (`--controller Gateway --owns apps/v1/Deployment,v1/Service`, the
// builder tests' reconciler) and the DatabaseManager with webhooks (examples/databasemanager-webhooks,
// certificates in self mode, kube-apiserver calling them through the installed Service, whose
// endpoints name this host). The example imports crdgen/runtime by name: it runs from the build
// (dist/), which `npm test` makes first.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import {
  CoreEventResource,
  DeploymentResource,
  PatchType,
  RestClient,
  SecretResource,
  ServiceResource,
  isNotFound,
  resourceClient,
  type Condition,
  type CoreEvent,
  type Deployment,
  type KubeObject,
  type Secret,
  type Service,
} from '../../src/runtime/index.js';
import { startControlPlane, type ControlPlane } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { controlPlaneAssets } from '../support/assets.js';
import { gatewayReconcile } from '../builder/gateway-reconcile.js';
import {
  generateOperator,
  httpsGet,
  serviceAccountToken,
  startOperator,
  waitFor,
  type LogLine,
  type OperatorProcess,
} from './support.js';

/** The overlay `kubectl kustomize` builds (as `crdgen manifests` does), relative to controllers/<kind>/. */
const KUSTOMIZATION = 'config/default';

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
const LEASE_RESOURCE = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  listKind: 'LeaseList',
  namespaced: true,
};
/** The Gateway API CRD of the corpus (repo-relative, as generateOperator takes it). */
const GATEWAY_CRD = '../shared/corpus/crds/gateway-api/gateway.networking.k8s.io_gateways.yaml';
/** A generous bound for what the controller does: the control plane schedules kwok's pods. */
const CONVERGE_MS = 90_000;
/** How long an operator short of one verb may take to meet its Forbidden (it takes a few seconds). */
const FORBIDDEN_MS = 60_000;
/** kube-apiserver's refusals: RBAC's, and OwnerReferencesPermissionEnforcement's. */
const FORBIDDEN = /is forbidden: User "|cannot set blockOwnerDeletion/;
/** Operators short of one verb run side by side, this many at once (each a process of its own). */
const PROBES_AT_ONCE = 4;

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
const kubectl = (): string => join(controlPlaneAssets(), 'kubectl');
const dirs: string[] = [];
const operators: OperatorProcess[] = [];
const generated: ReturnType<typeof generateOperator>[] = [];

/** An operator's `config/default` built by `kubectl kustomize`: its install.yaml, objects, Deployment and ServiceAccount. */
interface Built {
  main: string;
  install: string;
  objects: KubeObject[];
  deployment: Deployment;
  sa: { name: string; namespace: string };
}

async function buildInstall(main: string): Promise<Built> {
  const built = (
    await exec(kubectl(), ['kustomize', join(dirname(main), KUSTOMIZATION)], { maxBuffer: 16 * 1024 * 1024 })
  ).stdout;
  const objects = YAML.parseAllDocuments(built).map((d) => d.toJSON() as KubeObject);
  const deployment = objects.find((o) => o.kind === 'Deployment') as Deployment;
  const install = join(tempDir(), 'install.yaml');
  writeFileSync(install, built);
  return {
    main,
    install,
    objects,
    deployment,
    sa: { name: deployment.spec.template.spec!.serviceAccountName!, namespace: deployment.metadata!.namespace! },
  };
}

/** The plain DatabaseManager operator (the flow, can-i, each verb, garbage collection). */
let plain: Built;
/** The plain operator's ServiceAccount and namespace, as the built manifests have them. */
let sa: { name: string; namespace: string };
/** `--controller Gateway --owns apps/v1/Deployment,v1/Service` on the Gateway API CRD, with the builder tests' reconciler. */
let gateway: Built;
/** examples/databasemanager-webhooks: conversion and admission webhooks, certificates in self mode. */
let webhooks: Built;

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-install-rbac-'));
  dirs.push(dir);
  return dir;
}

/** A control plane with the install.yaml applied: kubectl, TokenRequest tokens, mounted ServiceAccounts, operators. */
class Cluster {
  private constructor(readonly cp: ControlPlane) {}

  static async start(options: Parameters<typeof startControlPlane>[0]): Promise<Cluster> {
    return new Cluster(
      await startControlPlane({
        assets: controlPlaneAssets(),
        ...options,
        apiserverArgs: [
          '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
          ...(options?.apiserverArgs ?? []),
        ],
      }),
    );
  }

  async kubectl(args: string[]): Promise<string> {
    const { stdout } = await exec(kubectl(), ['--kubeconfig', this.cp.kubeconfigPath, ...args], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  }

  /** `kubectl apply` of an install.yaml; resolves once its CRDs are served. */
  async install(built: Built = plain): Promise<void> {
    await this.kubectl(['apply', '-f', built.install]);
    for (const crd of built.objects.filter((o) => o.kind === 'CustomResourceDefinition')) {
      const name = crd.metadata!.name!;
      await this.kubectl(['wait', '--for=condition=Established', '--timeout=120s', `crd/${name}`]);
      // discovery and the watch cache follow the CRD by moments
      await waitFor(() => this.kubectl(['get', name, '-A', '--chunk-size=1']), 60_000, `${name} to be served`);
    }
  }

  /** A token of ServiceAccount `name` from the TokenRequest API. */
  async tokenOf(name: string, namespace: string): Promise<string> {
    return serviceAccountToken(this.cp.clientConfig, name, namespace);
  }

  /**
   * The operator process as the Deployment's pod runs it: its container's args (the bind
   * addresses on 127.0.0.1, any free port) and POD_NAMESPACE; the token, ca.crt and namespace
   * files as the kubelet mounts them; the API server's service environment.
   */
  async startOperator(
    account: { name: string; namespace: string },
    extraArgs: string[] = [],
    built: Built = plain,
    webhookAddress?: string,
  ): Promise<OperatorProcess> {
    const container = built.deployment.spec.template.spec!.containers[0];
    const args = (container.args ?? []).map((a) =>
      a
        .replace(/^(--(?:metrics|health-probe)-bind-address=)\S*:(\d+)$/, '$1127.0.0.1:0')
        .replace(/^(--webhook-bind-address=)\S*:(\d+)$/, (m, flag: string) =>
          webhookAddress ? flag + webhookAddress : m,
        ),
    );
    assert.ok(
      (container.env ?? []).some((e) => e.name === 'POD_NAMESPACE'),
      'the Deployment sets POD_NAMESPACE from the pod',
    );
    const mount = tempDir();
    writeFileSync(join(mount, 'token'), await this.tokenOf(account.name, account.namespace));
    writeFileSync(join(mount, 'ca.crt'), this.cp.caCert!);
    writeFileSync(join(mount, 'namespace'), account.namespace);
    const op = startOperator(built.main, [...args, ...extraArgs], {
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String(this.cp.port),
      CRDGEN_SERVICE_ACCOUNT_DIR: mount,
      POD_NAMESPACE: account.namespace,
    });
    operators.push(op);
    return op;
  }

  /**
   * `kubectl auth can-i --list` as the holder of `token` in `namespace`: `resource verb`, `url verb`
   * and, for a grant limited to resource names, `resource verb name` strings.
   */
  async canIList(token: string, namespace: string): Promise<Set<string>> {
    const dir = tempDir();
    writeFileSync(join(dir, 'ca.crt'), this.cp.caCert!);
    const { stdout } = await exec(
      kubectl(),
      [
        ...['--server', this.cp.url, '--certificate-authority', join(dir, 'ca.crt'), '--token', token],
        ...['auth', 'can-i', '--list', '-n', namespace],
      ],
      { env: { ...process.env, KUBECONFIG: join(dir, 'no-kubeconfig') } },
    );
    const [header, ...rows] = stdout.split('\n').filter((l) => l.trim());
    const cols = ['Non-Resource URLs', 'Resource Names', 'Verbs'].map((c) => header.indexOf(c));
    assert.ok(header.startsWith('Resources') && cols.every((c) => c > 0), `kubectl's table header: ${header}`);
    const list = (text: string): string[] =>
      text
        .trim()
        .replace(/^\[|\]$/g, '')
        .split(' ')
        .filter(Boolean);
    const out = new Set<string>();
    for (const row of rows) {
      const resource = row.slice(0, cols[0]).trim();
      const urls = list(row.slice(cols[0], cols[1]));
      const names = list(row.slice(cols[1], cols[2]));
      for (const verb of list(row.slice(cols[2])))
        if (!resource) for (const url of urls) out.add(`${url} ${verb}`);
        else if (names.length) for (const name of names) out.add(`${resource} ${verb} ${name}`);
        else out.add(`${resource} ${verb}`);
    }
    return out;
  }
}

/** The cluster of the flow: workloads run (kube-controller-manager, kube-scheduler, kwok's pods). */
let main: Cluster;
/**
 * kube-apiserver with the WatchList feature off (as on clusters that serve no streaming lists):
 * an informer's first list is a list there, on `main` a watch with sendInitialEvents.
 */
let plainLists: Cluster;

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

/** Every text the operator wrote: its log lines' strings and the rest of its output. */
function outputOf(op: OperatorProcess): string[] {
  return op.logs.map(logText).concat(op.other);
}

function logsOf(op: OperatorProcess): string {
  return `logs:\n${op.logs.map((l) => JSON.stringify(l)).join('\n')}\n${op.other.join('')}`;
}

/** The roles bound to the operator's ServiceAccount in the built manifests, with the namespace of a Role. */
function operatorRoles(built: Built = plain): { role: RoleObject; binding: BindingObject; namespace?: string }[] {
  const { objects, sa } = built;
  const out: { role: RoleObject; binding: BindingObject; namespace?: string }[] = [];
  const bindings = objects.filter(
    (o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding',
  ) as BindingObject[];
  for (const b of bindings) {
    if (!b.subjects?.some((s) => s.kind === 'ServiceAccount' && s.name === sa.name && s.namespace === sa.namespace))
      continue;
    const role = objects.find(
      (o): o is RoleObject =>
        o.kind === b.roleRef.kind &&
        o.metadata?.name === b.roleRef.name &&
        (o.kind === 'ClusterRole' || o.metadata?.namespace === b.metadata?.namespace),
    );
    assert.ok(role, `${b.kind} ${b.metadata?.name}: its ${b.roleRef.kind} ${b.roleRef.name} is in the manifests`);
    out.push({ role, binding: b, ...(b.kind === 'RoleBinding' ? { namespace: b.metadata!.namespace! } : {}) });
  }
  return out;
}

before(async () => {
  const dm = generateOperator();
  const gw = generateOperator(GATEWAY_CRD, 'Gateway', { owns: ['apps/v1/Deployment', 'v1/Service'] });
  generated.push(dm, gw);
  writeFileSync(join(dirname(gw.main), 'reconcile.ts'), gatewayReconcile(join(ROOT, 'src', 'runtime', 'index.js')));
  [plain, gateway, webhooks] = await Promise.all([
    buildInstall(dm.main),
    buildInstall(gw.main),
    buildInstall(
      join(ROOT, 'examples', 'databasemanager-webhooks', 'generated', 'controllers', 'databasemanager', 'main.ts'),
    ),
  ]);
  ({ sa } = plain);
  [main, plainLists] = await Promise.all([
    // webhooks called through their Service reach the endpoints the test gives it (no kube-proxy here)
    Cluster.start({ workloads: true, apiserverArgs: ['--enable-aggregator-routing=true'] }),
    Cluster.start({ featureGates: { WatchList: false } }),
  ]);
  await Promise.all([main.install().then(() => main.install(gateway)), plainLists.install()]);
});

after(async () => {
  await Promise.all(operators.map((o) => o.kill()));
  await Promise.all([main?.cp.stop(), plainLists?.cp.stop()]);
  for (const g of generated) g.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('in-cluster, with its ServiceAccount only: create → Deployment, Service, status, Events; update; a Service edited by hand put back; delete; the Lease held and renewed; /metrics for the metrics reader only', async () => {
  const NS = 'default';
  const { cp } = main;
  const op = await main.startOperator(sa);
  const metricsUrl = String((await op.waitForLog((l) => l.msg === 'serving metrics', 60_000))['url']);
  await op.waitForLog((l) => l.msg === 'caches synced; starting workers', 60_000);
  const dms = resourceClient<DM>(cp.clientConfig, DM_RESOURCE).namespace(NS);
  const deployments = resourceClient<Deployment>(cp.clientConfig, DeploymentResource).namespace(NS);
  const services = resourceClient<Service>(cp.clientConfig, ServiceResource).namespace(NS);
  const events = resourceClient<CoreEvent>(cp.clientConfig, CoreEventResource).namespace(NS);
  const until = <T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> =>
    waitFor(probe, CONVERGE_MS, what, () => logsOf(op));
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
  const d = await until(() => maybe(deployments.get('orders-db')), 'the Deployment');
  assert.equal(d.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  assert.equal(d.metadata?.ownerReferences?.[0]?.blockOwnerDeletion, true);
  const svc = await until(() => maybe(services.get('orders-db')), 'the Service');
  assert.equal(svc.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  await until(async () => {
    const cur = await dms.get('orders');
    return cur.status?.availableReplicas === 1 &&
      cur.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
      ? cur
      : undefined;
  }, 'availableReplicas 1 and Ready=True');
  // update
  await dms.patch('orders', PatchType.Merge, { spec: { replicas: 2 } });
  await until(async () => (await deployments.get('orders-db')).spec?.replicas === 2, 'replicas 2');
  await until(async () => (await dms.get('orders')).status?.availableReplicas === 2, 'availableReplicas 2');
  // the Service (cached as metadata only) edited by hand: read whole and put back
  await services.patch('orders-db', PatchType.Merge, { spec: { selector: { app: 'elsewhere' } } });
  await until(
    async () => (await services.get('orders-db')).spec?.selector?.['app'] === 'orders-db',
    'the Service put back',
  );
  // the Synced event repeated: created once, then its count patched
  await until(
    async () =>
      (await events.list()).items.find(
        (e) => e.involvedObject.name === 'orders' && e.reason === 'Synced' && (e.count ?? 0) >= 2,
      ),
    'a Synced event counted twice',
  );
  // the leader-election Lease held by this process and renewed
  const leases = resourceClient<KubeObject & { spec?: { holderIdentity?: string; renewTime?: string } }>(
    cp.clientConfig,
    LEASE_RESOURCE,
  ).namespace(sa.namespace);
  const lease = await until(
    async () => (await leases.list()).items.find((l) => l.spec?.holderIdentity),
    'a held Lease',
  );
  await until(
    async () => (await leases.get(lease.metadata!.name!)).spec?.renewTime !== lease.spec?.renewTime,
    'the Lease renewed',
  );
  // /metrics: the generated metrics-reader ClusterRole lets a scraper in; nobody else
  const metrics = await metricsSecured(main, plain, op, metricsUrl, NS, '');
  assert.match(
    metrics,
    /controller_runtime_reconcile_total\{controller="databasemanager-controller",result="success"\}/,
  );
  // delete: the operator leaves what it owned to the garbage collector (the last test sees it gone)
  const since = op.logs.length;
  await dms.delete('orders');
  await until(async () => (await maybe(dms.get('orders'))) === undefined, 'the DatabaseManager gone');
  await new Promise((r) => setTimeout(r, 1500));
  assert.deepEqual(
    op.logs.slice(since).filter((l) => /^(created|updated) /.test(String(l.msg))),
    [],
    'nothing written for a deleted DatabaseManager',
  );
  assert.deepEqual(
    outputOf(op).filter((t) => FORBIDDEN.test(t)),
    [],
    'no request of the operator was forbidden',
  );
  // a second replica under the same role stands by watching the Lease (a 403 would be logged) and
  // takes it once the leader is killed
  const standby = await main.startOperator(sa);
  await standby.waitForLog((l) => l.msg === 'attempting to acquire leader lease', 60_000);
  // the next tests run operators of their own on every DatabaseManager
  await op.kill();
  await standby.waitForLog((l) => l.msg === 'acquired lease', 60_000);
  assert.deepEqual(
    outputOf(standby).filter((t) => FORBIDDEN.test(t) || /error watching the lease/.test(t)),
    [],
    'the standby watched the Lease unrefused',
  );
  await standby.kill();
});

/**
 * /metrics of `op` at `url`: 200 for ServiceAccount `<prefix>prometheus` of `ns` once bound to the
 * manifests' metrics-reader ClusterRole, 401 without a token, 403 for `<prefix>other`; returns the 200's body.
 */
async function metricsSecured(
  cluster: Cluster,
  built: Built,
  op: OperatorProcess,
  url: string,
  ns: string,
  prefix: string,
): Promise<string> {
  await cluster.kubectl(['create', 'serviceaccount', `${prefix}prometheus`, '-n', ns]);
  await cluster.kubectl(['create', 'serviceaccount', `${prefix}other`, '-n', ns]);
  const readerRole = built.objects.find(
    (o) => o.kind === 'ClusterRole' && o.metadata?.name?.endsWith('-metrics-reader'),
  );
  assert.ok(readerRole, 'a metrics-reader ClusterRole in the manifests');
  await cluster.kubectl([
    ...['create', 'clusterrolebinding', `${prefix}prometheus-metrics`],
    ...[`--clusterrole=${readerRole.metadata!.name!}`, `--serviceaccount=${ns}:${prefix}prometheus`],
  ]);
  const [reader, other] = await Promise.all([
    cluster.tokenOf(`${prefix}prometheus`, ns),
    cluster.tokenOf(`${prefix}other`, ns),
  ]);
  // RBAC's authorizer follows a new binding within moments
  const ok = await waitFor(
    async () => {
      const r = await httpsGet(url, reader);
      return r.status === 200 ? r : undefined;
    },
    CONVERGE_MS,
    '200 for the metrics reader',
    () => logsOf(op),
  );
  assert.equal((await httpsGet(url)).status, 401);
  assert.equal((await httpsGet(url, other)).status, 403);
  return ok.body;
}

/** kubectl's name of a resource in a group: `deployments.apps`, `services`, `databasemanagers.coolops.cn/status`. */
function kubectlResource(group: string, resource: string): string {
  if (!group) return resource;
  const [main, sub] = resource.split('/');
  return sub ? `${main}.${group}/${sub}` : `${main}.${group}`;
}

/**
 * What the roles bound to `built`'s ServiceAccount grant in namespace `ns`, in canIList's words;
 * fails on a wildcard (in groups, resources or verbs).
 */
function generatedGrants(built: Built, ns: string): Set<string> {
  const expected = new Set<string>();
  for (const { role, namespace } of operatorRoles(built)) {
    if (namespace !== undefined && namespace !== ns) continue;
    for (const rule of role.rules ?? []) {
      for (const x of [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs])
        assert.notEqual(x, '*', `${role.metadata?.name}: no wildcard`);
      for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) expected.add(`${url} ${verb}`);
      for (const group of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? [])
          for (const verb of rule.verbs) {
            const name = `${kubectlResource(group, resource)} ${verb}`;
            if (rule.resourceNames?.length) for (const n of rule.resourceNames) expected.add(`${name} ${n}`);
            else expected.add(name);
          }
    }
  }
  return expected;
}

/**
 * `kubectl auth can-i --list` with a token of `built`'s ServiceAccount, in its namespace and in
 * `default`: what it may do beyond what a fresh ServiceAccount of its namespace may (discovery,
 * self-subject reviews…), next to what the generated roles grant beyond that.
 */
async function grantedBeyondBaseline(
  cluster: Cluster,
  built: Built,
): Promise<{ ns: string; granted: string[]; generated: string[] }[]> {
  const { sa } = built;
  assert.ok(operatorRoles(built).length >= 2, 'the operator is bound to its roles');
  const token = await cluster.tokenOf(sa.name, sa.namespace);
  await cluster.kubectl(['create', 'serviceaccount', 'nobody', '-n', sa.namespace]);
  const nobody = await cluster.tokenOf('nobody', sa.namespace);
  const out: { ns: string; granted: string[]; generated: string[] }[] = [];
  for (const ns of [sa.namespace, 'default']) {
    const expected = generatedGrants(built, ns);
    const [granted, baseline] = await Promise.all([cluster.canIList(token, ns), cluster.canIList(nobody, ns)]);
    assert.ok(baseline.has('selfsubjectaccessreviews.authorization.k8s.io create'), 'the baseline was read');
    out.push({
      ns,
      granted: [...granted].filter((g) => !baseline.has(g)).sort(),
      generated: [...expected].filter((e) => !baseline.has(e)).sort(),
    });
  }
  return out;
}

test('kubectl auth can-i --list with its token: nothing beyond the generated rules and what any ServiceAccount may do', async () => {
  for (const { role } of operatorRoles())
    for (const rule of role.rules ?? [])
      assert.deepEqual(rule.resourceNames ?? [], [], `${role.metadata?.name}: no resourceNames`);
  for (const { ns, granted, generated } of await grantedBeyondBaseline(main, plain))
    assert.deepEqual(granted, generated, `in namespace ${ns}`);
});

/** One verb on one resource of one generated rule. */
interface Grant {
  role: string;
  group: string;
  resource: string;
  verb: string;
}

function grantName(g: Grant): string {
  return `${g.role}: ${g.verb} ${g.group ? `${g.group}/` : ''}${g.resource}`;
}

/**
 * The operator's RBAC from the manifests, for ServiceAccount `sa.name` of `namespace` instead and
 * with `without` taken out (its rule split when it has more verbs or resources): its roles and
 * bindings named `<name>-<namespace>`, the namespaced ones moved to `namespace`.
 */
function rbacWithout(namespace: string, without: Grant | undefined): KubeObject[] {
  const out: KubeObject[] = [];
  for (const { role, binding } of operatorRoles()) {
    const rules: PolicyRule[] = [];
    for (const rule of role.rules ?? []) {
      if (without === undefined || role.metadata?.name !== without.role) {
        rules.push(rule);
        continue;
      }
      for (const group of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? []) {
          const hit = group === without.group && resource === without.resource;
          const verbs = rule.verbs.filter((v) => !(hit && v === without.verb));
          if (verbs.length) rules.push({ ...rule, apiGroups: [group], resources: [resource], verbs });
        }
      if (rule.nonResourceURLs) rules.push({ nonResourceURLs: rule.nonResourceURLs, verbs: rule.verbs });
    }
    const name = `${role.metadata!.name!}-${namespace}`;
    const meta = (m: KubeObject['metadata']) => ({ name, ...(m?.namespace !== undefined ? { namespace } : {}) });
    out.push({ ...role, metadata: meta(role.metadata), rules } as RoleObject);
    out.push({
      ...binding,
      metadata: meta(binding.metadata),
      roleRef: { ...binding.roleRef, name },
      subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace }],
    } as BindingObject);
  }
  return out;
}

/**
 * What the API server answers a request `g` no longer allows: RBAC's "cannot <verb> resource",
 * and for update on the kind's finalizers the OwnerReferencesPermissionEnforcement plugin's
 * refusal of an owner reference with blockOwnerDeletion.
 */
function forbiddenText(g: Grant): string {
  if (g.resource.endsWith('/finalizers') && g.verb === 'update') return 'cannot set blockOwnerDeletion';
  return `cannot ${g.verb} resource "${g.resource}" in API group "${g.group}"`;
}

/**
 * Runs the operator of ServiceAccount `<sa>` in a namespace of its own (`--namespace` too, so
 * operators run side by side) with the generated RBAC less `without`, and drives the flow there
 * (create, scale, a Service edited by hand, /metrics scraped) until the operator's output shows
 * `until` — or, with nothing taken out, until the flow is done.
 */
async function probe(
  cluster: Cluster,
  ns: string,
  without: Grant | undefined,
  reader: string | undefined,
): Promise<{ found?: string; op: OperatorProcess; steps: Record<string, boolean> }> {
  await cluster.kubectl(['create', 'namespace', ns]);
  await cluster.kubectl(['create', 'serviceaccount', sa.name, '-n', ns]);
  const file = join(tempDir(), `${ns}.yaml`);
  writeFileSync(
    file,
    rbacWithout(ns, without)
      .map((o) => YAML.stringify(o))
      .join('---\n'),
  );
  await cluster.kubectl(['apply', '-f', file]);
  const op = await cluster.startOperator({ name: sa.name, namespace: ns }, ['--namespace', ns]);
  // a Lease grant is probed with a second replica beside: what only a standby does (watch the
  // Lease) is asked for by whichever of the two does not lead
  const replicas =
    without?.resource === 'leases'
      ? [op, await cluster.startOperator({ name: sa.name, namespace: ns }, ['--namespace', ns])]
      : [op];
  const want = without && forbiddenText(without);
  const { clientConfig } = cluster.cp;
  const dms = resourceClient<DM>(clientConfig, DM_RESOURCE).namespace(ns);
  const services = resourceClient<Service>(clientConfig, ServiceResource).namespace(ns);
  const deployments = resourceClient<Deployment>(clientConfig, DeploymentResource).namespace(ns);
  let metricsUrl: string | undefined;
  const steps = { created: false, scaled: false, edited: false, restored: false, scraped: false };
  try {
    const found = await waitFor(
      async () => {
        const hit =
          want && replicas.flatMap((r) => outputOf(r)).flatMap((t) => t.split('\n').filter((l) => l.includes(want)))[0];
        if (hit) return hit;
        metricsUrl ??= op.logs.find((l) => l.msg === 'serving metrics')?.['url'] as string | undefined;
        if (metricsUrl && reader) steps.scraped ||= (await httpsGet(metricsUrl, reader)).status === 200;
        if (!steps.created) {
          await dms.create({
            apiVersion: 'coolops.cn/v1alpha1',
            kind: 'DatabaseManager',
            metadata: { name: 'probe', namespace: ns },
            spec: { deploymentName: 'probe-db', replicas: 1, dbtype: 'postgres' },
          });
          steps.created = true;
        }
        if (!steps.scaled && (await deployments.list()).items.length) {
          await dms.patch('probe', PatchType.Merge, { spec: { replicas: 2 } });
          steps.scaled = true;
        }
        const svc = (await services.list()).items[0];
        if (!steps.edited && svc) {
          await services.patch(svc.metadata!.name!, PatchType.Merge, { spec: { selector: { app: 'elsewhere' } } });
          steps.edited = true;
        } else if (steps.edited && svc?.spec?.selector?.['app'] === 'probe-db') steps.restored = true;
        // with nothing taken out: done when the flow is
        return !want && steps.restored && (steps.scraped || !reader) ? 'done' : undefined;
      },
      FORBIDDEN_MS,
      want ? `a Forbidden: ${want}` : 'the flow',
      () => `steps: ${JSON.stringify(steps)}; ${replicas.map(logsOf).join('\n')}`,
    );
    return { found, op, steps };
  } finally {
    await Promise.all(replicas.map((r) => r.kill()));
  }
}

test('each verb of each generated rule is needed: the operator without it meets a Forbidden naming it', async (t) => {
  const grants: Grant[] = [];
  for (const { role } of operatorRoles())
    for (const rule of role.rules ?? [])
      for (const group of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? [])
          for (const verb of rule.verbs) grants.push({ role: role.metadata!.name!, group, resource, verb });
  assert.ok(grants.length >= 10, `${grants.length} grants`);
  const reader = await main.tokenOf('prometheus', 'default');
  // control: the whole RBAC, on the cluster of plain lists, runs the flow with no Forbidden
  const control = await probe(plainLists, 'rbac-control', undefined, undefined);
  assert.deepEqual(
    outputOf(control.op).filter((t) => FORBIDDEN.test(t)),
    [],
    'no request forbidden with the whole RBAC',
  );
  const results = new Map<string, { found?: string; error?: string }>();
  // an informer's first list is a streaming watch where kube-apiserver serves one (WatchList, on
  // in v1.37): list is needed where it does not, and is probed there
  const queue = grants.map((g, i) => async () => {
    try {
      const { found, steps } = await probe(g.verb === 'list' ? plainLists : main, `rbac-${i}`, g, reader);
      results.set(grantName(g), { found: found! });
      const done = Object.keys(steps).filter((k) => steps[k]);
      t.diagnostic(`${grantName(g)}: after [${done.join(', ')}]: ${found!}`);
    } catch (e) {
      results.set(grantName(g), { error: (e as Error).message });
    }
  });
  await Promise.all(
    Array.from({ length: PROBES_AT_ONCE }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await next();
    }),
  );
  assert.deepEqual(
    grants.map(grantName).flatMap((k) => (results.get(k)?.found ? [] : [`${k}: ${results.get(k)?.error}`])),
    [],
    'grants the operator did without',
  );
});

test('deleted: what the DatabaseManager owned is garbage-collected (its ownerReferences are right)', async () => {
  const deployments = resourceClient<Deployment>(main.cp.clientConfig, DeploymentResource).namespace('default');
  const services = resourceClient<Service>(main.cp.clientConfig, ServiceResource).namespace('default');
  const gone = async (p: Promise<unknown>): Promise<boolean> => {
    try {
      await p;
      return false;
    } catch (e) {
      if (isNotFound(e)) return true;
      throw e;
    }
  };
  // the garbage collector finds a new CRD's kind at its next discovery (every 30 s)
  await waitFor(() => gone(deployments.get('orders-db')), CONVERGE_MS, 'the Deployment garbage-collected');
  await waitFor(() => gone(services.get('orders-db')), CONVERGE_MS, 'the Service garbage-collected');
});

interface GatewayObject extends KubeObject {
  spec: { gatewayClassName: string; listeners: { name: string; port: number; protocol: string }[] };
}
const GATEWAY_RESOURCE = {
  group: 'gateway.networking.k8s.io',
  version: 'v1',
  resource: 'gateways',
  kind: 'Gateway',
  listKind: 'GatewayList',
  namespaced: true,
};

async function maybe<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

test('the Gateway API operator (--controller Gateway --owns apps/v1/Deployment,v1/Service), in-cluster: a Gateway gets its Deployment and Service; nothing granted beyond the generated rules; /metrics for the metrics reader only', async () => {
  const NS = 'gateways';
  const { cp } = main;
  await main.kubectl(['create', 'namespace', NS]);
  const op = await main.startOperator(gateway.sa, [], gateway);
  const metricsUrl = String((await op.waitForLog((l) => l.msg === 'serving metrics', 60_000))['url']);
  const gateways = resourceClient<GatewayObject>(cp.clientConfig, GATEWAY_RESOURCE).namespace(NS);
  const deployments = resourceClient<Deployment>(cp.clientConfig, DeploymentResource).namespace(NS);
  const services = resourceClient<Service>(cp.clientConfig, ServiceResource).namespace(NS);
  const until = <T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> =>
    waitFor(probe, CONVERGE_MS, what, () => logsOf(op));
  const gw = await gateways.create({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: 'edge', namespace: NS },
    spec: { gatewayClassName: 'crdgen', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
  });
  const controlled = (o: KubeObject | undefined): boolean =>
    o?.metadata?.ownerReferences?.some((r) => r.uid === gw.metadata?.uid && r.controller === true) ?? false;
  const d = await until(() => maybe(deployments.get('edge-proxy')), 'the proxy Deployment');
  assert.ok(controlled(d), JSON.stringify(d.metadata?.ownerReferences));
  const svc = await until(() => maybe(services.get('edge-proxy')), 'the proxy Service');
  assert.ok(controlled(svc), JSON.stringify(svc.metadata?.ownerReferences));
  // kwok's pod: the Deployment becomes available; a listener added reaches the Service
  await until(async () => (await deployments.get('edge-proxy')).status?.availableReplicas === 1, 'the proxy available');
  await gateways.patch('edge', PatchType.Merge, {
    spec: {
      listeners: [
        { name: 'http', port: 80, protocol: 'HTTP' },
        { name: 'admin', port: 9090, protocol: 'HTTP' },
      ],
    },
  });
  await until(
    async () => (await services.get('edge-proxy')).spec?.ports?.map((p) => p.port).join() === '80,9090',
    "the Service following the Gateway's listeners",
  );
  for (const { ns, granted, generated } of await grantedBeyondBaseline(main, gateway))
    assert.deepEqual(granted, generated, `in namespace ${ns}`);
  const metrics = await metricsSecured(main, gateway, op, metricsUrl, gateway.sa.namespace, 'gateway-');
  assert.match(metrics, /controller_runtime_reconcile_total\{controller="gateway-controller",result="success"\} [1-9]/);
  assert.deepEqual(
    outputOf(op).filter((t) => FORBIDDEN.test(t)),
    [],
    'no request of the operator was forbidden',
  );
  await op.kill();
});

/** This machine's first IPv4 address other than loopback: an endpoint address a Service may have. */
function hostAddress(): string {
  const a = Object.values(networkInterfaces())
    .flat()
    .find((i) => i?.family === 'IPv4' && !i.internal);
  assert.ok(a, 'a non-loopback IPv4 address on this machine (an Endpoints address may not be 127.0.0.0/8)');
  return a.address;
}

/** A port nobody listens on now on `host` (the operator binds it next). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface DMv1 extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string; engine?: string; version?: string };
  status?: { availableReplicas?: number; conditions?: Condition[] };
}
const dmResource = (version: string) => ({ ...DM_RESOURCE, version });

test('with --webhooks (examples/databasemanager-webhooks, --webhook-cert-mode=self), in-cluster: its certificate Secret made and the caBundles written; a create defaulted and validated by the webhooks, a read converted; the flow converges; nothing granted beyond the generated rules; /metrics for the metrics reader only', async () => {
  const NS = 'default';
  const { cp } = main;
  // the plain operator's install (same CRD, same names) gives way to this one
  await main.kubectl(['delete', '-f', plain.install, '--ignore-not-found', '--wait=true', '--timeout=180s']);
  await main.install(webhooks);
  // kube-apiserver calls the webhooks through their Service; its pod is this process: the Service
  // loses its selector (kwok's pod of the Deployment is no endpoint) and its endpoints name this
  // host (kube-apiserver routes to endpoints with --enable-aggregator-routing)
  const { sa } = webhooks;
  const service = webhooks.objects.find((o) => o.kind === 'Service' && o.metadata?.name?.endsWith('-webhook-service'));
  assert.ok(service, 'a webhook Service in the manifests');
  const svc = service.metadata!.name!;
  const host = hostAddress();
  const port = await freePort(host);
  await main.kubectl([
    'patch',
    'service',
    svc,
    '-n',
    sa.namespace,
    '--type=json',
    '-p',
    '[{"op":"remove","path":"/spec/selector"}]',
  ]);
  await main.kubectl(['delete', 'endpoints', svc, '-n', sa.namespace, '--ignore-not-found']);
  await main.kubectl(['delete', 'endpointslices', '-n', sa.namespace, '-l', `kubernetes.io/service-name=${svc}`]);
  const endpoints = join(tempDir(), 'endpoints.yaml');
  const ports = [{ name: 'webhook', port, protocol: 'TCP' }];
  writeFileSync(
    endpoints,
    [
      {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: svc, namespace: sa.namespace },
        subsets: [{ addresses: [{ ip: host }], ports }],
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: `${svc}-local`,
          namespace: sa.namespace,
          labels: { 'kubernetes.io/service-name': svc, 'endpointslice.kubernetes.io/managed-by': 'crdgen-e2e' },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: [host], conditions: { ready: true } }],
        ports,
      },
    ]
      .map((o) => YAML.stringify(o))
      .join('---\n'),
  );
  await main.kubectl(['apply', '-f', endpoints]);

  // OwnerReferencesPermissionEnforcement maps an owner's kind through kube-apiserver's discovery,
  // which follows the re-created CRD's new version by moments: wait until an owner reference to it
  // with blockOwnerDeletion is admitted for the operator's ServiceAccount (admins skip the check)
  const asOperator = new RestClient({
    ...cp.clientConfig,
    auth: { bearerToken: await main.tokenOf(sa.name, sa.namespace) },
  });
  const labels = { app: 'probe' };
  await waitFor(
    () =>
      asOperator.request({
        method: 'POST',
        path: `/apis/apps/v1/namespaces/${NS}/deployments`,
        query: { dryRun: 'All' },
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'owned',
            ownerReferences: [
              {
                ...{ apiVersion: 'coolops.cn/v1', kind: 'DatabaseManager', name: 'any' },
                ...{ uid: '00000000-0000-0000-0000-000000000000', blockOwnerDeletion: true },
              },
            ],
          },
          spec: {
            selector: { matchLabels: labels },
            template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
          },
        },
      }),
    60_000,
    'coolops.cn/v1 known to the owner-reference admission plugin',
  );
  const op = await main.startOperator(sa, [], webhooks, `${host}:${port}`);
  const until = <T>(probe: () => Promise<T | undefined | false>, what: string): Promise<T> =>
    waitFor(probe, CONVERGE_MS, what, () => logsOf(op));
  await op.waitForLog((l) => l.msg === 'serving webhooks', 60_000);
  const metricsUrl = String((await op.waitForLog((l) => l.msg === 'serving metrics', 60_000))['url']);
  // the Secret made by the operator, its CA in both configurations and the CRD's conversion webhook
  const secrets = resourceClient<Secret>(cp.clientConfig, SecretResource).namespace(sa.namespace);
  const secret = await until(
    async () => (await secrets.list()).items.find((s) => s.type === 'kubernetes.io/tls' && s.data?.['ca.crt']),
    'the webhook certificate Secret',
  );
  const ca = Buffer.from(secret.data!['ca.crt'], 'base64').toString('utf8');
  const caBundles = async (): Promise<string[]> => {
    const get = async (kind: string, name: string): Promise<any> =>
      JSON.parse(await main.kubectl(['get', kind, name, '-o', 'json']));
    const names = (kind: string) => webhooks.objects.filter((o) => o.kind === kind).map((o) => o.metadata!.name!);
    const out: string[] = [];
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])
      for (const name of names(kind))
        for (const w of (await get(kind, name)).webhooks) out.push(String(w.clientConfig.caBundle ?? ''));
    out.push(
      String((await get('crd', 'databasemanagers.coolops.cn')).spec.conversion.webhook.clientConfig.caBundle ?? ''),
    );
    return out.map((b) => Buffer.from(b, 'base64').toString('utf8'));
  };
  await until(async () => (await caBundles()).every((b) => b === ca), 'the CA in every caBundle');

  const v1 = resourceClient<DMv1>(cp.clientConfig, dmResource('v1')).namespace(NS);
  const v1alpha1 = resourceClient<DMv1>(cp.clientConfig, dmResource('v1alpha1')).namespace(NS);
  // defaulting: spec.version set by the mutating webhook, once kube-apiserver trusts the CA (a dry
  // run until then: a failed call leaves nothing behind)
  const orders = {
    apiVersion: 'coolops.cn/v1',
    kind: 'DatabaseManager',
    metadata: { name: 'orders', namespace: NS },
    spec: { deploymentName: 'orders-db', replicas: 1, engine: 'postgres' },
  };
  await until(async () => (await v1.create(orders, { dryRun: true })).spec?.version, 'a create through the webhooks');
  const created = await v1.create(orders);
  assert.ok(created.spec?.version, `spec.version defaulted: ${JSON.stringify(created.spec)}`);
  // validation: the engine may not change in place
  await assert.rejects(
    v1.patch('orders', PatchType.Merge, { spec: { engine: 'mysql' } }),
    /cannot change engine in place/,
  );
  // conversion: read in v1alpha1
  assert.equal((await v1alpha1.get('orders')).spec?.dbtype, 'postgres');
  // the flow: the Deployment and the Service owned, the status following the Deployment
  const deployments = resourceClient<Deployment>(cp.clientConfig, DeploymentResource).namespace(NS);
  const services = resourceClient<Service>(cp.clientConfig, ServiceResource).namespace(NS);
  const d = await until(() => maybe(deployments.get('orders-db')), 'the Deployment');
  assert.equal(d.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  const s = await until(() => maybe(services.get('orders-db')), 'the Service');
  assert.equal(s.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  await until(async () => {
    const cur = await v1.get('orders');
    return (
      cur.status?.availableReplicas === 1 &&
      cur.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
    );
  }, 'availableReplicas 1 and Ready=True');
  await v1alpha1.patch('orders', PatchType.Merge, { spec: { replicas: 2 } });
  await until(async () => (await v1.get('orders')).status?.availableReplicas === 2, 'availableReplicas 2');
  // this example's reconciler writes through generic hooks whose rules are the generated operator's
  // whole grant on what it owns, not each verb its code needs: asserted here is that nothing is
  // granted beyond the generated rules (no wildcard among them), not that each is needed
  for (const { ns, granted, generated } of await grantedBeyondBaseline(main, webhooks))
    assert.deepEqual(
      granted.filter((g) => !generated.includes(g)),
      [],
      `in namespace ${ns}: granted beyond the generated rules`,
    );
  const metrics = await metricsSecured(main, webhooks, op, metricsUrl, sa.namespace, 'webhooks-');
  assert.match(
    metrics,
    /controller_runtime_reconcile_total\{controller="databasemanager-controller",result="success"\} [1-9]/,
  );
  assert.deepEqual(
    outputOf(op).filter((t) => FORBIDDEN.test(t)),
    [],
    'no request of the operator was forbidden',
  );
  await op.kill();
});
