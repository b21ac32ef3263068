// One replica as a shard of its controller's ring: it holds a Lease named for itself (labelled
// with the ring), renewed as leader election renews its lease; its caches select its shard
// label; before each reconcile it checks that it still holds its Lease and still holds the
// object; an object the sharder drains it lets go of (its shard and drain labels removed,
// from the worker that owns the key, so no reconcile of it runs any more here) and objects it
// creates for an object it owns carry its shard label.
import type { KubeObject } from '../meta/types.js';
import type { ClientBackend } from '../typed/backend.js';
import type { TypedResource } from '../client/resource.js';
import { PatchType } from '../client/resource.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { LeaderElector, type LeaderElectionOutcome } from '../leaderelection/leader-election.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { checkShardNames, drainLabel, RING_LABEL, shardLabel } from './names.js';
import { noopShardingMetrics, type ShardingMetrics } from '../metrics/sharding.js';

/** Options of a {@link ShardMember}. Durations in ms. */
export interface ShardMemberOptions {
  backend: ClientBackend;
  /** The ring (the controller's name): the labels' names and the Leases' ring label. */
  ring: string;
  /** This shard's name: its Lease's name and holder, the value of its objects' shard label. */
  shard: string;
  /** Namespace of the shard Leases. */
  leaseNamespace: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  logger?: Logger;
  metrics?: ShardingMetrics;
  /** Wall-clock ms (default Date.now). */
  now?: () => number;
}

/** A manager's start rejects with it when its shard could not renew its Lease in time. */
export class ShardLeaseLostError extends Error {
  override name = 'ShardLeaseLostError';
}

/** What a controller does with a key taken from its queue, as the shard decides. */
export type ShardVerdict = 'reconcile' | 'skip' | 'drain';

/** A key `namespace/name` (or `name`) of an object. */
function keyOf(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${obj.metadata?.name ?? ''}` : (obj.metadata?.name ?? '');
}

/** This replica's membership in its ring. */
export class ShardMember {
  readonly ring: string;
  readonly shard: string;
  /** `shard.crdgen.io/<ring>`. */
  readonly shardLabel: string;
  /** `drain.shard.crdgen.io/<ring>`. */
  readonly drainLabel: string;
  /** The label selector of this shard's caches. */
  readonly selector: string;
  readonly elector: LeaderElector;
  private readonly logger: Logger;
  private readonly metrics: ShardingMetrics;
  private readonly now: () => number;
  /** Kinds (`apiVersion/kind`) whose objects this shard reconciles: what it creates for them carries its label. */
  private readonly primaries = new Set<string>();
  /** Keys let go of, and the resourceVersion the cache held them at then (skipped until the cache moves on). */
  private readonly released = new Map<string, string>();
  /** Keys that left the cache after a drain this shard acknowledged (until they come back). */
  private readonly movedAway = new Set<string>();
  /** Keys whose drain label was seen, and when. */
  private readonly drainSeen = new Map<string, number>();

  constructor(private readonly options: ShardMemberOptions) {
    checkShardNames(options.ring, options.shard);
    this.ring = options.ring;
    this.shard = options.shard;
    this.shardLabel = shardLabel(options.ring);
    this.drainLabel = drainLabel(options.ring);
    this.selector = `${this.shardLabel}=${options.shard}`;
    this.logger = (options.logger ?? noopLogger).child({ ring: options.ring, shard: options.shard });
    this.metrics = options.metrics ?? noopShardingMetrics;
    this.now = options.now ?? Date.now;
    this.elector = new LeaderElector({
      backend: options.backend,
      namespace: options.leaseNamespace,
      name: options.shard,
      identity: options.shard,
      labels: { [RING_LABEL]: options.ring },
      logger: this.logger,
      now: this.now,
      ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
      ...(options.renewDeadlineMs !== undefined ? { renewDeadlineMs: options.renewDeadlineMs } : {}),
      ...(options.retryPeriodMs !== undefined ? { retryPeriodMs: options.retryPeriodMs } : {}),
    });
  }

  /**
   * Holds the shard Lease while `work` runs: resolves `joined` once the Lease is held (false
   * when `signal` aborted first); `work`'s signal aborts when `signal` does or the Lease is lost.
   * On a clean stop the Lease is released after `work` has finished (the sharder then moves
   * this shard's objects at once).
   */
  async run(
    signal: AbortSignal,
    work: (leaseSignal: AbortSignal) => Promise<void>,
    joined: (ok: boolean) => void,
  ): Promise<LeaderElectionOutcome> {
    const outcome = await this.elector.run(signal, async (leaseSignal) => {
      this.logger.info({ lease: `${this.options.leaseNamespace}/${this.shard}` }, 'shard joined the ring');
      joined(true);
      await work(leaseSignal);
    });
    if (outcome.kind === 'NeverLed') joined(false);
    else if (outcome.kind === 'Released') this.logger.info({}, 'shard left the ring (lease released)');
    else this.logger.error({ reason: outcome.reason }, 'shard lost its lease: stopped reconciling');
    return outcome;
  }

  /** True while the shard may reconcile: it holds its Lease and renewed it within the renew deadline. */
  holds(): boolean {
    return this.elector.holds();
  }

  /** Marks `resource` as a kind this shard reconciles (its owned objects are labelled with the shard). */
  addPrimary(resource: TypedResource): void {
    this.primaries.add(`${resource.group ? `${resource.group}/` : ''}${resource.version}/${resource.kind}`);
  }

  /**
   * Sets the shard label on `obj` (before it is created or updated) when its controller owner
   * is of a kind this shard reconciles: the owner is held here, so what it owns is too.
   */
  decorate(obj: KubeObject): void {
    const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
    if (!ref || !this.primaries.has(`${ref.apiVersion}/${ref.kind}`)) return;
    obj.metadata = { ...obj.metadata, labels: { ...obj.metadata?.labels, [this.shardLabel]: this.shard } };
  }

  /**
   * What to do with `key` taken from the queue, given the object the shard's cache holds
   * (undefined: not cached): skip it unless the shard holds its Lease and the cached object is
   * labelled for it; drain it when it carries the drain label; else reconcile (an object not
   * cached is reconciled too, the reconciler sees it gone, unless it left after a drain: then
   * another shard holds it). A key let go of and no longer cached is skipped before this shard's
   * own handler has seen the object leave: each handler has its own buffer, so the controller's
   * may queue the key (an owned object moved with its owner) first.
   */
  admit(key: string, cached: KubeObject | undefined): ShardVerdict {
    if (!this.holds()) return 'skip';
    if (!cached) return this.movedAway.has(key) || this.released.has(key) ? 'skip' : 'reconcile';
    const rv = cached.metadata?.resourceVersion;
    if (rv !== undefined && this.released.get(key) === rv) return 'skip';
    const labels = cached.metadata?.labels ?? {};
    if (labels[this.shardLabel] !== this.shard) return 'skip';
    if (labels[this.drainLabel] !== undefined) return 'drain';
    return 'reconcile';
  }

  /**
   * Lets go of `obj` (called by the worker holding its key, so no reconcile of it runs here):
   * removes the shard and drain labels, guarded by the cached resourceVersion (a Conflict is
   * thrown for the caller to retry once the cache has caught up).
   */
  async acknowledgeDrain(resource: TypedResource, obj: KubeObject): Promise<void> {
    const key = keyOf(obj);
    const rv = obj.metadata?.resourceVersion;
    // marked before the patch is sent: the watch may bring the object's exit before the patch's answer
    if (rv !== undefined) this.released.set(key, rv);
    try {
      await this.options.backend
        .resource(resource, resource.namespaced ? obj.metadata?.namespace : undefined)
        .patch(obj.metadata?.name ?? '', PatchType.Merge, {
          metadata: {
            ...(rv !== undefined ? { resourceVersion: rv } : {}),
            labels: { [this.shardLabel]: null, [this.drainLabel]: null },
          },
        });
    } catch (e) {
      if (isNotFound(e)) return;
      if (this.released.get(key) === rv) this.released.delete(key);
      if (!isConflict(e)) this.logger.warn({ key, err: errorMessage(e) }, 'could not acknowledge a drain');
      throw e;
    }
    const seen = this.drainSeen.get(key);
    this.drainSeen.delete(key);
    const seconds = seen === undefined ? 0 : (this.now() - seen) / 1000;
    this.metrics.observeDrain(seconds);
    this.metrics.moved('out');
    this.logger.info({ key, drainMs: Math.round(seconds * 1000) }, 'object moved out (drain acknowledged)');
  }

  /**
   * Watches the primary kind's informer (the shard's cache): queues a key as soon as its drain
   * label appears (whatever the controller's predicates say), counts objects that arrive.
   */
  watchPrimary(informer: SharedIndexInformer<KubeObject>, enqueue: (key: string) => void): void {
    const drains = (o: KubeObject | undefined): boolean => o?.metadata?.labels?.[this.drainLabel] !== undefined;
    informer.addEventHandler({
      onAdd: (obj, isInInitialList) => {
        this.movedAway.delete(keyOf(obj));
        if (isInInitialList) return;
        this.metrics.moved('in');
        this.logger.info({ key: keyOf(obj) }, 'object moved in');
        if (drains(obj)) {
          this.drainSeen.set(keyOf(obj), this.now());
          enqueue(keyOf(obj));
        }
      },
      onUpdate: (oldObj, newObj) => {
        if (drains(newObj) && !drains(oldObj)) {
          this.drainSeen.set(keyOf(newObj), this.now());
          enqueue(keyOf(newObj));
        }
      },
      onDelete: (obj) => {
        const o = (obj as { obj?: KubeObject }).obj ?? (obj as KubeObject);
        if (this.released.delete(keyOf(o))) this.movedAway.add(keyOf(o));
        this.drainSeen.delete(keyOf(o));
      },
    });
  }
}
