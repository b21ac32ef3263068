// Benchmark: how long startTestApiServer() takes with the DatabaseManager CRD installed,
// cold (first call in a fresh process: module loading included) and warm (later calls).
// Run: npm run bench -- testenv  (or: npm run build && node --import tsx bench/testenv-start.ts; uses dist/, like a user's suite)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PKG } from './lib/env.js';
import { fmt, machine, median, table } from './lib/stats.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const crd = `${root}test/testing/fixtures/databasemanager-crd.yaml`;
const script = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const c0 = cpu();
const t0 = performance.now();
const { startTestApiServer } = await import(${JSON.stringify(`${PKG}/dist/testing/index.js`)});
const t1 = performance.now();
const c1 = cpu();
let env = await startTestApiServer({ crds: [${JSON.stringify(crd)}] });
const t2 = performance.now();
const c2 = cpu();
await env.stop();
const warm = [];
const warmCpu = [];
for (let i = 0; i < 20; i++) {
  const a = performance.now();
  const ca = cpu();
  env = await startTestApiServer({ crds: [${JSON.stringify(crd)}] });
  warm.push(performance.now() - a);
  warmCpu.push(cpu() - ca);
  await env.stop();
}
warm.sort((a, b) => a - b);
warmCpu.sort((a, b) => a - b);
console.log(JSON.stringify({ importMs: t1 - t0, importCpuMs: c1 - c0, firstStartMs: t2 - t1, firstStartCpuMs: c2 - c1, warmMedianMs: warm[10], warmMaxMs: warm[19], warmCpuMedianMs: warmCpu[10] }));
`;

type Run = { importMs: number; importCpuMs: number; firstStartMs: number; firstStartCpuMs: number; warmMedianMs: number; warmMaxMs: number; warmCpuMedianMs: number };
const PROCESSES = 7;
const runs: Run[] = [];
for (let i = 0; i < PROCESSES; i++) {
  runs.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })));
}
const med = (k: keyof Run): string => fmt(median(runs.map((r) => r[k])));
console.log(`## startTestApiServer() with the DatabaseManager CRD — median of ${PROCESSES} fresh processes`);
console.log(`machine: ${machine()}\n`);
console.log(
  table(
    ['measure', 'wall ms (median)', 'CPU ms (median)'],
    [
      ['import crdgen/testing', med('importMs'), med('importCpuMs')],
      ['first start in a process (loads the CRD checks and the validation engine)', med('firstStartMs'), med('firstStartCpuMs')],
      ['later starts, median of 20', med('warmMedianMs'), med('warmCpuMedianMs')],
      ['later starts, max of 20', med('warmMaxMs'), '—'],
    ],
  ),
);
