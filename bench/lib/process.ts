// Runs a command as a child process under GNU time: wall time (measured here), CPU time
// (user + system) and peak resident set size (the largest process of the command's tree).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One run of a command. */
export interface RunResult {
  /** Wall time, ms. */
  wallMs: number;
  /** User + system CPU time, ms (10 ms resolution). */
  cpuMs: number;
  /** Peak resident set size, bytes. */
  rssBytes: number;
  /** Exit status (null when killed by a signal). */
  status: number | null;
  /** The first error line of stderr (else its last lines), for failure notes. */
  stderrTail: string;
  /** The end of stdout (a summary line). */
  stdoutTail: string;
}

const timeDir = mkdtempSync(join(tmpdir(), 'crdgen-bench-time-'));
process.on('exit', () => rmSync(timeDir, { recursive: true, force: true }));
let runs = 0;

/** Runs `argv` in `cwd` and measures it; never throws for a failing command. */
export function measure(argv: readonly string[], cwd: string, timeoutMs = 600_000): RunResult {
  const out = join(timeDir, `t${runs++}`);
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', out, ...argv], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
  });
  const wallMs = performance.now() - t0;
  let fields: number[] = [];
  try {
    fields = readFileSync(out, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  } catch {
    // killed before GNU time wrote its line (timeout): figures stay NaN
  }
  const [user = Number.NaN, sys = Number.NaN, rssKb = Number.NaN] = fields;
  const lines = (r.stderr ?? '').trim().split('\n');
  const error = lines.find((l) => /\b\w*Error\b|error:/i.test(l) && !/^\s+at /.test(l));
  const stderrTail = (error ?? lines.slice(-3).join(' / ')).trim().slice(0, 200);
  return {
    wallMs,
    cpuMs: (user + sys) * 1000,
    rssBytes: rssKb * 1024,
    status: r.status,
    stderrTail,
    stdoutTail: (r.stdout ?? '').slice(-2000),
  };
}
