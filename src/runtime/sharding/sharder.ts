// The sharder of one ring (run by the replica elected on the ring's sharder Lease): it watches
// the ring's shard Leases, the primary kind's objects and the owned kinds' objects (metadata
// only), builds a consistent-hash ring over the live shards and labels every object with its
// shard. An object moves off a live shard only through the drain handshake (drain label; the
// shard lets go by removing both labels; then it is assigned). A shard whose Lease expired has
// its Lease taken first (so it cannot renew and act again), then its objects are assigned at
// once, as are those of a shard that released its Lease. Every label change of an object of the
// primary kind is guarded by the resourceVersion read. What an object controls follows it: when
// the sharder assigns an object it first labels the objects it controls (of the owned kinds) for
// the same shard, so the new shard finds them in its cache when it first reconciles the owner;
// the owner is the synchronisation point (its drain), its controlled objects are not drained.
import type { KubeObject } from '../meta/types.js';
import type { ClientBackend } from '../typed/backend.js';
import type { TypedResource } from '../client/resource.js';
import { PatchType } from '../client/resource.js';
import { LeaseResource, type Lease } from '../builtin/index.js';
import { isConflict, isNotFound } from '../client/errors.js';
import { SharedInformerFactoryBase } from '../informers/shared-informer-factory.js';
import { isDeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import { BasicRateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import { defaultControllerRateLimiter } from '../workqueue/rate-limiters.js';
import { microTime } from '../leaderelection/leader-election.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { sleep } from '../leaderelection/sleep.js';
import { HashRing, objectHashKey } from './ring.js';
import { drainLabel, RING_LABEL, sharderLeaseName, shardLabel } from './names.js';
import { noopShardingMetrics, type ShardingMetrics } from '../metrics/sharding.js';

/** The informer cache's key of a sharder key `<namespace>/<name>` (`/<name>` for a cluster-scoped object: `name`). */
function cacheKeyOf(key: string): string {
  return key.startsWith('/') ? key.slice(1) : key;
}

/** A sharder's write refused: its replica no longer holds the sharder Lease. */
export class SharderLeaseLostError extends Error {
  override name = 'SharderLeaseLostError';
}

/** Options of a {@link Sharder}. Durations in ms. */
export interface SharderOptions {
  backend: ClientBackend;
  ring: string;
  /** Namespace of the shard Leases. */
  leaseNamespace: string;
  /** The kind the ring's controller reconciles. */
  resource: TypedResource;
  /** The kinds it owns: an object of these controlled by an object of `resource` is labelled as its owner. */
  owned?: readonly TypedResource[];
  /** Only these namespaces' objects (default all). */
  namespaces?: readonly string[];
  /** Written as the holder of the expired Leases the sharder takes. */
  identity: string;
  /** How long a taken Lease stays held (default 15 s). */
  leaseDurationMs?: number;
  /** How often Lease expiry is checked (default 1 s). */
  checkIntervalMs?: number;
  /** Every object is looked at again this often (default 60 s; catches failed or missed assignments). */
  resyncMs?: number;
  /** Released or taken Leases are deleted after this long (default 60 s). */
  deadLeaseTtlMs?: number;
  /**
   * Whether this replica still holds the sharder Lease (its elector's `holds()`: renewed within
   * the renew deadline). Checked before every write: a sharder paused past its Lease wakes with
   * stale caches, and the labels of controlled objects carry no resourceVersion guard.
   */
  holds?: () => boolean;
  /** Objects assigned at once (default 8; the patches of one object's controlled objects go out together). */
  workers?: number;
  logger?: Logger;
  metrics?: ShardingMetrics;
  /** Wall-clock ms (default Date.now). */
  now?: () => number;
}

/** What the sharder knows of a shard Lease; `observedAt` is when its holder or renewTime last changed, on the sharder's clock. */
interface ObservedLease {
  holder: string;
  renewTime: string | undefined;
  durationMs: number;
  observedAt: number;
  /** When the sharder first saw it dead. */
  deadSince?: number;
}

/** A shard Lease's state. */
export type ShardState = 'ready' | 'expired' | 'dead';

/** The sharder of one ring. */
export class Sharder {
  private readonly logger: Logger;
  private readonly metrics: ShardingMetrics;
  private readonly now: () => number;
  private readonly shardLabel: string;
  private readonly drainLabel: string;
  /** The field manager of the sharder's label patches (`<ring>-sharder`). */
  private readonly fieldManager: string;
  private readonly leases = new Map<string, ObservedLease>();
  private ring = new HashRing([]);
  /** Keys waiting for an assignment, since when. */
  private readonly pendingSince = new Map<string, number>();
  private readonly taking = new Set<string>();
  private readonly queue = new BasicRateLimitingQueue<string>(defaultControllerRateLimiter<string>());
  private factory: SharedInformerFactoryBase | undefined;
  /** The controlled objects of each owner (its queue key): `<owned kind index>|<namespace>/<name>` → the owner's uid. */
  private readonly controlled = new Map<string, Map<string, string>>();
  private ownedInformers: { getIndexer(): { getByKey(key: string): KubeObject | undefined } }[] = [];
  private objectsInformer: { getIndexer(): { getByKey(key: string): KubeObject | undefined } } | undefined;

  constructor(private readonly options: SharderOptions) {
    this.logger = (options.logger ?? noopLogger).child({ ring: options.ring, sharder: options.identity });
    this.metrics = options.metrics ?? noopShardingMetrics;
    this.now = options.now ?? Date.now;
    this.shardLabel = shardLabel(options.ring);
    this.drainLabel = drainLabel(options.ring);
    this.fieldManager = sharderLeaseName(options.ring);
  }

  /** The live shards, sorted. */
  shards(): readonly string[] {
    return this.ring.shards;
  }

  /** The state of shard `name` now (`dead` when it has no Lease). */
  stateOf(name: string): ShardState {
    const l = this.leases.get(name);
    if (!l || l.holder !== name) return 'dead';
    return this.now() - l.observedAt < l.durationMs ? 'ready' : 'expired';
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.options;
    const factory = new SharedInformerFactoryBase(o.backend, 0, {});
    this.factory = factory;
    factory.scope(LeaseResource, { namespaces: [o.leaseNamespace], labelSelector: `${RING_LABEL}=${o.ring}` });
    const owned = o.owned ?? [];
    const namespaces = o.namespaces && o.namespaces.length > 0 ? { namespaces: o.namespaces } : {};
    if (namespaces.namespaces) factory.scope(o.resource, namespaces);
    // of an owned object the sharder keeps what it reads: its name, its controller and its shard label
    for (const r of owned) factory.scope(r, { ...namespaces, transform: (obj) => this.slim(obj) });
    const leases = factory.informerFor<Lease>(LeaseResource);
    const objects = factory.informerFor<KubeObject>(o.resource, { metadataOnly: true });
    this.objectsInformer = objects;
    this.ownedInformers = owned.map((r, i) => {
      const informer = factory.informerFor<KubeObject>(r, { metadataOnly: true });
      informer.addEventHandler({
        onAdd: (obj) => this.observeOwned(i, undefined, obj),
        onUpdate: (old, obj) => this.observeOwned(i, old, obj),
        onDelete: (obj) => this.observeOwned(i, isDeletedFinalStateUnknown<KubeObject>(obj) ? obj.obj : obj, undefined),
      });
      return informer;
    });
    leases.addEventHandler({
      onAdd: (l) => this.observe(l),
      onUpdate: (_, l) => this.observe(l),
      onDelete: (obj) => {
        const l = isDeletedFinalStateUnknown<Lease>(obj) ? obj.obj : obj;
        this.leases.delete(l.metadata?.name ?? '');
        this.recheck();
      },
    });
    const key = (obj: KubeObject): string => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    objects.addEventHandler({
      onAdd: (obj) => this.queue.add(key(obj)),
      onUpdate: (_, obj) => this.queue.add(key(obj)),
      onDelete: (obj) => {
        this.pendingSince.delete(key(isDeletedFinalStateUnknown<KubeObject>(obj) ? obj.obj : obj));
      },
    });
    const stop = (): void => this.queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    this.logger.info({}, 'sharder starting');
    try {
      factory.start(signal);
      const synced = await factory.waitForCacheSync(signal);
      if (signal.aborted || ![...synced.values()].every(Boolean)) return;
      this.recheck();
      const workers = Array.from({ length: o.workers ?? 8 }, () => this.worker(objects));
      const ticker = (async () => {
        let lastResync = this.now();
        while (await sleep(o.checkIntervalMs ?? 1000, signal)) {
          this.recheck();
          if (this.now() - lastResync >= (o.resyncMs ?? 60_000)) {
            lastResync = this.now();
            this.enqueueAll();
          }
        }
      })();
      await Promise.all([...workers, ticker]);
    } finally {
      signal.removeEventListener('abort', stop);
      this.queue.shutDown();
      await factory.shutdown();
      this.logger.info({}, 'sharder stopped');
    }
  }

  private enqueueAll(): void {
    const informer = this.factory?.informerFor<KubeObject>(this.options.resource, { metadataOnly: true });
    for (const k of informer?.getIndexer().listKeys() ?? []) this.queue.add(k.includes('/') ? k : `/${k}`);
  }

  /** `obj`'s metadata as far as the sharder reads it (an owned object's cache entry). */
  private slim(obj: KubeObject): KubeObject {
    const m = obj.metadata ?? {};
    const label = m.labels?.[this.shardLabel];
    const controller = m.ownerReferences?.find((x) => x.controller === true);
    return {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      metadata: {
        name: m.name,
        ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
        ...(m.uid !== undefined ? { uid: m.uid } : {}),
        ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
        ...(label !== undefined ? { labels: { [this.shardLabel]: label } } : {}),
        ...(controller ? { ownerReferences: [controller] } : {}),
      },
    };
  }

  /** The owner (its queue key and uid) of `obj` when an object of the primary kind controls it. */
  private ownerOf(obj: KubeObject): { key: string; uid: string } | undefined {
    const r = this.options.resource;
    const ref = obj.metadata?.ownerReferences?.find((x) => x.controller === true);
    if (!ref || ref.kind !== r.kind) return undefined;
    const slash = ref.apiVersion.indexOf('/');
    if ((slash < 0 ? '' : ref.apiVersion.slice(0, slash)) !== r.group) return undefined;
    return { key: `${r.namespaced ? (obj.metadata?.namespace ?? '') : ''}/${ref.name}`, uid: ref.uid };
  }

  /**
   * Keeps the index of controlled objects in step with the owned kinds' informers; queues the
   * owner of an object that is not labelled as its (settled) owner, so the sharder mends it.
   */
  private observeOwned(kind: number, old: KubeObject | undefined, obj: KubeObject | undefined): void {
    const cacheKey = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    const before = old && this.ownerOf(old);
    const after = obj && this.ownerOf(obj);
    if (before && old && (!after || after.key !== before.key)) {
      const set = this.controlled.get(before.key);
      set?.delete(`${kind}|${cacheKey(old)}`);
      if (set?.size === 0) this.controlled.delete(before.key);
    }
    if (!after || !obj) return;
    let set = this.controlled.get(after.key);
    if (!set) this.controlled.set(after.key, (set = new Map<string, string>()));
    set.set(`${kind}|${cacheKey(obj)}`, after.uid);
    // an owner that is where the ring wants it, with a controlled object labelled otherwise: mend it
    // (while the owner moves, its move labels what it controls)
    const owner = this.objectsInformer?.getIndexer().getByKey(cacheKeyOf(after.key));
    const label = owner?.metadata?.labels?.[this.shardLabel];
    if (label !== undefined && label !== obj.metadata?.labels?.[this.shardLabel] && label === this.desiredFor(owner!))
      this.queue.add(after.key);
  }

  /** The shard the ring wants `obj` (of the primary kind) on, if any shard lives. */
  private desiredFor(obj: KubeObject): string | undefined {
    const r = this.options.resource;
    return this.ring.shardFor(objectHashKey(r.group, r.kind, obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''));
  }

  private observe(lease: Lease): void {
    const name = lease.metadata?.name ?? '';
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const prev = this.leases.get(name);
    const changed = !prev || prev.holder !== holder || prev.renewTime !== spec.renewTime;
    this.leases.set(name, {
      holder,
      renewTime: spec.renewTime,
      durationMs: (spec.leaseDurationSeconds ?? 0) * 1000,
      observedAt: changed ? this.now() : prev.observedAt,
      ...(prev?.deadSince !== undefined && prev.holder === holder ? { deadSince: prev.deadSince } : {}),
    });
    this.recheck();
  }

  /** Recomputes the ring from the Leases; takes expired ones; deletes long-dead ones. */
  private recheck(): void {
    const live: string[] = [];
    for (const [name, l] of this.leases) {
      const state = this.stateOf(name);
      if (state === 'ready') live.push(name);
      else if (state === 'expired') void this.take(name);
      else {
        l.deadSince ??= this.now();
        if (this.now() - l.deadSince >= (this.options.deadLeaseTtlMs ?? 60_000)) void this.remove(name);
      }
    }
    const next = new HashRing(live);
    if (next.sameShards(this.ring)) return;
    const joined = next.shards.filter((s) => !this.ring.shards.includes(s));
    const left = this.ring.shards.filter((s) => !next.shards.includes(s));
    this.ring = next;
    this.metrics.setRingSize(next.shards.length);
    this.logger.info({ shards: next.shards, joined, left }, 'ring changed');
    this.enqueueAll();
  }

  /** Takes the expired Lease of shard `name` (holder: the sharder); the shard is dead from then on. */
  private async take(name: string): Promise<void> {
    if (this.taking.has(name)) return;
    this.taking.add(name);
    const o = this.options;
    try {
      const client = o.backend.resource<Lease>(LeaseResource, o.leaseNamespace);
      const current = await client.get(name);
      const spec = current.spec ?? {};
      if (spec.holderIdentity !== name) return;
      // a sharder paused past its own Lease judges every Lease expired on waking: it must not take one
      this.mayWrite();
      const now = microTime(this.now());
      const updated = await client.update({
        ...current,
        spec: {
          ...spec,
          holderIdentity: o.identity,
          leaseDurationSeconds: Math.max(1, Math.round((o.leaseDurationMs ?? 15_000) / 1000)),
          acquireTime: now,
          renewTime: now,
          leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
        },
      });
      this.logger.info({ shard: name }, 'shard lease expired: taken; its objects are reassigned');
      this.observe(updated);
      this.enqueueAll();
    } catch (e) {
      if (!isConflict(e) && !isNotFound(e) && !(e instanceof SharderLeaseLostError))
        this.logger.warn({ shard: name, err: errorMessage(e) }, 'could not take an expired shard lease');
    } finally {
      this.taking.delete(name);
    }
  }

  private async remove(name: string): Promise<void> {
    if (this.taking.has(name)) return;
    this.taking.add(name);
    try {
      this.mayWrite();
      await this.options.backend.resource<Lease>(LeaseResource, this.options.leaseNamespace).delete(name);
      this.logger.info({ shard: name }, 'deleted a dead shard lease');
    } catch (e) {
      if (!isNotFound(e) && !(e instanceof SharderLeaseLostError))
        this.logger.warn({ shard: name, err: errorMessage(e) }, 'could not delete a dead shard lease');
    } finally {
      this.taking.delete(name);
    }
  }

  private async worker(objects: { getIndexer(): { getByKey(key: string): KubeObject | undefined } }): Promise<void> {
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      const key = next.item;
      try {
        const cacheKey = cacheKeyOf(key);
        const obj = objects.getIndexer().getByKey(cacheKey);
        if (obj) await this.sync(key, obj);
        else this.pendingSince.delete(key);
        this.queue.forget(key);
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e) && !(e instanceof SharderLeaseLostError))
          this.logger.warn({ key, err: errorMessage(e) }, 'could not assign an object; retrying');
        if (!isNotFound(e)) this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** Brings one object's labels in line with the ring (one step: a drain, or an assignment). */
  private async sync(key: string, obj: KubeObject): Promise<void> {
    const desired = this.desiredFor(obj);
    if (desired === undefined) return; // no live shard: a ring change queues every object again
    const labels = obj.metadata?.labels ?? {};
    const current = labels[this.shardLabel];
    const draining = labels[this.drainLabel] !== undefined;
    if (current === desired) {
      this.pendingSince.delete(key);
      // the shard that holds it would label them so itself at its next write
      await this.labelControlled(key, obj, desired);
      if (draining) await this.patch(obj, { [this.drainLabel]: null });
      return;
    }
    if (!this.pendingSince.has(key)) this.pendingSince.set(key, this.now());
    const state = current === undefined ? 'dead' : this.stateOf(current);
    if (state === 'ready') {
      // the shard holds it: it lets go (removes both labels) once no reconcile of it runs there
      if (!draining) {
        await this.patch(obj, { [this.drainLabel]: 'true' });
        this.logger.debug({ key, from: current, to: desired }, 'draining object');
      }
      return;
    }
    if (state === 'expired') return; // its Lease is taken first (recheck), which queues the object again
    // no shard holds it now (unassigned, drained, or its shard dead): what it controls goes first,
    // so the new shard's caches hold those objects before it sees the owner
    await this.labelControlled(key, obj, desired);
    await this.patch(obj, { [this.shardLabel]: desired, [this.drainLabel]: null });
    const since = this.pendingSince.get(key) ?? this.now();
    this.pendingSince.delete(key);
    this.metrics.observeAssignmentLag((this.now() - since) / 1000);
    this.logger.debug({ key, from: current ?? null, to: desired }, 'assigned object');
  }

  /**
   * Labels the objects `owner` controls for `shard` (those not labelled so yet), all at once: a
   * merge patch of the label alone, answered as metadata. Not guarded by a resourceVersion: no
   * shard holds the owner while it moves, and the one that holds it writes the same label.
   */
  private async labelControlled(key: string, owner: KubeObject, shard: string): Promise<void> {
    const set = this.controlled.get(key);
    if (!set || set.size === 0) return;
    const uid = owner.metadata?.uid;
    const owned = this.options.owned ?? [];
    const patches: Promise<void>[] = [];
    for (const [entry, ownerUid] of set) {
      if (uid !== undefined && ownerUid !== uid) continue; // controlled by an earlier object of that name
      const bar = entry.indexOf('|');
      const kind = Number(entry.slice(0, bar));
      const cacheKey = entry.slice(bar + 1);
      const obj = this.ownedInformers[kind]?.getIndexer().getByKey(cacheKeyOf(cacheKey));
      if (!obj || obj.metadata?.labels?.[this.shardLabel] === shard) continue;
      patches.push(this.patchLabel(owned[kind], obj, { [this.shardLabel]: shard }));
    }
    const failed = (await Promise.allSettled(patches)).find(
      (p): p is PromiseRejectedResult => p.status === 'rejected' && !isNotFound(p.reason),
    );
    if (failed) throw failed.reason;
  }

  /** Throws unless this replica still holds the sharder Lease (see {@link SharderOptions.holds}). */
  private mayWrite(): void {
    if (this.options.holds && !this.options.holds())
      throw new SharderLeaseLostError(`sharder ${this.options.identity}: the sharder Lease is not held: write refused`);
  }

  private async patch(obj: KubeObject, labels: Record<string, string | null>): Promise<void> {
    const rv = obj.metadata?.resourceVersion;
    await this.patchLabel(this.options.resource, obj, labels, rv);
  }

  /** A merge patch of `labels` (with `resourceVersion` when given), its answer asked as metadata only. */
  private async patchLabel(
    r: TypedResource,
    obj: KubeObject,
    labels: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<void> {
    this.mayWrite();
    const b = this.options.backend;
    const ns = r.namespaced ? obj.metadata?.namespace : undefined;
    const client = b.metadata ? b.metadata(r, ns) : b.resource(r, ns);
    await client.patch(
      obj.metadata?.name ?? '',
      PatchType.Merge,
      { metadata: { ...(resourceVersion !== undefined ? { resourceVersion } : {}), labels } },
      { fieldManager: this.fieldManager },
    );
  }
}
