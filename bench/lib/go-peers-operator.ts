// The operator part of the benchmark on the real control plane (bench/go-peers.ts): the
// generated DatabaseManager operator (as its image runs it) vs the controller-runtime operator of
// bench/go-operator vs the client-node operator of bench/lib/operator-client-node.ts, on etcd +
// kube-apiserver + kube-controller-manager + kube-scheduler + kwok (fake nodes: Deployments get
// ReplicaSets and Pods that are scheduled and become Ready):
// - start-up: spawn → the first `reconciled` line (that reconcile creates a Deployment);
// - N DatabaseManagers created at once (replicas 1, a fresh namespace each run, everything deleted
//   through the API afterwards): time until all converged (status.availableReplicas = spec.replicas,
//   through a Deployment kwok made available), and the operator's API requests per object,
//   counted from the apiserver's audit log (the operators run as their own service account,
//   the only user the audit policy records) until the operator has been quiet for 3 s;
// - idle: each operator watching its own namespace with 1,000 converged DatabaseManagers and
//   their 1,000 Deployments cached; CPU over the same idle window, then RSS.
// kube-controller-manager and kube-scheduler get --kube-api-qps=1000 (defaults 20 and 50), and the
// deployment and ReplicaSet controllers 20 workers (default 5), so that the platform is less of the
// bottleneck of 2,000 Deployments; every operator gets 4 workers and no
// client-side rate limit (controller-runtime has none by default; crdgen's default is 20 QPS,
// lifted with --kube-api-qps).
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from '../../src/testing/index.js';
import { startRealControlPlane } from './control-plane-start.js';
import { RestClient } from '../../src/runtime/client/rest-client.js';
import { newSharedIndexInformer } from '../../src/runtime/cache/shared-index-informer.js';
import { resourceClient } from '../../src/runtime/client/resource-client.js';
import type { KubeObject } from '../../src/runtime/meta/types.js';
import { deletePrefix, etcdClient, storageKey } from './etcd-seed.js';
import { DM_CRD, REPO } from './env.js';
import { buildOperators } from './operator-build.js';
import { cpuMs, rssMb, startOperator, stopOperator, until, type Contender, type Running } from './operator-process.js';
import { fmt, median, pairedRatio, table, times } from './stats.js';

type DM = KubeObject & {
  spec: { deploymentName: string; replicas: number; dbtype: string };
  status?: { availableReplicas?: number };
};
const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const SA = { namespace: 'bench-system', name: 'operator' };
const SA_USER = `system:serviceaccount:${SA.namespace}:${SA.name}`;

/** The operators of the part, in the order of their rows. */
export const OPERATORS = ['crdgen', 'controller-runtime', 'client-node'] as const;
export type Operator = (typeof OPERATORS)[number];
export const OPERATOR_LABEL: Record<Operator, string> = {
  crdgen: 'crdgen (generated, as its image runs it)',
  'controller-runtime': 'controller-runtime v0.25.3',
  'client-node': 'client-node operator',
};

/** What the part measured. */
export interface OperatorResult {
  startup: Record<Operator, { wallMs: number[]; cpuMs: number[] }>;
  /** Per size: the runs' seconds, requests per object and Event requests per object. */
  convergence: {
    n: number;
    runs: Record<Operator, { seconds: number[]; requestsPerObject: number[]; eventsPerObject: number[] }>;
  }[];
  idle: { seconds: number; count: number; byOperator: Record<Operator, { cpuMs: number; rssMb: number }> };
  nodes: number;
}

export interface OperatorOptions {
  assets: string;
  peersBin: string;
  starts: number;
  sizes: { n: number; rounds: number }[];
  idleSeconds: number;
  idleCount: number;
  progress: (s: string) => void;
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
  - level: Metadata
    users: [${JSON.stringify(SA_USER)}]
  - level: None
`;

/** One line of the audit log, the parts counted. */
interface AuditEvent {
  verb: string;
  objectRef?: { resource?: string; subresource?: string };
}

/** Counts the audit log's requests from `offset` on: all, and those on Events. */
export function countAudit(text: string): { all: number; events: number } {
  let all = 0;
  let events = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line) as AuditEvent;
    all++;
    if (e.objectRef?.resource === 'events') events++;
  }
  return { all, events };
}

function readFrom(file: string, offset: number): string {
  const buf = readFileSync(file);
  return buf.subarray(offset).toString('utf8');
}

function dm(i: number, namespace: string): DM {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: `dm-${i}`, namespace },
    spec: { deploymentName: `dm-${i}-db`, replicas: 1, dbtype: ['mysql', 'postgres', 'redis', 'mongodb'][i % 4] },
  };
}

/** Creates `n` DatabaseManagers in `namespace`, 50 requests in flight. */
async function createMany(client: RestClient, namespace: string, n: number): Promise<void> {
  const indices = Array.from({ length: n }, (_, i) => i);
  await inLanes(indices, 50, (i) =>
    client.request({
      method: 'POST',
      path: `/apis/coolops.cn/v1alpha1/namespaces/${namespace}/databasemanagers`,
      body: dm(i, namespace),
    }),
  );
}

/** Calls `fn` on every item, `lanes` calls in flight, each item once. */
async function inLanes<T>(items: readonly T[], lanes: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** Resolves once `n` DatabaseManagers of `namespace` have status.availableReplicas = spec.replicas. */
function convergence(cp: ControlPlane, namespace: string, n: number): { done: Promise<void>; stop: () => void } {
  const informer = newSharedIndexInformer(
    resourceClient<DM>({ ...cp.clientConfig, qps: 0, userAgent: 'crdgen-bench-driver' }, DM_RESOURCE, { namespace }),
  );
  const converged = new Set<string>();
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const check = (o: DM): void => {
    if (o.status?.availableReplicas === o.spec.replicas) converged.add(o.metadata?.name ?? '');
    if (converged.size >= n) resolve();
  };
  informer.addEventHandler({ onAdd: check, onUpdate: (_old, o) => check(o) });
  const ac = new AbortController();
  void informer.run(ac.signal);
  return { done, stop: () => ac.abort() };
}

/** The service account the operators run as, cluster-admin; a kubeconfig with its token. */
async function operatorKubeconfig(cp: ControlPlane, client: RestClient, dir: string): Promise<string> {
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SA.namespace } },
  });
  await client.request({
    method: 'POST',
    path: `/api/v1/namespaces/${SA.namespace}/serviceaccounts`,
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA.name } },
  });
  await client.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'bench-operator' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: SA.name, namespace: SA.namespace }],
    },
  });
  const tr = await client.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${SA.namespace}/serviceaccounts/${SA.name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 86_400 } },
  });
  const doc = structuredClone(cp.kubeconfig) as { users: { user: { token?: string } }[] };
  doc.users[0].user.token = tr.status.token;
  const path = join(dir, 'operator.kubeconfig');
  writeFileSync(path, JSON.stringify(doc), { mode: 0o600 });
  return path;
}

/**
 * Removes every object an operator run left in `namespace` through the API, each deletion its own
 * write, so that every controller sees it. Wiped straight from etcd (one range delete: hundreds
 * of deletions at a single revision), 500 pods stayed in kube-scheduler's cache (its SIGUSR2
 * dump: 250 pods on each of 3 nodes, the API listing 93 per node), so the next run's pods stayed
 * Pending ("Too many pods") and the run never converged; ReplicaSets of a wiped Deployment were
 * recreated and churned pods for the rest of the run. (Likely: a watcher that kube-apiserver
 * closes part-way through one revision's events resumes after that revision.) Pods go
 * with gracePeriodSeconds 0 (removed at once, as `kubectl delete --force` does; kwok would end
 * a graceful one only later); the Events, which no controller caches, straight from etcd.
 */
async function wipe(
  client: RestClient,
  etcd: Awaited<ReturnType<typeof etcdClient>>,
  namespace: string,
): Promise<void> {
  // A deletecollection of thousands can outlast kube-apiserver's request timeout (it hangs up, the
  // deletions made so far stay made; seen at 2,000 DatabaseManagers on a loaded machine): tried again.
  const del = async (path: string, query: Record<string, string | number> = {}): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.request({ method: 'DELETE', path, query, timeoutMs: 120_000 });
        return;
      } catch (e) {
        if (attempt >= 3) throw e;
      }
    }
  };
  // one item is enough to know some are left (a full list of 2,000 pods every 20 ms loads the server the clean-up waits for)
  const count = async (path: string): Promise<number> =>
    (await client.request<{ items: unknown[] }>({ method: 'GET', path, query: { limit: 1 } })).items.length;
  const dms = `/apis/coolops.cn/v1alpha1/namespaces/${namespace}/databasemanagers`;
  const deployments = `/apis/apps/v1/namespaces/${namespace}/deployments`;
  const replicasets = `/apis/apps/v1/namespaces/${namespace}/replicasets`;
  const pods = `/api/v1/namespaces/${namespace}/pods`;
  const services = `/api/v1/namespaces/${namespace}/services`;
  const slices = `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`;
  await del(dms);
  // Services have no deletecollection: one DELETE each, 20 in flight. Left to the garbage
  // collector with their owners, the start-up namespace's one Service took 36 s to go (likely:
  // the collector watched DatabaseManagers only from its next discovery, every 30 s).
  const names = (
    await client.request<{ items: { metadata: { name: string } }[] }>({ method: 'GET', path: services })
  ).items.map((s) => s.metadata.name);
  await inLanes(names, 20, (name) =>
    client.request({ method: 'DELETE', path: `${services}/${name}` }).catch(() => undefined),
  );
  await del(deployments, { propagationPolicy: 'Background' });
  await del(replicasets, { propagationPolicy: 'Background' });
  // a ReplicaSet controller that had not yet seen its ReplicaSet go may make a pod more
  await until(
    async () => {
      await del(pods, { gracePeriodSeconds: 0 });
      const left = await Promise.all([dms, deployments, replicasets, pods, services, slices].map(count));
      return left.every((x) => x === 0);
    },
    180_000,
    `the objects of namespace ${namespace} to go`,
  );
  await deletePrefix(etcd, storageKey('', 'events', namespace, ''));
}

/** `p`, or an error after `ms` (a run that does not converge fails the benchmark instead of hanging it). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms / 1000} s: ${what}`)), ms)),
  );
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

export async function runOperatorPart(o: OperatorOptions): Promise<OperatorResult> {
  const work = mkdtempSync(join(tmpdir(), 'crdgen-bench-go-peers-'));
  const out = join(REPO, `.bench-operator-${process.pid}`);
  const policy = join(work, 'audit-policy.yaml');
  const audit = join(work, 'audit.log');
  writeFileSync(policy, AUDIT_POLICY);
  const maxPods = Math.max(...o.sizes.map((s) => s.n), o.idleCount * OPERATORS.length);
  const nodes = Math.ceil((maxPods * 1.2) / 250);
  let cp: ControlPlane | undefined;
  try {
    const built = await buildOperators(out);
    cp = await startRealControlPlane({
      assets: o.assets,
      crds: [DM_CRD],
      workloads: { nodes },
      // every operator keeps a Service per DatabaseManager, as the generated one does: the
      // control plane's default service range (a /24, 253 cluster IPs) would run out at 500
      apiserverArgs: [
        `--audit-policy-file=${policy}`,
        `--audit-log-path=${audit}`,
        '--service-cluster-ip-range=10.0.0.0/16',
      ],
      controllerManagerArgs: [
        '--kube-api-qps=1000',
        '--kube-api-burst=2000',
        '--concurrent-deployment-syncs=20',
        '--concurrent-replicaset-syncs=20',
        '--concurrent-gc-syncs=40',
      ],
      schedulerArgs: ['--kube-api-qps=1000', '--kube-api-burst=2000'],
    });
    o.progress(`operator: control plane ${cp.version} up with ${nodes} kwok nodes`);
    const client = new RestClient({ ...cp.clientConfig, qps: 0, userAgent: 'crdgen-bench-driver' });
    const etcd = await etcdClient(cp.etcdEndpoint);
    const kubeconfig = await operatorKubeconfig(cp, client, work);
    const crdgenArgs = [
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      '--workers',
      '4',
      '--kube-api-qps',
      '5000',
      '--kube-api-burst',
      '5000',
      // the line that ends each reconcile (the start-up mark) is at debug; the Go peer logs it at info
      '--log-level',
      'debug',
    ];
    const contender = (op: Operator, namespace?: string): Contender => {
      const ns = namespace ? ['--namespace', namespace] : [];
      switch (op) {
        case 'crdgen':
          return {
            label: OPERATOR_LABEL[op],
            argv: (kc) => [
              process.execPath,
              ...built.imageNodeOptions,
              built.crdgenBundle,
              '--kubeconfig',
              kc,
              ...crdgenArgs,
              ...ns,
            ],
            syncedMsg: 'caches synced; starting workers',
            reconciledMsg: 'reconciled',
          };
        case 'controller-runtime':
          return {
            label: OPERATOR_LABEL[op],
            argv: (kc) => [join(o.peersBin, 'go-operator'), '--kubeconfig', kc, '--workers', '4', ...ns],
            syncedMsg: 'Starting workers',
            reconciledMsg: 'reconciled',
          };
        case 'client-node':
          return {
            label: OPERATOR_LABEL[op],
            argv: (kc) => [process.execPath, built.clientNode, '--kubeconfig', kc, '--workers', '4', ...ns],
            syncedMsg: 'caches synced; starting workers',
            reconciledMsg: 'reconciled',
          };
      }
    };
    const rotated = (r: number): Operator[] => OPERATORS.map((_, i) => OPERATORS[(i + r) % OPERATORS.length]);
    const auditSize = (): number => statSync(audit).size;

    // start-up
    const startup = Object.fromEntries(
      OPERATORS.map((op) => [op, { wallMs: [] as number[], cpuMs: [] as number[] }]),
    ) as OperatorResult['startup'];
    await client.request({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'startup' } },
    });
    await client.request({
      method: 'POST',
      path: '/apis/coolops.cn/v1alpha1/namespaces/startup/databasemanagers',
      body: dm(0, 'startup'),
    });
    for (let r = 0; r < o.starts; r++) {
      for (const op of rotated(r)) {
        await client
          .request({ method: 'DELETE', path: '/apis/apps/v1/namespaces/startup/deployments/dm-0-db' })
          .catch(() => undefined);
        await until(
          async () =>
            (
              await client.request<{ items: unknown[] }>({
                method: 'GET',
                path: '/apis/apps/v1/namespaces/startup/deployments',
              })
            ).items.length === 0,
          30_000,
          'the start-up Deployment to go',
        );
        const c = contender(op);
        const run = startOperator(c, kubeconfig);
        try {
          await until(() => run.marks.has(c.reconciledMsg), 60_000, `${c.label}: first reconcile`);
          startup[op].wallMs.push(run.marks.get(c.reconciledMsg)!);
          startup[op].cpuMs.push(run.cpuAtFirstReconcile);
        } finally {
          await stopOperator(run);
        }
      }
    }
    const w0 = performance.now();
    await wipe(client, etcd, 'startup');
    o.progress(`operator: start-up measured (clean-up ${((performance.now() - w0) / 1000).toFixed(1)} s)`);

    // convergence
    const convergenceRuns: OperatorResult['convergence'] = [];
    for (const { n, rounds } of o.sizes) {
      const runs = Object.fromEntries(
        OPERATORS.map((op) => [
          op,
          { seconds: [] as number[], requestsPerObject: [] as number[], eventsPerObject: [] as number[] },
        ]),
      ) as OperatorResult['convergence'][number]['runs'];
      for (let r = 0; r < rounds; r++) {
        for (const op of rotated(r)) {
          const namespace = `c${n}-${r}-${op}`;
          await client.request({
            method: 'POST',
            path: '/api/v1/namespaces',
            body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
          });
          const c = contender(op);
          const run = startOperator(c, kubeconfig);
          const watch = convergence(cp, namespace, n);
          let took: number | undefined;
          try {
            await until(() => run.marks.has(c.syncedMsg), 60_000, `${c.label}: caches synced`);
            const offset = auditSize();
            const t0 = performance.now();
            await createMany(client, namespace, n);
            await within(
              Promise.race([watch.done, run.exited.then(() => Promise.reject(new Error(`${c.label} exited`)))]),
              600_000,
              `${c.label}: ${n} DatabaseManagers to converge`,
            );
            const seconds = (performance.now() - t0) / 1000;
            let last = auditSize();
            let quietSince = performance.now();
            await until(
              () => {
                const now = auditSize();
                if (now !== last) [last, quietSince] = [now, performance.now()];
                return performance.now() - quietSince >= 3000;
              },
              300_000,
              `${c.label}: requests to stop`,
            );
            const counted = countAudit(readFrom(audit, offset));
            runs[op].seconds.push(seconds);
            runs[op].requestsPerObject.push(counted.all / n);
            runs[op].eventsPerObject.push(counted.events / n);
            took = seconds;
          } finally {
            watch.stop();
            await stopOperator(run);
            const w0 = performance.now();
            await wipe(client, etcd, namespace);
            o.progress(
              `operator: ${n} ${op}: ${took === undefined ? 'failed' : `${took.toFixed(1)} s`}, clean-up ${((performance.now() - w0) / 1000).toFixed(1)} s`,
            );
          }
        }
        o.progress(`operator: ${n} converged, round ${r + 1}/${rounds}`);
      }
      convergenceRuns.push({ n, runs });
    }

    // idle: each operator with its own namespace of idleCount converged objects, one window for all
    const running: [Operator, Running][] = [];
    const idle = Object.fromEntries(
      OPERATORS.map((op) => [op, { cpuMs: Number.NaN, rssMb: Number.NaN }]),
    ) as OperatorResult['idle']['byOperator'];
    try {
      // the three fill their namespaces at the same time (how long it takes is not measured here)
      await Promise.all(
        OPERATORS.map(async (op) => {
          const namespace = `idle-${op}`;
          await client.request({
            method: 'POST',
            path: '/api/v1/namespaces',
            body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
          });
          const c = contender(op, namespace);
          const run = startOperator(c, kubeconfig);
          running.push([op, run]);
          const watch = convergence(cp!, namespace, o.idleCount);
          try {
            await until(() => run.marks.has(c.syncedMsg), 60_000, `${c.label}: caches synced`);
            await createMany(client, namespace, o.idleCount);
            await within(watch.done, 600_000, `${c.label}: ${o.idleCount} DatabaseManagers to converge`);
          } finally {
            watch.stop();
          }
        }),
      );
      let last = auditSize();
      let quietSince = performance.now();
      await until(
        () => {
          const now = auditSize();
          if (now !== last) [last, quietSince] = [now, performance.now()];
          return performance.now() - quietSince >= 3000;
        },
        300_000,
        'the operators to go quiet',
      );
      o.progress(`operator: ${o.idleCount} converged per operator; ${o.idleSeconds} s idle`);
      const cpu0 = running.map(([, r]) => cpuMs(r.proc.pid!));
      await new Promise((res) => setTimeout(res, o.idleSeconds * 1000));
      running.forEach(([op, r], i) => (idle[op] = { cpuMs: cpuMs(r.proc.pid!) - cpu0[i], rssMb: rssMb(r.proc.pid!) }));
    } finally {
      await Promise.all(running.map(([, r]) => stopOperator(r)));
      await Promise.all(OPERATORS.map((op) => wipe(client, etcd, `idle-${op}`)));
    }
    etcd.close();
    client.close();
    return {
      startup,
      convergence: convergenceRuns,
      idle: { seconds: o.idleSeconds, count: o.idleCount, byOperator: idle },
      nodes,
    };
  } finally {
    await cp?.stop();
    rmSync(out, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

/** The part's tables, as Markdown. */
export function operatorTables(r: OperatorResult): string {
  const out: string[] = [];
  out.push(
    `### start-up: spawn → first \`reconciled\` line (that reconcile created a Deployment), median of ${r.startup.crdgen.wallMs.length}\n`,
  );
  out.push(
    table(
      ['operator', 'wall clock', 'vs crdgen', 'CPU at first reconcile', 'runs (s)'],
      OPERATORS.map((op) => [
        OPERATOR_LABEL[op],
        `${fmt(median(r.startup[op].wallMs) / 1000)} s`,
        times(pairedRatio(r.startup[op].wallMs, r.startup.crdgen.wallMs)),
        `${fmt(median(r.startup[op].cpuMs))} ms`,
        r.startup[op].wallMs.map((w) => (w / 1000).toFixed(2)).join(' '),
      ]),
    ),
  );
  out.push(
    `\n### N DatabaseManagers created at once → all converged (Deployment available through kwok; ${r.nodes} fake nodes); requests per object from the audit log (of which Events)\n`,
  );
  const rows: string[][] = [];
  for (const { n, runs } of r.convergence) {
    for (const op of OPERATORS) {
      const x = runs[op];
      rows.push([
        fmt(n),
        OPERATOR_LABEL[op],
        `${fmt(median(x.seconds))} s`,
        times(pairedRatio(x.seconds, runs.crdgen.seconds)),
        `${fmt(median(x.requestsPerObject))} (${fmt(median(x.eventsPerObject), 2)})`,
        x.seconds.map((s) => s.toFixed(1)).join(' '),
      ]);
    }
  }
  out.push(
    table(['N', 'operator', 'converged (median)', 'time vs crdgen', 'requests per object (Events)', 'runs (s)'], rows),
  );
  out.push(
    `\n### idle: ${fmt(r.idle.count)} converged DatabaseManagers + ${fmt(r.idle.count)} Deployments cached per operator (each watching its own namespace), CPU over the same ${r.idle.seconds} s, then RSS\n`,
  );
  out.push(
    table(
      ['operator', `CPU over ${r.idle.seconds} s`, 'RSS'],
      OPERATORS.map((op) => [
        OPERATOR_LABEL[op],
        `${fmt(r.idle.byOperator[op].cpuMs)} ms (${fmt((r.idle.byOperator[op].cpuMs / (r.idle.seconds * 1000)) * 100, 2)} %)`,
        `${fmt(r.idle.byOperator[op].rssMb)} MB`,
      ]),
    ),
  );
  return out.join('\n');
}
