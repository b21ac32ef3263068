// The targets' verdicts of a benchmark run. Each benchmark records its verdicts as it prints its
// tables; `npm run bench` gathers those of every benchmark of the run (in the file it passes as
// CRDGEN_BENCH_VERDICTS) and prints them last as one table: target, crdgen's figure, the peers'
// figures, met or not, and the command that measured it. docs/BENCHMARKS.md leads with that table.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { table } from './stats.js';

/** One target's verdict. */
export interface Verdict {
  /** The target, short: `informer sync 10k ≥ 1.0× client-node`. */
  target: string;
  /** crdgen's figure. */
  crdgen: string;
  /** Every peer's figure, side by side (`client-go 1.2 s; client-node 0.9 s`). */
  peers: string;
  /** The ratio or figure the target is judged on, with its bound: `1.12× (≥ 1.0×)`. */
  judged: string;
  /** true: met; false: missed; null: recorded only (no bound). */
  met: boolean | null;
  /** The command that measures it: `npm run bench -- informer`. */
  command: string;
}

/** Records a verdict for the run's summary (and returns its line, for the benchmark's own output). */
export function recordVerdict(v: Verdict): string {
  const file = process.env.CRDGEN_BENCH_VERDICTS;
  if (file) appendFileSync(file, `${JSON.stringify(v)}\n`);
  return `${v.target}: ${v.judged} — ${metLabel(v.met)}`;
}

/** MET / MISSED / recorded. */
export function metLabel(met: boolean | null): string {
  return met === null ? 'recorded' : met ? 'MET' : 'MISSED';
}

/** The verdicts recorded in `file` (none when it does not exist). */
export function readVerdicts(file: string): Verdict[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Verdict);
}

/** The summary table of `verdicts`, in the order recorded. */
export function verdictTable(verdicts: readonly Verdict[]): string {
  const cell = (s: string): string => s.replaceAll('|', '\\|');
  return table(
    ['target', 'crdgen', 'peers', 'judged on', 'met?', 'command'],
    verdicts.map((v) => [v.target, v.crdgen, v.peers, v.judged, metLabel(v.met), `\`${v.command}\``].map(cell)),
  );
}
