// An operator under test as its own process, for the operator benchmarks (bench/operator.ts on
// crdgen/testing, bench/go-peers.ts on the real control plane): started with a kubeconfig, its
// JSON log lines read for the marks the benchmarks time (the first line of each `msg`), its CPU
// time and RSS read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** One operator under test: how to start it against a kubeconfig, and the log lines it marks its steps with. */
export interface Contender {
  label: string;
  /** The executable and its arguments. */
  argv(kubeconfig: string): string[];
  /** The `msg` of the line logged once the caches synced and the workers start. */
  syncedMsg: string;
  /** The `msg` of the line logged after each reconcile. */
  reconciledMsg: string;
}

/** A running operator process and what the benchmark reads from its log. */
export interface Running {
  proc: ChildProcess;
  t0: number;
  /** ms after spawn of the first line with this `msg`. */
  marks: Map<string, number>;
  /** CPU ms at the first reconciled line. */
  cpuAtFirstReconcile: number;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
}

/** The `msg` of a JSON log line (pino's and zap's key), if it has one. */
export function logMsg(line: string): string | undefined {
  return /"msg":"((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
}

/** User + system CPU time of a process, ms (from /proc; USER_HZ 100). */
export function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Resident set size of a process, MB. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Spawns `c` against `kubeconfig`; stdout is read for log marks, stderr passed through. */
export function startOperator(c: Contender, kubeconfig: string): Running {
  const env = { ...process.env, KUBECONFIG: '', NODE_OPTIONS: '' };
  const [cmd, ...args] = c.argv(kubeconfig);
  const t0 = performance.now();
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const r: Running = {
    proc,
    t0,
    marks: new Map(),
    cpuAtFirstReconcile: Number.NaN,
    exited: new Promise((done) => proc.once('exit', () => done())),
  };
  let buf = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const msg = logMsg(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg === undefined || r.marks.has(msg)) continue;
      r.marks.set(msg, performance.now() - t0);
      if (msg === c.reconciledMsg) r.cpuAtFirstReconcile = cpuMs(proc.pid!);
    }
  });
  return r;
}

/** Kills the operator (SIGKILL) unless it has exited; resolves once it has. */
export async function stopOperator(r: Running): Promise<void> {
  if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGKILL');
  await r.exited;
}

/** Polls `probe` every 20 ms until it is true; throws after `ms`. */
export async function until(probe: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
