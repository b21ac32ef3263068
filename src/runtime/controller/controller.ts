// The controller a builder makes (controller-runtime's internal controller): watches on the
// manager's shared informers feed a rate-limited workqueue of request keys; workers hand
// each key to the reconciler, one reconcile per key at a time, and act on its result.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../meta/types.js';
import type { TypedResource } from '../client/resource.js';
import { isConflict } from '../client/errors.js';
import type { ResourceEventHandlerRegistration, SharedIndexInformer } from '../cache/shared-informer.js';
import { isDeletedFinalStateUnknown } from '../cache/deleted-final-state-unknown.js';
import type { Clock } from '../workqueue/clock.js';
import { BasicRateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import { LOW_PRIORITY, PriorityQueue } from '../workqueue/priority-queue.js';
import { defaultControllerRateLimiter, type RateLimiter } from '../workqueue/rate-limiters.js';
import type { WorkqueueMetricsProvider } from '../metrics/workqueue.js';
import { errorMessage, type Logger } from '../log/logger.js';
import type { ReconcileMetrics, ReconcileResult } from '../metrics/controller.js';
import type { EventRecorder } from '../events/recorder.js';
import { InFlightKeys } from './in-flight.js';
import { waitForSyncedWithin } from '../cache/wait-synced.js';
import type { CreateEvent, DeleteEvent, UpdateEvent } from '../handler/event.js';
import type { EventHandler, RequestQueue } from '../handler/handler.js';
import { passesCreate, passesDelete, passesUpdate, type Predicate } from '../predicate/predicate.js';
import {
  isTerminalError,
  requestFromKey,
  requestKey,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from '../reconcile/reconcile.js';
import type { Client } from '../cluster/client.js';
import type { ShardMember } from '../sharding/shard.js';

/** Options of one controller (controller-runtime's controller.Options). Durations in ms. */
export interface ControllerOptions {
  /**
   * Reconciles running at once, each of a different key (default: the manager's
   * `maxConcurrentReconciles`, which is 1 unless set, or `--workers` under runOperator).
   */
  maxConcurrentReconciles?: number;
  /** Backoff of failed keys (default: `defaultControllerRateLimiter()`: 5 ms doubling to 1000 s, overall 10 qps / burst 100). */
  rateLimiter?: RateLimiter<string>;
  /** How long to wait for the watches' caches at start before failing (default: the manager's, 120000). */
  cacheSyncTimeoutMs?: number;
  /** The workqueue's time source: delays of `requeueAfterMs` and backoffs (tests pass a FakeClock). */
  clock?: Clock;
  /**
   * A priority queue (controller-runtime's default since 0.23; default true): what an
   * informer's initial list and its resyncs bring is queued at low priority, watch events,
   * requeues and explicit enqueues at normal priority, so that after a restart with a large
   * backlog a change made now is reconciled before the backlog is through. Before the
   * controller starts (a warm standby: its informers run while another replica leads), a watch
   * event goes in at normal priority only if it is a user's change of the `for` kind — a new
   * object, a new generation, a deletion started or done; the leader's own writes (statuses,
   * the objects it owns) join the backlog at low priority. false: one FIFO.
   */
  usePriorityQueue?: boolean;
}

/** What a controller needs from its manager. */
export interface ControllerHost {
  readonly client: Client;
  readonly logger: Logger;
  readonly reconcileMetrics: ReconcileMetrics;
  readonly workqueueMetrics: WorkqueueMetricsProvider;
  /** The default of `maxConcurrentReconciles`. */
  readonly defaultConcurrency: number;
  readonly defaultCacheSyncTimeoutMs: number;
  /**
   * The manager's shared informer of `resource`, its metadata-only one with `metadataOnly`
   * (created on first request; started when the manager runs).
   */
  informer<T extends KubeObject>(
    resource: TypedResource<T>,
    options?: { metadataOnly?: boolean },
  ): SharedIndexInformer<T>;
  /** Sets what the cache holds of `resource` before its informer exists (see Manager.scope). */
  scope?(
    resource: TypedResource,
    options: { namespaces?: readonly string[]; labelSelector?: string; fieldSelector?: string },
  ): void;
  recorder(resource: TypedResource | undefined): EventRecorder;
  /**
   * The replica's shard, when the manager runs sharded: the controller reconciles a key only
   * when the shard admits it, and lets the objects the sharder drains go.
   */
  readonly shard?: ShardMember;
}

/** A watch: a shared informer's events through predicates into an event handler. */
interface Watch {
  resource: TypedResource;
  informer: SharedIndexInformer<KubeObject>;
  registration: ResourceEventHandlerRegistration;
}

/**
 * A controller. State: new → running (start) → stopped. Invariants: a key is handed to at
 * most one worker at a time (the workqueue's processing set; `inFlight.overlaps` counts any
 * breach and stays 0); every key taken from the queue is `done` exactly once.
 */
export class Controller {
  /** Keys (`namespace/name`) waiting, delayed or being reconciled. */
  readonly queue: PriorityQueue<string> | BasicRateLimitingQueue<string>;
  /** Keys being reconciled now (and a count of overlapping reconciles, which must stay 0). */
  readonly inFlight: InFlightKeys;
  private readonly watches: Watch[] = [];
  /** The kinds watched as owned by the `for` kind (`owns`). */
  private readonly owned: TypedResource[] = [];
  private readonly requestQueue: RequestQueue;
  /** What handlers queue for events of an initial list or a resync (the requestQueue without a priority queue). */
  private readonly lowPriorityQueue: RequestQueue;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private started = false;
  private concurrency: number | undefined;
  /** The informer of the `for` kind (the shard's verdicts read its cache). */
  private forInformer: SharedIndexInformer<KubeObject> | undefined;

  constructor(
    /** Unique within the manager: logger, metrics and workqueue name. */
    readonly name: string,
    private readonly host: ControllerHost,
    private readonly reconciler: Reconciler,
    private readonly options: ControllerOptions = {},
    /** The kind the controller reconciles (for events about it, and the kind a shard holds), if it has a `for`. */
    readonly forResource?: TypedResource,
  ) {
    const n = options.maxConcurrentReconciles;
    if (n !== undefined && !(Number.isInteger(n) && n >= 1))
      throw new Error(`controller ${name}: maxConcurrentReconciles must be an integer ≥ 1, got ${n}`);
    const limiter = options.rateLimiter ?? defaultControllerRateLimiter<string>(options.clock);
    const queueConfig = {
      name,
      metricsProvider: host.workqueueMetrics,
      ...(options.clock ? { clock: options.clock } : {}),
    };
    const pq = options.usePriorityQueue === false ? undefined : new PriorityQueue<string>(limiter, queueConfig);
    this.queue = pq ?? new BasicRateLimitingQueue<string>(limiter, queueConfig);
    this.inFlight = new InFlightKeys(host.reconcileMetrics.newOverlapsMetric(name));
    this.requestQueue = {
      add: (r) => this.queue.add(requestKey(r)),
      addAfter: (r, ms) => this.queue.addAfter(requestKey(r), ms),
    };
    this.lowPriorityQueue = pq
      ? {
          add: (r) => pq.addWithOptions({ priority: LOW_PRIORITY }, requestKey(r)),
          addAfter: (r, ms) => pq.addWithOptions({ priority: LOW_PRIORITY, afterMs: ms }, requestKey(r)),
        }
      : this.requestQueue;
    this.logger = host.logger.child({ controller: name });
    this.recorder = host.recorder(forResource);
  }

  /**
   * Watches `resource` on the manager's shared informer (its metadata-only one with
   * `metadataOnly`: the handler and predicates then see PartialObjectMetadata): its events
   * pass `predicates` (all of them) on to `handler`, which queues requests. `owns` marks a kind
   * the `for` kind owns (a sharded ring's sharder moves its objects with their owner). Before or
   * after start.
   */
  watch<T extends KubeObject>(
    resource: TypedResource<T>,
    handler: EventHandler<T>,
    predicates: readonly Predicate<T>[] = [],
    options: { metadataOnly?: boolean; owns?: boolean } = {},
  ): void {
    if (options.owns && !this.owned.includes(resource)) this.owned.push(resource);
    const q = this.requestQueue;
    // an initial list's adds and a resync's updates (same resourceVersion) wait behind real changes
    const low = this.lowPriorityQueue;
    const informer = this.host.informer(resource, options.metadataOnly ? { metadataOnly: true } : {});
    const isFor = resource === this.forResource;
    if (isFor && !this.forInformer) {
      this.forInformer = informer as unknown as SharedIndexInformer<KubeObject>;
      this.host.shard?.watchPrimary(this.forInformer, (key) => this.queue.add(key));
    }
    const registration = informer.addEventHandler({
      onAdd: (object, isInInitialList) => {
        const e: CreateEvent<T> = { object, isInInitialList };
        // standing by, a new object of another kind is the leader's doing (an owned object it created)
        const backlog = isInInitialList || (!this.started && !isFor);
        if (handler.create && predicates.every((p) => passesCreate(p, e))) return handler.create(e, backlog ? low : q);
        return undefined;
      },
      onUpdate: (objectOld, objectNew) => {
        const e: UpdateEvent<T> = { objectOld, objectNew };
        const rv = objectNew.metadata?.resourceVersion;
        const resync = rv !== undefined && objectOld.metadata?.resourceVersion === rv;
        const backlog = resync || (!this.started && !(isFor && isUserChange(objectOld, objectNew)));
        if (handler.update && predicates.every((p) => passesUpdate(p, e))) return handler.update(e, backlog ? low : q);
        return undefined;
      },
      onDelete: (obj) => {
        const unknown = isDeletedFinalStateUnknown<T>(obj);
        const e: DeleteEvent<T> = { object: unknown ? obj.obj : obj, deleteStateUnknown: unknown };
        if (handler.delete && predicates.every((p) => passesDelete(p, e))) return handler.delete(e, q);
        return undefined;
      },
    });
    this.watches.push({ resource, informer: informer as unknown as SharedIndexInformer<KubeObject>, registration });
  }

  /** The kinds the `for` kind owns (watched with `owns`). */
  get ownedResources(): readonly TypedResource[] {
    return this.owned;
  }

  /** The objects the controller's informers cache, by kind (one count per informer). */
  cachedCounts(): Map<string, number> {
    const out = new Map<string, number>();
    const seen = new Set<SharedIndexInformer<KubeObject>>();
    for (const w of this.watches) {
      if (seen.has(w.informer)) continue;
      seen.add(w.informer);
      out.set(w.resource.kind, (out.get(w.resource.kind) ?? 0) + w.informer.getIndexer().listKeys().length);
    }
    return out;
  }

  /** True once every watch has delivered its informer's initial list. */
  hasSynced(): boolean {
    return this.watches.every((w) => w.registration.hasSynced());
  }

  /** The reconciles this controller runs at once. */
  get maxConcurrentReconciles(): number {
    return this.concurrency ?? this.options.maxConcurrentReconciles ?? this.host.defaultConcurrency;
  }

  /**
   * Waits for the watches' caches, then runs the workers until `signal` aborts; then lets
   * the reconciles in flight finish. Rejects when the caches do not sync within
   * `cacheSyncTimeoutMs`. A controller starts once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} was started twice (added to a manager twice?)`);
    this.started = true;
    this.concurrency = this.maxConcurrentReconciles;
    const stop = (): void => void this.queue.shutDownWithDrain();
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    try {
      const timeoutMs = this.options.cacheSyncTimeoutMs ?? this.host.defaultCacheSyncTimeoutMs;
      this.logger.info({}, 'waiting for caches to sync');
      if (!(await waitForSyncedWithin(() => this.hasSynced(), signal, timeoutMs))) {
        if (signal.aborted) return;
        const pending = this.watches.filter((w) => !w.registration.hasSynced()).map((w) => w.resource.resource);
        throw new Error(
          `controller ${this.name}: the caches of ${[...new Set(pending)].join(', ')} did not sync within ${timeoutMs} ms`,
        );
      }
      this.logger.info({ workers: this.concurrency }, 'caches synced; starting workers');
      this.host.reconcileMetrics.setWorkers(this.name, this.concurrency);
      await Promise.all(Array.from({ length: this.concurrency }, () => this.runWorker(signal)));
    } finally {
      signal.removeEventListener('abort', stop);
      await this.queue.shutDownWithDrain();
      this.host.reconcileMetrics.setWorkers(this.name, 0);
    }
  }

  private async runWorker(signal: AbortSignal): Promise<void> {
    while (await this.processNextWorkItem(signal)) await yieldToEventLoop();
  }

  /** Takes one key from the queue and hands it to {@link reconcileHandler}; false once the queue has shut down. */
  private async processNextWorkItem(signal: AbortSignal): Promise<boolean> {
    const next = await this.queue.get();
    if (next.shutdown) return false;
    const key = next.item;
    const shard = this.host.shard;
    if (shard && this.forResource && this.forInformer) {
      const cached = this.forInformer.getIndexer().getByKey(key);
      const verdict = shard.admit(key, cached);
      if (verdict !== 'reconcile') {
        try {
          if (verdict === 'drain' && cached) await shard.acknowledgeDrain(this.forResource, cached);
          this.queue.forget(key);
        } catch {
          this.queue.addRateLimited(key); // the cache was behind (a Conflict), or the API failed: again later
        } finally {
          this.queue.done(key);
        }
        return true;
      }
    }
    try {
      await this.reconcileHandler(next.item, signal);
    } finally {
      this.queue.done(next.item);
    }
    return true;
  }

  /**
   * Reconciles `key` once and acts on what follows (controller-runtime's reconcileHandler): an
   * error is retried with backoff (a terminal one is dropped), `requeueAfterMs` queues the key
   * again after that delay, `requeue` after the rate limiter's backoff, and anything else forgets
   * it. Every reconcile ends with one log line carrying its `result`, `startedAt` and `durationMs`:
   * at debug when it finished, at error when it failed.
   */
  private async reconcileHandler(key: string, signal: AbortSignal): Promise<void> {
    const request = requestFromKey(key);
    const logger = this.logger.child({
      key,
      namespace: request.namespace,
      name: request.name,
      reconcileID: randomUUID(),
    });
    if (this.inFlight.begin(key)) logger.warn({ overlaps: this.inFlight.overlaps }, 'overlapping reconcile of one key');
    const startedAt = new Date().toISOString();
    const started = performance.now();
    const context: ReconcileContext = {
      signal,
      logger,
      client: this.host.client,
      recorder: this.recorder,
      controller: this.name,
    };
    let next: Next;
    try {
      next = decide(await this.reconciler(request, context));
    } catch (error) {
      next = { kind: 'error', error };
    } finally {
      this.inFlight.end(key);
    }
    const ms = performance.now() - started;
    const timing = { startedAt, durationMs: Math.round(ms * 1000) / 1000 };
    let result: ReconcileResult;
    switch (next.kind) {
      case 'error':
        result = this.onError(key, next.error, logger, timing);
        break;
      case 'requeue-after':
        this.queue.forget(key);
        this.queue.addAfter(key, next.ms);
        result = 'requeue_after';
        logger.debug({ result, requeueAfterMs: next.ms, ...timing }, 'reconciled');
        break;
      case 'requeue':
        this.queue.addRateLimited(key);
        result = 'requeue';
        logger.debug({ result, ...timing }, 'reconciled');
        break;
      case 'forget':
        this.queue.forget(key);
        result = 'success';
        logger.debug({ result, ...timing }, 'reconciled');
        break;
    }
    this.host.reconcileMetrics.observeReconcile(this.name, result, ms / 1000);
  }

  /** A reconcile failed: terminal errors are dropped, conflicts and other errors retried with backoff. */
  private onError(key: string, err: unknown, logger: Logger, timing: ReconcileTiming): ReconcileResult {
    if (isTerminalError(err)) {
      // not retried; the next change to the object queues it again (controller-runtime keeps the
      // limiter's count, which only leaks memory for keys that never come back: forgotten here)
      this.queue.forget(key);
      this.host.reconcileMetrics.observeTerminalError?.(this.name);
      logger.error(
        { result: 'error', err: errorMessage(err), ...timing },
        'reconcile failed with a terminal error; not requeued',
      );
      return 'error';
    }
    this.queue.addRateLimited(key);
    if (isConflict(err)) {
      // the cache was behind a write (often this controller's own): not a failure, just retry
      logger.debug({ result: 'requeue', err: errorMessage(err), ...timing }, 'object changed meanwhile; requeued');
      return 'requeue';
    }
    logger.error(
      { result: 'error', err: errorMessage(err), retries: this.queue.numRequeues(key), ...timing },
      'reconcile failed; requeued with backoff',
    );
    return 'error';
  }
}

/** When a reconcile started (ISO time) and how long it took (ms), as its log line carries them. */
interface ReconcileTiming {
  startedAt: string;
  durationMs: number;
}

/** What follows a reconcile. */
type Next =
  { kind: 'error'; error: unknown } | { kind: 'requeue-after'; ms: number } | { kind: 'requeue' } | { kind: 'forget' };

/** What a reconciler's result asks for; a `requeueAfterMs` that is no finite number of ms ≥ 0 is an error. */
function decide(result: Result | void): Next {
  if (result == null) return { kind: 'forget' };
  const after = result.requeueAfterMs;
  if (after !== undefined && !(Number.isFinite(after) && after >= 0)) {
    const error = new TypeError(
      `the reconciler returned requeueAfterMs ${String(after)}: want a finite number of ms ≥ 0`,
    );
    return { kind: 'error', error };
  }
  if (after !== undefined && after > 0) return { kind: 'requeue-after', ms: after };
  if (result.requeue) return { kind: 'requeue' };
  return { kind: 'forget' };
}

/** How long the workers may run on promise continuations alone before they let timers and I/O in. */
const WORKER_SLICE_MS = 10;
let sliceStart = performance.now();

/**
 * Lets the event loop run (timers, I/O) once the process's workers have run for
 * {@link WORKER_SLICE_MS} without it. A reconcile that only reads the cache never waits on I/O:
 * without this, a backlog of such reconciles (every object already as wanted, after a restart or
 * a failover) runs as one chain of promise continuations, and a leader's lease renewal, health
 * probes and metrics wait until the whole queue is through (Go's workers are goroutines, and its
 * scheduler preempts them).
 */
async function yieldToEventLoop(): Promise<void> {
  if (performance.now() - sliceStart < WORKER_SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStart = performance.now();
}

/**
 * Whether an update is a change a user asked for rather than a controller's write: a new
 * generation (the API server bumps it on spec changes, and when a deletion with finalizers
 * starts), a deletion started, or a kind without generations (nothing tells the two apart).
 */
function isUserChange(objectOld: KubeObject, objectNew: KubeObject): boolean {
  const before = objectOld.metadata?.generation;
  const after = objectNew.metadata?.generation;
  if (before === undefined && after === undefined) return true;
  if (before !== after) return true;
  return objectNew.metadata?.deletionTimestamp !== undefined && objectOld.metadata?.deletionTimestamp === undefined;
}
