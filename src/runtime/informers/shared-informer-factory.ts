// The shared informer factory (client-go's informers.sharedInformerFactory, the part
// informer-gen does not specialise): one informer per resource (and one more for its
// metadata-only form), shared by everyone who asks; what each caches — namespaces, label and
// field selectors, transforms — set per kind (controller-runtime's cache.Options ByObject);
// start/waitForCacheSync/shutdown over all of them. Generated factories extend it with typed
// accessors (`factory.coolops().v1alpha1().databaseManagers()`).
import { setMaxListeners } from 'node:events';
import type { KubeList, KubeObject } from '../meta/types.js';
import type { ListOptions, ListerWatcher, Watch, WatchEvent } from '../client/types.js';
import type { ResourceClient, ResourceDescriptor } from '../client/resource.js';
import { asPartialObjectMetadata } from '../client/resource-client.js';
import { MultiNamespaceInformer } from '../cache/multi-namespace-informer.js';
import { parseSelector } from '../labels/parse.js';
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

/**
 * What the cache holds of one kind (controller-runtime's `cache.ByObject`): scoped to
 * namespaces and selectors, trimmed by transforms. Unset fields take the factory's defaults.
 */
export interface ResourceCacheOptions {
  /**
   * Cache only these namespaces (namespaced kinds; cluster-scoped ones ignore it): one list
   * and watch per namespace, read as one cache. Default: the factory's `namespaces`, or all.
   */
  namespaces?: readonly string[];
  /** Cache only objects whose labels match (`app=db,tier in (a,b)`): the server filters the list and watch. */
  labelSelector?: string;
  /** Cache only objects whose fields match (`metadata.name=x`, `status.phase!=Running`): the server filters. */
  fieldSelector?: string;
  /** Applied to every object before it is cached, after managedFields are dropped (unless kept). */
  transform?: (obj: KubeObject) => KubeObject;
  /** Keep `metadata.managedFields` of this kind (see SharedInformerFactoryOptions.keepManagedFields). */
  keepManagedFields?: boolean;
  /** Resync period of this kind's informers (ms; default: the factory's). */
  resyncMs?: number;
}

/** One kind's settings in {@link CacheOptions.byObject}: its group, version and resource, and what to cache of it. */
export type ByObject = ResourceCacheOptions & { resource: GroupVersionResource };

/**
 * What a cache holds (controller-runtime's `cache.Options`): defaults for every kind —
 * `namespaces` (DefaultNamespaces), `labelSelector`, `fieldSelector`, `transform`,
 * `keepManagedFields` — and per-kind settings in `byObject`, which win over the defaults.
 */
export interface CacheOptions {
  /** Default namespaces of namespaced kinds (controller-runtime's DefaultNamespaces); default all. */
  namespaces?: readonly string[];
  /** Default label selector of every kind. */
  labelSelector?: string;
  /** Default field selector of every kind. */
  fieldSelector?: string;
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
  /** Per-kind settings (controller-runtime's ByObject); a kind named twice is an error. */
  byObject?: readonly ByObject[];
}

/** Options of a shared informer factory (client-go's SharedInformerOption). Durations in ms. */
export interface SharedInformerFactoryOptions extends CacheOptions {
  /** Watch only this namespace (namespaced resources); default all namespaces. Shorthand for `namespaces: [namespace]`. */
  namespace?: string;
  /** Adjusts every list and watch call's options (e.g. a label selector); may mutate or return new options. */
  tweakListOptions?: (options: ListOptions) => ListOptions | void;
  /** Resync period per resource, keyed by {@link resourceKey} (`databasemanagers.v1alpha1.coolops.cn`). */
  customResync?: Readonly<Record<string, number>>;
  /** Extra options for every informer (clock, backoff, metrics, page size, streaming lists, log, error hook). */
  informerOptions?: Omit<SharedIndexInformerOptions<KubeObject>, 'resyncPeriodMs'>;
}

/** Options of {@link SharedInformerFactoryBase.informerFor}. */
export interface InformerForOptions {
  /**
   * The metadata-only informer of the kind (controller-runtime's `OnlyMetadata`): it lists and
   * watches `PartialObjectMetadata` (the Accept header), so its cache holds each object's
   * metadata alone — what an owner-reference or label lookup needs, at a fraction of the
   * memory. It is another informer than the full one, with the same scope.
   */
  metadataOnly?: boolean;
}

/** The settings the factory resolved for one kind. */
interface ResolvedScope {
  /** Namespaces (namespaced kinds); undefined for all. */
  namespaces: readonly string[] | undefined;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
  transform: ((obj: KubeObject) => KubeObject) | undefined;
  keepManagedFields: boolean;
  resyncMs: number | undefined;
}

/** What the factory's informers apply before caching: managedFields dropped in place (unless kept), then the user's transform. */
function cacheTransform(scope: ResolvedScope): ((obj: KubeObject) => KubeObject) | undefined {
  const user = scope.transform;
  if (scope.keepManagedFields) return user;
  return user ? (obj) => user(dropManagedFields(obj)) : dropManagedFields;
}

/** `a,b`: both selectors must match (comma is AND in label and field selectors alike). */
function andSelectors(...parts: (string | undefined)[]): string | undefined {
  const given = parts.filter((p): p is string => !!p && p.trim() !== '');
  return given.length ? given.join(',') : undefined;
}

/** A metadata-only ListerWatcher over a client of whole objects: each object cut down to its metadata. */
function metadataView(client: ResourceClient<KubeObject>): ResourceClient<KubeObject> {
  const cut = (w: Watch<KubeObject>): Watch<KubeObject> => ({
    stop: () => w.stop(),
    async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<KubeObject>> {
      for await (const ev of w)
        yield ev.type === 'ERROR' ? ev : { type: ev.type, object: asPartialObjectMetadata(ev.object) };
    },
  });
  return {
    ...client,
    list: async (o) => {
      const l = await client.list(o);
      return { ...l, items: l.items.map(asPartialObjectMetadata) };
    },
    watch: async (o) => cut(await client.watch(o)),
  };
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

/** The key of a kind's settings and of its informers: `resourceKey`, `#metadata` for the metadata-only one. */
const METADATA_SUFFIX = '#metadata';

/**
 * The factory. State machine: open → (start: informers run) → shut down (no more starts).
 * Invariant: at most one informer per resource key and form (full or metadata-only); an
 * informer is started at most once; a kind's cache settings do not change once it has one.
 */
export class SharedInformerFactoryBase {
  /** The backend list/watch calls go through. */
  protected readonly backend: ClientBackend;
  private readonly entries = new Map<string, Entry>();
  /** Per-kind settings: `byObject`, and `scope` calls. */
  private readonly scopes = new Map<string, ResourceCacheOptions>();
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
    if (options.namespace !== undefined && options.namespaces !== undefined)
      throw new Error('cache options: give namespace or namespaces, not both');
    checkScope('the default', options);
    for (const b of options.byObject ?? []) {
      const key = resourceKey(b.resource);
      if (this.scopes.has(key)) throw new Error(`cache options: byObject names ${key} twice`);
      const { resource: _r, ...scope } = b;
      checkScope(key, scope);
      this.scopes.set(key, scope);
    }
  }

  /**
   * Sets what the cache holds of `resource` (namespaces, selectors, transforms), over the
   * factory's defaults and its `byObject` entry. Only before the kind has an informer; the
   * same settings again are a no-op, different ones an error (one cache per kind).
   */
  scope(resource: GroupVersionResource, options: ResourceCacheOptions): void {
    const key = resourceKey(resource);
    checkScope(key, options);
    const current = this.scopes.get(key) ?? {};
    const merged: ResourceCacheOptions = { ...current, ...options };
    const same = sameScope(current, merged);
    if (same) return;
    if (this.entries.has(key) || this.entries.has(key + METADATA_SUFFIX)) {
      throw new Error(
        `the cache of ${key} already runs with ${describeScope(current)}; it cannot also hold ${describeScope(merged)} (one cache per kind: scope it once, in the manager's cache options)`,
      );
    }
    this.scopes.set(key, merged);
  }

  /** The namespaces the cache holds of `resource` (namespaced kinds), or undefined for all. */
  namespacesOf(resource: GroupVersionResource & { namespaced?: boolean }): readonly string[] | undefined {
    if (resource.namespaced === false) return undefined;
    return this.resolve(resource).namespaces;
  }

  /** Defaults, then the kind's own settings. */
  private resolve(resource: GroupVersionResource): ResolvedScope {
    const o = this.options;
    const own = this.scopes.get(resourceKey(resource)) ?? {};
    const namespaces = own.namespaces ?? o.namespaces ?? (o.namespace ? [o.namespace] : undefined);
    return {
      namespaces: namespaces && namespaces.length > 0 && !namespaces.includes('') ? namespaces : undefined,
      labelSelector: own.labelSelector ?? o.labelSelector,
      fieldSelector: own.fieldSelector ?? o.fieldSelector,
      transform: own.transform ?? o.transform,
      keepManagedFields: own.keepManagedFields ?? o.keepManagedFields ?? false,
      resyncMs: own.resyncMs,
    };
  }

  /**
   * The shared informer of `descriptor`, created on first request (client-go's
   * InformerFor). Later calls return the same informer; `metadataOnly` asks for the
   * kind's metadata-only informer instead.
   */
  informerFor<T extends KubeObject>(
    descriptor: ResourceDescriptor,
    options: InformerForOptions = {},
  ): SharedIndexInformer<T> {
    const base = resourceKey({ group: descriptor.group, version: descriptor.version, resource: descriptor.resource });
    const key = options.metadataOnly ? base + METADATA_SUFFIX : base;
    let e = this.entries.get(key);
    if (!e) {
      const informer = this.newInformer(descriptor, key, options.metadataOnly === true);
      e = { descriptor, informer };
      this.entries.set(key, e);
    }
    return e.informer as unknown as SharedIndexInformer<T>;
  }

  private newInformer(
    descriptor: ResourceDescriptor,
    key: string,
    metadataOnly: boolean,
  ): SharedIndexInformer<KubeObject> {
    const scope = this.resolve(descriptor);
    const tweak = this.options.tweakListOptions;
    const adjust = (o: ListOptions | undefined): ListOptions => {
      const copy: ListOptions = { ...o };
      const labelSelector = andSelectors(scope.labelSelector, copy.labelSelector);
      const fieldSelector = andSelectors(scope.fieldSelector, copy.fieldSelector);
      if (labelSelector) copy.labelSelector = labelSelector;
      if (fieldSelector) copy.fieldSelector = fieldSelector;
      return tweak ? (tweak(copy) ?? copy) : copy;
    };
    const listerWatcher = (ns: string | undefined): ListerWatcher<KubeObject> => {
      const client = metadataOnly
        ? (this.backend.metadata?.<KubeObject>(descriptor, ns) ??
          metadataView(this.backend.resource<KubeObject, KubeList<KubeObject>>(descriptor, ns)))
        : this.backend.resource<KubeObject, KubeList<KubeObject>>(descriptor, ns);
      return {
        list: (o) => client.list(adjust(o)),
        watch: (o) => client.watch(adjust(o)),
        streamingLists: (client as Partial<ListerWatcher<KubeObject>>).streamingLists === true,
      };
    };
    const base = key.replace(METADATA_SUFFIX, '');
    const resyncPeriodMs = scope.resyncMs ?? this.options.customResync?.[base] ?? this.defaultResyncMs;
    const informerOptions = { ...this.options.informerOptions, resyncPeriodMs };
    const namespaces = descriptor.namespaced ? scope.namespaces : undefined;
    let informer: SharedIndexInformer<KubeObject>;
    if (!namespaces || namespaces.length === 1) {
      informer = newSharedIndexInformer<KubeObject>(listerWatcher(namespaces?.[0]), { ...informerOptions, name: key });
    } else {
      informer = new MultiNamespaceInformer<KubeObject>(
        new Map(
          [...new Set(namespaces)].map((ns) => [
            ns,
            newSharedIndexInformer<KubeObject>(listerWatcher(ns), { ...informerOptions, name: `${key} ${ns}` }),
          ]),
        ),
      );
    }
    const trim = cacheTransform(scope);
    // a server without the metadata-only form sends whole objects: cut down here too
    const transform = metadataOnly
      ? trim
        ? (obj: KubeObject) => trim(asPartialObjectMetadata(obj))
        : asPartialObjectMetadata
      : trim;
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

/** Checks a kind's settings: selectors that parse, namespaces that are names. */
function checkScope(what: string, o: ResourceCacheOptions): void {
  if (o.labelSelector !== undefined) {
    try {
      parseSelector(o.labelSelector);
    } catch (e) {
      throw new Error(
        `cache options of ${what}: labelSelector ${JSON.stringify(o.labelSelector)}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  if (o.fieldSelector !== undefined && !/^\s*$|^[^=!,]+(==?|!=)[^,]*(,[^=!,]+(==?|!=)[^,]*)*$/.test(o.fieldSelector)) {
    throw new Error(
      `cache options of ${what}: fieldSelector ${JSON.stringify(o.fieldSelector)}: want field=value, field==value or field!=value terms joined by commas`,
    );
  }
  for (const ns of o.namespaces ?? []) {
    if (typeof ns !== 'string' || (ns !== '' && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns)))
      throw new Error(`cache options of ${what}: namespace ${JSON.stringify(ns)} is not a namespace name`);
  }
}

function sameScope(a: ResourceCacheOptions, b: ResourceCacheOptions): boolean {
  return (
    String(a.namespaces ?? '') === String(b.namespaces ?? '') &&
    a.labelSelector === b.labelSelector &&
    a.fieldSelector === b.fieldSelector &&
    a.transform === b.transform &&
    a.keepManagedFields === b.keepManagedFields &&
    a.resyncMs === b.resyncMs
  );
}

function describeScope(o: ResourceCacheOptions): string {
  const parts: string[] = [];
  if (o.namespaces) parts.push(`namespaces ${o.namespaces.join(',')}`);
  if (o.labelSelector) parts.push(`labelSelector ${JSON.stringify(o.labelSelector)}`);
  if (o.fieldSelector) parts.push(`fieldSelector ${JSON.stringify(o.fieldSelector)}`);
  if (o.transform) parts.push('a transform');
  if (o.keepManagedFields !== undefined) parts.push(`keepManagedFields ${String(o.keepManagedFields)}`);
  if (o.resyncMs !== undefined) parts.push(`resync ${o.resyncMs} ms`);
  return parts.length ? parts.join(', ') : 'the default settings';
}
