// The sharded operator's chaos run (seeded, bounded): replicas of the generated DatabaseManager
// operator with --sharded on the real control plane are killed (SIGKILL), stopped (SIGTERM),
// frozen past their Lease (SIGSTOP, then SIGCONT) and started at random while a driver changes
// specs. Then: no two overlapping reconciles of one object across every replica's log, no frozen
// replica reconciling after it was frozen, no object unlabelled longer than the Lease duration +
// 10 s, and every Deployment matching its DatabaseManager's last spec (no lost update).
// `test/e2e/sharding-chaos.test.ts` runs it short; `npm run soak -- --sharded` long.
import { loadKubeconfig, resourceClient, DeploymentResource, type Deployment } from '../../src/runtime/index.js';
import type { KubeObject } from '../../src/runtime/index.js';
import { createPrng } from '../soak/prng.js';
import { generateOperator, waitFor } from './support.js';
import {
  LEASE,
  SHARD_LABEL,
  overlappingReconciles,
  reconcileSpans,
  startReplica,
  startShardingControlPlane,
  withoutFrozen,
  type Replica,
} from './sharding-support.js';

/** Options of a chaos run. */
export interface ShardingChaosOptions {
  objects: number;
  seconds: number;
  seed: number;
  progress?: (line: string) => void;
}

/** What it found. */
export interface ShardingChaosResult {
  violations: string[];
  summary: string;
}

type DM = KubeObject & { spec?: { replicas?: number }; status?: { observedGeneration?: number } };
const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};

export async function runShardingChaos(o: ShardingChaosOptions): Promise<ShardingChaosResult> {
  const progress = o.progress ?? (() => undefined);
  const prng = createPrng(o.seed);
  const gen = generateOperator();
  const server = await startShardingControlPlane(o.objects);
  const all: Replica[] = [];
  const live: Replica[] = [];
  const frozenAt = new Map<Replica, number>();
  const violations: string[] = [];
  const counts = { kill: 0, term: 0, freeze: 0, start: 0, patches: 0 };
  let port = 19_000 + (process.pid % 400) * 2;
  let seq = 0;
  const start = (): Replica => {
    const r = startReplica(gen.main, server.kubeconfigPath, `c${seq++}`, port++);
    all.push(r);
    live.push(r);
    counts.start++;
    return r;
  };
  try {
    const config = await loadKubeconfig({ path: server.kubeconfigPath });
    const dms = resourceClient<DM>(config, DM_RESOURCE).namespace('default');
    // the creates are not rate-limited (the client's 5 requests a second would take 10 min for 3,000);
    // the chaos loop keeps its pace
    const creates = resourceClient<DM>({ ...config, qps: 0 }, DM_RESOURCE).namespace('default');
    const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
    for (let i = 0; i < 3; i++) start();
    await Promise.all(live.map((r) => r.op.waitForLog((l) => l.msg === 'shard joined the ring', 60_000)));
    const want = new Map<string, number>();
    for (let i = 0; i < o.objects; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, o.objects - i) }, (_, j) => {
          want.set(`dm-${i + j}`, 1);
          return creates.create({
            apiVersion: 'coolops.cn/v1alpha1',
            kind: 'DatabaseManager',
            metadata: { name: `dm-${i + j}` },
            spec: { deploymentName: `dm-${i + j}-db`, replicas: 1, dbtype: 'redis' },
          } as DM);
        }),
      );
    // unlabelled objects, and since when
    const unlabelledSince = new Map<string, number>();
    const watchLabels = async (): Promise<void> => {
      const now = Date.now();
      for (const d of (await dms.list()).items) {
        const name = d.metadata!.name!;
        if (d.metadata?.labels?.[SHARD_LABEL] !== undefined) unlabelledSince.delete(name);
        else if (!unlabelledSince.has(name)) unlabelledSince.set(name, now);
        else if (now - unlabelledSince.get(name)! > LEASE.durationMs + 10_000) {
          violations.push(`${name} unlabelled for more than ${LEASE.durationMs + 10_000} ms`);
          unlabelledSince.set(name, Infinity);
        }
      }
    };
    const end = Date.now() + o.seconds * 1000;
    let nextFault = Date.now() + 3000;
    while (Date.now() < end) {
      const name = `dm-${prng.int(0, o.objects - 1)}`;
      const replicas = prng.int(1, 9);
      try {
        await dms.patch(name, 'application/merge-patch+json', { spec: { replicas } });
        want.set(name, replicas);
        counts.patches++;
      } catch {
        /* the next patch of it wins */
      }
      await watchLabels();
      if (Date.now() >= nextFault) {
        nextFault = Date.now() + prng.int(3000, 8000);
        const action = live.length <= 2 ? 'start' : prng.pick(['kill', 'term', 'freeze', 'start'] as const);
        if (action === 'start' && live.length < 5) {
          progress(`start c${seq}`);
          start();
        } else if (action !== 'start') {
          const victim = live.splice(prng.int(0, live.length - 1), 1)[0];
          progress(`${action} ${victim.name}`);
          if (action === 'kill') {
            counts.kill++;
            await victim.op.kill();
          } else if (action === 'term' && !victim.op.logs.some((l) => l.msg === 'shard joined the ring')) {
            // not started yet (no signal handler before its modules load): a SIGTERM now is a kill
            counts.kill++;
            await victim.op.kill();
          } else if (action === 'term') {
            counts.term++;
            victim.op.proc.kill('SIGTERM');
            const code = await victim.op.exited;
            if (code !== 0) violations.push(`${victim.name} exited ${code} after SIGTERM`);
          } else {
            counts.freeze++;
            // only a replica that held its Lease must find it lost on waking (one frozen while starting just starts late)
            if (victim.op.logs.some((l) => l.msg === 'shard joined the ring')) frozenAt.set(victim, Date.now());
            victim.op.proc.kill('SIGSTOP');
            setTimeout(() => victim.op.proc.kill('SIGCONT'), LEASE.durationMs + 3000).unref();
          }
          start();
        }
      }
      await new Promise((r) => setTimeout(r, 150));
    }
    progress('chaos over; converging');
    await new Promise((r) => setTimeout(r, LEASE.durationMs + 3000)); // the last frozen replica woke
    try {
      await waitFor(
        async () => {
          const [d, deps] = await Promise.all([dms.list(), deployments.list()]);
          const byName = new Map(deps.items.map((x) => [x.metadata!.name!, x]));
          return d.items.every((dm) => {
            const dep = byName.get(`${dm.metadata!.name}-db`);
            return (
              dep?.spec?.replicas === want.get(dm.metadata!.name!) &&
              dep?.metadata?.labels?.[SHARD_LABEL] === dm.metadata?.labels?.[SHARD_LABEL] &&
              live.some((r) => r.name === dm.metadata?.labels?.[SHARD_LABEL]) &&
              dm.status?.observedGeneration === dm.metadata?.generation
            );
          });
        },
        120_000,
        "every Deployment at its owner's last spec, on a live shard",
      );
    } catch (e) {
      violations.push((e as Error).message.split('\n')[0]);
    }
    let spans = all.flatMap((r) => reconcileSpans(r.name, r.op.logs));
    let cut = 0;
    for (const [r, at] of frozenAt) {
      const w = withoutFrozen(spans, r.name, at);
      spans = w.spans;
      cut += w.cut;
    }
    violations.push(...overlappingReconciles(spans).map((x) => `overlap: ${x}`));
    for (const [r, at] of frozenAt) {
      const late = reconcileSpans(r.name, r.op.logs).filter((s) => s.from >= at);
      if (late.length > 0) violations.push(`${r.name} reconciled ${late.length} time(s) after it was frozen`);
      const code = await Promise.race([
        r.op.exited,
        new Promise<string>((done) => setTimeout(() => done('still running'), 20_000).unref()),
      ]);
      if (code !== 1) violations.push(`${r.name} did not exit 1 after waking without its Lease (${String(code)})`);
    }
    const summary = `sharded chaos: seed ${o.seed}, ${o.objects} objects, ${o.seconds} s: ${counts.start} starts, ${counts.kill} SIGKILL, ${counts.term} SIGTERM, ${counts.freeze} SIGSTOP past the Lease, ${counts.patches} spec changes, ${spans.length} reconciles (${cut} cut by a freeze); ${violations.length} violations`;
    return { violations, summary };
  } finally {
    await Promise.all(all.map((r) => r.op.kill()));
    await server.stop();
    gen.cleanup();
  }
}
