// The operator's replicas in the soak: spawns the generated main (2 replicas, leader election,
// metrics on a free port), keeps only the log lines the soak needs, scrapes the reconcile-overlap
// counter, restarts a replica after it is killed or exits, and records leadership intervals.
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '../golden/support.js';
import { isReconcileEnd } from '../support/logs.js';

/** Leader-election timings of the soak's replicas (short, so handovers happen within the run). */
export const LEASE = { duration: '3s', renewDeadline: '2s', retryPeriod: '500ms', retryPeriodSeconds: 0.5 };
/** The generated operator's client-side rate limit defaults (--kube-api-qps, --kube-api-burst) and workers. */
export const OPERATOR_CLIENT = { qps: 20, burst: 30, workers: 1 };

/** One process of a replica (a replica is restarted as a new incarnation). */
export interface Incarnation {
  id: number;
  proc: ChildProcess;
  startedAt: number;
  exitedAt?: number;
  exit?: number | string;
  identity?: string;
  metricsUrl?: string;
  /** Epoch ms of 'acquired lease', of 'caches synced; starting workers' (reconciles may run from here), and of the end of leadership ('controller stopped' or exit). */
  leaderFrom?: number;
  workFrom?: number;
  leaderTo?: number;
  /** Highest overlap count scraped from this process (undefined: never scraped). */
  overlaps?: number;
  /** The counter's name was not in the scrape. */
  counterMissing?: boolean;
  /** Last lines of non-JSON output and error logs (for the report). */
  tail: string[];
}

/** Names the soak accepts for the generated controller's overlap counter. */
const OVERLAP = /^([a-z_]*reconcile_overlaps_total)(?:\{[^}]*\})?\s+([0-9.e+]+)\s*$/gm;

/** Parses the overlap counter(s) out of a Prometheus text scrape; undefined when absent. */
export function parseOverlaps(text: string): number | undefined {
  let total: number | undefined;
  for (const m of text.matchAll(OVERLAP)) total = (total ?? 0) + Number(m[2]);
  return total;
}

/** Two replicas of the operator, kept running. */
export class Replicas {
  readonly all: Incarnation[] = [];
  private readonly current: (Incarnation | undefined)[] = [undefined, undefined];
  private readonly restartTimers = new Set<NodeJS.Timeout>();
  private stopping = false;
  private nextId = 0;
  /** Scrapes that failed (a replica busy or just gone). */
  scrapeFailures = 0;
  scrapes = 0;
  /** Incarnations SIGKILLed by the soak. */
  kills = 0;
  /** Reconciles seen in the log lines that end them, over all processes. */
  reconciles = 0;
  /** Reconciles of one key that overlapped in time (across processes too), as messages. */
  readonly clashes: string[] = [];
  /** key → its latest reconcile spans (any process), to find overlaps. */
  private readonly spans = new Map<string, Array<{ from: number; to: number; inc: number }>>();
  /** Restarts of replicas that exited without being killed (e.g. lost the lease under faults). */
  unplannedExits = 0;

  constructor(
    private readonly main: string,
    private readonly kubeconfigPath: string,
    private readonly progress: (s: string) => void,
  ) {}

  /** Starts both replicas. */
  start(): void {
    for (let slot = 0; slot < 2; slot++) this.spawnSlot(slot);
  }

  /** The running incarnations. */
  running(): Incarnation[] {
    return this.current.filter((i): i is Incarnation => i !== undefined && i.exitedAt === undefined);
  }

  /** The running incarnation that holds the lease (the last to acquire it), if any. */
  leader(): Incarnation | undefined {
    return this.running()
      .filter((i) => i.leaderFrom !== undefined && i.leaderTo === undefined)
      .sort((a, b) => b.leaderFrom! - a.leaderFrom!)[0];
  }

  /** Scrapes one incarnation's metrics; keeps the highest overlap count seen. */
  async scrape(inc: Incarnation): Promise<void> {
    if (!inc.metricsUrl || inc.exitedAt !== undefined) return;
    this.scrapes++;
    try {
      const res = await fetch(inc.metricsUrl, { signal: AbortSignal.timeout(5000) });
      const text = await res.text();
      const n = parseOverlaps(text);
      if (n === undefined) inc.counterMissing = true;
      else inc.overlaps = Math.max(inc.overlaps ?? 0, n);
    } catch {
      this.scrapeFailures++;
    }
  }

  /** Scrapes every running incarnation. */
  async scrapeAll(): Promise<void> {
    await Promise.all(this.running().map((i) => this.scrape(i)));
  }

  /** Scrapes `inc`, SIGKILLs it, and restarts its slot after `restartAfterMs`. */
  async kill(inc: Incarnation, restartAfterMs: number): Promise<void> {
    await this.scrape(inc);
    const slot = this.current.indexOf(inc);
    (inc as { planned?: boolean }).planned = true;
    this.kills++;
    if (inc.exitedAt === undefined) inc.proc.kill('SIGKILL');
    await new Promise<void>((r) => (inc.exitedAt !== undefined ? r() : inc.proc.once('exit', () => r())));
    if (slot >= 0) this.scheduleRestart(slot, restartAfterMs);
  }

  /** Waits (bounded) until both slots run and one of them leads with synced caches. */
  async waitReady(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const l = this.leader();
      if (this.running().length === 2 && l?.workFrom !== undefined) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  }

  /** Stops everything (SIGKILL; the soak's data is thrown away anyway). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.restartTimers) clearTimeout(t);
    this.restartTimers.clear();
    await Promise.all(
      this.running().map(
        (i) =>
          new Promise<void>((r) => {
            i.proc.once('exit', () => r());
            i.proc.kill('SIGKILL');
          }),
      ),
    );
  }

  private scheduleRestart(slot: number, ms: number): void {
    if (this.stopping) return;
    const t = setTimeout(() => {
      this.restartTimers.delete(t);
      if (!this.stopping) this.spawnSlot(slot);
    }, ms);
    this.restartTimers.add(t);
  }

  private spawnSlot(slot: number): void {
    const args = [
      ...(this.main.endsWith('.ts') ? ['--import', 'tsx'] : []),
      this.main,
      '--kubeconfig',
      this.kubeconfigPath,
      '--leader-elect',
      '--leader-election-namespace',
      'default',
      '--leader-elect-lease-duration',
      LEASE.duration,
      '--leader-elect-renew-deadline',
      LEASE.renewDeadline,
      '--leader-elect-retry-period',
      LEASE.retryPeriod,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '0',
      // the line that ends each reconcile is at debug
      '--log-level',
      'debug',
    ];
    const proc = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '' },
    });
    const inc: Incarnation = { id: this.nextId++, proc, startedAt: Date.now(), tail: [] };
    this.all.push(inc);
    this.current[slot] = inc;
    const keep = (s: string): void => {
      inc.tail.push(s.slice(0, 500));
      if (inc.tail.length > 20) inc.tail.shift();
    };
    let buf = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let l: Record<string, unknown>;
        try {
          l = JSON.parse(line) as Record<string, unknown>;
        } catch {
          keep(line);
          continue;
        }
        this.onLog(inc, l, keep);
      }
    });
    proc.stderr.setEncoding('utf8').on('data', (c: string) => keep(c));
    proc.once('exit', (code, sig) => {
      inc.exitedAt = Date.now();
      inc.exit = code ?? sig ?? -1;
      if (inc.leaderFrom !== undefined && inc.leaderTo === undefined) inc.leaderTo = inc.exitedAt;
      const planned = (inc as { planned?: boolean }).planned === true;
      if (!this.stopping) this.progress(`replica ${inc.id} exited (${String(inc.exit)})${planned ? '' : ' unplanned'}`);
      if (!planned && !this.stopping && this.current[slot] === inc) {
        this.unplannedExits++;
        // not a choice of the soak: a fixed delay keeps the PRNG's sequence independent of it
        this.scheduleRestart(slot, 1000);
      }
    });
  }

  /** Records a reconcile's span [from, to]; another span of the same key that overlaps it is a clash. */
  private onReconciled(inc: Incarnation, key: string, from: number, to: number): void {
    this.reconciles++;
    let list = this.spans.get(key);
    if (!list) this.spans.set(key, (list = []));
    const clash = list.find((o) => o.from < to && from < o.to);
    if (clash && this.clashes.length < 20) {
      this.clashes.push(
        `${key}: replica ${clash.inc} ${new Date(clash.from).toISOString()}–${new Date(clash.to).toISOString()} and replica ${inc.id} ${new Date(from).toISOString()}–${new Date(to).toISOString()}`,
      );
    }
    list.push({ from, to, inc: inc.id });
    // lines of one process come in order and processes hand over after a lease duration: the last few spans suffice
    if (list.length > 8) list.shift();
  }

  private onLog(inc: Incarnation, l: Record<string, unknown>, keep: (s: string) => void): void {
    const at =
      typeof l['time'] === 'string' ? Date.parse(l['time']) : typeof l['time'] === 'number' ? l['time'] : Date.now();
    if (isReconcileEnd(l)) {
      this.onReconciled(inc, String(l['key']), Date.parse(String(l['startedAt'])), at);
      if (l['level'] === 'error') keep(JSON.stringify(l));
      return;
    }
    switch (l['msg']) {
      case 'serving metrics':
        inc.metricsUrl = String(l['url']);
        break;
      case 'attempting to acquire leader lease':
        inc.identity = String(l['identity']);
        break;
      case 'acquired lease':
        inc.leaderFrom = at;
        this.progress(`replica ${inc.id} leads`);
        break;
      case 'caches synced; starting workers':
        inc.workFrom = at;
        break;
      case 'controller stopped':
        if (inc.leaderFrom !== undefined && inc.leaderTo === undefined) inc.leaderTo = at;
        break;
      default:
        if (l['level'] === 'error' || l['level'] === 50 || l['level'] === 'fatal') keep(JSON.stringify(l));
    }
  }
}

/** Pairs of incarnations whose working intervals (workers started → stopped or exit) overlap: two leaders reconciling at once. */
export function dualLeadership(all: Incarnation[]): Array<[Incarnation, Incarnation]> {
  const led = all.filter((i) => i.workFrom !== undefined);
  const out: Array<[Incarnation, Incarnation]> = [];
  for (let a = 0; a < led.length; a++) {
    for (let b = a + 1; b < led.length; b++) {
      const x = led[a];
      const y = led[b];
      const xEnd = x.leaderTo ?? Infinity;
      const yEnd = y.leaderTo ?? Infinity;
      if (x.workFrom! < yEnd && y.workFrom! < xEnd) out.push([x, y]);
    }
  }
  return out;
}
