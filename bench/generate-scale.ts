// Benchmark: generation at the scale of the largest CRD sets. The corpus's consistent
// API set (27 files, 41 kinds) replicated 1×, 4×, 16× and 32× under renamed groups
// (bench/lib/replicate.ts), and at each size: crdgen cold (a new output folder, no cache), crdgen
// after one CRD changed (the folder and cache of a run before the edit; the result compared with
// a cold run's byte for byte, and the files it wrote with the files that differ), and
// openapi-typescript (types only, on one OpenAPI document wrapping every CRD's schema, made once
// and not timed). Each run is a child process measured by GNU time: wall time, CPU, peak RSS.
// Then, at 16×, generate and verify in a 512 MB heap (--max-old-space-size=512).
//   npm run bench -- generate-scale          (opt-in; or node --import tsx bench/generate-scale.ts)
// BENCH_SCALES=1,4,16,32 (sizes), BENCH_SCALE_ROUNDS (rounds per size; default 5 at 1× and 4×, whose
// rounds take seconds, 3 from 16× on, whose rounds take minutes; the three runs of a round in a
// rotated order), BENCH_CHARTS_DIR (default docs/bench-charts). The 1-minute load average is read
// before each round and printed per size.
// Targets: openapi-typescript takes ≥ 1.5× crdgen's cold time at every size (paired medians);
// crdgen's peak RSS at 16× ≤ 2× its 1× figure; one changed CRD at 16×: ≤ 10 % of the cold time,
// only the changed files written, the output a cold run's; 16× in 512 MB of heap.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { BENCH, CORPUS, CRDGEN_BIN, REPO, peerBin, requireBuild } from './lib/env.js';
import { measure, type RunResult } from './lib/process.js';
import { bytes, fmt, load1, machine, median, pairedRatio, table, times } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';
import { lineChart } from './lib/chart.js';
import { editOne, replicate } from './lib/replicate.js';

const SCALES = (process.env.BENCH_SCALES ?? '1,4,16,32').split(',').map(Number);
/** Rounds at `k`×: BENCH_SCALE_ROUNDS, else 5 where a round takes seconds and 3 where it takes minutes. */
const roundsAt = (k: number): number => Number(process.env.BENCH_SCALE_ROUNDS ?? (k <= 4 ? 5 : 3));
const CHARTS = process.env.BENCH_CHARTS_DIR ?? join(REPO, 'docs', 'bench-charts');
const WRAP = join(BENCH, 'lib', 'wrap-schemas.mjs');
const node = process.execPath;
const COMMAND = 'npm run bench -- generate-scale';

/** The corpus as one consistent API set (as bench/generate.ts takes it). */
function corpusFiles(): string[] {
  const skip = new Set([
    'sample-controller/crd.yaml',
    'sample-controller/crd-validation.yaml',
    'prometheus-operator/servicemonitor.crd.yaml',
    'sample-controller/example-foo.yaml',
  ]);
  const files: string[] = [];
  for (const dir of readdirSync(CORPUS).sort()) {
    if (!statSync(join(CORPUS, dir)).isDirectory()) continue;
    for (const f of readdirSync(join(CORPUS, dir)).sort())
      if (/\.ya?ml$/.test(f) && !skip.has(`${dir}/${f}`)) files.push(join(CORPUS, dir, f));
  }
  return files;
}

/** Every file under `dir` but generate's cache, relative path → contents. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.crdgen-cache') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** One size's figures. */
interface SizeResult {
  k: number;
  files: number;
  inputBytes: number;
  kinds: string;
  cold: RunResult[];
  incremental: RunResult[];
  peer: RunResult[];
  /** Per incremental round: files written (its summary) and files that differ from the run before. */
  written: number[];
  changed: number[];
  /** Per incremental round: the output equals a cold run's on the edited inputs. */
  equal: boolean[];
  /** The 1-minute load average before each round. */
  load: number[];
}

const gen = (inputs: string, out: string, ...more: string[]): string[] => [
  node,
  CRDGEN_BIN,
  'generate',
  inputs,
  '--out',
  out,
  ...more,
];

function fail(what: string, r: RunResult): never {
  throw new Error(`${what} failed (exit ${r.status}): ${r.stderrTail}`);
}

function runSize(k: number, files: readonly string[], scratch: string): SizeResult {
  const dir = join(scratch, `x${k}`);
  const inputs = replicate(files, k, join(dir, 'inputs'));
  const inputBytes = inputs.reduce((n, f) => n + statSync(f).size, 0);
  const doc = join(dir, 'openapi.json');
  const wrap = measure([node, WRAP, 'openapi', doc, ...inputs], dir);
  if (wrap.status !== 0) fail('wrapping the schemas for openapi-typescript', wrap);
  // the incremental runs' folder: generated once before the rounds (its cache filled)
  const inc = join(dir, 'inc');
  const first = measure(gen(join(dir, 'inputs'), inc), dir);
  if (first.status !== 0) fail(`crdgen at ${k}x`, first);
  const kinds = /for (\d+) kinds? in (\d+) groups?/.exec(first.stdoutTail)?.slice(1).join(' kinds, ') ?? '?';
  const r: SizeResult = {
    k,
    files: inputs.length,
    inputBytes,
    kinds: `${kinds} groups`,
    cold: [],
    incremental: [],
    peer: [],
    written: [],
    changed: [],
    equal: [],
    load: [],
  };
  // the CRD edited: the same file each round (a description sentence more each time)
  const edited = inputs[Math.floor(inputs.length / 2)];
  const rounds = roundsAt(k);
  for (let round = 0; round < rounds; round++) {
    r.load.push(loadavg()[0]);
    const runs = [
      () => {
        const out = mkdtempSync(join(dir, 'cold-'));
        r.cold.push(measure(gen(join(dir, 'inputs'), join(out, 'out'), '--no-cache'), out));
        rmSync(out, { recursive: true, force: true });
      },
      () => {
        const before = tree(inc);
        editOne(edited, round);
        const res = measure(gen(join(dir, 'inputs'), inc), dir);
        if (res.status !== 0) fail(`crdgen after one edit at ${k}x`, res);
        r.incremental.push(res);
        const after = tree(inc);
        r.written.push(Number(/: (\d+) written/.exec(res.stdoutTail)?.[1] ?? 0));
        r.changed.push([...after].filter(([p, t]) => before.get(p) !== t).length);
        const check = join(dir, 'check');
        rmSync(check, { recursive: true, force: true });
        const c = measure(gen(join(dir, 'inputs'), check, '--no-cache'), dir);
        if (c.status !== 0) fail(`crdgen cold (check) at ${k}x`, c);
        const cold = tree(check);
        r.equal.push(cold.size === after.size && [...cold].every(([p, t]) => after.get(p) === t));
        rmSync(check, { recursive: true, force: true });
      },
      () => {
        const out = mkdtempSync(join(dir, 'peer-'));
        r.peer.push(measure([peerBin('openapi-typescript'), doc, '-o', join(out, 'types.ts')], out));
        rmSync(out, { recursive: true, force: true });
      },
    ];
    runs.forEach((_, j) => runs[(j + round) % runs.length]());
    process.stderr.write(`  ${k}x: round ${round + 1}/${rounds} (load ${load1()})\n`);
  }
  for (const [what, rs] of [
    ['crdgen cold', r.cold],
    ['openapi-typescript', r.peer],
  ] as const)
    if (rs.some((x) => x.status !== 0))
      fail(
        `${what} at ${k}x`,
        rs.find((x) => x.status !== 0)!,
      );
  rmSync(inc, { recursive: true, force: true });
  return r;
}

/** Generate and verify at `k`× in a heap of `mb` MB: exit codes and peak RSS. */
function inHeap(
  k: number,
  files: readonly string[],
  scratch: string,
  mb: number,
): { generate: RunResult; verify: RunResult } {
  const dir = join(scratch, `heap${k}`);
  replicate(files, k, join(dir, 'inputs'));
  const flag = `--max-old-space-size=${mb}`;
  const generate = measure([node, flag, CRDGEN_BIN, 'generate', join(dir, 'inputs'), '--out', join(dir, 'out')], dir);
  const verify = measure([node, flag, CRDGEN_BIN, 'verify', join(dir, 'inputs'), '--out', join(dir, 'out')], dir);
  rmSync(dir, { recursive: true, force: true });
  return { generate, verify };
}

const wall = (rs: readonly RunResult[]): number => median(rs.map((x) => x.wallMs));
const rss = (rs: readonly RunResult[]): number => median(rs.map((x) => x.rssBytes));
const cpu = (rs: readonly RunResult[]): number => median(rs.map((x) => x.cpuMs));

function main(): void {
  requireBuild();
  const files = corpusFiles();
  console.log(
    `## generation at scale — the corpus (${files.length} files) replicated ${SCALES.join('×, ')}× under renamed groups; ${SCALES.map((k) => `${roundsAt(k)} rounds at ${k}×`).join(', ')}`,
  );
  console.log(`machine: ${machine()}\n`);
  const scratch = mkdtempSync(join(tmpdir(), 'crdgen-bench-scale-'));
  const results: SizeResult[] = [];
  try {
    for (const k of SCALES) results.push(runSize(k, files, scratch));
    const heapK = SCALES.includes(16) ? 16 : SCALES[SCALES.length - 1];
    const heap = inHeap(heapK, files, scratch, 512);

    const rows = results.map((r) => [
      `${r.k}× (${r.cold.length} rounds, load ${fmt(Math.min(...r.load))}–${fmt(Math.max(...r.load))})`,
      `${r.files} files, ${bytes(r.inputBytes)}, ${r.kinds}`,
      `${fmt(wall(r.cold) / 1000)} s (${fmt(cpu(r.cold) / 1000)} s CPU), ${bytes(rss(r.cold))}`,
      `${fmt(wall(r.incremental) / 1000)} s, ${bytes(rss(r.incremental))}; wrote ${r.written.join('/')} (changed ${r.changed.join('/')}); equal to cold: ${r.equal.every(Boolean) ? 'yes' : 'NO'}`,
      `${fmt(wall(r.peer) / 1000)} s (${fmt(cpu(r.peer) / 1000)} s CPU), ${bytes(rss(r.peer))}`,
      `${times(
        pairedRatio(
          r.peer.map((x) => x.wallMs),
          r.cold.map((x) => x.wallMs),
        ),
      )} (CPU ${times(
        pairedRatio(
          r.peer.map((x) => x.cpuMs),
          r.cold.map((x) => x.cpuMs),
        ),
      )})`,
      `${fmt((100 * wall(r.incremental)) / wall(r.cold))} %`,
    ]);
    console.log(
      table(
        [
          'size',
          'input',
          'crdgen cold: wall (CPU), peak RSS',
          'crdgen after one CRD changed',
          'openapi-typescript (types)',
          'openapi-typescript / crdgen cold, paired: wall (CPU)',
          'incremental / cold',
        ],
        rows,
      ),
    );
    console.log(
      `\n${heapK}× with --max-old-space-size=512: generate exit ${heap.generate.status} (${fmt(heap.generate.wallMs / 1000)} s, ${bytes(heap.generate.rssBytes)}), verify exit ${heap.verify.status} (${fmt(heap.verify.wallMs / 1000)} s, ${bytes(heap.verify.rssBytes)})`,
    );

    mkdirSync(CHARTS, { recursive: true });
    const series = (label: string, f: (r: SizeResult) => number) => ({
      label,
      points: results.map((r) => ({ x: r.k, y: f(r) })),
    });
    writeFileSync(
      join(CHARTS, 'generate-scale.svg'),
      lineChart({
        title: 'Generation at scale: the corpus replicated (median wall time)',
        xLabel: 'copies of the corpus (41 kinds each)',
        yLabel: 'seconds',
        xFormat: (x) => `${x}×`,
        series: [
          series('crdgen, cold', (r) => wall(r.cold) / 1000),
          series('crdgen, one CRD changed', (r) => wall(r.incremental) / 1000),
          series('openapi-typescript (types only)', (r) => wall(r.peer) / 1000),
        ],
      }),
    );
    writeFileSync(
      join(CHARTS, 'generate-scale-rss.svg'),
      lineChart({
        title: 'Generation at scale: peak RSS (median)',
        xLabel: 'copies of the corpus (41 kinds each)',
        yLabel: 'MB',
        xFormat: (x) => `${x}×`,
        series: [
          series('crdgen, cold', (r) => rss(r.cold) / 2 ** 20),
          series('crdgen, one CRD changed', (r) => rss(r.incremental) / 2 ** 20),
          series('openapi-typescript (types only)', (r) => rss(r.peer) / 2 ** 20),
        ],
      }),
    );
    console.log(
      `\ncharts: ${relative(REPO, join(CHARTS, 'generate-scale.svg'))}, ${relative(REPO, join(CHARTS, 'generate-scale-rss.svg'))}\n`,
    );

    console.log('Targets:');
    const ratios = results.map((r) =>
      pairedRatio(
        r.peer.map((x) => x.wallMs),
        r.cold.map((x) => x.wallMs),
      ),
    );
    const sizes = results.map((r) => `${r.k}×`).join(' / ');
    console.log(
      `- ${recordVerdict({
        target: `generation at scale: openapi-typescript takes ≥ 1.5× crdgen's cold time (${sizes})`,
        crdgen: results.map((r) => `${fmt(wall(r.cold) / 1000)} s`).join(' / '),
        peers: `openapi-typescript ${results.map((r) => `${fmt(wall(r.peer) / 1000)} s`).join(' / ')}`,
        judged: `${ratios.map(times).join(' / ')} (≥ 1.50×)`,
        met: ratios.every((x) => x >= 1.5),
        command: COMMAND,
      })}`,
    );
    const one = results.find((r) => r.k === 1);
    const sixteen = results.find((r) => r.k === 16);
    if (one && sixteen) {
      const growth = rss(sixteen.cold) / rss(one.cold);
      console.log(
        `- ${recordVerdict({
          target: 'generation at scale: peak RSS at 16× ≤ 2× the 1× figure (memory bounded by the largest group)',
          crdgen: `${bytes(rss(one.cold))} → ${bytes(rss(sixteen.cold))}`,
          peers: `openapi-typescript ${bytes(rss(one.peer))} → ${bytes(rss(sixteen.peer))}`,
          judged: `${times(growth)} (≤ 2.00×)`,
          met: growth <= 2,
          command: COMMAND,
        })}`,
      );
    }
    if (sixteen) {
      const share = wall(sixteen.incremental) / wall(sixteen.cold);
      const onlyChanged = sixteen.written.every((w, i) => w === sixteen.changed[i]);
      const equal = sixteen.equal.every(Boolean);
      console.log(
        `- ${recordVerdict({
          target:
            'generation at scale: one CRD changed at 16×: ≤ 10 % of the cold time, only the changed files written, equal to a cold run',
          crdgen: `${fmt(wall(sixteen.incremental) / 1000)} s vs ${fmt(wall(sixteen.cold) / 1000)} s cold; wrote ${sixteen.written.join('/')} files`,
          peers: '—',
          judged: `${fmt(100 * share)} % (≤ 10 %); written = changed: ${onlyChanged ? 'yes' : 'no'}; equal: ${equal ? 'yes' : 'no'}`,
          met: share <= 0.1 && onlyChanged && equal,
          command: COMMAND,
        })}`,
      );
    }
    console.log(
      `- ${recordVerdict({
        target: `generation at scale: ${heapK}× with --max-old-space-size=512, generate and verify succeed`,
        crdgen: `generate ${bytes(heap.generate.rssBytes)}, verify ${bytes(heap.verify.rssBytes)}`,
        peers: '—',
        judged: `exit ${heap.generate.status} / ${heap.verify.status}`,
        met: heap.generate.status === 0 && heap.verify.status === 0,
        command: COMMAND,
      })}`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main();
