// Benchmark: crdgen against what an operator author would otherwise pick — client-go and
// controller-runtime — and against client-node, all on the same real control plane (etcd +
// kube-apiserver v1.37.1, with kube-controller-manager, kube-scheduler and kwok for the
// operators), in one run, medians of BENCH_ROUNDS (default 5) rounds:
//   informer    client-go's shared informers vs crdgen's vs client-node's (bench/lib/go-peers-informer.ts)
//   operator    the generated DatabaseManager operator vs a controller-runtime one vs the client-node one
//               (bench/lib/go-peers-operator.ts)
//   testserver  startTestApiServer() vs etcd + kube-apiserver, start-up and a suite of 200 requests,
//               with the fidelity figure (bench/lib/go-peers-testserver.ts)
// The Go peers are built from the module proxy by scripts/ensure-bench-peers.sh, the control plane
// by scripts/ensure-control-plane.sh (both cached under .cache/). Ends with one line:
//   go-peers: informer-sync-10k=<client-go time / crdgen time> converge-500=<controller-runtime time / crdgen time> rss=<crdgen RSS / controller-runtime RSS>
//   npm run bench -- go-peers      (or: npm run build && node --expose-gc --import tsx bench/go-peers.ts)
// Env: BENCH_ROUNDS=5  BENCH_GO_PEERS_PARTS=informer,operator,testserver  BENCH_INFORMER_SCALE=1
//      BENCH_OPERATOR_SIZES=100,500,2000  BENCH_OPERATOR_IDLE_S=60  BENCH_CHARTS_DIR=docs/bench-charts
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { startRealControlPlane } from './lib/control-plane-start.js';
import { lineChart } from './lib/chart.js';
import { DM_CRD, REPO, requireBuild } from './lib/env.js';
import { INFORMER_CLIENTS, INFORMER_LABEL, informerTables, runInformerPart, type InformerResult } from './lib/go-peers-informer.js';
import { OPERATOR_LABEL, OPERATORS, operatorTables, runOperatorPart } from './lib/go-peers-operator.js';
import { runTestServerPart, testServerTables } from './lib/go-peers-testserver.js';
import { machine, median, pairedRatio, times } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const PARTS = new Set((process.env.BENCH_GO_PEERS_PARTS ?? 'informer,operator,testserver').split(','));
const SCALE = Number(process.env.BENCH_INFORMER_SCALE ?? 1);
const CHARTS = process.env.BENCH_CHARTS_DIR ?? join(REPO, 'docs', 'bench-charts');
const COMMAND = 'npm run bench -- go-peers';
const SIZES = (process.env.BENCH_OPERATOR_SIZES ?? '100,500,2000').split(',').map(Number);
/** Rounds per convergence size: BENCH_ROUNDS up to 500, BENCH_OPERATOR_LARGE_ROUNDS (default 1) above. */
const LARGE_ROUNDS = Number(process.env.BENCH_OPERATOR_LARGE_ROUNDS ?? 1);
const IDLE_S = Number(process.env.BENCH_OPERATOR_IDLE_S ?? 60);
const IDLE_COUNT = Number(process.env.BENCH_OPERATOR_IDLE_COUNT ?? 1000);

/** Runs an ensure-*.sh script; returns the folder its last line names. */
function ensure(script: string): string {
  const r = spawnSync('bash', [join(REPO, 'scripts', script)], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = r.stdout.trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !dir) throw new Error(`scripts/${script} failed (exit ${r.status})`);
  return dir;
}

const progress = (s: string): void => void process.stderr.write(`  go-peers: ${s}\n`);

/** Writes a chart into CHARTS; returns its path relative to the repository. */
function writeChart(name: string, svg: string): string {
  mkdirSync(CHARTS, { recursive: true });
  const file = join(CHARTS, name);
  writeFileSync(file, svg);
  return relative(REPO, file);
}

async function informer(assets: string, peers: string): Promise<InformerResult> {
  const cp = await startRealControlPlane({
    assets,
    crds: [DM_CRD],
    // the stream is replayed from its start: etcd keeps every revision (no compaction), and the
    // watch cache keeps 10 minutes of events (its window is the request timeout + 15 s)
    etcdCompactionIntervalSeconds: 0,
    apiserverArgs: ['--request-timeout=10m'],
  });
  try {
    progress(`informer: control plane ${cp.version} up`);
    return await runInformerPart(cp, peers, ROUNDS, SCALE, progress);
  } finally {
    await cp.stop();
  }
}

async function main(): Promise<void> {
  requireBuild();
  const peers = ensure('ensure-bench-peers.sh');
  const assets = ensure('ensure-control-plane.sh');
  console.log(`## go-peers — client-go, controller-runtime, client-node and crdgen on one real control plane, ${ROUNDS} rounds, one fresh process per client per round`);
  console.log(`machine: ${machine()}\n`);
  const headline: string[] = [];
  if (PARTS.has('informer')) {
    const r = await informer(assets, peers);
    console.log(informerTables(r));
    const chart = writeChart(
      'informer-sync.svg',
      lineChart({
        title: 'Informer sync on kube-apiserver v1.37.1 (median)',
        xLabel: 'DatabaseManagers',
        yLabel: 'seconds until every object was handled',
        series: INFORMER_CLIENTS.map((c) => ({ label: INFORMER_LABEL[c], points: r.sizes.map((s, i) => ({ x: s.count, y: median(r.sync[c][i]!.ms) / 1000 })) })),
      }),
    );
    console.log(`\nchart: ${chart}\n`);
    const i10k = 1;
    const ratio10k = pairedRatio(r.sync['client-go'][i10k]!.ms, r.sync.crdgen[i10k]!.ms);
    headline.push(`informer-sync-10k=${ratio10k.toFixed(2)}`);
    console.log(`- ${recordVerdict({ target: 'informer sync 10k vs client-go (real control plane)', crdgen: `${median(r.sync.crdgen[i10k]!.ms).toFixed(0)} ms`, peers: `client-go ${median(r.sync['client-go'][i10k]!.ms).toFixed(0)} ms`, judged: `client-go takes ${times(ratio10k)} crdgen's time`, met: null, command: COMMAND })}`);
  }
  if (PARTS.has('operator')) {
    const r = await runOperatorPart({ assets, peersBin: peers, starts: ROUNDS, sizes: SIZES.map((n) => ({ n, rounds: n > 500 ? LARGE_ROUNDS : ROUNDS })), idleSeconds: IDLE_S, idleCount: IDLE_COUNT, progress });
    console.log(operatorTables(r));
    const chart = writeChart(
      'operator-convergence.svg',
      lineChart({
        title: 'Operator convergence on kube-apiserver + kwok (median)',
        xLabel: 'DatabaseManagers created at once',
        yLabel: 'seconds until all converged',
        series: OPERATORS.map((op) => ({ label: OPERATOR_LABEL[op], points: r.convergence.map((c) => ({ x: c.n, y: median(c.runs[op].seconds) })) })),
      }),
    );
    console.log(`\nchart: ${chart}\n`);
    const at500 = r.convergence.find((c) => c.n === 500);
    if (at500) headline.push(`converge-500=${pairedRatio(at500.runs['controller-runtime'].seconds, at500.runs.crdgen.seconds).toFixed(2)}`);
    headline.push(`rss=${(r.idle.byOperator.crdgen.rssMb / r.idle.byOperator['controller-runtime'].rssMb).toFixed(2)}`);
  }
  if (PARTS.has('testserver')) {
    const r = await runTestServerPart(assets, ROUNDS, 3, progress);
    console.log(testServerTables(r));
  }
  console.log(`\ngo-peers: ${headline.join(' ')}`);
}

await main();
