// Benchmark: how long startTestApiServer() takes with the DatabaseManager CRD installed,
// cold (first call in a fresh process: module loading included) and warm (later calls).
// Run: npm run build && node --import tsx bench/testenv-start.ts  (uses dist/, like a user's suite)
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const crd = `${root}test/testing/fixtures/databasemanager-crd.yaml`;
const script = `
const t0 = performance.now();
const { startTestApiServer } = await import(${JSON.stringify(`${root}dist/testing/index.js`)});
const t1 = performance.now();
let env = await startTestApiServer({ crds: [${JSON.stringify(crd)}] });
const t2 = performance.now();
await env.stop();
const warm = [];
for (let i = 0; i < 20; i++) {
  const a = performance.now();
  env = await startTestApiServer({ crds: [${JSON.stringify(crd)}] });
  warm.push(performance.now() - a);
  await env.stop();
}
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ importMs: t1 - t0, firstStartMs: t2 - t1, warmMedianMs: warm[10], warmMaxMs: warm[19] }));
`;

const runs: { importMs: number; firstStartMs: number; warmMedianMs: number; warmMaxMs: number }[] = [];
for (let i = 0; i < 5; i++) {
  runs.push(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })));
}
const med = (k: keyof (typeof runs)[0]): string => runs.map((r) => r[k]).sort((a, b) => a - b)[2]!.toFixed(1);
console.log(`startTestApiServer with the DatabaseManager CRD (median of 5 fresh processes):`);
console.log(`  import crdgen/testing:           ${med('importMs')} ms`);
console.log(`  first start (loads CRD checks and validation engine): ${med('firstStartMs')} ms`);
console.log(`  later starts, median / max of 20: ${med('warmMedianMs')} / ${med('warmMaxMs')} ms`);
