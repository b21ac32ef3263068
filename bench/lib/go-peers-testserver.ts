// The test-server part of the benchmark on the real control plane (bench/go-peers.ts):
// crdgen/testing's startTestApiServer() against etcd + kube-apiserver started as envtest starts
// them (startControlPlane() without workloads), both with the DatabaseManager CRD and from the
// built package: the start (ready to serve the CRD) first in a fresh process and later in the
// same process, and a suite of 200 typical operator-test requests (bench/lib/test-server-run.mjs),
// one fresh process per backend per round. Beside it, the fidelity figure of the real-control-plane
// suite (test/fidelity/run.ts: the same scenarios on both backends, responses compared).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BENCH, DM_CRD, PKG, REPO } from './env.js';
import { fmt, median, pairedRatio, table, times } from './stats.js';

const run = promisify(execFile);

export const BACKENDS = ['testenv', 'real'] as const;
export type Backend = (typeof BACKENDS)[number];
export const BACKEND_LABEL: Record<Backend, string> = {
  testenv: 'startTestApiServer() (crdgen/testing)',
  real: 'etcd + kube-apiserver (as envtest starts them)',
};

interface Run {
  importMs: number;
  firstStartMs: number;
  suiteMs: number;
  suiteAgainMs: number;
  laterMs: number[];
}

export interface TestServerResult {
  runs: Record<Backend, Run[]>;
  /** `fidelity: N/M responses identical`, as test/fidelity/run.ts prints it, and its numbers. */
  fidelity: { line: string; identical: number; total: number };
}

/** The numbers of the fidelity line `fidelity: N/M responses identical`. */
export function parseFidelity(output: string): { line: string; identical: number; total: number } {
  const m = /^fidelity: (\d+)\/(\d+) responses identical$/m.exec(output);
  if (!m) throw new Error(`test/fidelity/run.ts printed no fidelity line: ${output.slice(0, 300)}`);
  return { line: m[0], identical: Number(m[1]), total: Number(m[2]) };
}

/** `later`: the starts timed after the suites in each process, per backend (etcd + kube-apiserver take seconds each). */
export async function runTestServerPart(
  assets: string,
  rounds: number,
  later: Record<Backend, number>,
  progress: (s: string) => void,
): Promise<TestServerResult> {
  const runs: Record<Backend, Run[]> = { testenv: [], real: [] };
  for (let r = 0; r < rounds; r++) {
    for (const b of r % 2 === 0 ? BACKENDS : [...BACKENDS].reverse()) {
      const { stdout } = await run(
        process.execPath,
        [join(BENCH, 'lib', 'test-server-run.mjs'), PKG, b, assets, DM_CRD, String(later[b])],
        { cwd: REPO, timeout: 300_000, maxBuffer: 1 << 20 },
      );
      runs[b].push(JSON.parse(stdout.trim().split('\n').pop()!) as Run);
    }
    progress(`testserver: round ${r + 1}/${rounds}`);
  }
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(REPO, 'test', 'fidelity', 'run.ts')], {
    cwd: REPO,
    timeout: 600_000,
    maxBuffer: 16 << 20,
    env: { ...process.env, CRDGEN_TEST_ASSETS: assets },
  });
  return { runs, fidelity: parseFidelity(stdout) };
}

export function testServerTables(r: TestServerResult): string {
  const m = (b: Backend, f: (x: Run) => number): number[] => r.runs[b].map(f);
  const laterMedian = (x: Run): number => median(x.laterMs);
  const rows: [string, (x: Run) => number][] = [
    ['import crdgen/testing (+ crdgen/runtime)', (x) => x.importMs],
    ['first start in a fresh process (ready to serve the CRD)', (x) => x.firstStartMs],
    ['later starts in the same process (median per process)', laterMedian],
    ['suite of 200 requests, first run in the process', (x) => x.suiteMs],
    ['the same suite again', (x) => x.suiteAgainMs],
  ];
  const out = [
    `### test server: ${r.runs.testenv.length} fresh processes per backend; ${r.fidelity.line} (test/fidelity/run.ts, the same scenarios on both)\n`,
  ];
  out.push(
    table(
      ['measure', 'startTestApiServer() ms', 'etcd + kube-apiserver ms', 'kube-apiserver / crdgen'],
      rows.map(([label, f]) => [
        label,
        fmt(median(m('testenv', f))),
        fmt(median(m('real', f))),
        times(pairedRatio(m('real', f), m('testenv', f))),
      ]),
    ),
  );
  return out.join('\n');
}
