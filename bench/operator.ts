// Benchmark: the generated DatabaseManager operator
// beside a minimal operator written directly on @kubernetes/client-node (bench/lib/
// operator-client-node.ts), each its own `node` process against the test API server (in
// this process) with simulated workloads (50 ms rollouts):
//   1. start-up: spawn → first reconcile (the first `reconciled` log line; that reconcile
//      creates a Deployment): wall clock, and the process's CPU time at that moment;
//   2. N DatabaseManagers created at once (N = 100, 500, 1,000, 2,000; a fresh server each):
//      time until every one has converged (status.availableReplicas = spec.replicas, which
//      needs its Deployment), and the operator's requests per object, counted by the server;
//   3. after the 1,000 converged: the operator's CPU over an idle window (no polling: ~0;
//      20 s by default to keep the bench short, the target's 60 s with BENCH_OPERATOR_IDLE_S=60)
//      and then its RSS with 1,000 DatabaseManagers and their 1,000 Deployments cached.
// Requests per object are the whole job's: counted until the operator has been quiet for 3 s
// (the generated operator's Events trail its status writes), and the idle window starts then.
// The generated operator runs as its image runs it (bundled by esbuild, with the Dockerfile's
// node options), and for start-up and memory also as `npm run build` leaves it (tsc output
// importing dist/, plain `node`). Both operators get 4 workers; the generated one runs with its
// client-side rate limit lifted (client-node has none). No heap cap.
//   npm run bench -- operator        (or: npm run build && node --import tsx bench/operator.ts)
// Env: BENCH_OPERATOR_SIZES=100,500,2000  BENCH_OPERATOR_IDLE_S=20  BENCH_OPERATOR_STARTS=5
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApiServer, type TestApiServer } from '../src/testing/index.js';
import { loadKubeconfig } from '../src/runtime/client/kubeconfig.js';
import { resourceClient } from '../src/runtime/client/resource-client.js';
import { DeploymentResource, type Deployment } from '../src/runtime/builtin/index.js';
import { isNotFound } from '../src/runtime/client/errors.js';
import { newSharedIndexInformer } from '../src/runtime/cache/shared-index-informer.js';
import type { KubeObject } from '../src/runtime/meta/types.js';
import { buildOperators } from './lib/operator-build.js';
import {
  cpuMs,
  rssMb,
  startOperator as start,
  stopOperator as stop,
  until,
  type Contender,
} from './lib/operator-process.js';
import { DM_CRD, REPO } from './lib/env.js';
import { fmt, load1, median, table } from './lib/stats.js';

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
const DRIVER_UA = 'crdgen-operator-bench-driver';
const SIZES = (process.env.BENCH_OPERATOR_SIZES ?? '100,500,2000').split(',').map(Number);
const IDLE_S = Number(process.env.BENCH_OPERATOR_IDLE_S ?? 20);
const STARTS = Number(process.env.BENCH_OPERATOR_STARTS ?? 5);
const IDLE_COUNT = 1000;

/** A test API server that counts the requests of everything but the benchmark's own client. */
async function server(): Promise<{ s: TestApiServer; requests: () => { all: number; events: number } }> {
  const n = { all: 0, events: 0 };
  const count = (line: string): void => {
    if (line.endsWith(`"${DRIVER_UA}"`) || line.startsWith('controller error')) return;
    n.all++;
    if (/^\S+ \/api\/v1\/namespaces\/[^/]+\/events/.test(line)) n.events++;
  };
  const s = await startTestApiServer({ crds: [DM_CRD], simulateWorkloads: 50, log: count });
  return { s, requests: () => ({ ...n }) };
}

async function driver(s: TestApiServer): Promise<{
  dms: ReturnType<typeof resourceClient<DM>>;
  deployments: ReturnType<typeof resourceClient<Deployment>>;
  config: Awaited<ReturnType<typeof loadKubeconfig>>;
}> {
  const config = {
    ...(await loadKubeconfig({ path: s.kubeconfigPath })),
    userAgent: DRIVER_UA,
    qps: 5000,
    burst: 5000,
  };
  return {
    config,
    dms: resourceClient<DM>(config, DM_RESOURCE),
    deployments: resourceClient<Deployment>(config, DeploymentResource),
  };
}

function dm(i: number, prefix: string): DM {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: `${prefix}-${i}` },
    spec: {
      deploymentName: `${prefix}-${i}-db`,
      replicas: 1 + (i % 3),
      dbtype: ['mysql', 'postgres', 'redis', 'mongodb'][i % 4],
    },
  };
}

/** Creates `n` DatabaseManagers, 50 requests in flight at a time. */
async function createMany(dms: ReturnType<typeof resourceClient<DM>>, n: number, prefix: string): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) await dms.namespace('default').create(dm(next++, prefix));
  };
  await Promise.all(Array.from({ length: 50 }, lane));
}

/** Watches DatabaseManagers; resolves once `n` have status.availableReplicas = spec.replicas. */
function convergence(
  config: Awaited<ReturnType<typeof driver>>['config'],
  n: number,
): { done: Promise<void>; stop: () => void } {
  const informer = newSharedIndexInformer(resourceClient<DM>(config, DM_RESOURCE));
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

/** Deletes a Deployment if it exists; retries a dropped keep-alive connection (the server closes idle ones). */
async function deleteDeployment(
  deployments: ReturnType<typeof resourceClient<Deployment>>,
  name: string,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await deployments.namespace('default').delete(name);
      return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (attempt >= 3 || !/socket hang up|ECONNRESET/.test((e as Error).message)) throw e;
    }
  }
}

async function measureStartup(c: Contender): Promise<{ wall: number[]; cpu: number[] }> {
  const { s } = await server();
  const { dms, deployments } = await driver(s);
  await dms.namespace('default').create(dm(0, 'start'));
  const wall: number[] = [];
  const cpu: number[] = [];
  try {
    for (let i = 0; i < STARTS; i++) {
      await deleteDeployment(deployments, 'start-0-db'); // the first reconcile creates it again
      await new Promise((r) => setTimeout(r, 300));
      const r = start(c, s.kubeconfigPath);
      try {
        await until(() => r.marks.has(c.reconciledMsg), 60_000, `${c.label}: first reconcile`);
        wall.push(r.marks.get(c.reconciledMsg)!);
        cpu.push(r.cpuAtFirstReconcile);
      } finally {
        await stop(r);
      }
    }
  } finally {
    await s.stop();
  }
  return { wall, cpu };
}

/** What one convergence run measured; the idle figures only when asked for. */
interface ConvergenceResult {
  seconds: number;
  requestsPerObject: number;
  eventRequestsPerObject: number;
  idle?: { cpuMs: number; rss: number };
}

/**
 * A fresh server, the operator started and synced, `n` DatabaseManagers created at once:
 * the time until all converged and the operator's requests. With `idle`, then waits
 * IDLE_S seconds and measures the operator's CPU over them and its RSS.
 */
async function measureConvergence(c: Contender, n: number, idle: boolean): Promise<ConvergenceResult> {
  const { s, requests } = await server();
  const d = await driver(s);
  const r = start(c, s.kubeconfigPath);
  try {
    await until(() => r.marks.has(c.syncedMsg), 60_000, `${c.label}: caches synced`);
    const watch = convergence(d.config, n);
    const req0 = requests();
    const t0 = performance.now();
    await createMany(d.dms, n, 'dm');
    await Promise.race([watch.done, r.exited.then(() => Promise.reject(new Error(`${c.label} exited`)))]);
    const seconds = (performance.now() - t0) / 1000;
    watch.stop();
    // the job's requests: until the operator has sent nothing for 3 s (its Events trail the statuses)
    let last = requests().all;
    let quietSince = performance.now();
    await until(
      () => {
        const now = requests().all;
        if (now !== last) [last, quietSince] = [now, performance.now()];
        return performance.now() - quietSince >= 3000;
      },
      120_000,
      `${c.label}: requests to stop`,
    );
    const req1 = requests();
    const result: ConvergenceResult = {
      seconds,
      requestsPerObject: (req1.all - req0.all) / n,
      eventRequestsPerObject: (req1.events - req0.events) / n,
    };
    if (idle) {
      const cpu0 = cpuMs(r.proc.pid!);
      await new Promise((res) => setTimeout(res, IDLE_S * 1000));
      const cpuMsIdle = cpuMs(r.proc.pid!) - cpu0;
      const deployments = (await d.deployments.list()).items.length;
      if (deployments < n) throw new Error(`${c.label}: only ${deployments} Deployments`);
      result.idle = { cpuMs: cpuMsIdle, rss: rssMb(r.proc.pid!) };
    }
    return result;
  } finally {
    await stop(r);
    await s.stop();
  }
}

/** `node -e 0` started STARTS times: what any Node process costs before its first line runs. */
function baseline(): string[] {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      ['-e', 'process.stdout.write(String(process.cpuUsage().user + process.cpuUsage().system))'],
      { encoding: 'utf8' },
    );
    wall.push(performance.now() - t0);
    cpu.push(Number(r.stdout) / 1000);
  }
  return [
    '`node -e 0` (for reference)',
    `${fmt(median(wall) / 1000)} s`,
    `${fmt(median(cpu), 3)} ms`,
    wall.map((w) => (w / 1000).toFixed(2)).join(' '),
  ];
}

async function main(): Promise<void> {
  const out = join(REPO, `.bench-operator-${process.pid}`);
  try {
    const t = performance.now();
    const built = await buildOperators(out);
    console.error(`operators built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const crdgenArgs = (kc: string): string[] => [
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
      // the line that ends each reconcile (the benchmark's mark) is at debug
      '--log-level',
      'debug',
    ];
    const marks = { syncedMsg: 'caches synced; starting workers', reconciledMsg: 'reconciled' };
    const crdgen: Contender = {
      label: 'crdgen (tsc output + node_modules)',
      argv: (kc) => [process.execPath, built.crdgen, ...crdgenArgs(kc)],
      ...marks,
    };
    const bundled: Contender = {
      label: `crdgen as its image runs it (esbuild bundle, ${built.imageNodeOptions.join(' ') || 'no node options'})`,
      argv: (kc) => [process.execPath, ...built.imageNodeOptions, built.crdgenBundle, ...crdgenArgs(kc)],
      ...marks,
    };
    const clientNode: Contender = {
      label: 'client-node makeInformer operator',
      argv: (kc) => [process.execPath, built.clientNode, '--kubeconfig', kc, '--workers', '4'],
      ...marks,
    };

    console.log(`## Operator: generated DatabaseManager operator vs a client-node operator\n`);
    console.log(`load average at start ${load1()}; no heap cap\n`);
    const startRows: string[][] = [baseline()];
    for (const c of [crdgen, bundled, clientNode]) {
      const r = await measureStartup(c);
      startRows.push([
        c.label,
        `${fmt(median(r.wall) / 1000)} s`,
        `${fmt(median(r.cpu), 3)} ms`,
        `${r.wall.map((w) => (w / 1000).toFixed(2)).join(' ')}`,
      ]);
    }
    console.log(
      `### Start-up to the first reconcile (median of ${STARTS}; spawn → first \`reconciled\` line, which created a Deployment); load ${load1()}\n`,
    );
    console.log(table(['operator', 'wall clock', 'CPU', 'runs (s)'], startRows));

    const sizes = [...new Set([...SIZES, IDLE_COUNT])].sort((a, b) => a - b);
    const convRows: string[][] = [];
    const idleRows: string[][] = [];
    for (const n of sizes) {
      const row = [`${n}`];
      for (const c of [bundled, clientNode]) {
        const r = await measureConvergence(c, n, n === IDLE_COUNT);
        row.push(`${r.seconds.toFixed(1)} s`, `${fmt(r.requestsPerObject, 3)} (${fmt(r.eventRequestsPerObject, 2)})`);
        if (r.idle)
          idleRows.push([
            c.label,
            `${r.idle.cpuMs} ms (${fmt((r.idle.cpuMs / (IDLE_S * 1000)) * 100, 2)} %)`,
            `${r.idle.rss.toFixed(1)} MB`,
          ]);
      }
      convRows.push(row);
    }
    const plain = await measureConvergence(crdgen, IDLE_COUNT, true);
    idleRows.unshift([
      crdgen.label,
      `${plain.idle!.cpuMs} ms (${fmt((plain.idle!.cpuMs / (IDLE_S * 1000)) * 100, 2)} %)`,
      `${plain.idle!.rss.toFixed(1)} MB`,
    ]);
    console.log(
      `\n### N DatabaseManagers created at once → all converged (Deployment created, availableReplicas = replicas); load ${load1()}\n`,
    );
    console.log(`crdgen: ${bundled.label}; requests per object counted by the server (of which Events)\n`);
    console.log(
      table(
        ['N', 'crdgen: time', 'crdgen: requests/object', 'client-node: time', 'client-node: requests/object'],
        convRows,
      ),
    );
    console.log(
      `\n### After ${IDLE_COUNT} converged: ${IDLE_S} s idle (CPU), then RSS with ${IDLE_COUNT} DatabaseManagers + ${IDLE_COUNT} Deployments cached; load ${load1()}\n`,
    );
    console.log(table(['operator', `CPU over ${IDLE_S} s idle`, 'RSS at idle'], idleRows));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
