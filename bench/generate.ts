// Benchmark: `crdgen generate` (every generator) on the CRD corpus and on its largest file,
// against types-only runs of openapi-typescript, @kubernetes-models/crd-generate, cdk8s import
// and json-schema-to-typescript on the same inputs; each CLI's start-up on a trivial CRD; and
// crdgen's cost as the input grows (scaling curve). Every tool runs as a child process, as a
// user runs it: wall time, CPU time and peak RSS (GNU time).
//   npm run bench -- generate      (or: node --import tsx bench/generate.ts)
// Rounds: ROUNDS (default 5) for crdgen and the fast peers (openapi-typescript and its wrap step);
// the three slow peers (crd-generate, cdk8s import, json2ts: seconds to tens of seconds each, 2-27x
// crdgen) get SLOW_CORPUS_ROUNDS (default 1) on the whole corpus and SLOW_ROUNDS (default 1) on
// the largest file and in the start-up table, so that the whole `npm run bench` fits in 20 minutes
// on 2 cores with the Go peers; their ratios are far enough from 1x that more rounds would not
// change a conclusion. Set with BENCH_ROUNDS / BENCH_SLOW_ROUNDS / BENCH_SLOW_CORPUS_ROUNDS.
// Targets: openapi-typescript (the fastest peer) takes ≥ 1.5x crdgen's time on the corpus with
// every generator on (its wrap step, which the peer needs and crdgen does not, is not counted),
// peak memory under 229 MB, start-up under 0.3 s above node's.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { BENCH, CORPUS, CRDGEN_BIN, peerBin, requireBuild } from './lib/env.js';
import { measure, type RunResult } from './lib/process.js';
import { bytes, fmt, machine, median, pairedRatio, table, times } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
// BENCH_GENERATE_PART=startup: only the start-up table
const SLOW_ROUNDS = Number(process.env.BENCH_SLOW_ROUNDS ?? 1);
const SLOW_CORPUS_ROUNDS = Number(process.env.BENCH_SLOW_CORPUS_ROUNDS ?? 1);
const WRAP = join(BENCH, 'lib', 'wrap-schemas.mjs');
const node = process.execPath;

/**
 * The corpus as one consistent API set: every CRD file except the three that define a kind a
 * newer file also defines (sample-controller's crd.yaml and crd-validation.yaml, the v1beta1
 * servicemonitor.crd.yaml) and the one that is not a CRD (example-foo.yaml).
 */
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
    for (const f of readdirSync(join(CORPUS, dir)).sort()) {
      if (/\.ya?ml$/.test(f) && !skip.has(`${dir}/${f}`)) files.push(join(CORPUS, dir, f));
    }
  }
  return files;
}

const size = (files: readonly string[]): number => files.reduce((n, f) => n + statSync(f).size, 0);

/** A tool: how to prepare its input once (untimed unless it is a row of its own) and the command to time. */
interface Tool {
  name: string;
  /** Tens of seconds per run: fewer rounds (SLOW_CORPUS_ROUNDS on the corpus, SLOW_ROUNDS on one file). */
  slow?: boolean;
  /** Returns the command to run in `work` (a fresh folder per round) for `files`. */
  command(files: readonly string[], work: string, prepared: string): string[];
  /** One-off preparation shared by all rounds (e.g. wrapping schemas); returns a path. */
  prepare?(files: readonly string[], dir: string): string;
}

const tools: Tool[] = [
  {
    name: 'crdgen generate (all generators)',
    command: (f, w) => [node, CRDGEN_BIN, 'generate', ...f, '--out', join(w, 'out')],
  },
  {
    name: 'crdgen generate --generators types',
    command: (f, w) => [node, CRDGEN_BIN, 'generate', ...f, '--generators', 'types', '--out', join(w, 'out')],
  },
  {
    name: 'wrap CRDs into one OpenAPI document (openapi-typescript needs it)',
    command: (f, w) => [node, WRAP, 'openapi', join(w, 'doc.json'), ...f],
  },
  {
    name: 'openapi-typescript (types)',
    prepare: (f, dir) => {
      const doc = join(dir, 'openapi.json');
      const r = measure([node, WRAP, 'openapi', doc, ...f], dir);
      if (r.status !== 0) throw new Error(`wrapping schemas failed: ${r.stderrTail}`);
      return doc;
    },
    command: (_f, w, doc) => [peerBin('openapi-typescript'), doc, '-o', join(w, 'types.ts')],
  },
  {
    name: '@kubernetes-models/crd-generate',
    slow: true,
    command: (f, w) => [peerBin('crd-generate'), '--input', ...f, '--output', join(w, 'out')],
  },
  {
    name: 'cdk8s import (typescript)',
    slow: true,
    command: (f, w) => {
      writeFileSync(join(w, 'cdk8s.yaml'), `language: typescript\nimports:\n${f.map((x) => `  - ${x}`).join('\n')}\n`);
      return [peerBin('cdk8s'), 'import', '--no-check-upgrade', '-o', join(w, 'out')];
    },
  },
  {
    name: 'json-schema-to-typescript (json2ts)',
    slow: true,
    prepare: (f, dir) => {
      const out = join(dir, 'schemas');
      const r = measure([node, WRAP, 'jsonschema', out, ...f], dir);
      if (r.status !== 0) throw new Error(`extracting schemas failed: ${r.stderrTail}`);
      return out;
    },
    command: (_f, w, schemas) => [peerBin('json2ts'), '-i', schemas, '-o', join(w, 'out')],
  },
];

/** Rounds of `tool` on the corpus (`corpus`) or on one file. */
function roundsOf(tool: Tool, corpus: boolean): number {
  return tool.slow ? Math.min(ROUNDS, corpus ? SLOW_CORPUS_ROUNDS : SLOW_ROUNDS) : ROUNDS;
}

/** Runs every tool on `files` for its number of rounds, tools interleaved within a round. */
function runAll(
  label: string,
  files: readonly string[],
  scratch: string,
  corpus: boolean,
): { rows: string[][]; results: RunResult[][] } {
  const prepared = tools.map((t, i) => {
    const dir = join(scratch, `prep${i}`);
    mkdirSync(dir, { recursive: true });
    return t.prepare?.(files, dir) ?? '';
  });
  const results: RunResult[][] = tools.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    tools.forEach((t, j) => {
      const i = (j + r) % tools.length;
      const tool = tools[i];
      if (r >= roundsOf(tool, corpus)) return;
      const work = mkdtempSync(join(scratch, 'run-'));
      results[i].push(measure(tool.command(files, work, prepared[i]), work));
      rmSync(work, { recursive: true, force: true });
    });
    process.stderr.write(`  ${label}: round ${r + 1}/${ROUNDS}\n`);
  }
  const crdgen = results[0];
  const rows = tools.map((t, i) => {
    const rs = results[i];
    const ok = rs.filter((x) => x.status === 0);
    const failed = rs.length - ok.length;
    const paired =
      rs.length === crdgen.length
        ? times(
            pairedRatio(
              rs.map((x) => x.wallMs),
              crdgen.map((x) => x.wallMs),
            ),
          )
        : times(median(rs.map((x) => x.wallMs)) / median(crdgen.map((x) => x.wallMs)));
    return [
      t.name,
      String(rs.length),
      fmt(median(rs.map((x) => x.wallMs)) / 1000),
      fmt(median(rs.map((x) => x.cpuMs)) / 1000),
      bytes(median(rs.map((x) => x.rssBytes))),
      paired,
      failed === 0 ? 'ok' : `failed ${failed}/${rs.length}: ${rs.find((x) => x.status !== 0)!.stderrTail}`,
    ];
  });
  return { rows, results };
}

const HEADER = ['tool', 'rounds', 'wall s (median)', 'CPU s', 'peak RSS', 'wall vs crdgen', 'result'];

function main(): void {
  requireBuild();
  const scratch = mkdtempSync(join(tmpdir(), 'crdgen-bench-generate-'));
  try {
    const files = corpusFiles();
    const largest = [...files].sort((a, b) => statSync(b).size - statSync(a).size)[0];
    console.log(
      `## generation — crdgen (all generators) vs types-only peers; ${ROUNDS} rounds (slow peers: ${SLOW_CORPUS_ROUNDS} on the corpus, ${SLOW_ROUNDS} on the largest file)`,
    );
    console.log(`machine: ${machine()}\n`);
    if (process.env.BENCH_GENERATE_PART === 'startup') {
      // only the start-up table (a minute instead of the corpus runs' several)
      startup(scratch);
      return;
    }

    const corpus = runAll('corpus', files, scratch, true);
    console.log(`### the corpus: ${files.length} files, ${bytes(size(files))}\n`);
    console.log(table(HEADER, corpus.rows));

    const one = runAll('largest', [largest], scratch, false);
    console.log(`\n### the largest file alone: ${basename(largest)}, ${bytes(size([largest]))}\n`);
    console.log(table(HEADER, one.rows));

    // Targets: the fastest peer's types-only run takes ≥ 1.5× crdgen's full run; RSS under 229 MB.
    const wall = (rs: RunResult[]): number => median(rs.map((x) => x.wallMs));
    const crd = corpus.results[0];
    const peers = corpus.results.slice(3).map((rs, i) => ({
      name: tools[i + 3].name,
      rs,
      wall: rs.every((x) => x.status === 0) ? wall(rs) : Number.POSITIVE_INFINITY,
    }));
    const fastest = peers.reduce((a, b) => (b.wall < a.wall ? b : a));
    const ratio =
      fastest.rs.length === crd.length
        ? pairedRatio(
            fastest.rs.map((x) => x.wallMs),
            crd.map((x) => x.wallMs),
          )
        : fastest.wall / wall(crd);
    const rss = median(crd.map((x) => x.rssBytes));
    const command = 'npm run bench -- generate';
    const others = peers
      .filter((p) => p !== fastest)
      .map((p) => `${p.name.replace(/ \(.*\)$/, '')} ${Number.isFinite(p.wall) ? `${fmt(p.wall / 1000)} s` : 'failed'}`)
      .join('; ');
    console.log('\nTargets (corpus):');
    console.log(
      `- ${recordVerdict({ target: `generation: the fastest peer takes ≥ 1.5× crdgen's time (corpus, ${files.length} files, every generator on)`, crdgen: `${fmt(wall(crd) / 1000)} s (${fmt(median(crd.map((x) => x.cpuMs)) / 1000)} s CPU)`, peers: `${fastest.name} ${fmt(fastest.wall / 1000)} s; ${others}`, judged: `${fastest.name.replace(/ \(.*\)$/, '')} takes ${times(ratio)} crdgen's time (≥ 1.50×)`, met: ratio >= 1.5, command })}`,
    );
    console.log(
      `- ${recordVerdict({ target: 'generation peak RSS under 229 MB (corpus)', crdgen: bytes(rss), peers: `${fastest.name.replace(/ \(.*\)$/, '')} ${bytes(median(fastest.rs.map((x) => x.rssBytes)))}`, judged: `${bytes(rss)} (< 229 MB)`, met: rss < 229 * 1024 * 1024, command })}`,
    );

    startup(scratch);
    scaling(files, corpus.results[0], scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Each CLI on a trivial CRD, against `node -e 0`. */
function startup(scratch: string): void {
  const tiny = [join(CORPUS, 'sample-controller', 'crd.yaml')];
  const cmds: { name: string; argv: (w: string, p: string) => string[]; prep?: Tool }[] = [
    { name: 'node -e 0', argv: () => [node, '-e', '0'] },
    ...tools
      .filter((t) => !t.name.startsWith('wrap') && !t.name.includes('--generators'))
      .map((t) => ({ name: t.name, argv: (w: string, p: string) => t.command(tiny, w, p), prep: t })),
  ];
  const prepared = cmds.map((c, i) => {
    const dir = join(scratch, `sprep${i}`);
    mkdirSync(dir, { recursive: true });
    return c.prep?.prepare?.(tiny, dir) ?? '';
  });
  const res: RunResult[][] = cmds.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    cmds.forEach((_, j) => {
      const i = (j + r) % cmds.length;
      const prep = cmds[i].prep;
      if (prep && r >= roundsOf(prep, false)) return;
      const work = mkdtempSync(join(scratch, 'start-'));
      res[i].push(measure(cmds[i].argv(work, prepared[i]), work));
      rmSync(work, { recursive: true, force: true });
    });
  }
  const base = res[0].map((x) => x.wallMs);
  const rows = cmds.map((c, i) => {
    const w = res[i].map((x) => x.wallMs);
    return [
      c.name,
      String(w.length),
      fmt(median(w)),
      i === 0 ? '—' : fmt(median(w.map((x, k) => x - base[k]))),
      res[i].every((x) => x.status === 0) ? 'ok' : `failed: ${res[i].find((x) => x.status !== 0)!.stderrTail}`,
    ];
  });
  console.log(
    `\n### start-up on a trivial CRD (sample-controller/crd.yaml), ${ROUNDS} rounds (slow peers ${SLOW_ROUNDS})\n`,
  );
  console.log(table(['command', 'rounds', 'wall ms (median)', 'above node (paired median)', 'result'], rows));
  const above = median(res[1].map((x, k) => x.wallMs - base[k]));
  const peerAbove = cmds
    .slice(2)
    .map((c, i) => `${c.name.replace(/ \(.*\)$/, '')} ${fmt(median(res[i + 2].map((x, k) => x.wallMs - base[k])))} ms`)
    .join('; ');
  console.log(
    `\n- ${recordVerdict({ target: "generation start-up under 0.3 s above node's (a trivial CRD)", crdgen: `${fmt(above)} ms above node`, peers: peerAbove, judged: `${fmt(above)} ms (< 300 ms)`, met: above < 300, command: 'npm run bench -- generate' })}`,
  );
}

/**
 * crdgen on growing subsets of the corpus (every 8th, 4th, 2nd file by size, so each has small
 * and large files in the same mix; the whole corpus's figures come from the first table): CPU
 * per input MB should stay flat (linear growth).
 */
function scaling(files: readonly string[], whole: RunResult[], scratch: string): void {
  const bySize = [...files].sort((a, b) => statSync(a).size - statSync(b).size);
  const subsets = [8, 4, 2].map((k) => bySize.filter((_, i) => i % k === 0));
  const res: RunResult[][] = subsets.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    subsets.forEach((s, i) => {
      const work = mkdtempSync(join(scratch, 'scale-'));
      res[i].push(measure(tools[0].command(s, work, ''), work));
      rmSync(work, { recursive: true, force: true });
    });
  }
  subsets.push(bySize);
  res.push(whole);
  const rows = subsets.map((s, i) => {
    const mb = size(s) / 1024 / 1024;
    const w = median(res[i].map((x) => x.wallMs));
    const cpu = median(res[i].map((x) => x.cpuMs));
    return [
      String(s.length),
      bytes(size(s)),
      fmt(w / 1000),
      fmt(cpu / 1000),
      fmt(cpu / mb),
      bytes(median(res[i].map((x) => x.rssBytes))),
    ];
  });
  console.log(`\n### scaling: crdgen generate (all generators) on growing subsets of the corpus, ${ROUNDS} rounds\n`);
  console.log(table(['files', 'input', 'wall s (median)', 'CPU s', 'CPU ms per input MB', 'peak RSS'], rows));
  const perMb = subsets.map((s, i) => median(res[i].map((x) => x.cpuMs)) / (size(s) / 1024 / 1024));
  const growth = perMb[perMb.length - 1] / perMb[0];
  console.log(
    `\n- ${recordVerdict({ target: 'generation scales linearly (CPU per input MB, smallest subset → the corpus)', crdgen: perMb.map((x) => `${fmt(x)}`).join(' → ') + ' ms/MB', peers: '—', judged: `${times(growth)} the smallest subset's cost per MB (≤ 1.25×: no worse than linear)`, met: growth <= 1.25, command: 'npm run bench -- generate' })}`,
  );
}

main();
