// Benchmark: operators at scale (issue #36), on one real control plane (etcd + kube-apiserver
// v1.37.1), opt-in (`npm run bench -- scale`), at 10k, 50k and 100k DatabaseManagers:
//   informer  sync time, peak RSS and heap per object of crdgen's informer (streaming and paged
//             lists) vs client-go v0.37's (watch-list) vs client-node's; kube-apiserver's and
//             etcd's peak RSS while each syncs (/proc VmHWM); the limit (the larger of the last
//             byte of the list at a client that discards it, and JSON.parse of those bytes) and
//             every sync as a multiple of it (bench/lib/scale-informer.ts)
//   operator  the generated DatabaseManager operator (Services metadata-only, and every owned kind whole)
//             vs the controller-runtime operator, with the objects and their owned Deployments and
//             Services in place: start-up to synced, RSS with everything cached, CPU seconds per
//             converged object, time to reconcile a new object created while the backlog runs
//             (bench/lib/scale-operator.ts)
//   failover  --leader-elect at the default timings (lease 15 s, renew 10 s, retry 2 s): the leader,
//             checked to hold the Lease, SIGKILLed; time to the new leader's reconcile of an object
//             created right after: crdgen's warm standby, a cold one, controller-runtime with warmup
// Medians of BENCH_SCALE_ROUNDS (default 5) for the informers and BENCH_SCALE_OPERATOR_ROUNDS
// (default 3: a round costs minutes) for the operators and failovers.
// Env: BENCH_SCALE_SIZES=10000,50000,100000  BENCH_SCALE_PARTS=informer,operator,failover
//      BENCH_SCALE_FAILOVER_BACKLOG=1 (failover part: every status cleared before each attempt, so the leader dies mid-backlog)
//      BENCH_SCALE_PROFILE=<folder> (informer part: kube-apiserver's pprof and the Node clients' CPU profiles of each sync)
//      BENCH_SCALE_ROUNDS=5  BENCH_SCALE_OPERATOR_ROUNDS=3  BENCH_SCALE_OPERATORS=crdgen,crdgen-whole,controller-runtime (crdgen: the generated operator as is, its Services cached metadata-only; crdgen-whole: every owned kind cached whole; crdgen-identity, not by default: as generated, asking for no gzip; crdgen-flags, not by default: as generated, with BENCH_SCALE_NODE_FLAGS added to its node flags)
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRealControlPlane } from './lib/control-plane-start.js';
import { DM_CRD, REPO, requireBuild } from './lib/env.js';
import {
  DEFAULT_SCALE_CLIENTS,
  SCALE_CLIENTS,
  SCALE_LABEL,
  runScaleInformerPart,
  scaleInformerTable,
  type ScaleClient,
} from './lib/scale-informer.js';
import {
  FAILOVER_KINDS,
  FAILOVER_LABEL,
  SCALE_OPERATORS,
  SCALE_OPERATOR_LABEL,
  runScaleOperatorPart,
  scaleOperatorTables,
  type ScaleOperator,
} from './lib/scale-operator.js';
import { bytes, fmt, machine, median, pairedRatio, times } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';

const COMMAND = 'npm run bench -- scale';
const positive = (name: string, dflt: string): number[] =>
  (process.env[name] ?? dflt).split(',').map((x) => {
    if (!/^\d+$/.test(x.trim()) || Number(x) < 1)
      throw new Error(
        `${name}: expected positive whole numbers separated by commas, got ${JSON.stringify(process.env[name])}`,
      );
    return Number(x);
  });
const SIZES = positive('BENCH_SCALE_SIZES', '10000,50000,100000');
const ROUNDS = positive('BENCH_SCALE_ROUNDS', '5')[0];
const PARTS = new Set((process.env.BENCH_SCALE_PARTS ?? 'informer,operator,failover').split(','));
const OPERATOR_ROUNDS = positive('BENCH_SCALE_OPERATOR_ROUNDS', '3')[0];
const OPERATORS = (process.env.BENCH_SCALE_OPERATORS ?? 'crdgen,crdgen-whole,controller-runtime').split(
  ',',
) as ScaleOperator[];
const CLIENTS = (process.env.BENCH_SCALE_CLIENTS ?? DEFAULT_SCALE_CLIENTS.join(',')).split(',') as ScaleClient[];
for (const c of CLIENTS)
  if (!SCALE_CLIENTS.includes(c))
    throw new Error(`BENCH_SCALE_CLIENTS: ${JSON.stringify(c)} is not one of ${SCALE_CLIENTS.join(', ')}`);
for (const op of OPERATORS)
  if (!SCALE_OPERATORS.includes(op))
    throw new Error(`BENCH_SCALE_OPERATORS: ${JSON.stringify(op)} is not one of ${SCALE_OPERATORS.join(', ')}`);

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

const T0 = performance.now();
const progress = (s: string): void => {
  const t = Math.round((performance.now() - T0) / 1000);
  process.stderr.write(`  scale [${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}]: ${s}\n`);
};

async function informerPart(assets: string, peers: string, headline: string[]): Promise<void> {
  const cp = await startRealControlPlane({ assets, crds: [DM_CRD], apiserverArgs: ['--request-timeout=10m'] });
  let r;
  try {
    progress(`informer: control plane ${cp.version} up`);
    r = await runScaleInformerPart(cp, peers, SIZES, ROUNDS, progress, CLIENTS, process.env.BENCH_SCALE_PROFILE);
  } finally {
    await cp.stop();
  }
  console.log(scaleInformerTable(r));
  const sizes = r.sizes.map((s) => fmt(s.count)).join(' / ');
  if (r.sync['crdgen-gzip'] && r.sync['crdgen-nogzip']) {
    const g = r.sizes.map((_, i) => pairedRatio(r.sync['crdgen-nogzip'][i].ms, r.sync['crdgen-gzip'][i].ms));
    const cpu = r.sizes.map(
      (_, i) => r.sync['crdgen-nogzip'][i].cpuMicrosPerObject / r.sync['crdgen-gzip'][i].cpuMicrosPerObject,
    );
    console.log(
      `\ncrdgen's streaming sync without gzip on watches (${sizes}): ${g.map(times).join(' / ')} the time with gzip (paired), ${cpu.map(times).join(' / ')} its CPU per object`,
    );
  }
  // the targets are judged on the default clients only
  if (!DEFAULT_SCALE_CLIENTS.every((c) => r.sync[c])) return;
  const ms = (c: (typeof SCALE_CLIENTS)[number]): string => r.sync[c].map((x) => fmt(median(x.ms))).join(' / ');
  const ratio = (a: (typeof SCALE_CLIENTS)[number], b: (typeof SCALE_CLIENTS)[number]): number[] =>
    r.sizes.map((_, i) => pairedRatio(r.sync[a][i].ms, r.sync[b][i].ms));
  const vsLimit = (c: (typeof SCALE_CLIENTS)[number]): number[] =>
    r.sizes.map((_, i) => pairedRatio(r.sync[c][i].ms, r.limit[i].limitMs));
  const limits = r.limit.map((l) => fmt(median(l.limitMs))).join(' / ');
  console.log('\nTargets (issue #36):');
  const goVsCrdgen = ratio('client-go', 'crdgen');
  const nodeVsCrdgen = ratio('client-node', 'crdgen');
  console.log(
    `- ${recordVerdict({ target: `informer sync ≤ client-go's and ≤ client-node's time (${sizes}, kube-apiserver)`, crdgen: `${ms('crdgen')} ms (streaming)`, peers: `client-go ${ms('client-go')} ms; client-node ${ms('client-node')} ms; crdgen paged ${ms('crdgen-paged')} ms`, judged: `client-go takes ${goVsCrdgen.map(times).join(' / ')}, client-node ${nodeVsCrdgen.map(times).join(' / ')} crdgen's time (≥ 1.00×)`, met: goVsCrdgen.every((x) => x >= 1) && nodeVsCrdgen.every((x) => x >= 1), command: COMMAND })}`,
  );
  const streamLimit = vsLimit('crdgen');
  const pagedLimit = vsLimit('crdgen-paged');
  console.log(
    `- ${recordVerdict({ target: `informer sync within 1.3× of the limit, streaming and paged (${sizes})`, crdgen: `streaming ${ms('crdgen')} ms; paged ${ms('crdgen-paged')} ms`, peers: `limit ${limits} ms; client-go ${vsLimit('client-go').map(times).join(' / ')}, client-node ${vsLimit('client-node').map(times).join(' / ')} of it`, judged: `streaming ${streamLimit.map(times).join(' / ')}, paged ${pagedLimit.map(times).join(' / ')} the limit (≤ 1.30×)`, met: [...streamLimit, ...pagedLimit].every((x) => x <= 1.3), command: COMMAND })}`,
  );
  const peak = (c: (typeof SCALE_CLIENTS)[number]): string =>
    r.sync[c].map((x) => bytes(x.apiserverPeakRss)).join(' / ');
  const apiRatio = r.sizes.map((_, i) => r.sync.crdgen[i].apiserverPeakRss / r.sync['client-go'][i].apiserverPeakRss);
  // the increase over the fresh server's RSS before the sync (each client has a fresh kube-apiserver)
  const rise = (c: (typeof SCALE_CLIENTS)[number]): string =>
    r.sync[c].map((x) => `+${bytes(Math.max(0, x.apiserverPeakRss - x.apiserverBeforeRss))}`).join(' / ');
  console.log(
    `- ${recordVerdict({ target: `kube-apiserver peak RSS during crdgen's sync ≤ during client-go's (${sizes}; a fresh kube-apiserver per sync)`, crdgen: `${peak('crdgen')} (${rise('crdgen')}) streaming; ${peak('crdgen-paged')} (${rise('crdgen-paged')}) paged`, peers: `client-go ${peak('client-go')} (${rise('client-go')}); client-node ${peak('client-node')} (${rise('client-node')}); etcd during crdgen's ${r.sync.crdgen.map((x) => bytes(x.etcdPeakRss)).join(' / ')}, client-go's ${r.sync['client-go'].map((x) => bytes(x.etcdPeakRss)).join(' / ')}`, judged: `${apiRatio.map(times).join(' / ')} client-go's (≤ 1.00×)`, met: apiRatio.every((x) => x <= 1), command: COMMAND })}`,
  );
  const mem = (c: (typeof SCALE_CLIENTS)[number]): string =>
    r.sync[c].map((x) => `${bytes(x.peakRssBytes)} peak, ${bytes(x.heapPerObject)}/object`).join(' / ');
  console.log(
    `- ${recordVerdict({
      target: `informer memory (${sizes}): peak RSS and heap per cached object`,
      crdgen: mem('crdgen'),
      peers: r.clients
        .filter((c) => c !== 'crdgen')
        .map((c) => `${SCALE_LABEL[c]} ${mem(c)}`)
        .join('; '),
      judged: `peak RSS ${r.sizes.map((_, i) => times(r.sync.crdgen[i].peakRssBytes / r.sync['client-go'][i].peakRssBytes)).join(' / ')} client-go's`,
      met: null,
      command: COMMAND,
    })}`,
  );
  const big = r.sizes.length - 1;
  headline.push(`informer-${fmt(r.sizes[big].count)}=${goVsCrdgen[big].toFixed(2)}`);
  headline.push(`limit-${fmt(r.sizes[big].count)}=${streamLimit[big].toFixed(2)}`);
}

async function operatorPart(assets: string, peers: string, headline: string[]): Promise<void> {
  const r = await runScaleOperatorPart({
    operators: PARTS.has('operator') ? OPERATORS : [],
    assets,
    peersBin: peers,
    // failover alone: at the smallest size only
    sizes: PARTS.has('operator') ? SIZES : SIZES.slice(0, 1),
    rounds: OPERATOR_ROUNDS,
    failover: PARTS.has('failover'),
    failoverBacklog: process.env.BENCH_SCALE_FAILOVER_BACKLOG === '1',
    progress,
  });
  console.log(scaleOperatorTables(r));
  const sizes = r.sizes.map((n) => fmt(n)).join(' / ');
  const ran = (op: ScaleOperator): boolean => r.runs[op].length > 0 && r.runs[op].every((x) => x.length > 0);
  const med = (
    op: ScaleOperator,
    i: number,
    f: (x: (typeof r.runs)[ScaleOperator][number][number]) => number,
  ): number => median(r.runs[op][i].map(f));
  const per = (op: ScaleOperator, f: (i: number) => string): string => r.sizes.map((_, i) => f(i)).join(' / ');
  const cr = 'controller-runtime' as const;
  console.log('\nTargets (issue #36):');
  if (ran('crdgen') && ran(cr)) {
    const big = r.sizes.length - 1;
    const rss = (op: ScaleOperator): string => `${fmt(med(op, big, (x) => x.rssMb))} MB`;
    const crRss = med(cr, big, (x) => x.rssMb);
    const rssRatio = med('crdgen', big, (x) => x.rssMb) / crRss;
    console.log(
      `- ${recordVerdict({ target: `operator RSS at ${fmt(r.sizes[big])} ≤ controller-runtime's (everything cached)`, crdgen: `${rss('crdgen')} (as generated: Services metadata-only)${ran('crdgen-whole') ? `; ${rss('crdgen-whole')} (every owned kind whole)` : ''}`, peers: `controller-runtime ${rss(cr)}`, judged: `${times(rssRatio)}${ran('crdgen-whole') ? ` (whole: ${times(med('crdgen-whole', big, (x) => x.rssMb) / crRss)})` : ''} (≤ 1.00×)`, met: rssRatio <= 1, command: COMMAND })}`,
    );
    const cpu = (op: ScaleOperator): string =>
      per(op, (i) => fmt((med(op, i, (x) => x.cpuSeconds) / r.sizes[i]) * 1e6));
    const cpuRatio = r.sizes.map((_, i) => med('crdgen', i, (x) => x.cpuSeconds) / med(cr, i, (x) => x.cpuSeconds));
    console.log(
      `- ${recordVerdict({ target: `operator CPU per converged object ≤ controller-runtime's (${sizes})`, crdgen: `${cpu('crdgen')} µs`, peers: `controller-runtime ${cpu(cr)} µs${ran('crdgen-whole') ? `; crdgen cached whole ${cpu('crdgen-whole')} µs` : ''}${ran('crdgen-identity') ? `; crdgen without gzip ${cpu('crdgen-identity')} µs` : ''}`, judged: `${cpuRatio.map(times).join(' / ')} (≤ 1.00×)`, met: cpuRatio.every((x) => x <= 1), command: COMMAND })}`,
    );
    const fresh = (op: ScaleOperator): string => per(op, (i) => fmt(med(op, i, (x) => x.newObjectMs) / 1000));
    const freshMax = Math.max(...r.sizes.map((_, i) => med('crdgen', i, (x) => x.newObjectMs)));
    console.log(
      `- ${recordVerdict({ target: `a new object during the backlog reconciled within 2 s (${sizes})`, crdgen: `${fresh('crdgen')} s`, peers: `controller-runtime ${fresh(cr)} s`, judged: `${fmt(freshMax / 1000)} s at most (≤ 2 s)`, met: freshMax <= 2000, command: COMMAND })}`,
    );
    const startup = (op: ScaleOperator): string => per(op, (i) => fmt(med(op, i, (x) => x.syncedMs) / 1000));
    console.log(
      `- ${recordVerdict({ target: `operator start-up to synced (${sizes})`, crdgen: `${startup('crdgen')} s`, peers: `controller-runtime ${startup(cr)} s`, judged: `${r.sizes.map((_, i) => times(med('crdgen', i, (x) => x.syncedMs) / med(cr, i, (x) => x.syncedMs))).join(' / ')} controller-runtime's`, met: null, command: COMMAND })}`,
    );
    headline.push(`rss-${fmt(r.sizes[big])}=${rssRatio.toFixed(2)}`);
  }
  const f = r.failover;
  if (f) {
    const s = (k: (typeof FAILOVER_KINDS)[number]): string =>
      `${fmt(median(f.ms[k]) / 1000)} s (lease won after ${fmt(median(f.acquiredMs[k]) / 1000)} s)`;
    const ratio = pairedRatio(f.ms['crdgen-warm'], f.ms['controller-runtime-warmup']);
    const voids = FAILOVER_KINDS.map((k) => f.void[k].length).reduce((a, b) => a + b, 0);
    const t = f.timings;
    console.log(
      `- ${recordVerdict({ target: `failover to a warm standby ≤ controller-runtime's with warmup (${fmt(f.size)}; SIGKILL → the new leader's reconcile of an object created right after; lease ${t.leaseSeconds} s, renew ${t.renewSeconds} s, retry ${t.retrySeconds} s)`, crdgen: `${s('crdgen-warm')} (${FAILOVER_LABEL['crdgen-warm']})`, peers: `${FAILOVER_LABEL['crdgen-cold']} ${s('crdgen-cold')}; ${FAILOVER_LABEL['controller-runtime-warmup']} ${s('controller-runtime-warmup')}`, judged: `${times(ratio)} (≤ 1.00×; ${voids} void attempts retried)`, met: ratio <= 1, command: COMMAND })}`,
    );
  }
  void SCALE_OPERATOR_LABEL;
}

async function main(): Promise<void> {
  requireBuild();
  const peers = ensure('ensure-bench-peers.sh');
  const assets = ensure('ensure-control-plane.sh');
  console.log(
    `## scale — crdgen, client-go, controller-runtime and client-node at ${SIZES.map((n) => fmt(n)).join(' / ')} DatabaseManagers on kube-apiserver v1.37.1 (rounds: informers ${ROUNDS})`,
  );
  console.log(`machine: ${machine()}\n`);
  const headline: string[] = [];
  if (PARTS.has('informer')) await informerPart(assets, peers, headline);
  if (PARTS.has('operator') || PARTS.has('failover')) await operatorPart(assets, peers, headline);
  const line = `scale: ${headline.join(' ')}`;
  console.log(`\n${line}`);
  if (process.env.CRDGEN_BENCH_LAST_LINES) appendFileSync(process.env.CRDGEN_BENCH_LAST_LINES, `${line}\n`);
}

await main();
