// Benchmark: the generated DatabaseManager operator sharded over its replicas (opt-in,
// `npm run bench -- sharding`), on one real control plane per part (etcd + kube-apiserver
// v1.37.1, no kube-controller-manager, scheduler or kwok: the operator's figures, not the
// Deployment → ReplicaSet → Pod chain's), every replica its own process pinned to one core with
// `taskset`. In one run:
//   unsharded   one replica (core 0) converges BENCH_SHARDING_OBJECTS (default 3000)
//               DatabaseManagers: wall time, its CPU seconds and RSS, kube-apiserver's and
//               etcd's CPU seconds (the platform), the machine's busy seconds
//   sharded     three replicas with --sharded (r0 → core 0, r1 → core 1, r2 → core 0: two
//               cores for three replicas) converge the same count: the same figures, each
//               replica's share of the DatabaseManagers and of their Deployments (its
//               crdgen_shard_objects; target 1/3 ± 20 %) and RSS, the sharder's own CPU and RSS
//               (the replica that runs it less the median of the others)
//   join        a 4th replica (core 1) joins while a driver patches specs: how many objects
//               moved (≈ 1/4), time to reassigned and to converged
//   leave       SIGTERM of the 4th: time to its objects reassigned and converged
//   crash       SIGKILL of a replica: time to reassigned (after its Lease expires) and to
//               converged (target: within the Lease duration + 10 s)
//   checker     every replica's debug log: overlapping reconciles of one object (target 0);
//               every Deployment's replicas against its DatabaseManager's last spec (lost
//               updates, target 0)
// A round costs minutes, so each part runs once; the one-minute load average is printed beside
// each figure (the machine is shared). The replicas use the operator's default Lease timings
// (15 s, renew deadline 10 s, retry 2 s) and log at debug (the checker reads every reconcile's line),
// the unsharded one too.
// kube-apiserver gets a /16 Service range: the control plane's default /24 holds 253 Services, and
// every DatabaseManager has one (past 253 its reconcile fails "range is full" and backs off).
// Env: BENCH_SHARDING_OBJECTS=3000  BENCH_SHARDING_PARTS=unsharded,sharded  BENCH_SHARDING_CORES=0,1
//      BENCH_SHARDING_LOG_DIR=dir (every replica's log, for a run that fails)
//      BENCH_SHARDING_SERVICE_CIDR=10.0.0.0/16 (10.0.0.0/24 shows that failure)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  DeploymentResource,
  SharedInformerFactoryBase,
  loadKubeconfig,
  resourceClient,
  restBackend,
  type Deployment,
  type KubeObject,
  type TypedResource,
} from '../src/runtime/index.js';
import type { ControlPlane } from '../src/testing/index.js';
import { generateOperator, startOperator, waitFor, type OperatorProcess } from '../test/e2e/support.js';
import {
  DRAIN_LABEL,
  SHARD_LABEL,
  metricValue,
  overlappingReconciles,
  reconcileSpans,
  scrape,
  shardOf,
  startReplica,
  type Replica,
} from '../test/e2e/sharding-support.js';
import { startRealControlPlane } from './lib/control-plane-start.js';
import { DM_CRD, REPO } from './lib/env.js';
import { cpuMs } from './lib/operator-process.js';
import { controlPlanePid, rssOf } from './lib/scale-informer.js';
import { machine, median } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';

const COMMAND = 'npm run bench -- sharding';
const N = Number(process.env.BENCH_SHARDING_OBJECTS ?? 3000);
if (!Number.isInteger(N) || N < 30)
  throw new Error(`BENCH_SHARDING_OBJECTS: expected a whole number ≥ 30, got ${process.env.BENCH_SHARDING_OBJECTS}`);
const PARTS = new Set((process.env.BENCH_SHARDING_PARTS ?? 'unsharded,sharded').split(','));
const CORES = (process.env.BENCH_SHARDING_CORES ?? '0,1').split(',');
const LOG_DIR = process.env.BENCH_SHARDING_LOG_DIR;
/** The operator's default Lease timings (runOperator's flags), written out so the bound below is exact. */
const LEASE_MS = 15_000;
const LEASE_FLAGS = [
  '--leader-elect-lease-duration',
  '15s',
  '--leader-elect-renew-deadline',
  '10s',
  '--leader-elect-retry-period',
  '2s',
];
const QPS = ['--kube-api-qps', '200', '--kube-api-burst', '400'];

const DM: TypedResource<DMObject> = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
type DMObject = KubeObject & { spec?: { replicas?: number }; status?: { observedGeneration?: number } };

const T0 = performance.now();
const progress = (s: string): void => {
  const t = Math.round((performance.now() - T0) / 1000);
  process.stderr.write(`  sharding [${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}]: ${s}\n`);
};
const load = (): string => loadavg()[0].toFixed(1);
const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** Runs an ensure-*.sh script; returns the folder its last line names. */
function ensure(script: string): string {
  const r = spawnSync('bash', [join(REPO, 'scripts', script)], {
    cwd: REPO,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const dir = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !dir) throw new Error(`scripts/${script} failed (exit ${r.status})`);
  return dir;
}

/** Busy CPU seconds of the whole machine (every core, every process), from /proc/stat. */
function machineBusyS(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return (f.reduce((a, b) => a + b, 0) - f[3] - f[4]) / 100;
}

/** Pins every thread of `pid` to `core` (threads started later inherit it). */
function pin(pid: number, core: string): void {
  const r = spawnSync('taskset', ['-a', '-pc', core, String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset -a -pc ${core} ${pid}: ${r.stderr}`);
}

/** The bench's view of the cluster: informers on the DatabaseManagers and Deployments (no polling lists). */
class View {
  private readonly factory: SharedInformerFactoryBase;
  private readonly abort = new AbortController();
  /** The replicas each DatabaseManager's last spec asks for. */
  readonly want = new Map<string, number>();
  lastMismatch = '';

  constructor(config: Awaited<ReturnType<typeof loadKubeconfig>>) {
    this.factory = new SharedInformerFactoryBase(restBackend(config), 0, {});
    this.factory.informerFor(DM);
    this.factory.informerFor(DeploymentResource);
  }

  async start(): Promise<void> {
    this.factory.start(this.abort.signal);
    await this.factory.waitForCacheSync(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.factory.shutdown();
  }

  dms(): DMObject[] {
    return this.factory.informerFor(DM).getIndexer().list();
  }

  /** Every object labelled for its shard on the ring of `shards`, none draining. */
  assignedTo(shards: string[]): boolean {
    const items = this.dms();
    return (
      items.length === N &&
      items.every(
        (d) =>
          d.metadata?.labels?.[SHARD_LABEL] === shardOf(shards, 'default', d.metadata!.name!) &&
          d.metadata?.labels?.[DRAIN_LABEL] === undefined,
      )
    );
  }

  /** Every DatabaseManager has its Deployment at its last spec (labelled as it is, when sharded) and a status of its generation. */
  converged(sharded: boolean): boolean {
    const items = this.dms();
    if (items.length !== N) return false;
    const deps = this.factory.informerFor<Deployment>(DeploymentResource).getIndexer();
    for (const dm of items) {
      const dep = deps.getByKey(`default/${dm.metadata!.name}-db`);
      const ok =
        dep !== undefined &&
        dep.spec?.replicas === (this.want.get(dm.metadata!.name!) ?? 1) &&
        (!sharded || dep.metadata?.labels?.[SHARD_LABEL] === dm.metadata?.labels?.[SHARD_LABEL]) &&
        dm.status?.observedGeneration === dm.metadata?.generation;
      if (!ok) {
        this.lastMismatch = `${dm.metadata!.name}: labels ${JSON.stringify(dm.metadata?.labels)}, generation ${dm.metadata?.generation}, status ${JSON.stringify(dm.status)}; Deployment ${dep ? `labels ${JSON.stringify(dep.metadata?.labels)}, replicas ${dep.spec?.replicas}` : 'missing'}; want replicas ${this.want.get(dm.metadata!.name!) ?? 1}`;
        return false;
      }
    }
    return true;
  }
}

/** `waitFor`, with a progress line of `view`'s state every 30 s. */
async function waitLong(
  view: View,
  probe: () => boolean,
  timeoutMs: number,
  what: string,
  detail = (): string => '',
): Promise<void> {
  const t = Date.now();
  const tick = setInterval(
    () =>
      progress(
        `${what}: ${s(Date.now() - t)} so far; ${view.dms().length} objects cached; last mismatch ${view.lastMismatch}`,
      ),
    30_000,
  );
  try {
    await waitFor(probe, timeoutMs, what, detail);
  } finally {
    clearInterval(tick);
  }
}

/** Polls `probe` every 250 ms up to `timeoutMs`; the ms it took. */
async function timeTo(
  probe: () => boolean,
  timeoutMs: number,
  what: string,
  detail = (): string => '',
): Promise<number> {
  const t = Date.now();
  await waitFor(probe, timeoutMs, what, detail);
  return Date.now() - t;
}

/** Creates dm-0 … dm-(N-1), 100 at a time. */
async function createAll(config: Awaited<ReturnType<typeof loadKubeconfig>>): Promise<void> {
  const dms = resourceClient<DMObject>(config, DM).namespace('default');
  for (let i = 0; i < N; i += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, N - i) }, (_, j) =>
        dms.create({
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          metadata: { name: `dm-${i + j}` },
          spec: { deploymentName: `dm-${i + j}-db`, replicas: 1, dbtype: 'redis' },
        } as DMObject),
      ),
    );
}

/** CPU seconds of the platform's processes and the machine, for a window. */
function platformMeter(cp: ControlPlane): () => { apiserver: number; etcd: number; busy: number; bench: number } {
  const api = controlPlanePid(cp, 'kube-apiserver');
  const etcd = controlPlanePid(cp, 'etcd');
  const a0 = cpuMs(api);
  const e0 = cpuMs(etcd);
  const b0 = machineBusyS();
  const me0 = process.cpuUsage();
  return () => {
    const me = process.cpuUsage(me0);
    return {
      apiserver: (cpuMs(api) - a0) / 1000,
      etcd: (cpuMs(etcd) - e0) / 1000,
      busy: machineBusyS() - b0,
      bench: (me.user + me.system) / 1e6,
    };
  };
}

interface Convergence {
  replicas: string;
  wallMs: number;
  createMs: number;
  operatorCpu: number;
  apiserverCpu: number;
  etcdCpu: number;
  benchCpu: number;
  busy: number;
  load: string;
}

function writeLogs(part: string, name: string, op: OperatorProcess): void {
  if (!LOG_DIR) return;
  mkdirSync(LOG_DIR, { recursive: true });
  writeFileSync(
    join(LOG_DIR, `${part}-${name}.log`),
    `${op.logs.map((l) => JSON.stringify(l)).join('\n')}\n${op.other.join('')}`,
  );
}

/** What a SIGINT or SIGTERM of the bench must end first: the replicas (their logs written) and the control plane. */
const onSignal = new Set<() => Promise<void>>();
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    progress(`${sig}: stopping the replicas and the control plane`);
    void Promise.allSettled([...onSignal].map((f) => f())).then(() => process.exit(130));
  });

async function withControlPlane<T>(assets: string, f: (cp: ControlPlane) => Promise<T>): Promise<T> {
  // a /16 for Services: the control plane's default /24 holds 253, one per DatabaseManager here
  const cp = await startRealControlPlane({
    assets,
    crds: [DM_CRD],
    apiserverArgs: [`--service-cluster-ip-range=${process.env.BENCH_SHARDING_SERVICE_CIDR ?? '10.0.0.0/16'}`],
  });
  const stop = (): Promise<void> => cp.stop();
  onSignal.add(stop);
  try {
    return await f(cp);
  } finally {
    onSignal.delete(stop);
    await cp.stop();
  }
}

async function unshardedPart(assets: string, main: string): Promise<{ conv: Convergence; rss: string }> {
  return withControlPlane(assets, async (cp) => {
    // the driver is not rate-limited (its creates and patches are the load, not a client limit)
    const config = { ...(await loadKubeconfig({ path: cp.kubeconfigPath })), qps: 0 };
    const view = new View(config);
    await view.start();
    const op = startOperator(main, [
      '--kubeconfig',
      cp.kubeconfigPath,
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      // as the sharded replicas log (a debug line per reconcile, for the checker)
      '--log-level',
      'debug',
      ...QPS,
    ]);
    const end = async (): Promise<void> => {
      writeLogs('unsharded', 'r0', op);
      await op.kill();
    };
    onSignal.add(end);
    try {
      pin(op.proc.pid!, CORES[0]);
      await op.waitForLog((l) => l.msg === 'starting manager', 120_000);
      progress(`unsharded: operator up (load ${load()}), creating ${N}`);
      const meter = platformMeter(cp);
      const c0 = cpuMs(op.proc.pid!);
      const t0 = Date.now();
      await createAll(config);
      const createMs = Date.now() - t0;
      await waitLong(
        view,
        () => view.converged(false),
        30 * 60_000,
        `${N} converged by one replica`,
        () => view.lastMismatch,
      );
      const wallMs = Date.now() - t0;
      const m = meter();
      const conv: Convergence = {
        replicas: '1 (unsharded, core 0)',
        wallMs,
        createMs,
        operatorCpu: (cpuMs(op.proc.pid!) - c0) / 1000,
        apiserverCpu: m.apiserver,
        etcdCpu: m.etcd,
        benchCpu: m.bench,
        busy: m.busy,
        load: load(),
      };
      progress(`unsharded: converged in ${s(wallMs)} (load ${conv.load})`);
      // RSS with everything cached, after the reconciles settled
      await new Promise((r) => setTimeout(r, 5000));
      const r = rssOf(op.proc.pid!);
      return { conv, rss: `${mb(r.rss)} (peak ${mb(r.peak)}), load ${load()}` };
    } finally {
      onSignal.delete(end);
      await end();
      await view.stop();
    }
  });
}

interface ShardedFigures {
  conv: Convergence;
  partition: { name: string; core: string; dms: number; deps: number; rss: number; peak: number }[];
  partitionLoad: string;
  partitionOk: boolean;
  sharder: { name: string; cpu: number; rss: number; load: string };
  join: { moved: number; startMs: number; reassignMs: number; convergeMs: number; load: string };
  leave: { reassignMs: number; convergeMs: number; exit: number | string; load: string };
  crash: { takenMs: number; reassignMs: number; convergeMs: number; cpu: string; platformCpu: string; load: string };
  overlaps: string[];
  spans: number;
  lostUpdates: number;
}

async function shardedPart(assets: string, main: string): Promise<ShardedFigures> {
  return withControlPlane(assets, async (cp) => {
    // the driver is not rate-limited (its creates and patches are the load, not a client limit)
    const config = { ...(await loadKubeconfig({ path: cp.kubeconfigPath })), qps: 0 };
    const view = new View(config);
    await view.start();
    const dms = resourceClient<DMObject>(config, DM).namespace('default');
    const all: (Replica & { core: string })[] = [];
    const live = new Map<string, Replica & { core: string }>();
    let port = 19_400 + (process.pid % 500) * 8;
    const start = (name: string, core: string): Replica & { core: string } => {
      const r = { ...startReplica(main, cp.kubeconfigPath, name, port++, [...LEASE_FLAGS, ...QPS]), core };
      pin(r.op.proc.pid!, core);
      all.push(r);
      live.set(name, r);
      return r;
    };
    const notConverged = (): string =>
      `${view.lastMismatch}\n${all
        .map(
          (r) =>
            `${r.name}: ${r.op.logs
              .filter((l) => l.level === 'error' || l.level === 'warn')
              .slice(-5)
              .map((l) => JSON.stringify(l))
              .join('\n')}\n${r.op.other.slice(-3).join('')}`,
        )
        .join('\n')}`;
    let seed = 33;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    // the driver: patches specs one after another, remembering the last one written
    const drive = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const name = `dm-${rand(N)}`;
        const replicas = 1 + rand(9);
        view.want.set(name, replicas);
        await dms.patch(name, 'application/merge-patch+json', { spec: { replicas } });
      }
    };
    const end = async (): Promise<void> => {
      for (const r of all) writeLogs('sharded', r.name, r.op);
      await Promise.all(all.map((r) => r.op.kill()));
    };
    onSignal.add(end);
    try {
      for (const [i, name] of ['r0', 'r1', 'r2'].entries()) start(name, CORES[i % CORES.length]);
      await Promise.all(
        [...live.values()].map((r) => r.op.waitForLog((l) => l.msg === 'shard joined the ring', 120_000)),
      );
      await waitFor(() => all.some((r) => r.op.logs.some((l) => l.msg === 'sharder starting')), 60_000, 'a sharder');
      const sharderName = all.find((r) => r.op.logs.some((l) => l.msg === 'sharder starting'))!.name;
      progress(`sharded: r0..r2 in the ring, sharder ${sharderName} (load ${load()}), creating ${N}`);

      // throughput: three replicas converge N
      const meter = platformMeter(cp);
      const c0 = new Map([...live.values()].map((r) => [r.name, cpuMs(r.op.proc.pid!)]));
      const t0 = Date.now();
      await createAll(config);
      const createMs = Date.now() - t0;
      await waitFor(() => view.assignedTo(['r0', 'r1', 'r2']), 30 * 60_000, 'every object assigned over r0..r2');
      await waitLong(view, () => view.converged(true), 30 * 60_000, `${N} converged by three replicas`, notConverged);
      const wallMs = Date.now() - t0;
      const m = meter();
      const cpuOf = new Map([...live.values()].map((r) => [r.name, (cpuMs(r.op.proc.pid!) - c0.get(r.name)!) / 1000]));
      const conv: Convergence = {
        replicas: `3 (--sharded, cores ${['r0', 'r1', 'r2'].map((n) => live.get(n)!.core).join(',')})`,
        wallMs,
        createMs,
        operatorCpu: [...cpuOf.values()].reduce((a, b) => a + b, 0),
        apiserverCpu: m.apiserver,
        etcdCpu: m.etcd,
        benchCpu: m.bench,
        busy: m.busy,
        load: load(),
      };
      progress(`sharded: converged in ${s(wallMs)} (load ${conv.load})`);

      // partitioned: each replica's cache, from its crdgen_shard_objects
      await new Promise((r) => setTimeout(r, 5000));
      const partition = await Promise.all(
        [...live.values()].map(async (r) => {
          const text = await scrape(r);
          const mem = rssOf(r.op.proc.pid!);
          return {
            name: r.name,
            core: r.core,
            dms: metricValue(text, 'crdgen_shard_objects', { kind: 'DatabaseManager' }) ?? 0,
            deps: metricValue(text, 'crdgen_shard_objects', { kind: 'Deployment' }) ?? 0,
            rss: mem.rss,
            peak: mem.peak,
          };
        }),
      );
      const partitionLoad = load();
      const third = N / 3;
      const partitionOk = partition.every(
        (p) => p.dms >= third * 0.8 && p.dms <= third * 1.2 && p.deps >= third * 0.8 && p.deps <= third * 1.2,
      );
      const others = partition.filter((p) => p.name !== sharderName);
      const sharderRow = partition.find((p) => p.name === sharderName)!;
      const sharder = {
        name: sharderName,
        cpu: cpuOf.get(sharderName)! - median(others.map((p) => cpuOf.get(p.name)!)),
        rss: sharderRow.rss - median(others.map((p) => p.rss)),
        load: partitionLoad,
      };

      // join: a 4th replica while the driver patches specs
      const before4 = new Map(view.dms().map((d) => [d.metadata!.name!, d.metadata?.labels?.[SHARD_LABEL]]));
      const tj = Date.now();
      const r3 = start('r3', CORES[1 % CORES.length]);
      const driving = drive(N / 10);
      await waitFor(() => view.assignedTo(['r0', 'r1', 'r2', 'r3']), 10 * 60_000, 'every object assigned over r0..r3');
      const reassignedAt = Date.now();
      await driving;
      const moved = view.dms().filter((d) => before4.get(d.metadata!.name!) !== d.metadata?.labels?.[SHARD_LABEL]);
      if (!moved.every((d) => d.metadata?.labels?.[SHARD_LABEL] === 'r3'))
        throw new Error('an object moved to a shard other than the one that joined');
      await waitFor(() => view.converged(true), 10 * 60_000, 'converged after the join', notConverged);
      // timed from the line the new replica logs when it holds its Lease (its process start-up is not the ring's)
      const joinedLine = r3.op.logs.find((l) => l.msg === 'shard joined the ring');
      const joinedAt = joinedLine && typeof joinedLine['time'] === 'string' ? Date.parse(joinedLine['time']) : tj;
      const join4 = {
        moved: moved.length,
        startMs: joinedAt - tj,
        reassignMs: reassignedAt - joinedAt,
        convergeMs: Date.now() - joinedAt,
        load: load(),
      };
      progress(`join: ${moved.length} moved, converged in ${s(join4.convergeMs)} (load ${join4.load})`);

      // leave: SIGTERM of the 4th
      live.delete('r3');
      const tl = Date.now();
      r3.op.proc.kill('SIGTERM');
      const leaveReassign = await timeTo(
        () => view.assignedTo(['r0', 'r1', 'r2']),
        10 * 60_000,
        'the objects of the replica that left reassigned',
      );
      await waitFor(() => view.converged(true), 10 * 60_000, 'converged after the leave', notConverged);
      const leave = {
        reassignMs: leaveReassign,
        convergeMs: Date.now() - tl,
        exit: await r3.op.exited,
        load: load(),
      };
      progress(`leave: reassigned in ${s(leave.reassignMs)}, converged in ${s(leave.convergeMs)} (load ${leave.load})`);

      // crash: SIGKILL of a replica that is not the sharder (the sharder's own failover is leader election's)
      await drive(N / 10);
      await waitFor(() => view.converged(true), 10 * 60_000, 'converged before the crash', notConverged);
      const victim = ['r2', 'r1', 'r0'].find((n) => n !== sharderName)!;
      const crashed = live.get(victim)!;
      live.delete(victim);
      const meterCrash = platformMeter(cp);
      const cpu0 = new Map([...live.values()].map((r) => [r.name, cpuMs(r.op.proc.pid!)]));
      const tk = Date.now();
      await crashed.op.kill();
      const survivors = [...live.keys()].sort();
      const crashReassign = await timeTo(
        () => view.assignedTo(survivors),
        10 * 60_000,
        `the objects of the killed ${victim} reassigned`,
      );
      await waitFor(() => view.converged(true), 10 * 60_000, 'converged after the crash', notConverged);
      const convergeMs = Date.now() - tk;
      const mc = meterCrash();
      // where the time went: the sharder's line when it took the Lease, each survivor's CPU, the platform's
      const takenLine = live
        .get(sharderName)
        ?.op.logs.find(
          (l) => l.msg === 'shard lease expired: taken; its objects are reassigned' && l['shard'] === victim,
        );
      const crash = {
        takenMs: typeof takenLine?.['time'] === 'string' ? Date.parse(takenLine['time']) - tk : NaN,
        reassignMs: crashReassign,
        convergeMs,
        cpu: [...live.values()]
          .map((r) => `${r.name} ${((cpuMs(r.op.proc.pid!) - cpu0.get(r.name)!) / 1000).toFixed(1)} s`)
          .join(', '),
        platformCpu: `kube-apiserver ${mc.apiserver.toFixed(1)} s, etcd ${mc.etcd.toFixed(1)} s`,
        load: load(),
      };
      progress(`crash: reassigned in ${s(crash.reassignMs)}, converged in ${s(crash.convergeMs)} (load ${crash.load})`);

      // the checker: overlapping reconciles across every replica's log; lost updates
      const spans = all.flatMap((r) => reconcileSpans(r.name, r.op.logs));
      const overlaps = overlappingReconciles(spans);
      view.converged(true);
      const deps = new Map(
        (await resourceClient<Deployment>(config, DeploymentResource).namespace('default').list()).items.map((d) => [
          d.metadata!.name!,
          d.spec?.replicas,
        ]),
      );
      const lostUpdates = [...Array(N).keys()].filter(
        (i) => deps.get(`dm-${i}-db`) !== (view.want.get(`dm-${i}`) ?? 1),
      ).length;
      return {
        conv,
        partition,
        partitionLoad,
        partitionOk,
        sharder,
        join: join4,
        leave,
        crash,
        overlaps,
        spans: spans.length,
        lostUpdates,
      };
    } finally {
      onSignal.delete(end);
      await end();
      await view.stop();
    }
  });
}

function convRow(c: Convergence): string {
  const op = c.operatorCpu;
  const platform = c.apiserverCpu + c.etcdCpu;
  const share = (x: number): string => `${((100 * x) / (op + platform)).toFixed(0)} %`;
  return `| ${c.replicas} | ${s(c.wallMs)} | ${s(c.createMs)} | ${op.toFixed(1)} s | ${c.apiserverCpu.toFixed(1)} s + ${c.etcdCpu.toFixed(1)} s | ${share(platform)} | ${c.benchCpu.toFixed(1)} s | ${c.busy.toFixed(1)} s | ${c.load} |`;
}

async function main(): Promise<void> {
  const assets = ensure('ensure-control-plane.sh');
  const gen = generateOperator();
  // the generated operator's folder goes last, after the replicas that run from it
  const cleanup = (): Promise<void> => new Promise((r) => setTimeout(() => r(gen.cleanup()), 1000));
  onSignal.add(cleanup);
  const out: string[] = [
    `## Sharding: ${N} DatabaseManagers, the generated operator, one replica against three (--sharded)`,
    '',
    `machine: ${machine()}; replicas pinned with taskset to cores ${CORES.join(',')} in turn (3 replicas on ${cpus().length} cores: two share core ${CORES[0]}); etcd, kube-apiserver and this driver unpinned; no kube-controller-manager, scheduler or kwok; Lease ${LEASE_MS / 1000} s (the operator's default); --kube-api-qps 200 each`,
    '',
  ];
  try {
    const rows: string[] = [];
    let unshardedRss = '';
    if (PARTS.has('unsharded')) {
      const u = await unshardedPart(assets, gen.main);
      rows.push(convRow(u.conv));
      unshardedRss = u.rss;
    }
    let f: ShardedFigures | undefined;
    if (PARTS.has('sharded')) {
      f = await shardedPart(assets, gen.main);
      rows.push(convRow(f.conv));
    }
    out.push(
      '### Throughput: creating the objects and converging them',
      '',
      '| replicas | converged after | creates took | operators CPU | kube-apiserver + etcd CPU | platform share (of operators + platform) | driver CPU | machine busy (2 cores, every process) | load (1 min) |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
    );
    if (unshardedRss) out.push(`one unsharded replica holding all ${N}: RSS ${unshardedRss}`, '');
    if (f) {
      const third = N / 3;
      const sharderName = f.sharder.name;
      out.push(
        `### Partitioned (3 replicas; target each 1/3 ± 20 %: ${Math.ceil(third * 0.8)}–${Math.floor(third * 1.2)}), load ${f.partitionLoad}`,
        '',
        '| replica | core | DatabaseManagers cached | Deployments cached | RSS (peak) |',
        '| --- | --- | --- | --- | --- |',
        ...f.partition.map(
          (p) =>
            `| ${p.name}${p.name === sharderName ? ' (+ sharder)' : ''} | ${p.core} | ${p.dms} (${((100 * p.dms) / N).toFixed(1)} %) | ${p.deps} (${((100 * p.deps) / N).toFixed(1)} %) | ${mb(p.rss)} (${mb(p.peak)}) |`,
        ),
        '',
        `the sharder (in ${f.sharder.name}; its replica less the median of the others): ${f.sharder.cpu.toFixed(1)} s CPU over the convergence, ${mb(f.sharder.rss)} RSS; load ${f.sharder.load}`,
        '',
        '### Join, leave, crash',
        '',
        '| event | figure | reassigned after | converged after | load (1 min) |',
        '| --- | --- | --- | --- | --- |',
        `| a 4th joins (driver patching ${N / 10} specs; times from its Lease held, ${s(f.join.startMs)} after its process started) | ${f.join.moved} moved (${((100 * f.join.moved) / N).toFixed(1)} %; target ≈ 25 %) | ${s(f.join.reassignMs)} | ${s(f.join.convergeMs)} | ${f.join.load} |`,
        `| SIGTERM of the 4th | exit ${f.leave.exit} | ${s(f.leave.reassignMs)} | ${s(f.leave.convergeMs)} | ${f.leave.load} |`,
        `| SIGKILL of a replica (its Lease taken ${s(f.crash.takenMs)} after the kill) | target: ≤ Lease + 10 s = ${s(LEASE_MS + 10_000)} | ${s(f.crash.reassignMs)} | ${s(f.crash.convergeMs)} | ${f.crash.load} |`,
        '',
        `from the SIGKILL to converged: CPU ${f.crash.cpu} (the survivors), ${f.crash.platformCpu}`,
        '',
        `checker: ${f.spans} reconciles logged, ${f.overlaps.length} overlapping reconciles of one object, ${f.lostUpdates} lost updates (Deployments not at their DatabaseManager's last spec)`,
        ...f.overlaps.slice(0, 10).map((o) => `  overlap: ${o}`),
        '',
      );
      const rec = (target: string, figure: string, met: boolean): void => {
        recordVerdict({ target, crdgen: figure, peers: '', judged: figure, met, command: COMMAND });
      };
      rec(
        `sharding ${N}: each of 3 replicas caches 1/3 ± 20 %`,
        f.partition.map((p) => `${p.name} ${p.dms}/${p.deps}`).join(', '),
        f.partitionOk,
      );
      rec(
        `sharding ${N}: reassigned after SIGKILL ≤ Lease + 10 s`,
        `${s(f.crash.reassignMs)} (≤ ${s(LEASE_MS + 10_000)})`,
        f.crash.reassignMs <= LEASE_MS + 10_000,
      );
      rec(
        `sharding ${N}: converged after SIGKILL ≤ Lease + 10 s`,
        `${s(f.crash.convergeMs)} (≤ ${s(LEASE_MS + 10_000)})`,
        f.crash.convergeMs <= LEASE_MS + 10_000,
      );
      rec(
        `sharding ${N}: 0 overlapping reconciles, 0 lost updates`,
        `${f.overlaps.length} overlaps, ${f.lostUpdates} lost`,
        f.overlaps.length === 0 && f.lostUpdates === 0,
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    onSignal.delete(cleanup);
    gen.cleanup();
  }
}

await main();
