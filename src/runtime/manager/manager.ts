// The manager (controller-runtime's manager.Manager, the parts a controller needs): one
// shared informer per resource for every controller and the client, the client itself, and
// the controllers' lifecycle. Leader election, metrics and health probes come from
// runOperator (src/runtime/operator), which builds a manager from its flags and starts it.
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '../meta/types.js';
import type { RestConfig } from '../client/config.js';
import type { TypedResource } from '../client/resource.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { restBackend, isClientBackend, type ClientBackend } from '../typed/backend.js';
import { SharedInformerFactoryBase } from '../informers/shared-informer-factory.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';
import { noopControllerMetrics, type ControllerMetrics } from '../metrics/controller.js';
import type { EventBroadcaster, EventRecorder } from '../events/recorder.js';
import { waitForSyncedWithin } from '../cache/wait-synced.js';
import { ManagerClient, type Client } from '../cluster/client.js';
import type { Controller, ControllerHost } from '../controller/controller.js';

/** Options of {@link newManager}. Durations in ms. */
export interface ManagerOptions {
  /** The cluster: a RestConfig, a ClientBackend (e.g. the fake's `FakeClientBackend`), or a generated Clientset. */
  client: RestConfig | ClientBackend | { readonly backend: ClientBackend };
  /** The manager's name: logger name, default field manager, event source (default `crdgen-manager`). */
  name?: string;
  /** The field manager of the client's writes (default: `name`). */
  fieldManager?: string;
  /** Cache (and so reconcile) only this namespace; default every namespace. */
  namespace?: string;
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
  private readonly stopController = new AbortController();
  private failure: { error: unknown } | undefined;
  /** What controllers see of the manager. */
  readonly host: ControllerHost;

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
    this.cache =
      options.cache ??
      new SharedInformerFactoryBase(this.backend, options.resyncMs ?? 0, {
        ...(options.namespace ? { namespace: options.namespace } : {}),
        informerOptions: {
          onHandlerError: (err) => this.logger.error({ err: errorMessage(err) }, 'event handler failed'),
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
      cacheNamespace: options.cache ? (options.cache.options.namespace ?? '') : (options.namespace ?? ''),
      syncedInformer: (resource) => this.syncedInformer(resource),
    });
    const metrics = options.metrics ?? noopControllerMetrics;
    this.host = {
      client: this.client,
      logger: this.logger,
      reconcileMetrics: metrics.reconcile,
      workqueueMetrics: metrics.workqueue,
      defaultConcurrency,
      defaultCacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 120_000,
      informer: (resource) => this.informer(resource),
      recorder: (resource) => options.events?.newRecorder(resource) ?? noopRecorder,
    };
  }

  /** The namespace the cache is limited to ('' for all). */
  get namespace(): string {
    return this.options.namespace ?? '';
  }

  /** The shared informer of `resource`, created on first request and started if the manager runs. */
  informer<T extends KubeObject>(resource: TypedResource<T>): SharedIndexInformer<T> {
    const informer = this.cache.informerFor<T>(resource);
    if (this.state === 'running' && this.runSignal) this.cache.start(this.runSignal);
    return informer;
  }

  /** The informer of `resource` once its cache has synced (the client's reads). */
  private async syncedInformer<T extends KubeObject>(resource: TypedResource<T>): Promise<SharedIndexInformer<T>> {
    if (this.state !== 'running' || !this.runSignal) {
      throw new Error(
        `the manager's cache is not running (${this.state === 'new' ? 'start the manager first' : 'the manager has stopped'}): cannot read ${resource.resource}`,
      );
    }
    const informer = this.informer(resource);
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
    this.cache.start(run);
    for (const c of this.controllers) this.launch(c);
    try {
      if (!run.aborted)
        await new Promise<void>((resolve) => run.addEventListener('abort', () => resolve(), { once: true }));
      while (this.running.size > 0) await Promise.all([...this.running]);
    } finally {
      this.state = 'stopped';
      await this.cache.shutdown();
      this.logger.info({}, 'manager stopped');
    }
    if (this.failure) throw this.failure.error;
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
