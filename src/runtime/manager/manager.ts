// The manager (controller-runtime's manager.Manager, the parts a controller needs): one
// shared informer per resource for every controller and the client, the client itself, and
// the controllers' lifecycle. Leader election, metrics and health probes come from
// runOperator (src/runtime/operator), which builds a manager from its flags and starts it.
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '../meta/types.js';
import { DEFAULT_BURST, DEFAULT_QPS, type RestConfig } from '../client/config.js';
import type { TypedResource } from '../client/resource.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { restBackend, isClientBackend, type ClientBackend } from '../typed/backend.js';
import {
  SharedInformerFactoryBase,
  type CacheOptions,
  type InformerForOptions,
  type ResourceCacheOptions,
} from '../informers/shared-informer-factory.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { noopControllerMetrics, type ControllerMetrics } from '../metrics/controller.js';
import type { EventBroadcaster, EventRecorder } from '../events/recorder.js';
import { waitForSyncedWithin } from '../cache/wait-synced.js';
import { ManagerClient, type Client } from '../cluster/client.js';
import type { Controller, ControllerHost } from '../controller/controller.js';
import { LeaderElector } from '../leaderelection/leader-election.js';
import { ShardLeaseLostError, ShardMember } from '../sharding/shard.js';
import { Sharder } from '../sharding/sharder.js';
import { defaultShardName, sharderLeaseName } from '../sharding/names.js';
import { noopShardingMetrics, type ShardingMetrics } from '../metrics/sharding.js';

/** How a manager runs as one shard of its controller's ring (see {@link ManagerOptions.sharding}). Durations in ms. */
export interface ManagerShardingOptions {
  /** This replica's shard: its Lease's name and its objects' label value (default: host name and a random suffix). */
  shard?: string;
  /** The ring: the labels' names and the Leases' ring label (default: the manager's name). */
  ring?: string;
  /** Namespace of the shard Leases and the sharder's Lease (default `default`). */
  leaseNamespace?: string;
  /** The Leases' timing, as leader election's (defaults 15 s, 10 s, 2 s). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Campaign on the ring's sharder Lease and run the sharder when elected (default true). */
  sharder?: boolean;
  /**
   * The sharder's own client-side rate limit (its requests do not wait behind the reconciles'):
   * requests a second and burst. Default: the client's, times one plus the owned kinds (a move
   * labels the object and what it controls of each owned kind). Only with a RestConfig client.
   */
  sharderQps?: number;
  sharderBurst?: number;
  metrics?: ShardingMetrics;
}

/** Options of {@link newManager}. Durations in ms. */
export interface ManagerOptions {
  /** The cluster: a RestConfig, a ClientBackend (e.g. the fake's `FakeClientBackend`), or a generated Clientset. */
  client: RestConfig | ClientBackend | { readonly backend: ClientBackend };
  /** The manager's name: logger name, default field manager, event source (default `crdgen-manager`). */
  name?: string;
  /** The field manager of the client's writes (default: `name`). */
  fieldManager?: string;
  /** Cache (and so reconcile) only this namespace; default every namespace. Shorthand for `cacheOptions.namespaces`. */
  namespace?: string;
  /**
   * What the cache holds (controller-runtime's cache.Options): default namespaces, label and
   * field selectors and transforms, and per kind in `byObject`, e.g.
   * `{ byObject: [{ resource: DeploymentResource, labelSelector: 'app.kubernetes.io/managed-by=db-operator' }] }`.
   * A label-selected cache holds (and the client reads) only the matching objects. Ignored
   * when `cache` is given (set them on that factory).
   */
  cacheOptions?: CacheOptions;
  /** Resync period of the shared informers (0, the default: none). */
  resyncMs?: number;
  /**
   * The informer factory to share (e.g. a generated `SharedInformerFactory`, so generated
   * listers and the controllers read the same caches). Default: a new one over `client`
   * with `namespace` and `resyncMs`. The manager starts it and shuts it down.
   */
  cache?: SharedInformerFactoryBase;
  logger?: Logger;
  /** Reconcile and workqueue metrics (runOperator passes its Prometheus registry). */
  metrics?: ControllerMetrics;
  /** Sends the Events reconcilers record (`context.recorder`); default: none are sent. */
  events?: EventBroadcaster;
  /** Default `maxConcurrentReconciles` of the controllers (default 1). */
  maxConcurrentReconciles?: number;
  /** Default cache-sync timeout of the controllers and the client's first reads (default 120000). */
  cacheSyncTimeoutMs?: number;
  /**
   * Run as one shard of the controller's ring: the replica holds a shard Lease, its cache holds
   * only the objects labelled `shard.crdgen.io/<ring>=<shard>` (of every kind it caches: the
   * controller's own kind and what those objects own, which the client labels on create and
   * update), and one replica of the ring at a time is the sharder that assigns the objects.
   * One controller with a `for` kind per sharded manager.
   */
  sharding?: ManagerShardingOptions;
}

/** Drops every event. */
const noopRecorder: EventRecorder = { event: () => undefined };

/**
 * A manager. State: new (controllers are added) → running (start: the cache runs, every
 * controller waits for its caches and runs its workers; controllers added now start at once)
 * → stopped (the signal aborted, the controllers drained, the cache shut down). Invariant:
 * one informer per resource (group, version, resource) whoever asks for it.
 */
export class Manager {
  readonly name: string;
  readonly logger: Logger;
  /** The API behind the client and the caches. */
  readonly backend: ClientBackend;
  /** The shared informers of the controllers and the client. */
  readonly cache: SharedInformerFactoryBase;
  /** The client reconcilers get (`context.client`). */
  readonly client: Client;
  private readonly options: ManagerOptions;
  private readonly controllers: Controller[] = [];
  private readonly running = new Set<Promise<void>>();
  private state: 'new' | 'running' | 'stopped' = 'new';
  private runSignal: AbortSignal | undefined;
  /** Set by `warmUp`: informers requested before `start` run on it. */
  private warmSignal: AbortSignal | undefined;
  private readonly stopController = new AbortController();
  private failure: { error: unknown } | undefined;
  /** What controllers see of the manager. */
  readonly host: ControllerHost;
  /** This replica's shard, when the manager runs sharded. */
  readonly shard: ShardMember | undefined;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.name = options.name ?? 'crdgen-manager';
    this.logger = options.logger ?? noopLogger;
    const c = options.client;
    this.backend = isClientBackend(c)
      ? c
      : typeof c === 'object' && c !== null && 'backend' in c && isClientBackend(c.backend)
        ? c.backend
        : restBackend(c as RestConfig);
    if (options.namespace && options.cacheOptions?.namespaces)
      throw new Error('manager options: give namespace or cacheOptions.namespaces, not both');
    const sh = options.sharding;
    if (sh && options.cache)
      throw new Error(
        'manager options: a sharded manager makes its own cache (its label selector is the shard); give cacheOptions, not cache',
      );
    this.shard = sh
      ? new ShardMember({
          backend: this.backend,
          ring: sh.ring ?? this.name,
          shard: sh.shard ?? defaultShardName(),
          leaseNamespace: sh.leaseNamespace ?? 'default',
          logger: this.logger,
          ...(sh.metrics ? { metrics: sh.metrics } : {}),
          ...(sh.leaseDurationMs !== undefined ? { leaseDurationMs: sh.leaseDurationMs } : {}),
          ...(sh.renewDeadlineMs !== undefined ? { renewDeadlineMs: sh.renewDeadlineMs } : {}),
          ...(sh.retryPeriodMs !== undefined ? { retryPeriodMs: sh.retryPeriodMs } : {}),
        })
      : undefined;
    const userSelector = options.cacheOptions?.labelSelector;
    this.cache =
      options.cache ??
      new SharedInformerFactoryBase(this.backend, options.resyncMs ?? 0, {
        ...options.cacheOptions,
        ...(this.shard
          ? { labelSelector: userSelector ? `${userSelector},${this.shard.selector}` : this.shard.selector }
          : {}),
        ...(options.namespace ? { namespace: options.namespace } : {}),
        informerOptions: {
          onHandlerError: (err) => this.logger.error({ err: errorMessage(err) }, 'event handler failed'),
          log: (message) => this.logger.info({}, message),
          // the informers' list/watch failures are log lines like the others (JSON, one stream)
          watchErrorHandler: (err, informer) =>
            this.logger.warn({ informer, err: errorMessage(err) }, 'list/watch failed'),
        },
      });
    const defaultConcurrency = options.maxConcurrentReconciles ?? 1;
    if (!(Number.isInteger(defaultConcurrency) && defaultConcurrency >= 1))
      throw new Error(`maxConcurrentReconciles must be an integer ≥ 1, got ${defaultConcurrency}`);
    const fieldManager = options.fieldManager ?? this.name;
    this.client = new ManagerClient({
      backend: this.backend,
      fieldManager,
      cachedNamespaces: (resource) => this.cache.namespacesOf(resource),
      syncedInformer: (resource, o) => this.syncedInformer(resource, o),
      cachedAs: (resource) =>
        this.cache.hasInformer(resource, { metadataOnly: true }) && !this.cache.hasInformer(resource)
          ? 'metadata'
          : 'whole',
      ...(this.shard
        ? {
            decorate: (obj: KubeObject) => this.shard!.decorate(obj),
            // a reconcile that was in flight when the process froze past its Lease writes nothing after it wakes
            beforeWrite: () => {
              if (!this.shard!.holds())
                throw new ShardLeaseLostError(`shard ${this.shard!.shard} does not hold its Lease: write refused`);
            },
          }
        : {}),
    });
    const metrics = options.metrics ?? noopControllerMetrics;
    this.host = {
      client: this.client,
      logger: this.logger,
      reconcileMetrics: metrics.reconcile,
      workqueueMetrics: metrics.workqueue,
      defaultConcurrency,
      defaultCacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 120_000,
      informer: (resource, o) => this.informer(resource, o),
      scope: (resource, o) => this.cache.scope(resource, o),
      recorder: (resource) => options.events?.newRecorder(resource) ?? noopRecorder,
      ...(this.shard ? { shard: this.shard } : {}),
    };
  }

  /** The namespace the cache is limited to ('' for all; the first of several). */
  get namespace(): string {
    return this.options.namespace ?? this.options.cacheOptions?.namespaces?.[0] ?? '';
  }

  /**
   * The shared informer of `resource` (its metadata-only one with `metadataOnly`), created on
   * first request and started if the manager runs.
   */
  informer<T extends KubeObject>(resource: TypedResource<T>, options: InformerForOptions = {}): SharedIndexInformer<T> {
    const informer = this.cache.informerFor<T>(resource, options);
    if (this.state === 'running' && this.runSignal) this.cache.start(this.runSignal);
    else if (this.state === 'new' && this.warmSignal) this.cache.start(this.warmSignal);
    return informer;
  }

  /**
   * Sets what the cache holds of `resource` (namespaces, selectors, transforms; see
   * CacheOptions.byObject) before its informer exists; the builder's `for`, `owns` and
   * `watches` options call it.
   */
  scope(resource: TypedResource, options: ResourceCacheOptions): void {
    this.cache.scope(resource, options);
  }

  /** The informer of `resource` once its cache has synced (the client's reads). */
  private async syncedInformer<T extends KubeObject>(
    resource: TypedResource<T>,
    options: InformerForOptions = {},
  ): Promise<SharedIndexInformer<T>> {
    if (this.state !== 'running' || !this.runSignal) {
      throw new Error(
        `the manager's cache is not running (${this.state === 'new' ? 'start the manager first' : 'the manager has stopped'}): cannot read ${resource.resource}`,
      );
    }
    const informer = this.informer(resource, options);
    if (informer.hasSynced()) return informer;
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    if (!(await waitForSyncedWithin(() => informer.hasSynced(), this.runSignal, timeoutMs))) {
      throw new Error(
        this.runSignal.aborted
          ? `the manager stopped before the cache of ${resource.resource} synced`
          : `the cache of ${resource.resource} did not sync within ${timeoutMs} ms`,
      );
    }
    return informer;
  }

  /** Adds a controller (the builder's `complete` does). Started at once when the manager runs. */
  add(controller: Controller): void {
    if (this.controllers.some((c) => c.name === controller.name)) {
      throw new Error(
        `a controller named ${JSON.stringify(controller.name)} is already in this manager; name controllers uniquely with named()`,
      );
    }
    if (this.state === 'stopped')
      throw new Error(`the manager has stopped; controller ${controller.name} was not added`);
    this.controllers.push(controller);
    if (this.state === 'running') this.launch(controller);
  }

  /** True once the manager has stopped (controllers can no longer be added). */
  isStopped(): boolean {
    return this.state === 'stopped';
  }

  /** Controllers added so far. */
  getControllers(): readonly Controller[] {
    return this.controllers;
  }

  /** True once every controller's caches have synced (readiness). */
  hasSynced(): boolean {
    return this.state === 'running' && this.controllers.every((c) => c.hasSynced());
  }

  /**
   * Starts the cache (every informer requested so far, and those requested later) before
   * `start`, until `signal` aborts: a warm standby fills its caches, and its controllers'
   * queues, while another replica leads; `start` then finds them synced and reconciles at once.
   */
  warmUp(signal: AbortSignal): void {
    if (this.state !== 'new') return;
    this.warmSignal = signal;
    this.cache.start(signal);
    void this.cache.waitForCacheSync(signal).then((synced) => {
      if (this.state === 'new' && synced.size > 0 && [...synced.values()].every(Boolean))
        this.logger.info({ informers: [...synced.keys()] }, 'warm standby: caches synced');
    });
  }

  /**
   * Runs the cache and every controller until `signal` aborts, then waits for the reconciles
   * in flight and stops the cache. Rejects (after stopping everything) when a controller
   * fails to start, e.g. its caches do not sync in time. A manager starts once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.state !== 'new') throw new Error('a manager starts once');
    this.state = 'running';
    const run = AbortSignal.any([signal, this.stopController.signal]);
    // every controller, worker and reconcile (an HTTP call with `context.signal`) may listen on it
    setMaxListeners(0, run);
    this.runSignal = run;
    this.logger.info({ controllers: this.controllers.map((c) => c.name) }, 'starting manager');
    const sharded = this.shard ? this.startShard(run) : undefined;
    this.cache.start(run);
    if (!sharded || (await sharded.joined)) for (const c of this.controllers) this.launch(c);
    try {
      if (!run.aborted)
        await new Promise<void>((resolve) => run.addEventListener('abort', () => resolve(), { once: true }));
      while (this.running.size > 0) await Promise.all([...this.running]);
    } finally {
      // the shard Lease is released only now, after the last reconcile: then the sharder moves its objects
      await sharded?.stop();
      this.state = 'stopped';
      await this.cache.shutdown();
      this.logger.info({}, 'manager stopped');
    }
    if (this.failure) throw this.failure.error;
  }

  /**
   * Joins the ring: holds the shard Lease (a loss stops the manager with a
   * ShardLeaseLostError), campaigns for the sharder, and counts the objects held.
   */
  private startShard(run: AbortSignal): { joined: Promise<boolean>; stop(): Promise<void> } {
    const shard = this.shard!;
    const sh = this.options.sharding ?? {};
    const primaries = this.controllers.filter((c) => c.forResource);
    if (primaries.length !== 1)
      throw new Error(
        `a sharded manager runs one controller with a for() kind; it has ${primaries.length} (${primaries.map((c) => c.name).join(', ')})`,
      );
    const resource = primaries[0].forResource!;
    shard.addPrimary(resource);
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    let joined!: (ok: boolean) => void;
    const joinedP = new Promise<boolean>((r) => (joined = r));
    const member = shard
      .run(run, () => finished, joined)
      .then((outcome) => {
        if (outcome.kind !== 'Lost') return;
        this.failure ??= { error: new ShardLeaseLostError(outcome.reason) };
        this.stopController.abort();
      });
    const timing = {
      ...(sh.leaseDurationMs !== undefined ? { leaseDurationMs: sh.leaseDurationMs } : {}),
      ...(sh.renewDeadlineMs !== undefined ? { renewDeadlineMs: sh.renewDeadlineMs } : {}),
      ...(sh.retryPeriodMs !== undefined ? { retryPeriodMs: sh.retryPeriodMs } : {}),
    };
    const leaseNamespace = sh.leaseNamespace ?? 'default';
    const metrics = sh.metrics ?? noopShardingMetrics;
    const campaign = async (): Promise<void> => {
      while (sh.sharder !== false && !run.aborted) {
        const elector = new LeaderElector({
          backend: this.backend,
          namespace: leaseNamespace,
          name: sharderLeaseName(shard.ring),
          identity: shard.shard,
          logger: this.logger.child({ ring: shard.ring, role: 'sharder' }),
          ...timing,
        });
        const namespaces = this.cache.namespacesOf(resource);
        // what the kind owns of other kinds (an object owning objects of its own kind stays where the ring puts it)
        const owned = primaries[0].ownedResources.filter(
          (r) => r.resource !== resource.resource || r.group !== resource.group,
        );
        const sharder = new Sharder({
          backend: this.sharderBackend(1 + owned.length),
          ring: shard.ring,
          leaseNamespace,
          resource,
          owned,
          identity: shard.shard,
          holds: () => elector.holds(),
          logger: this.logger,
          metrics,
          ...(namespaces ? { namespaces } : {}),
          ...(sh.leaseDurationMs !== undefined ? { leaseDurationMs: sh.leaseDurationMs } : {}),
          checkIntervalMs: Math.min(1000, sh.retryPeriodMs ?? 1000),
        });
        const outcome = await elector.run(run, (leadSignal) => sharder.run(leadSignal));
        if (outcome.kind !== 'Lost') return;
        this.logger.warn({ reason: outcome.reason }, 'sharder lease lost; campaigning again');
      }
    };
    const sharderDone = campaign().catch((e: unknown) => this.logger.error({ err: errorMessage(e) }, 'sharder failed'));
    const count = (): void => {
      for (const [kind, n] of primaries[0].cachedCounts()) metrics.setObjects(kind, n);
    };
    const counter = setInterval(count, 2000);
    counter.unref();
    return {
      joined: joinedP,
      stop: async () => {
        clearInterval(counter);
        count();
        finish();
        await Promise.all([member, sharderDone]);
      },
    };
  }

  /**
   * The sharder's client: its own token bucket (`sharderQps`/`sharderBurst`, default the
   * client's times `writesPerMove`), or the manager's backend when it was given one.
   */
  private sharderBackend(writesPerMove: number): ClientBackend {
    const c = this.options.client;
    if (isClientBackend(c) || (typeof c === 'object' && c !== null && 'backend' in c)) return this.backend;
    const { rateLimiter: _limiter, ...config } = c;
    const sh = this.options.sharding ?? {};
    return restBackend({
      ...config,
      qps: sh.sharderQps ?? (config.qps ?? DEFAULT_QPS) * writesPerMove,
      burst: sh.sharderBurst ?? (config.burst ?? DEFAULT_BURST) * writesPerMove,
    });
  }

  private launch(controller: Controller): void {
    const p = controller
      .start(this.runSignal!)
      .catch((error: unknown) => {
        this.failure ??= { error };
        this.logger.error(
          { controller: controller.name, err: errorMessage(error) },
          'controller failed; stopping the manager',
        );
        this.stopController.abort();
      })
      .finally(() => this.running.delete(p));
    this.running.add(p);
  }
}

/** A manager over `options.client` (controller-runtime's manager.New). */
export function newManager(options: ManagerOptions): Manager {
  return new Manager(options);
}
