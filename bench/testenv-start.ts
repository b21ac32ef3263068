// Benchmark: how long startTestApiServer() takes with the DatabaseManager CRD installed,
// cold (first call in a fresh process: module loading included) and warm (later calls);
// then what paging a large list costs (limit/continue over HTTP, every page at one snapshot).
// (Starts cannot be timed "while the same process serves requests": a start resolves
// through microtasks and nextTicks only — listen and close included — so it never yields to
// other sockets. Wall times under machine load are the table's; CPU times are the idle cost.)
// Run: npm run bench -- testenv  (or: npm run build && node --import tsx bench/testenv-start.ts; uses dist/, like a user's suite)
// CRDGEN_BENCH_BASELINE=<folder with an older build's dist/> adds its figures beside, measured in
// the same run (processes alternate), paging up to 10k objects only (the old store pages in O(n²)).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PKG } from './lib/env.js';
import { fmt, load1, machine, median, table } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const crd = `${root}test/testing/fixtures/databasemanager-crd.yaml`;
const BASELINE = process.env.CRDGEN_BENCH_BASELINE;
const modulePath = (pkg: string): string => JSON.stringify(`${pkg}/dist/testing/index.js`);
const startScript = (testing: string): string => `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const c0 = cpu();
const t0 = performance.now();
const { startTestApiServer } = await import(${testing});
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

const pagingScript = (testing: string, n: number, limit: number): string => `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const { startTestApiServer } = await import(${testing});
const env = await startTestApiServer({ crds: [${JSON.stringify(crd)}] });
const objs = [];
for (let i = 0; i < ${n}; i++) objs.push({ apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name: 'dm-' + String(i).padStart(6, '0'), namespace: 'default' }, spec: { deploymentName: 'd' + i, replicas: 1, dbtype: 'mysql' } });
await env.create(objs);
const base = env.url + '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers';
const get = async (q) => (await fetch(base + q, { headers: { Accept: 'application/json' } })).json();
await get('?limit=${limit}');
let c = cpu();
let t = performance.now();
let page = await get('?limit=${limit}');
let pages = 1;
let items = page.items.length;
while (page.metadata.continue) {
  page = await get('?limit=${limit}&continue=' + encodeURIComponent(page.metadata.continue));
  pages++;
  items += page.items.length;
}
const pagedMs = performance.now() - t;
const pagedCpuMs = cpu() - c;
c = cpu();
t = performance.now();
const all = await get('');
const fullMs = performance.now() - t;
const fullCpuMs = cpu() - c;
await env.stop();
if (items !== ${n} || all.items.length !== ${n}) throw new Error('listed ' + items + ' and ' + all.items.length + ' of ${n}');
console.log(JSON.stringify({ pages, pagedMs, pagedCpuMs, fullMs, fullCpuMs }));
`;

type Run = {
  importMs: number;
  importCpuMs: number;
  firstStartMs: number;
  firstStartCpuMs: number;
  warmMedianMs: number;
  warmMaxMs: number;
  warmCpuMedianMs: number;
};
const PROCESSES = 7;
const pkgs = BASELINE ? [PKG, BASELINE] : [PKG];
const runs: Run[][] = pkgs.map(() => []);
for (let i = 0; i < PROCESSES; i++) {
  for (let j = 0; j < pkgs.length; j++) {
    const k = (i + j) % pkgs.length;
    runs[k].push(
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', startScript(modulePath(pkgs[k]))], {
          encoding: 'utf8',
        }),
      ),
    );
  }
}
const med = (k: keyof Run | undefined): string[] => runs.map((r) => (k ? fmt(median(r.map((x) => x[k]))) : '—'));
const heads = (what: string[]): string[] =>
  BASELINE ? what.flatMap((w) => [`${w} (this build)`, `${w} (baseline)`]) : what;
const interleave = (cols: string[][]): string[] => (BASELINE ? cols[0].flatMap((c, i) => [c, cols[1][i]]) : cols[0]);
console.log(
  `## startTestApiServer() with the DatabaseManager CRD — median of ${PROCESSES} fresh processes${BASELINE ? ` each (baseline: ${BASELINE})` : ''}`,
);
console.log(`machine: ${machine()}\n`);
const row = (label: string, wall: keyof Run, cpu: keyof Run | undefined): string[] => [
  label,
  ...interleave(med(wall).map((x) => [x])),
  ...interleave(med(cpu).map((x) => [x])),
];
console.log(
  table(
    ['measure', ...heads(['wall ms (median)']), ...heads(['CPU ms (median)'])],
    [
      row('import crdgen/testing', 'importMs', 'importCpuMs'),
      row('first start in a process (loads the CRD checks)', 'firstStartMs', 'firstStartCpuMs'),
      row('later starts, median of 20', 'warmMedianMs', 'warmCpuMedianMs'),
      row('later starts, max of 20', 'warmMaxMs', undefined),
    ],
  ),
);

{
  const first = median(runs[0].map((x) => x.firstStartMs));
  const later = median(runs[0].map((x) => x.warmMedianMs));
  console.log(
    `\n- ${recordVerdict({ target: 'startTestApiServer() with the DatabaseManager CRD well under 200 ms (issue #4)', crdgen: `${fmt(first)} ms first in a process, ${fmt(later)} ms later`, peers: 'etcd + kube-apiserver: see go-peers', judged: `${fmt(first)} ms (< 200 ms)`, met: first < 200, command: 'npm run bench -- testenv' })}`,
  );
}

type Paging = { pages: number; pagedMs: number; pagedCpuMs: number; fullMs: number; fullCpuMs: number };
const rows: string[][] = [];
for (const n of [1000, 10000, 50000]) {
  const limit = 500;
  const cols: string[][] = [];
  for (const pkg of pkgs) {
    if (pkg !== PKG && n > 10000) {
      cols.push(['—', '—', '—']);
      continue;
    }
    const p: Paging[] = [];
    for (let i = 0; i < 3; i++)
      p.push(
        JSON.parse(
          execFileSync(process.execPath, ['--input-type=module', '-e', pagingScript(modulePath(pkg), n, limit)], {
            encoding: 'utf8',
            maxBuffer: 1 << 30,
          }),
        ),
      );
    const m = (k: keyof Paging): number => median(p.map((x) => x[k]));
    cols.push([fmt(m('pagedMs')), fmt(m('pagedCpuMs')), fmt((m('pagedCpuMs') / n) * 1000)]);
    if (pkg === PKG) cols[cols.length - 1].push(fmt(m('fullMs')), fmt(m('fullCpuMs')), String(m('pages')));
  }
  const mine = cols[0];
  const base = cols[1];
  rows.push([
    String(n),
    mine[5],
    ...(base ? [mine[0], base[0], mine[1], base[1], mine[2], base[2]] : mine.slice(0, 3)),
    mine[3],
    mine[4],
  ]);
}
console.log(
  `\n## Paging a list: limit=500 and continue through HTTP (fetch), one server and client in one process — median of 3 processes`,
);
console.log(`load average after the start-up runs: ${load1()}\n`);
console.log(
  table(
    [
      'objects',
      'pages',
      ...heads(['all pages, wall ms']),
      ...heads(['all pages, CPU ms']),
      ...heads(['CPU µs per object']),
      'one list without limit, wall ms',
      'its CPU ms',
    ],
    rows,
  ),
);
