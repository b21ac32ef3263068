// Benchmark: the generated DatabaseManager operator, compiled to JavaScript and run with
// plain `node` (no tsx) against the test API server with simulated workloads:
//   1. start-up: process spawn → caches synced → first reconcile (first Deployment created);
//   2. resident memory with 1,000 DatabaseManagers and their 1,000 Deployments cached;
//   3. 500 DatabaseManagers created at once: time until every one is Ready with its replicas available.
// Run: npm run build && node --import tsx bench/operator-footprint.ts  (uses dist/ as a user's operator would)
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCrdInputs } from '../src/input/crd/index.js';
import { createEmitContext } from '../src/generate/emitter.js';
import { runEmitters } from '../src/generate/registry.js';
import { writeFiles } from '../src/emit/writer.js';
import { startTestApiServer, type TestApiServer } from '../src/testing/index.js';
import { loadKubeconfig } from '../src/runtime/client/kubeconfig.js';
import { resourceClient } from '../src/runtime/client/resource-client.js';
import type { KubeObject, Condition } from '../src/runtime/meta/types.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const crdFile = join(root, 'fixtures', 'databasemanager', 'crd.yaml');
const out = join(root, `.bench-operator-${process.pid}`);
type DM = KubeObject & { spec: { deploymentName: string; replicas: number; dbtype: string }; status?: { availableReplicas?: number; conditions?: Condition[] } };
const DM_RESOURCE = { group: 'coolops.cn', version: 'v1alpha1', resource: 'databasemanagers', kind: 'DatabaseManager', listKind: 'DatabaseManagerList', namespaced: true };

/** Generates the operator with `crdgen/runtime` = this repo's dist/, and compiles it with tsc. */
async function buildOperator(): Promise<string> {
  const r = readCrdInputs([{ file: 'fixtures/databasemanager/crd.yaml', content: readFileSync(crdFile) }]);
  await writeFiles(join(out, 'src'), runEmitters(r.model, createEmitContext({ sources: r.model.sources, runtimeImport: join(root, 'dist', 'runtime', 'index.js'), controllers: ['DatabaseManager'] })));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(out, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, outDir: 'js', rootDir: 'src', types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] }, include: ['src/**/*.ts'] }));
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(out, 'tsconfig.json')], { stdio: 'inherit' });
  return join(out, 'js', 'controllers', 'databasemanager', 'main.js');
}

function startOperator(main: string, kubeconfig: string, onLine: (l: Record<string, unknown>) => void): ChildProcess {
  const p = spawn(process.execPath, [main, '--kubeconfig', kubeconfig, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--workers', '4', '--kube-api-qps', '200', '--kube-api-burst', '400'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=80' } }); // as config/manager.yaml runs it
  let buf = '';
  p.stdout!.setEncoding('utf8').on('data', (c: string) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      try {
        onLine(JSON.parse(buf.slice(0, i)) as Record<string, unknown>);
      } catch {
        /* not JSON */
      }
      buf = buf.slice(i + 1);
    }
  });
  return p;
}

/** CPU seconds (user + system) the process has used: a figure that load on a shared machine does not inflate. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function until(probe: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function createMany(server: TestApiServer, n: number, prefix: string): Promise<void> {
  const config = await loadKubeconfig({ path: server.kubeconfigPath });
  const dms = resourceClient<DM>({ ...config, qps: 1000, burst: 1000 }, DM_RESOURCE).namespace('default');
  const items = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n; i += 50) {
    await Promise.all(items.slice(i, i + 50).map((j) => dms.create({ apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name: `${prefix}-${j}` }, spec: { deploymentName: `${prefix}-${j}-db`, replicas: 1 + (j % 3), dbtype: ['mysql', 'postgres', 'redis', 'mongodb'][j % 4]! } })));
  }
}

async function allReady(server: TestApiServer, n: number): Promise<boolean> {
  const dms = resourceClient<DM>(await loadKubeconfig({ path: server.kubeconfigPath }), DM_RESOURCE).namespace('default');
  const list = await dms.list();
  return list.items.length === n && list.items.every((d) => d.status?.availableReplicas === d.spec.replicas && d.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
}

async function main(): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const procs: ChildProcess[] = [];
  try {
    const mainJs = await buildOperator();
    // 1. start-up
    {
      const server = await startTestApiServer({ crds: [crdFile], simulateWorkloads: 50 });
      await createMany(server, 1, 'start');
      const t0 = performance.now();
      const marks: Record<string, number> = {};
      let cpuAtFirst = NaN;
      const p: ChildProcess = startOperator(mainJs, server.kubeconfigPath, (l) => {
        if (!(String(l['msg']) in marks)) marks[String(l['msg'])] = performance.now() - t0;
        if (l['msg'] === 'created Deployment' && Number.isNaN(cpuAtFirst)) cpuAtFirst = cpuSeconds(p.pid!);
      });
      procs.push(p);
      await until(async () => 'created Deployment' in marks, 30_000, 'first reconcile');
      console.log(`start-up: caches synced after ${marks['caches synced; starting workers']!.toFixed(0)} ms, first reconcile (Deployment created) after ${marks['created Deployment']!.toFixed(0)} ms from spawn (wall clock), ${(cpuAtFirst * 1000).toFixed(0)} ms of CPU; RSS ${rssMb(p.pid!).toFixed(1)} MB`);
      p.kill('SIGTERM');
      await server.stop();
    }
    if (process.env['BENCH_ONLY'] === 'startup') return;
    // 2. 1,000 cached, and 3. 500 at once
    for (const [n, label] of [[1000, 'pre-created, then operator started'], [500, 'created at once with the operator running']] as const) {
      const server = await startTestApiServer({ crds: [crdFile], simulateWorkloads: 50 });
      let p: ChildProcess | undefined;
      let t0 = 0;
      if (n === 1000) {
        await createMany(server, n, 'dm');
        t0 = performance.now();
        p = startOperator(mainJs, server.kubeconfigPath, () => undefined);
      } else {
        p = startOperator(mainJs, server.kubeconfigPath, () => undefined);
        await new Promise((r) => setTimeout(r, 2000));
        t0 = performance.now();
        await createMany(server, n, 'dm');
      }
      procs.push(p);
      await until(() => allReady(server, n), 600_000, `${n} ready`);
      const secs = (performance.now() - t0) / 1000;
      global.gc?.();
      await new Promise((r) => setTimeout(r, 2000));
      console.log(`${n} DatabaseManagers (${label}): all Ready with replicas available after ${secs.toFixed(1)} s; operator RSS ${rssMb(p.pid!).toFixed(1)} MB with ${n} DatabaseManagers and ${n} Deployments cached`);
      p.kill('SIGTERM');
      await server.stop();
    }
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
    rmSync(out, { recursive: true, force: true });
  }
}

await main();
