// Leader election on coordination.k8s.io/v1 Leases (client-go's tools/leaderelection
// with the LeaseLock): one holder at a time, renewing its lease every retry period;
// another candidate takes over only once the lease has not changed for a full lease
// duration, as it observed it on its own clock. Updates carry the resourceVersion read,
// so two candidates racing for one lease cannot both win.
import type { ClientBackend } from '../typed/backend.js';
import { LeaseResource, type Lease } from '../builtin/index.js';
import { isAlreadyExists, isConflict, isForbidden, isNotFound } from '../client/errors.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { jitter, sleep } from './sleep.js';
import { realClock, type Clock, type Timer } from '../workqueue/clock.js';

/** client-go's defaults (and controller-runtime's): 15 s lease, 10 s renew deadline, 2 s retry. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/** See {@link DEFAULT_LEASE_DURATION_MS}. */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/** See {@link DEFAULT_LEASE_DURATION_MS}. */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's JitterFactor for the acquire and renew loops. */
export const LEADER_ELECTION_JITTER = 1.2;

/** Options of a {@link LeaderElector}. Durations in ms. */
export interface LeaderElectionConfig {
  /** Client backend (a generated Clientset's `backend`). */
  backend: ClientBackend;
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  /** This candidate's identity (unique per process, e.g. `hostname_uuid`). */
  identity: string;
  /** How long a lease is valid after its last renewal, as non-leaders see it. */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failing renewal before giving up leadership. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. */
  retryPeriodMs?: number;
  /** Labels the Lease carries (set when it is created or taken over; a shard Lease names its ring). */
  labels?: Readonly<Record<string, string>>;
  /** On a clean stop, give the lease up so a successor need not wait for it to expire. Default true. */
  releaseOnCancel?: boolean;
  /**
   * Watch the Lease while standing by (needs `watch` on leases), beside the attempts every retry
   * period: each renewal is then observed when it arrives rather than at the next attempt, so a
   * dead leader's lease expires here up to a retry period sooner (still judged on this clock from
   * when the change was seen), and a released lease is tried at once. When the watch is refused
   * (403) the candidate polls alone, as client-go does. Default true.
   */
  watchLease?: boolean;
  logger?: Logger;
  /**
   * Timers of the acquire and renew loops (the workqueue's Clock: a FakeClock runs the election
   * on fake time). Its `now()` is the election's time too unless `now` is given.
   */
  clock?: Clock;
  /** Wall-clock milliseconds for the lease's times and the deadlines (default: a given clock's `now`, else `Date.now`; the real clock's `now` is not wall-clock time). */
  now?: () => number;
}

/** How a {@link LeaderElector.run} ended. */
export type LeaderElectionOutcome =
  /** Stopped before ever leading. */
  | { kind: 'NeverLed' }
  /** Led, then stopped cleanly (the lease was released unless disabled). */
  | { kind: 'Released' }
  /** Led, then could not renew within the renew deadline: leadership lost. */
  | { kind: 'Lost'; reason: string };

type LeaseSpec = NonNullable<Lease['spec']>;

/** MicroTime: RFC 3339 with microseconds, UTC. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * How long after the observed expiry a candidate tries to take the lease: enough for a timer
 * that fires a little early against the wall clock, little enough not to count in a failover.
 */
export const ACQUIRE_EXPIRY_MARGIN_MS = 20;

/** What {@link nextAcquireDelay} decides from. Times in ms on the elector's clock. */
export interface AcquireTiming {
  /** The retry period stretched by the jitter (the wait client-go takes between attempts). */
  jitteredRetryMs: number;
  /** Now. */
  now: number;
  /** This candidate's identity. */
  identity: string;
  /** The lease as last observed: its holder, its duration, and when its holder or renewTime last changed here. */
  observed?: { holder: string; leaseDurationMs: number; observedAt: number };
}

/**
 * The wait before a candidate's next attempt to take the lease: the jittered retry period,
 * unless another holder's lease, as observed, expires sooner — then the moment it expires
 * (observed time + lease duration + {@link ACQUIRE_EXPIRY_MARGIN_MS}), so that a standby takes a
 * dead leader's lease when it may rather than up to a jittered retry period later. Expiry is
 * judged as the attempt judges it: from when this candidate last saw the lease change, on its own
 * clock, never from the holder's renewTime. The attempt is still what decides: one made early
 * finds the lease unexpired (or renewed meanwhile: a new observed time) and waits again. A lease
 * already expired as observed (the attempt failed anyway: a conflict, an error) waits the
 * retry period.
 */
export function nextAcquireDelay(t: AcquireTiming): number {
  const o = t.observed;
  if (!o || o.holder === '' || o.holder === t.identity || !(o.leaseDurationMs > 0)) return t.jitteredRetryMs;
  const untilExpiry = o.observedAt + o.leaseDurationMs - t.now;
  if (untilExpiry <= 0) return t.jitteredRetryMs;
  return Math.min(t.jitteredRetryMs, untilExpiry + ACQUIRE_EXPIRY_MARGIN_MS);
}

/** Runs one candidate. Not reusable: `run` may be called once. */
export class LeaderElector {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly clock: Clock;
  /** The lease as last read or written, and when (on our clock) its holder/renewTime last changed. */
  private observed: { spec: LeaseSpec; resourceVersion?: string } | undefined;
  private observedAt = 0;
  private leading = false;
  private ran = false;
  /** When (on `now`) the last successful renewal was sent. */
  private lastRenew = 0;
  private acquiredSentAt = 0;

  constructor(private readonly config: LeaderElectionConfig) {
    this.leaseDurationMs = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (!config.identity) throw new Error('leader election: identity must not be empty');
    if (!config.name || !config.namespace) throw new Error('leader election: the lease needs a name and a namespace');
    if (!(this.leaseDurationMs > this.renewDeadlineMs))
      throw new Error('leader election: the lease duration must be greater than the renew deadline');
    if (!(this.renewDeadlineMs > LEADER_ELECTION_JITTER * this.retryPeriodMs))
      throw new Error(
        `leader election: the renew deadline must be greater than retry period × ${LEADER_ELECTION_JITTER}`,
      );
    if (!(this.retryPeriodMs >= 1)) throw new Error('leader election: the retry period must be at least 1 ms');
    this.logger = config.logger ?? noopLogger;
    this.clock = config.clock ?? realClock;
    const clock = config.clock;
    this.now = config.now ?? (clock && clock !== realClock ? () => clock.now() : Date.now);
  }

  /** True while this candidate holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /**
   * True while this candidate leads and its last renewal was sent less than the renew deadline
   * ago: from the deadline on another candidate may soon take the lease, so work done on its
   * strength must stop before then (checked before each unit of work, even between the renew
   * loop's own checks, e.g. right after the process was paused).
   */
  holds(): boolean {
    return this.leading && this.now() - this.lastRenew < this.renewDeadlineMs;
  }

  /** The holder last observed ('' when none). */
  getLeader(): string {
    return this.observed?.spec.holderIdentity ?? '';
  }

  /**
   * Campaigns until `signal` aborts. Once leader, calls `lead(leadSignal)`; `leadSignal`
   * aborts when `signal` does or when leadership is lost. On a clean stop, waits for
   * `lead` to finish while still renewing, then releases the lease.
   */
  async run(signal: AbortSignal, lead: (leadSignal: AbortSignal) => Promise<void>): Promise<LeaderElectionOutcome> {
    if (this.ran) throw new Error('leader election: run may be called once');
    this.ran = true;
    const acquiring = this.now();
    if (!(await this.acquire(signal))) return { kind: 'NeverLed' };
    this.lastRenew = Math.max(acquiring, this.acquiredSentAt);
    this.leading = true;
    this.logger.info(
      { lease: `${this.config.namespace}/${this.config.name}`, identity: this.config.identity },
      'acquired lease',
    );
    const leadController = new AbortController();
    const onAbort = (): void => leadController.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // stopped while the winning attempt was in flight: an aborted signal fires no event
    if (signal.aborted) onAbort();
    let workDone = false;
    const work = lead(leadController.signal)
      .catch((e: unknown) => this.logger.error({ err: errorMessage(e) }, 'leading work failed'))
      .finally(() => {
        workDone = true;
      });
    try {
      // renew every retry period until the work has finished (after a stop it drains first).
      // The renew deadline counts from when the last successful renewal was SENT (the lease's
      // renewTime is no later than that), and the wait before an attempt never passes the
      // deadline: leadership is given up on time, not up to a retry period late (the chaos soak
      // saw two leaders for ~0.5 s with lease 3 s / deadline 2 s when the check ran late).
      for (;;) {
        const untilDeadline = this.renewDeadlineMs - (this.now() - this.lastRenew);
        const tick = new AbortController();
        await Promise.race([
          sleep(Math.max(0, Math.min(this.retryPeriodMs, untilDeadline)), tick.signal, this.clock),
          work,
        ]);
        tick.abort();
        if (workDone) break;
        const sent = this.now();
        const remaining = this.renewDeadlineMs - (sent - this.lastRenew);
        if (remaining > 0 && (await this.withTimeout(this.tryAcquireOrRenew(), remaining))) {
          this.lastRenew = sent;
        } else if (remaining <= 0 || this.now() - this.lastRenew >= this.renewDeadlineMs) {
          this.leading = false;
          const reason = `failed to renew lease ${this.config.namespace}/${this.config.name} within ${this.renewDeadlineMs} ms`;
          this.logger.error({ identity: this.config.identity }, reason);
          leadController.abort(new Error(reason));
          return { kind: 'Lost', reason };
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    await work;
    this.leading = false;
    if (this.config.releaseOnCancel ?? true) await this.release();
    return { kind: 'Released' };
  }

  /**
   * Tries every retry period (jittered) until the lease is ours or `signal` aborts; an attempt
   * that would fall after the observed lease expires is brought forward to that moment
   * ({@link nextAcquireDelay}).
   */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info(
      { lease: `${this.config.namespace}/${this.config.name}`, identity: this.config.identity },
      'attempting to acquire leader lease',
    );
    const standingBy = new AbortController();
    const onAbort = (): void => standingBy.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let wake: AbortController | undefined;
    const watching =
      (this.config.watchLease ?? true)
        ? this.watchWhileStandingBy(standingBy.signal, () => wake?.abort())
        : Promise.resolve();
    try {
      while (!signal.aborted) {
        const sent = this.now();
        if (await this.withTimeout(this.tryAcquireOrRenew(), this.retryPeriodMs * 5)) {
          this.acquiredSentAt = sent;
          return true;
        }
        const spec = this.observed?.spec;
        const delay = nextAcquireDelay({
          jitteredRetryMs: jitter(this.retryPeriodMs, LEADER_ELECTION_JITTER),
          now: this.now(),
          identity: this.config.identity,
          ...(spec
            ? {
                observed: {
                  holder: spec.holderIdentity ?? '',
                  leaseDurationMs: (spec.leaseDurationSeconds ?? 0) * 1000,
                  observedAt: this.observedAt,
                },
              }
            : {}),
        });
        wake = new AbortController();
        const woken = wake.signal;
        const slept = await sleep(delay, AbortSignal.any([signal, woken]), this.clock);
        if (!slept && signal.aborted) return false;
      }
      return false;
    } finally {
      signal.removeEventListener('abort', onAbort);
      standingBy.abort();
      await watching;
    }
  }

  /**
   * Watches the Lease by name until `stop` aborts, observing each change as it arrives; calls
   * `wake` when the lease is free to take (released, or deleted). A watch that ends or fails is
   * opened again from the last resourceVersion observed, a retry period later after an error;
   * a 403 ends the watching (the candidate polls alone). Never throws.
   */
  private async watchWhileStandingBy(stop: AbortSignal, wake: () => void): Promise<void> {
    while (!stop.aborted) {
      const resourceVersion = this.observed?.resourceVersion;
      if (resourceVersion === undefined) {
        // not read yet (or not there): the first attempt's answer gives the version to start from
        if (!(await sleep(this.retryPeriodMs / 4, stop, this.clock))) return;
        continue;
      }
      try {
        const w = await this.leases().watch({
          fieldSelector: `metadata.name=${this.config.name}`,
          resourceVersion,
          allowWatchBookmarks: true,
          signal: stop,
        });
        try {
          for await (const e of w) {
            if (e.type === 'ERROR') break; // e.g. 410 Gone: start again from the next attempt's answer
            if (e.type === 'BOOKMARK') continue;
            if (e.type === 'DELETED') {
              this.observed = undefined;
              wake();
              continue;
            }
            this.observe(e.object, this.now());
            const holder = e.object.spec?.holderIdentity ?? '';
            if (holder === '' || holder === this.config.identity) wake();
          }
        } finally {
          w.stop();
        }
        if (!stop.aborted && this.observed?.resourceVersion === resourceVersion) {
          if (!(await sleep(this.retryPeriodMs, stop, this.clock))) return;
        }
      } catch (e) {
        if (stop.aborted) return;
        if (isForbidden(e)) {
          this.logger.info(
            { lease: `${this.config.namespace}/${this.config.name}`, err: errorMessage(e) },
            'may not watch the lease; standing by with attempts every retry period only',
          );
          return;
        }
        this.logger.warn({ err: errorMessage(e) }, 'error watching the lease');
        if (!(await sleep(this.retryPeriodMs, stop, this.clock))) return;
      }
    }
  }

  private async withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
    let timer: Timer | undefined;
    const timeout = new Promise<boolean>((done) => {
      timer = this.clock.setTimer(() => done(false), Math.max(1, ms));
    });
    try {
      return await Promise.race([p, timeout]);
    } finally {
      timer?.cancel();
    }
  }

  private leases() {
    return this.config.backend.resource<Lease>(LeaseResource, this.config.namespace);
  }

  /** One attempt (client-go's tryAcquireOrRenew). Never throws: failures are `false`. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const id = this.config.identity;
    const mine: LeaseSpec = {
      holderIdentity: id,
      leaseDurationSeconds: Math.max(1, Math.round(this.leaseDurationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      let current: Lease;
      try {
        current = await this.leases().get(this.config.name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        const created = await this.leases().create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: {
            name: this.config.name,
            namespace: this.config.namespace,
            ...(this.config.labels ? { labels: { ...this.config.labels } } : {}),
          },
          spec: mine,
        });
        this.observe(created, this.now());
        return true;
      }
      // observed when the answer arrived, not when the request left (as client-go's observedTime):
      // a GET that waited out a slow or restarting server must not date a renewal it saw too early
      const seen = this.now();
      const spec = current.spec ?? {};
      this.observe(current, seen);
      const holder = spec.holderIdentity ?? '';
      const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
      if (holder !== '' && holder !== id && this.observedAt + durationMs > seen) return false; // held by someone else, not expired
      const next: LeaseSpec =
        holder === id
          ? { ...mine, acquireTime: spec.acquireTime ?? mine.acquireTime, leaseTransitions: spec.leaseTransitions ?? 0 }
          : { ...mine, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
      const labels = this.config.labels;
      const metadata =
        labels && Object.entries(labels).some(([k, v]) => current.metadata?.labels?.[k] !== v)
          ? { ...current.metadata, labels: { ...current.metadata?.labels, ...labels } }
          : current.metadata;
      const updated = await this.leases().update({ ...current, metadata, spec: { ...spec, ...next } });
      this.observe(updated, this.now());
      return true;
    } catch (e) {
      if (!isConflict(e) && !isAlreadyExists(e))
        this.logger.warn({ err: errorMessage(e) }, 'error retrieving or updating the lease');
      return false;
    }
  }

  private observe(lease: Lease, now: number): void {
    const spec = lease.spec ?? {};
    const prev = this.observed?.spec;
    if (!prev || prev.holderIdentity !== spec.holderIdentity || prev.renewTime !== spec.renewTime)
      this.observedAt = now;
    this.observed = {
      spec,
      ...(lease.metadata?.resourceVersion !== undefined ? { resourceVersion: lease.metadata.resourceVersion } : {}),
    };
  }

  /** Gives the lease up (holder cleared, 1 s duration), as client-go's release; errors are logged. */
  private async release(): Promise<void> {
    try {
      const current = await this.leases().get(this.config.name);
      if (current.spec?.holderIdentity !== this.config.identity) return;
      const now = microTime(this.now());
      await this.leases().update({
        ...current,
        spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
      });
      this.logger.info({ identity: this.config.identity }, 'released lease');
    } catch (e) {
      this.logger.warn({ err: errorMessage(e) }, 'could not release the lease');
    }
  }
}
