// The shared informer factory (client-go's informers.sharedInformerFactory, the part
// informer-gen does not specialise): one informer per resource, shared by everyone who
// asks; start/waitForCacheSync/shutdown over all of them. Generated factories extend it
// with typed accessors (`factory.coolops().v1alpha1().databaseManagers()`).
import { setMaxListeners } from 'node:events';
import type { KubeList, KubeObject } from '../meta/types.js';
import type { ListOptions, ListerWatcher } from '../client/types.js';
import type { ResourceDescriptor } from '../client/resource.js';
import type { RestConfig } from '../client/config.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { newSharedIndexInformer, type SharedIndexInformerOptions } from '../cache/shared-index-informer.js';
import { waitForCacheSync } from '../cache/wait-for-cache-sync.js';
import { ResourceLister } from '../listers/lister.js';
import { dropManagedFields } from '../cache/transform.js';
import { restBackend, isClientBackend, type ClientBackend } from '../typed/backend.js';

/** Group, version and plural resource: how `forResource` names a resource. */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** `databasemanagers.v1alpha1.coolops.cn` (kubectl's fully-qualified form); `pods.v1` for the core group. */
export function resourceKey(gvr: GroupVersionResource): string {
  return gvr.group === '' ? `${gvr.resource}.${gvr.version}` : `${gvr.resource}.${gvr.version}.${gvr.group}`;
}

/** Options of a shared informer factory (client-go's SharedInformerOption). Durations in ms. */
export interface SharedInformerFactoryOptions {
  /** Watch only this namespace (namespaced resources); default all namespaces. */
  namespace?: string;
  /** Adjusts every list and watch call's options (e.g. a label selector); may mutate or return new options. */
  tweakListOptions?: (options: ListOptions) => ListOptions | void;
  /** Resync period per resource, keyed by {@link resourceKey} (`databasemanagers.v1alpha1.coolops.cn`). */
  customResync?: Readonly<Record<string, number>>;
  /**
   * Applied to every object before it is cached (after managedFields are dropped, unless
   * `keepManagedFields`).
   */
  transform?: (obj: KubeObject) => KubeObject;
  /**
   * Keep `metadata.managedFields` in the informers' caches. Default false: they are
   * dropped before caching (controller-runtime's `TransformStripManagedFields`), because
   * a controller reads its objects from the cache and server-side apply bookkeeping is
   * rarely what it reads, while it is most of a small object's memory (a DatabaseManager
   * takes 0.86× its JSON size in the cache without them, 1.8× with them; see
   * docs/BENCHMARKS.md §3). Set true if handlers or listers read managedFields. They are
   * dropped in place ({@link dropManagedFields}) from the object the informer received, as
   * client-go's transforms may since 1.27: a custom ClientBackend must give every list and
   * watch event objects of its own, as the REST and fake backends do.
   */
  keepManagedFields?: boolean;
  /** Extra options for every informer (clock, backoff, metrics, page size, error hook). */
  informerOptions?: Omit<SharedIndexInformerOptions<KubeObject>, 'resyncPeriodMs'>;
}

/** What the factory's informers apply before caching: managedFields dropped in place (unless kept), then the user's transform. */
function cacheTransform(options: SharedInformerFactoryOptions): ((obj: KubeObject) => KubeObject) | undefined {
  const user = options.transform;
  if (options.keepManagedFields) return user;
  return user ? (obj) => user(dropManagedFields(obj)) : dropManagedFields;
}

/** An informer and its lister for a resource known only by GVR (client-go's GenericInformer). */
export interface GenericInformer<T extends KubeObject = KubeObject> {
  /** The shared informer. */
  informer(): SharedIndexInformer<T>;
  /** A lister over the informer's cache. */
  lister(): ResourceLister<T>;
}

/** Internal record of one informer. */
interface Entry {
  descriptor: ResourceDescriptor;
  informer: SharedIndexInformer<KubeObject>;
  /** Set once started: resolves when the informer's run ends. */
  running?: Promise<void>;
}

/**
 * The factory. State machine: open → (start: informers run) → shut down (no more starts).
 * Invariant: at most one informer per resource key; an informer is started at most once.
 */
export class SharedInformerFactoryBase {
  /** The backend list/watch calls go through. */
  protected readonly backend: ClientBackend;
  private readonly entries = new Map<string, Entry>();
  private readonly controller = new AbortController();
  private shuttingDown = false;

  /**
   * `client` is a generated Clientset (anything with a `backend`), a ClientBackend or a
   * RestConfig; `defaultResyncMs` is the handlers' default resync (0: none).
   */
  constructor(
    client: { readonly backend: ClientBackend } | ClientBackend | RestConfig,
    readonly defaultResyncMs: number = 0,
    readonly options: SharedInformerFactoryOptions = {},
  ) {
    if (!Number.isFinite(defaultResyncMs) || defaultResyncMs < 0)
      throw new Error(`defaultResync must be a non-negative number of ms, got ${defaultResyncMs}`);
    if (isClientBackend(client)) this.backend = client;
    else if (typeof client === 'object' && client !== null && 'backend' in client && isClientBackend(client.backend))
      this.backend = client.backend;
    else this.backend = restBackend(client as RestConfig);
  }

  /**
   * The shared informer of `descriptor`, created on first request (client-go's
   * InformerFor). Later calls return the same informer.
   */
  informerFor<T extends KubeObject>(descriptor: ResourceDescriptor): SharedIndexInformer<T> {
    const key = resourceKey({ group: descriptor.group, version: descriptor.version, resource: descriptor.resource });
    let e = this.entries.get(key);
    if (!e) {
      const informer = this.newInformer(descriptor, key);
      e = { descriptor, informer };
      this.entries.set(key, e);
    }
    return e.informer as unknown as SharedIndexInformer<T>;
  }

  private newInformer(descriptor: ResourceDescriptor, key: string): SharedIndexInformer<KubeObject> {
    const ns = descriptor.namespaced && this.options.namespace ? this.options.namespace : undefined;
    const client = this.backend.resource<KubeObject, KubeList<KubeObject>>(descriptor, ns);
    const tweak = this.options.tweakListOptions;
    const adjust = (o: ListOptions | undefined): ListOptions => {
      const copy: ListOptions = { ...o };
      return tweak ? (tweak(copy) ?? copy) : copy;
    };
    const lw: ListerWatcher<KubeObject> = {
      list: (o) => client.list(adjust(o)),
      watch: (o) => client.watch(adjust(o)),
    };
    const custom = this.options.customResync?.[key];
    const informer = newSharedIndexInformer<KubeObject>(lw, {
      ...this.options.informerOptions,
      name: key,
      resyncPeriodMs: custom ?? this.defaultResyncMs,
    });
    const transform = cacheTransform(this.options);
    if (transform) informer.setTransform(transform);
    return informer;
  }

  /**
   * Starts every informer not yet started; runs them until `signal` aborts or
   * {@link shutdown}. Idempotent: a second call only starts informers requested since.
   * Does nothing after shutdown.
   */
  start(signal?: AbortSignal): void {
    if (this.shuttingDown) return;
    const stop = signal ? AbortSignal.any([signal, this.controller.signal]) : this.controller.signal;
    // every informer and its reflector listen on it: many informers are not a listener leak
    setMaxListeners(0, stop);
    for (const e of this.entries.values()) {
      if (e.running) continue;
      e.running = e.informer.run(stop).catch((err: unknown) => {
        process.emitWarning(`the informer of ${e.descriptor.resource} stopped with an error: ${String(err)}`);
      });
    }
  }

  /**
   * Waits until every started informer has synced, or `signal` aborts. Resolves with
   * each started informer's sync state keyed by {@link resourceKey}.
   */
  async waitForCacheSync(signal?: AbortSignal): Promise<Map<string, boolean>> {
    const started = [...this.entries].filter(([, e]) => e.running !== undefined);
    const stop = signal ? AbortSignal.any([signal, this.controller.signal]) : this.controller.signal;
    await Promise.all(started.map(([, e]) => waitForCacheSync(stop, () => e.informer.hasSynced())));
    // `signal` stays referenced until here: Node 20 holds the sources of AbortSignal.any() weakly, and
    // an AbortSignal.timeout() the caller passed would otherwise be collected before it fires
    void signal?.aborted;
    return new Map(started.map(([k, e]) => [k, e.informer.hasSynced()]));
  }

  /**
   * Stops every informer and resolves once all have finished. After shutdown, `start`
   * does nothing (client-go's Shutdown). Idempotent.
   */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    this.controller.abort();
    await Promise.all([...this.entries.values()].flatMap((e) => e.running ?? []));
  }

  /** Descriptors this factory knows (generated factories list their resources). */
  protected knownResources(): readonly ResourceDescriptor[] {
    return [];
  }

  /**
   * Generic access by group/version/resource (client-go's ForResource). Throws when the
   * resource is not one this factory was generated for.
   */
  forResource(gvr: GroupVersionResource): GenericInformer {
    const d = this.knownResources().find(
      (r) => r.group === gvr.group && r.version === gvr.version && r.resource === gvr.resource,
    );
    if (!d)
      throw new Error(
        `no informer for resource ${JSON.stringify(resourceKey(gvr))}: this factory knows ${
          this.knownResources()
            .map((r) => resourceKey(r))
            .join(', ') || 'no resources'
        }`,
      );
    const informer = this.informerFor<KubeObject>(d); // registered now, as client-go's ForResource does
    return {
      informer: () => informer,
      lister: () =>
        new ResourceLister<KubeObject>(informer.getIndexer(), { group: d.group, resource: d.kind.toLowerCase() }),
    };
  }
}
