// The soak's faults: at random steps (the PRNG decides when, which, how long), one of nine
// faults hits the test server, etcd, the operator or its Deployments. Failure and latency
// faults are windows (one at a time); the failure windows are recorded for the rate check.
import type { TestApiServer } from '../../src/testing/index.js';
import { PatchType, type ResourceClient, type Deployment } from '../../src/runtime/index.js';
import type { Prng } from './prng.js';
import type { FailureWindow } from './request-rate.js';
import type { Replicas } from './replicas.js';
import type { Workload } from './workload.js';

/** The kinds of fault, in the order of the summary. */
export const FAULT_KINDS = [
  'dropWatches',
  'compact',
  'fail500',
  'fail429',
  'latency',
  'apiRestart',
  'killLeader',
  'editOwned',
  'deleteOwned',
] as const;
/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

const WINDOW_KINDS: ReadonlySet<FaultKind> = new Set(['fail500', 'fail429', 'latency']);
const FAIL_PREFIXES = ['/api', '/apis/coolops.cn/', '/apis/apps/'];

/** The fault injector of one soak run. */
export class Chaos {
  readonly counts: Record<FaultKind, number> = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<
    FaultKind,
    number
  >;
  /** Failure windows that ended (`processes` is filled in at the end of the run). */
  readonly windows: Array<Omit<FailureWindow, 'processes'>> = [];
  /** A fault that could not be applied (no leader to kill, the Deployment already gone, …). */
  notApplied = 0;
  private nextAt: number | undefined;
  private active: { kind: FaultKind; until: number; failure?: Omit<FailureWindow, 'end' | 'processes'> } | undefined;

  constructor(
    private readonly env: TestApiServer,
    private readonly replicas: Replicas,
    private readonly workload: Workload,
    private readonly deployments: ResourceClient<Deployment>,
    private readonly prng: Prng,
    private readonly progress: (s: string) => void,
  ) {}

  /**
   * Called once per driver step: ends a finished window and, once the time drawn for the next
   * fault has come, injects one and draws the next gap (uniform in [0.5, 1.5] × `meanSeconds`).
   */
  async step(meanSeconds: number): Promise<void> {
    const now = Date.now();
    if (this.active && now >= this.active.until) this.endWindow();
    if (this.nextAt === undefined) this.nextAt = now + this.gap(meanSeconds);
    if (now < this.nextAt) return;
    this.nextAt = now + this.gap(meanSeconds);
    let kind = this.prng.pick(FAULT_KINDS);
    // one window at a time: while one is on, a window fault becomes a watch drop
    if (this.active && WINDOW_KINDS.has(kind)) kind = 'dropWatches';
    await this.inject(kind);
  }

  /** Turns every fault off (the end of the chaos phase). */
  stop(): void {
    if (this.active) this.endWindow();
    this.env.faults.reset();
  }

  private async inject(kind: FaultKind): Promise<void> {
    this.counts[kind]++;
    const f = this.env.faults;
    switch (kind) {
      case 'dropWatches':
        f.dropWatches();
        break;
      case 'compact':
        f.expireResourceVersions();
        break;
      case 'fail500':
      case 'fail429': {
        const seconds = this.prng.int(1, 5);
        const prefix = this.prng.pick(FAIL_PREFIXES);
        const code = kind === 'fail500' ? 500 : 429;
        const retryAfterSeconds = this.prng.int(1, 3);
        f.failFraction(1, { code, pathPrefix: prefix, ...(code === 429 ? { retryAfterSeconds } : {}) });
        const start = Date.now();
        this.active = { kind, until: start + seconds * 1000, failure: { start, prefix, code } };
        this.progress(`fault ${kind} ${prefix} for ${seconds}s`);
        break;
      }
      case 'latency': {
        const seconds = this.prng.int(2, 8);
        const ms = this.prng.int(50, 400);
        f.setLatency(ms);
        this.active = { kind, until: Date.now() + seconds * 1000 };
        this.progress(`fault latency ${ms}ms for ${seconds}s`);
        break;
      }
      case 'apiRestart': {
        const downMs = this.prng.int(100, 2000);
        this.progress(`fault apiRestart down ${downMs}ms`);
        await f.restart(downMs);
        break;
      }
      case 'killLeader': {
        const restartAfter = this.prng.int(500, 3000);
        const leader = this.replicas.leader();
        if (!leader) {
          this.notApplied++;
          break;
        }
        this.progress(`fault killLeader replica ${leader.id}, back in ${restartAfter}ms`);
        await this.replicas.kill(leader, restartAfter);
        break;
      }
      case 'editOwned':
      case 'deleteOwned': {
        const keys = this.workload.liveKeys();
        if (keys.length === 0) {
          this.notApplied++;
          break;
        }
        const [ns, name] = this.prng.pick(keys).split('/') as [string, string];
        const client = this.deployments.namespace(ns);
        const editReplicas = this.prng.chance(0.5);
        const replicas = this.prng.int(0, 12);
        try {
          if (kind === 'deleteOwned') await client.delete(`${name}-db`);
          else if (editReplicas) await client.patch(`${name}-db`, PatchType.Merge, { spec: { replicas } });
          else
            await client.patch(`${name}-db`, PatchType.JSON, [
              { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'busybox:behind-your-back' },
            ]);
        } catch {
          this.notApplied++;
        }
        break;
      }
    }
  }

  private gap(meanSeconds: number): number {
    return (0.5 + this.prng.next()) * meanSeconds * 1000;
  }

  private endWindow(): void {
    const a = this.active!;
    this.active = undefined;
    this.env.faults.reset();
    if (a.failure) this.windows.push({ ...a.failure, end: Date.now() });
  }
}
