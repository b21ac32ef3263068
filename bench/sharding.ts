// `node --import tsx bench/sharding.ts [--objects 3000] [--cores 0,1]`: convergence of the
// generated DatabaseManager operator on the real control plane (`crdgen testenv --real`), one
// unsharded replica against three replicas with --sharded, each replica pinned to one core with
// `taskset` (round robin over --cores). Converged: every DatabaseManager has its Deployment
// (labelled with the owner's shard when sharded) and a status of its generation. Prints the wall
// time, each replica's CPU seconds and peak RSS, and the machine's share of CPU that was not the
// operator's (the platform: kube-apiserver, etcd, the driver).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { loadKubeconfig, resourceClient, DeploymentResource, type Deployment } from '../src/runtime/index.js';
import type { KubeObject } from '../src/runtime/index.js';
import {
  DM_CRD,
  generateOperator,
  startOperator,
  startTestenvProcess,
  waitFor,
  type OperatorProcess,
} from '../test/e2e/support.js';
import { LEASE, SHARD_LABEL, startReplica } from '../test/e2e/sharding-support.js';

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const N = Number(arg('objects', '3000'));
const CORES = arg('cores', '0,1').split(',');
if (!Number.isInteger(N) || N < 1) {
  process.stderr.write(`bench/sharding: --objects ${arg('objects', '')} is not a positive integer\n`);
  process.exit(2);
}

const DM = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
type DMObject = KubeObject & { status?: { observedGeneration?: number } };

/** CPU seconds (user + system) of a process and its peak RSS in MB, from /proc. */
function usage(pid: number): { cpu: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpu: ticks / 100, rssMb: hwm ? Number(hwm[1]) / 1024 : 0 };
}

/** Busy CPU seconds of the whole machine (all cores), from /proc/stat. */
function machineBusy(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  const idle = line[3] + line[4];
  return (line.reduce((a, b) => a + b, 0) - idle) / 100;
}

async function run(replicas: number): Promise<string> {
  const gen = generateOperator();
  const server = await startTestenvProcess(DM_CRD, ['--real']);
  const ops: { name: string; op: OperatorProcess }[] = [];
  try {
    const config = await loadKubeconfig({ path: server.kubeconfigPath });
    const dms = resourceClient<DMObject>(config, DM).namespace('default');
    const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
    for (let i = 0; i < replicas; i++) {
      const name = `r${i}`;
      const op =
        replicas === 1
          ? startOperator(gen.main, [
              '--kubeconfig',
              server.kubeconfigPath,
              '--metrics-bind-address',
              '0',
              '--health-probe-bind-address',
              '0',
              '--kube-api-qps',
              '200',
              '--kube-api-burst',
              '400',
            ])
          : startReplica(gen.main, server.kubeconfigPath, name, 19_400 + i, []).op;
      spawnSync('taskset', ['-a', '-pc', CORES[i % CORES.length], String(op.proc.pid)], { stdio: 'ignore' });
      ops.push({ name, op });
    }
    await Promise.all(
      ops.map(({ op }) =>
        op.waitForLog((l) => l.msg === (replicas === 1 ? 'starting manager' : 'shard joined the ring'), 60_000),
      ),
    );
    const before = ops.map(({ op }) => usage(op.proc.pid!).cpu);
    const busy0 = machineBusy();
    const t0 = Date.now();
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
    const created = Date.now() - t0;
    await waitFor(
      async () => {
        const [d, deps] = await Promise.all([dms.list(), deployments.list()]);
        const owned = new Map(deps.items.map((x) => [x.metadata!.name!, x]));
        return d.items.every((x) => {
          const dep = owned.get(`${x.metadata!.name}-db`);
          return (
            dep !== undefined &&
            x.status?.observedGeneration === x.metadata?.generation &&
            (replicas === 1 || dep.metadata?.labels?.[SHARD_LABEL] === x.metadata?.labels?.[SHARD_LABEL])
          );
        });
      },
      20 * 60_000,
      `${N} objects converged with ${replicas} replica(s)`,
    );
    const wall = (Date.now() - t0) / 1000;
    const used = ops.map(({ name, op }, i) => ({
      name,
      ...usage(op.proc.pid!),
      cpu: usage(op.proc.pid!).cpu - before[i],
    }));
    const opCpu = used.reduce((a, u) => a + u.cpu, 0);
    const busy = machineBusy() - busy0;
    const per = used.map((u) => `${u.name} ${u.cpu.toFixed(1)} s CPU, ${u.rssMb.toFixed(0)} MB peak RSS`).join('; ');
    return `| ${replicas === 1 ? '1 (unsharded)' : `${replicas} (--sharded)`} | ${N} | ${wall.toFixed(1)} s | ${(created / 1000).toFixed(1)} s | ${opCpu.toFixed(1)} s | ${(100 * (1 - opCpu / Math.max(busy, 0.01))).toFixed(0)} % | ${per} |`;
  } finally {
    await Promise.all(ops.map(({ op }) => op.kill()));
    await server.stop();
    gen.cleanup();
  }
}

const rows = [await run(1), await run(3)];
process.stdout.write(
  [
    `sharding bench: ${N} DatabaseManagers, crdgen testenv --real, replicas pinned to cores ${CORES.join(',')} (taskset), ${cpus().length} cores, Lease ${LEASE.durationMs} ms`,
    '',
    '| replicas | objects | converged after | creates took | operator CPU | platform share of busy CPU | per replica |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
