// The operator and failover parts of the scale benchmark (bench/scale.ts). On etcd + kube-apiserver
// alone (no kube-controller-manager: the Deployment → ReplicaSet → Pod chain is not what is
// measured, and 100k of it does not fit 2 cores), N DatabaseManagers, their N Deployments and N
// Services are seeded straight in etcd, each Deployment available and each pair exactly as the
// operators want them (templates made by the generated operator itself, then copied); the
// Services headless, so that no cluster IP is allocated for 100k of them. Per round each operator
// finds a backlog: every DatabaseManager without status.
// - operator: the generated DatabaseManager operator (as its image runs it; its owned kinds cached
//   whole, and metadata-only where its reconciler allows) vs the controller-runtime operator, one
//   fresh process each per round: start-up to synced, time and CPU seconds (of the operator
//   process, /proc) until every DatabaseManager has its status, CPU per converged object, RSS with
//   everything cached (after the backlog, settled), and the time until a DatabaseManager created
//   while the backlog runs (once a tenth of it is through) is reconciled.
// - failover: two replicas with --leader-elect, at client-go's and controller-runtime's default
//   timings (lease 15 s, renew deadline 10 s, retry 2 s) for both; once the standby is ready (a warm
//   one's caches full), the Lease is read: the leader must still hold it, renewed within its
//   duration (else the attempt is void, and retried: a loaded machine can make a leader miss its
//   renewals, and a standby that already leads measures no failover). Then the leader is killed
//   (SIGKILL) and a DatabaseManager created at once; the time from the kill until the new leader has
//   reconciled it (its status written), for crdgen's warm standby (its caches full before it leads),
//   a cold one, and controller-runtime with warmup (EnableWarmup); and from the kill until the new
//   leader won the Lease and started its workers (its caches synced). Both log at their defaults
//   (info): at debug, a line per reconcile, crdgen's synchronous log writes stalled a leader's
//   event loop behind a slow reader of its standard output and it missed its renewals.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest-client.js';
import { ApiError } from '../../src/runtime/client/errors.js';
import { deletePrefix, etcdClient, putAll, storageKey } from './etcd-seed.js';
import { DM_CRD, REPO } from './env.js';
import { buildOperators, type BuiltOperators } from './operator-build.js';
import { cpuMs, logMsg, rssMb, until } from './operator-process.js';
import { startRealControlPlane } from './control-plane-start.js';
import { fmt, median, table } from './stats.js';

const NS = 'scale-op';
/** controller-runtime's log line (its logger, JSON on standard output) when its leader election wins the Lease. */
const CR_ACQUIRED = 'Successfully acquired lease';
/** BENCH_SCALE_LOG_DIR: every operator process's log, one file per pid (for a run that fails). */
const LOG_DIR = process.env.BENCH_SCALE_LOG_DIR;
/**
 * BENCH_SCALE_CPU_PROF: a folder for a CPU profile (`node --cpu-prof`) of each crdgen operator
 * process of the operator part; those processes are then stopped with SIGTERM (a profile is
 * written at exit, never on SIGKILL). For a profile, not for figures.
 */
const CPU_PROF = process.env.BENCH_SCALE_CPU_PROF;
/**
 * BENCH_SCALE_TRACE_GC=1: the crdgen operator runs with `--trace-gc` (a line per collection on its
 * standard output, kept with BENCH_SCALE_LOG_DIR): what its heap holds after each collection. For a
 * diagnosis, not for figures.
 */
const TRACE_GC = process.env.BENCH_SCALE_TRACE_GC === '1';
const DMS = `/apis/coolops.cn/v1alpha1/namespaces/${NS}/databasemanagers`;

/** The operators of the operator part. */
export const SCALE_OPERATORS = [
  'crdgen',
  'crdgen-whole',
  'crdgen-identity',
  'crdgen-flags',
  'controller-runtime',
] as const;
/** BENCH_SCALE_NODE_FLAGS: the node flags `crdgen-flags` adds to the generated operator's own (e.g. V8 heap flags). */
const EXTRA_NODE_FLAGS = (process.env.BENCH_SCALE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
export type ScaleOperator = (typeof SCALE_OPERATORS)[number];
export const SCALE_OPERATOR_LABEL: Record<ScaleOperator, string> = {
  crdgen: 'crdgen (generated: Services cached metadata-only, as its reconciler allows; Deployments whole)',
  'crdgen-whole': 'crdgen (the same operator with every owned kind cached whole)',
  'crdgen-identity': 'crdgen (as generated, asking for no gzip: kubeconfig disable-compression)',
  'crdgen-flags': `crdgen (as generated, run with ${EXTRA_NODE_FLAGS.join(' ') || 'no extra node flags'})`,
  'controller-runtime': 'controller-runtime v0.25.3',
};

/** The standbys of the failover part. */
export const FAILOVER_KINDS = ['crdgen-warm', 'crdgen-cold', 'controller-runtime-warmup'] as const;
export type FailoverKind = (typeof FAILOVER_KINDS)[number];
export const FAILOVER_LABEL: Record<FailoverKind, string> = {
  'crdgen-warm': 'crdgen, warm standby',
  'crdgen-cold': 'crdgen, cold standby',
  'controller-runtime-warmup': 'controller-runtime with warmup',
};

export interface OperatorRun {
  syncedMs: number;
  convergedMs: number;
  cpuSeconds: number;
  rssMb: number;
  newObjectMs: number;
}

export interface ScaleOperatorResult {
  sizes: number[];
  runs: Record<ScaleOperator, OperatorRun[][]>;
  failover?: {
    size: number;
    /** Per round, ms from the kill to the new leader's reconcile of an object created right after it. */
    ms: Record<FailoverKind, number[]>;
    /** ms from the kill to the new leader's workers starting (its caches synced), and to its winning the Lease. */
    workersMs: Record<FailoverKind, number[]>;
    acquiredMs: Record<FailoverKind, number[]>;
    /** Why each void attempt measured nothing (the leader had lost its Lease before the kill). */
    void: Record<FailoverKind, string[]>;
    timings: typeof FAILOVER_TIMINGS;
    /** With a backlog: per round, the DatabaseManagers the killed leader had not yet given a status. */
    backlogLeft?: Record<FailoverKind, number[]>;
  };
}

/** One operator process: its log read line by line. */
interface Proc {
  proc: ChildProcess;
  t0: number;
  /** ms after spawn of the first line of each msg. */
  marks: Map<string, number>;
  /** Called with every parsed line (msg, the line). */
  onLine?: (msg: string, line: string) => void;
  exited: Promise<void>;
}

function spawnOperator(argv: string[]): Proc {
  const [cmd, ...args] = argv;
  const t0 = performance.now();
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: '' } });
  const p: Proc = { proc, t0, marks: new Map(), exited: new Promise((r) => proc.once('exit', () => r())) };
  // stderr: passed through
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(chunk));
  let buf = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (LOG_DIR) appendFileSync(join(LOG_DIR, `operator-${proc.pid}.log`), `${line}\n`);
      const msg = logMsg(line);
      if (msg === undefined) continue;
      if (!p.marks.has(msg)) p.marks.set(msg, performance.now() - t0);
      p.onLine?.(msg, line);
    }
  });
  return p;
}

/** A process's resident memory by kind (MB, from /proc/<pid>/status): anonymous, file-backed, and its peak. */
function memoryBreakdown(pid: number): Record<string, number> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string): number => {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
    return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
  };
  return { rssAnonMb: mb('RssAnon'), rssFileMb: mb('RssFile'), peakRssMb: mb('VmHWM') };
}

async function kill(p: Proc): Promise<void> {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await p.exited;
}

/** Stops an operator with SIGTERM (its CPU profile written at exit), SIGKILL after 120 s. */
async function terminate(p: Proc): Promise<void> {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGTERM');
  const t = setTimeout(() => p.proc.kill('SIGKILL'), 120_000);
  await p.exited;
  clearTimeout(t);
}

/** What each operator logs, and how it is started. */
interface Spec {
  argv(extra: string[]): string[];
  synced: string;
  reconciled: string;
  acquired: string;
  /** The key of a reconcile line, `namespace/name`. */
  key(line: string): string | undefined;
}

function specs(
  built: BuiltOperators,
  peersBin: string,
  kubeconfig: string,
  identityKubeconfig: string,
): Record<ScaleOperator, Spec> {
  const crdgenKey = (line: string): string | undefined => /"key":"([^"]+)"/.exec(line)?.[1];
  // the operators log at their defaults (info; controller-runtime's production logger): crdgen's
  // debug level (a line per reconcile) costs it CPU and, behind a slow reader, stalls its event loop
  const crdgen = (bundle: string, kc = kubeconfig, nodeFlags: string[] = []): Spec => ({
    argv: (more) => [
      process.execPath,
      ...built.imageNodeOptions,
      ...nodeFlags,
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
      ...(TRACE_GC ? ['--trace-gc'] : []),
      bundle,
      '--kubeconfig',
      kc,
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
      ...more,
    ],
    synced: 'caches synced; starting workers',
    reconciled: 'reconciled',
    acquired: 'acquired lease',
    key: crdgenKey,
  });
  return {
    crdgen: crdgen(built.crdgenBundle),
    'crdgen-whole': crdgen(built.crdgenWholeBundle),
    'crdgen-identity': crdgen(built.crdgenBundle, identityKubeconfig),
    'crdgen-flags': crdgen(built.crdgenBundle, kubeconfig, EXTRA_NODE_FLAGS),
    'controller-runtime': {
      argv: (more) => [join(peersBin, 'go-operator'), '--kubeconfig', kubeconfig, '--workers', '4', ...more],
      synced: 'Starting workers',
      reconciled: 'reconciled',
      acquired: CR_ACQUIRED,
      key: crdgenKey,
    },
  };
}

/** kube-apiserver's etcd keys of the built-ins used here (no group in the path; Services under `services/specs`). */
const DEPLOYMENT_KEY = (name: string): string => `/registry/deployments/${NS}/${name}`;
const SERVICE_KEY = (name: string): string => `/registry/services/specs/${NS}/${name}`;

/** `buf` with every occurrence of `from` replaced by `to`, of the same length (protobuf lengths stay right). */
function replaceBytes(buf: Buffer, from: string, to: string): Buffer {
  const f = Buffer.from(from);
  const t = Buffer.from(to);
  if (f.length !== t.length) throw new Error(`replaceBytes: ${from} and ${to} differ in length`);
  const out = Buffer.from(buf);
  for (let at = out.indexOf(f); at >= 0; at = out.indexOf(f, at + t.length)) t.copy(out, at);
  return out;
}

export interface ScaleOperatorOptions {
  /** The operators to run (default all). */
  operators?: readonly ScaleOperator[];
  assets: string;
  peersBin: string;
  sizes: number[];
  rounds: number;
  failover: boolean;
  /**
   * Failover with a backlog: before each attempt every DatabaseManager loses its status, so the
   * leader is killed while it still writes them and the standby has seen part of those writes.
   */
  failoverBacklog?: boolean;
  progress: (s: string) => void;
}

/** Resolves once kube-apiserver's watch cache of `path` has taken in revision `rv` (504 after 3 s: ask again). */
async function notOlderThan(client: RestClient, path: string, rv: string): Promise<void> {
  for (const deadline = performance.now() + 300_000; ;) {
    try {
      await client.request({
        method: 'GET',
        path,
        query: { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', limit: 1 },
        timeoutMs: 300_000,
      });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 504) || performance.now() > deadline) throw e;
    }
  }
}

export async function runScaleOperatorPart(o: ScaleOperatorOptions): Promise<ScaleOperatorResult> {
  const out = join(REPO, `.bench-scale-operator-${process.pid}`);
  const work = mkdtempSync(join(tmpdir(), 'crdgen-bench-scale-op-'));
  let cp: ControlPlane | undefined;
  try {
    const built = await buildOperators(out);
    cp = await startRealControlPlane({
      assets: o.assets,
      crds: [DM_CRD],
      apiserverArgs: ['--service-cluster-ip-range=10.0.0.0/16', '--request-timeout=10m'],
    });
    o.progress(`operator: control plane ${cp.version} up`);
    const client = new RestClient({ ...cp.clientConfig, qps: 0, userAgent: 'crdgen-bench-driver' });
    const etcd = await etcdClient(cp.etcdEndpoint);
    const identity = join(work, 'identity.kubeconfig');
    const kc = JSON.parse(readFileSync(cp.kubeconfigPath, 'utf8')) as { clusters: { cluster: object }[] };
    for (const c of kc.clusters) Object.assign(c.cluster, { 'disable-compression': true });
    writeFileSync(identity, JSON.stringify(kc), { mode: 0o600 });
    const ops = specs(built, o.peersBin, cp.kubeconfigPath, identity);
    try {
      await client.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      });
      // Templates: one DatabaseManager, its headless Service (made here, exactly as the operators
      // want it, with the controller reference), the Deployment the generated operator makes, made
      // available through /status. Copies replace the template's name and uids byte for byte
      // (names of the same length: built-ins are stored as protobuf).
      const T = 'tmpltdm';
      const nameOf = (i: number): string => `m${String(i).padStart(6, '0')}`;
      const dmCreated = await client.request<{ metadata: { uid: string } }>({
        method: 'POST',
        path: DMS,
        body: {
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          metadata: { name: T, namespace: NS },
          spec: { deploymentName: `${T}-db`, replicas: 1, dbtype: 'mysql' },
        },
      });
      const dmUid = dmCreated.metadata.uid;
      const labels = { app: `${T}-db`, controller: T };
      // (under the operator's field manager: the generated operator judges it by its managedFields)
      await client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${NS}/services`,
        query: { fieldManager: 'databasemanager-controller' },
        body: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: `${T}-db`,
            labels,
            ownerReferences: [
              {
                apiVersion: 'coolops.cn/v1alpha1',
                kind: 'DatabaseManager',
                name: T,
                uid: dmUid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          },
          spec: {
            type: 'ClusterIP',
            clusterIP: 'None',
            selector: labels,
            ports: [{ name: 'mysql', port: 3306, targetPort: 'mysql', protocol: 'TCP' }],
          },
        },
      });
      const maker = spawnOperator(ops.crdgen.argv(['--namespace', NS]));
      try {
        await until(
          async () =>
            (
              await client
                .request<{ status?: unknown }>({ method: 'GET', path: `${DMS}/${T}` })
                .catch(() => ({ status: undefined }))
            ).status !== undefined,
          120_000,
          'the template reconciled',
        );
      } finally {
        await kill(maker);
      }
      const deployPath = `/apis/apps/v1/namespaces/${NS}/deployments/${T}-db`;
      const dep = await client.request<Record<string, unknown>>({ method: 'GET', path: deployPath });
      await client.request({
        method: 'PUT',
        path: `${deployPath}/status`,
        body: {
          ...dep,
          status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
        },
      });
      const raw = async (key: string): Promise<Buffer> => {
        const b = await etcd.get(key).buffer();
        if (!b) throw new Error(`nothing in etcd at ${key}`);
        return b;
      };
      const dmJson = JSON.parse((await raw(storageKey('coolops.cn', 'databasemanagers', NS, T))).toString()) as {
        status?: unknown;
      };
      delete dmJson.status;
      const dmT = Buffer.from(`${JSON.stringify(dmJson)}\n`);
      const depT = await raw(DEPLOYMENT_KEY(`${T}-db`));
      const svcT = await raw(SERVICE_KEY(`${T}-db`));
      const depUid = (dep.metadata as { uid: string }).uid;
      const svcUid = (
        await client.request<{ metadata: { uid: string } }>({
          method: 'GET',
          path: `/api/v1/namespaces/${NS}/services/${T}-db`,
        })
      ).metadata.uid;
      for (const key of [
        storageKey('coolops.cn', 'databasemanagers', NS, T),
        DEPLOYMENT_KEY(`${T}-db`),
        SERVICE_KEY(`${T}-db`),
      ])
        await etcd.delete().key(key).exec();
      const runs = Object.fromEntries(SCALE_OPERATORS.map((op) => [op, [] as OperatorRun[][]])) as Record<
        ScaleOperator,
        OperatorRun[][]
      >;
      let seeded = 0;
      const uids: string[] = [];
      /** The copy of `template` for object `i`: its name and the uids replaced. */
      const copy = (template: Buffer, i: number, uid: string, ownUid?: [string, string]): Buffer => {
        let b = replaceBytes(template, T, nameOf(i));
        b = replaceBytes(b, dmUid, uid);
        if (ownUid) b = replaceBytes(b, ownUid[0], ownUid[1]);
        return b;
      };
      const seedTo = async (n: number): Promise<void> => {
        const t0 = performance.now();
        const objects: [string, Buffer][] = [];
        for (let i = seeded; i < n; i++) {
          const uid = crypto.randomUUID();
          uids.push(uid);
          objects.push([storageKey('coolops.cn', 'databasemanagers', NS, nameOf(i)), copy(dmT, i, uid)]);
          objects.push([DEPLOYMENT_KEY(`${nameOf(i)}-db`), copy(depT, i, uid, [depUid, crypto.randomUUID()])]);
          objects.push([SERVICE_KEY(`${nameOf(i)}-db`), copy(svcT, i, uid, [svcUid, crypto.randomUUID()])]);
        }
        await putAll(etcd, objects);
        seeded = n;
        o.progress(
          `operator: ${fmt(n)} DatabaseManagers, Deployments and Services in etcd (${fmt((performance.now() - t0) / 1000)} s)`,
        );
      };
      /** Every DatabaseManager without status again (a backlog), the Events gone; the revision after. */
      const reset = async (n: number): Promise<string> => {
        const objects: [string, Buffer][] = [];
        for (let i = 0; i < n; i++)
          objects.push([storageKey('coolops.cn', 'databasemanagers', NS, nameOf(i)), copy(dmT, i, uids[i])]);
        await client.request({ method: 'DELETE', path: `${DMS}/dm-new` }).catch(() => undefined);
        // (the new object's Deployment and Service go through the API: its Service holds a cluster IP)
        for (const path of [
          `/apis/apps/v1/namespaces/${NS}/deployments/dm-new-db`,
          `/api/v1/namespaces/${NS}/services/dm-new-db`,
        ])
          await client.request({ method: 'DELETE', path }).catch(() => undefined);
        await deletePrefix(etcd, storageKey('', 'events', NS, ''));
        const rv = await putAll(etcd, objects);
        await notOlderThan(client, DMS, rv);
        return rv;
      };
      for (const n of o.sizes) {
        await seedTo(n);
        const which = o.operators ?? SCALE_OPERATORS;
        for (const op of which) runs[op].push([]);
        for (let r = 0; r < o.rounds; r++) {
          for (let i = 0; i < which.length; i++) {
            const op = which[(i + r) % which.length];
            const rv = await reset(n);
            runs[op][runs[op].length - 1].push(await operatorRun(client, ops[op], n, rv, o.progress));
          }
          o.progress(`operator: ${fmt(n)} round ${r + 1}/${o.rounds}`);
        }
      }
      let failover: ScaleOperatorResult['failover'];
      if (o.failover) {
        const n = o.sizes[0];
        failover = await failoverPart(
          client,
          ops,
          n,
          o.rounds,
          o.progress,
          o.failoverBacklog ? () => reset(n) : undefined,
        );
      }
      return { sizes: o.sizes, runs, ...(failover ? { failover } : {}) };
    } finally {
      etcd.close();
      client.close();
    }
  } finally {
    await cp?.stop();
    rmSync(out, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Counts the DatabaseManagers that got their status after `rv` (a watch from it), and notes when
 * each first got one: a reconcile seen by its effect (controller-runtime's production logger
 * samples its lines: past 100 a second, only every 100th reconcile is logged).
 */
function statusWatch(
  client: RestClient,
  rv: string,
): { count: () => number; written: () => number; statusAt: (name: string) => number | undefined; stop: () => void } {
  const done = new Set<string>();
  const firstStatus = new Map<string, number>();
  const ac = new AbortController();
  void (async () => {
    for (;;) {
      if (ac.signal.aborted) return;
      try {
        const w = await client.watch<{
          metadata: { name: string; resourceVersion: string };
          status?: { availableReplicas?: number };
        }>(DMS, { resourceVersion: rv, allowWatchBookmarks: true }, ac.signal);
        for await (const e of w) {
          if (e.type === 'ERROR') break;
          rv = e.object.metadata.resourceVersion || rv;
          if (e.type !== 'MODIFIED') continue;
          if (e.object.status?.availableReplicas === 1) done.add(e.object.metadata.name);
          if (e.object.status && !firstStatus.has(e.object.metadata.name))
            firstStatus.set(e.object.metadata.name, performance.now());
        }
      } catch {
        if (ac.signal.aborted) return;
      }
    }
  })();
  return {
    count: () => done.size,
    written: () => firstStatus.size,
    statusAt: (name) => firstStatus.get(name),
    stop: () => ac.abort(),
  };
}

async function operatorRun(
  client: RestClient,
  spec: Spec,
  n: number,
  rv: string,
  progress: (s: string) => void,
): Promise<OperatorRun> {
  const watch = statusWatch(client, rv);
  const p = spawnOperator(spec.argv(['--namespace', NS]));
  let newCreatedAt: number | undefined;
  let newReconciledAt: number | undefined;
  p.onLine = (msg, line) => {
    if (
      msg === spec.reconciled &&
      newCreatedAt !== undefined &&
      newReconciledAt === undefined &&
      spec.key(line) === `${NS}/dm-new`
    )
      newReconciledAt = performance.now();
  };
  try {
    const limitMs = 1_800_000;
    await until(() => p.marks.has(spec.synced), limitMs, 'caches synced');
    await until(() => watch.count() >= n / 10, limitMs, 'a tenth of the backlog');
    newCreatedAt = performance.now();
    await client.request({
      method: 'POST',
      path: DMS,
      body: {
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name: 'dm-new', namespace: NS },
        spec: { deploymentName: 'dm-new-db', replicas: 1, dbtype: 'mysql' },
      },
    });
    await until(() => watch.count() >= n, limitMs, `the backlog of ${n}`);
    const convergedMs = performance.now() - p.t0;
    const cpu = cpuMs(p.proc.pid!) / 1000;
    await until(
      () => watch.statusAt('dm-new') !== undefined,
      120_000,
      'the new object reconciled (its status written)',
    );
    await new Promise((r) => setTimeout(r, 10_000)); // settled: the last writes' echoes handled, garbage collected
    const rss = rssMb(p.proc.pid!);
    const run = {
      syncedMs: p.marks.get(spec.synced)!,
      convergedMs,
      cpuSeconds: cpu,
      rssMb: rss,
      newObjectMs: watch.statusAt('dm-new')! - newCreatedAt,
    };
    // where the resident memory is (anonymous: heap and malloc; file: the binary and libraries), and its peak
    const mem = memoryBreakdown(p.proc.pid!);
    progress(`operator: ${fmt(n)} ${JSON.stringify(run)} ${JSON.stringify(mem)} (load ${loadavg()[0].toFixed(1)})`);
    return run;
  } finally {
    watch.stop();
    await (CPU_PROF ? terminate(p) : kill(p));
  }
}

/** client-go's and controller-runtime's default leader-election timings, for both operators. */
export const FAILOVER_TIMINGS = { leaseSeconds: 15, renewSeconds: 10, retrySeconds: 2 };
/** Attempts of one (standby, round) before the run fails: a void attempt (the leader lost its Lease before the kill) is retried. */
const FAILOVER_ATTEMPTS = 4;

interface Lease {
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

/** One failover: ms after the kill, or why the attempt measured nothing. */
type FailoverAttempt =
  | { ok: true; newObjectMs: number; workersMs: number; acquiredMs: number; backlogLeft?: number }
  | { ok: false; why: string };

async function failoverPart(
  client: RestClient,
  ops: Record<ScaleOperator, Spec>,
  n: number,
  rounds: number,
  progress: (s: string) => void,
  /** Gives every DatabaseManager a backlog again (no status); resolves to the revision after. */
  backlog?: () => Promise<string>,
): Promise<NonNullable<ScaleOperatorResult['failover']>> {
  const { leaseSeconds, renewSeconds, retrySeconds } = FAILOVER_TIMINGS;
  const lease = (kind: FailoverKind, id: string): string[] =>
    kind.startsWith('crdgen')
      ? [
          '--leader-elect',
          '--leader-election-namespace',
          NS,
          '--leader-election-id',
          id,
          '--leader-elect-lease-duration',
          `${leaseSeconds}s`,
          '--leader-elect-renew-deadline',
          `${renewSeconds}s`,
          '--leader-elect-retry-period',
          `${retrySeconds}s`,
          ...(kind === 'crdgen-cold' ? ['--warm-standby=false'] : []),
        ]
      : [
          '--leader-elect',
          '--leader-election-namespace',
          NS,
          '--leader-election-id',
          id,
          '--lease-duration',
          String(leaseSeconds),
          '--renew-deadline',
          String(renewSeconds),
          '--retry-period',
          String(retrySeconds),
          '--warmup',
        ];
  const leasePath = (id: string): string => `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/${id}`;
  const result: NonNullable<ScaleOperatorResult['failover']> = {
    size: n,
    ms: Object.fromEntries(FAILOVER_KINDS.map((k) => [k, [] as number[]])) as Record<FailoverKind, number[]>,
    workersMs: Object.fromEntries(FAILOVER_KINDS.map((k) => [k, [] as number[]])) as Record<FailoverKind, number[]>,
    acquiredMs: Object.fromEntries(FAILOVER_KINDS.map((k) => [k, [] as number[]])) as Record<FailoverKind, number[]>,
    void: Object.fromEntries(FAILOVER_KINDS.map((k) => [k, [] as string[]])) as Record<FailoverKind, string[]>,
    timings: FAILOVER_TIMINGS,
    ...(backlog
      ? {
          backlogLeft: Object.fromEntries(FAILOVER_KINDS.map((k) => [k, [] as number[]])) as Record<
            FailoverKind,
            number[]
          >,
        }
      : {}),
  };

  const attempt = async (kind: FailoverKind, r: number, a: number): Promise<FailoverAttempt> => {
    const spec = kind.startsWith('crdgen') ? ops.crdgen : ops['controller-runtime'];
    // a Lease of its own per attempt: the next pair never waits for this one's to expire
    const id = `failover-${kind}-${r}-${a}`;
    const argv = spec.argv(['--namespace', NS, ...lease(kind, id)]);
    // with a backlog: statuses written from here on (by the leader) are counted
    const written = backlog ? statusWatch(client, await backlog()) : undefined;
    const leader = spawnOperator(argv);
    let standby: Proc | undefined;
    let watch: ReturnType<typeof statusWatch> | undefined;
    try {
      await until(() => leader.marks.has(spec.synced), 600_000, `${kind}: the leader's workers`);
      // the leader's identity: the Lease's holder while it is the only replica
      const holder = (await client.request<Lease>({ method: 'GET', path: leasePath(id) })).spec?.holderIdentity;
      if (!holder) return { ok: false, why: 'the Lease had no holder once the leader worked' };
      standby = spawnOperator(argv);
      // the standby ready to take over: a warm one has filled its caches (as long as the leader
      // took to sync, and never under 20 s: controller-runtime logs nothing when warm)
      const leaderSynced = leader.marks.get(spec.synced) ?? 0;
      await new Promise((res) => setTimeout(res, Math.max(20_000, 1.5 * leaderSynced)));
      const s = standby;
      await until(() => s.marks.size > 0, 600_000, `${kind}: the standby`);
      // (or it leads already: the Lease check below voids the attempt)
      if (kind === 'crdgen-warm')
        await until(
          () => s.marks.has('warm standby: caches synced') || s.marks.has(spec.acquired),
          600_000,
          `${kind}: the standby's caches`,
        );
      const list = await client.request<{ metadata: { resourceVersion: string } }>({
        method: 'GET',
        path: DMS,
        query: { limit: 1 },
      });
      watch = statusWatch(client, list.metadata.resourceVersion);
      // the leader must still hold the Lease, renewed within its duration, and be alive; else this
      // attempt would time a hand-over that already happened (a loaded machine: missed renewals)
      const held = (await client.request<Lease>({ method: 'GET', path: leasePath(id) })).spec;
      const age = held?.renewTime ? Date.now() - Date.parse(held.renewTime) : Number.POSITIVE_INFINITY;
      if (held?.holderIdentity !== holder || leader.proc.exitCode !== null || s.marks.has(spec.acquired))
        return {
          ok: false,
          why: `the leader no longer held the Lease before the kill (holder ${held?.holderIdentity})`,
        };
      if (age > leaseSeconds * 1000)
        return { ok: false, why: `the leader's last renewal was ${fmt(age / 1000)} s old before the kill` };
      const killedAt = performance.now();
      await kill(leader);
      const backlogLeft = written ? n - written.written() : undefined;
      // the object the new leader must reconcile: created right after the kill
      const name = `fo-${r}-${a}-${FAILOVER_KINDS.indexOf(kind)}`;
      await client.request({
        method: 'POST',
        path: DMS,
        body: {
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          metadata: { name, namespace: NS },
          spec: { deploymentName: `${name}-db`, replicas: 1, dbtype: 'mysql' },
        },
      });
      const w = watch;
      await until(() => w.statusAt(name) !== undefined, 600_000, `${kind}: the new leader's reconcile of ${name}`);
      await until(
        () => s.marks.has(spec.synced) && s.marks.has(spec.acquired),
        60_000,
        `${kind}: the new leader's log`,
      );
      const acquiredMs = s.t0 + s.marks.get(spec.acquired)! - killedAt;
      if (acquiredMs < 0)
        return { ok: false, why: `the standby acquired the Lease ${fmt(-acquiredMs / 1000)} s before the kill` };
      return {
        ok: true,
        newObjectMs: w.statusAt(name)! - killedAt,
        workersMs: s.t0 + s.marks.get(spec.synced)! - killedAt,
        acquiredMs,
        ...(backlogLeft === undefined ? {} : { backlogLeft }),
      };
    } finally {
      watch?.stop();
      written?.stop();
      await kill(leader);
      if (standby) await kill(standby);
    }
  };

  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < FAILOVER_KINDS.length; i++) {
      const kind = FAILOVER_KINDS[(i + r) % FAILOVER_KINDS.length];
      for (let a = 0; ; a++) {
        const x = await attempt(kind, r, a);
        if (x.ok) {
          result.ms[kind].push(x.newObjectMs);
          result.workersMs[kind].push(x.workersMs);
          result.acquiredMs[kind].push(x.acquiredMs);
          if (x.backlogLeft !== undefined) result.backlogLeft?.[kind].push(x.backlogLeft);
          progress(`failover: ${kind} ${JSON.stringify(x)} (load ${loadavg()[0].toFixed(1)})`);
          break;
        }
        result.void[kind].push(x.why);
        progress(`failover: ${kind} round ${r + 1} void (${x.why}; load ${loadavg()[0].toFixed(1)}): retried`);
        if (a + 1 >= FAILOVER_ATTEMPTS)
          throw new Error(`failover: ${kind}: ${FAILOVER_ATTEMPTS} attempts void in a row (${x.why})`);
      }
    }
    progress(`failover: round ${r + 1}/${rounds}`);
  }
  return result;
}

/** The part's tables, as Markdown. */
export function scaleOperatorTables(r: ScaleOperatorResult): string {
  const out: string[] = [];
  const rows: string[][] = [];
  r.sizes.forEach((n, i) => {
    for (const op of SCALE_OPERATORS) {
      const runs = r.runs[op][i];
      if (!runs?.length) continue;
      const med = (f: (x: OperatorRun) => number): number => median(runs.map(f));
      rows.push([
        fmt(n),
        SCALE_OPERATOR_LABEL[op],
        fmt(med((x) => x.syncedMs) / 1000),
        fmt(med((x) => x.convergedMs) / 1000),
        fmt((med((x) => x.cpuSeconds) / n) * 1e6),
        fmt(med((x) => x.rssMb)),
        fmt(med((x) => x.newObjectMs) / 1000),
      ]);
    }
  });
  out.push(
    '### the operators with N DatabaseManagers, N Deployments and N Services in place, every DatabaseManager without status (a backlog)\n',
  );
  out.push(
    table(
      [
        'objects',
        'operator',
        'start-up to synced s',
        'backlog through s',
        'CPU µs per converged object',
        'RSS MB, everything cached',
        'new object during the backlog: reconciled after s',
      ],
      rows,
    ),
  );
  if (r.failover) {
    const f = r.failover;
    const t = f.timings;
    out.push(
      `\n### failover at ${fmt(f.size)}${f.backlogLeft ? ', the leader killed during a backlog (every status cleared before each attempt)' : ''}: the leader killed (SIGKILL) → the new leader's reconcile of an object created right after the kill (lease ${t.leaseSeconds} s, renew deadline ${t.renewSeconds} s, retry ${t.retrySeconds} s; medians of ${f.ms[FAILOVER_KINDS[0]].length} rounds)\n`,
    );
    out.push(
      table(
        [
          'standby',
          'new object reconciled after the kill, s (rounds)',
          'lease won after the kill, s',
          'workers started after the kill, s',
          'void attempts (leader lost its Lease before the kill)',
          ...(f.backlogLeft ? ['statuses the killed leader had left to write (rounds)'] : []),
        ],
        FAILOVER_KINDS.map((k) => [
          FAILOVER_LABEL[k],
          `${fmt(median(f.ms[k]) / 1000)} (${f.ms[k].map((x) => fmt(x / 1000)).join(', ')})`,
          fmt(median(f.acquiredMs[k]) / 1000),
          fmt(median(f.workersMs[k]) / 1000),
          String(f.void[k].length),
          ...(f.backlogLeft ? [f.backlogLeft[k].map((x) => fmt(x)).join(', ')] : []),
        ]),
      ),
    );
  }
  return out.join('\n');
}
