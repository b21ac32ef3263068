// The client a manager hands its reconcilers (controller-runtime's client.Client, as the manager's
// cluster provides it): reads come from the manager's shared informer caches (an informer is
// started for a resource on its first read), writes go to the API server. On top: createOrUpdate,
// a server-side apply helper, and finalizer patches that are safe alongside server-side apply.
import type { KubeList, KubeObject, PartialObjectMetadata } from '../meta/types.js';
import type { ApplyConfigurationFor } from '../typed/apply-configuration.js';
import type { ClientBackend } from '../typed/backend.js';
import type { SharedIndexInformer } from '../cache/shared-informer.js';
import { apiVersionOf } from '../client/resource-client.js';
import { isAlreadyExists, isNotFound } from '../client/errors.js';
import {
  PatchType,
  type CreateOptions,
  type DeleteOptions,
  type FieldValidation,
  type PatchOptions,
  type ResourceClient,
  type TypedResource,
} from '../client/resource.js';
import { notFoundError } from '../listers/lister.js';
import { listAllByNamespace } from '../cache/listers.js';
import { toSelector } from '../labels/parse.js';
import type { Selector } from '../labels/selector.js';
import { hasFinalizer } from '../meta/finalizers.js';
import { jsonEqual } from '../meta/json.js';
import { canonicalJson, LAST_SPEC_ANNOTATION, objectContent, specAsLastWritten } from '../meta/last-spec.js';

/** Names one object: its namespace (ignored for a cluster-scoped kind) and name. A ReconcileRequest is one. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** Options of {@link Client.list}. */
export interface CacheListOptions {
  /** Only this namespace (default: every namespace the cache holds). */
  namespace?: string;
  /** Only objects whose labels match (`app=db,tier in (a,b)`, or a Selector). */
  labelSelector?: string | Selector;
}

/** Options of the writes (the manager's field manager unless `fieldManager` is given). */
export type WriteOptions = Omit<CreateOptions, 'signal' | 'timeoutMs'>;

/** Options of {@link Client.apply}. */
export interface ClientApplyOptions {
  /** The field manager (default: the manager's). */
  fieldManager?: string;
  /**
   * Take over fields another manager owns instead of failing with a Conflict. Default
   * **true**: a controller is the authority on what it applies (Kubernetes' advice for
   * controllers), so a conflict would only stall it.
   */
  force?: boolean;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
}

/**
 * An apply configuration of `T` for {@link Client.apply}: apiVersion and kind may be left out
 * (taken from the resource), metadata.name (and namespace, for a namespaced kind) are required,
 * every other field is optional at every depth. A generated `…ApplyConfiguration` is one.
 */
export type ApplyInput<T> = Omit<ApplyConfigurationFor<T>, 'apiVersion' | 'kind'> & {
  apiVersion?: string;
  kind?: string;
};

/** What {@link Client.createOrUpdate} did (controllerutil.OperationResult). */
export type OperationResult = 'created' | 'updated' | 'unchanged';

/** Reads straight from the API server, bypassing the caches (the manager's APIReader). */
export interface ApiReader {
  /** The object, as the API server has it now; NotFound (an ApiError) when it does not exist. */
  get<T extends KubeObject>(resource: TypedResource<T>, key: ObjectKey): Promise<T>;
  /** Every object (following pages), optionally of one namespace and label selector. */
  list<T extends KubeObject>(resource: TypedResource<T>, options?: CacheListOptions): Promise<T[]>;
}

/**
 * The reconciler's client. Objects it returns are copies, yours to change. Reads may lag
 * behind the writes of the same reconcile (the cache catches up through the watch): an update
 * built on a stale read fails with a Conflict, which the controller retries.
 */
export interface Client {
  /** The field manager of every write that does not name one. */
  readonly fieldManager: string;
  /** Reads bypassing the cache. */
  readonly apiReader: ApiReader;
  /**
   * The object from the cache (an informer for `resource` is started and synced on first use).
   * Rejects with NotFound (an ApiError; see `isNotFound`) when the cache does not have it.
   */
  get<T extends KubeObject>(resource: TypedResource<T>, key: ObjectKey): Promise<T>;
  /** Objects from the cache, sorted by namespace and name. */
  list<T extends KubeObject>(resource: TypedResource<T>, options?: CacheListOptions): Promise<T[]>;
  /**
   * The object's metadata from the kind's metadata-only cache (controller-runtime's Get of a
   * PartialObjectMetadata): its informer is started and synced on first use; it holds each
   * object's metadata alone. Rejects with NotFound when the cache does not have it.
   */
  getMetadata(resource: TypedResource, key: ObjectKey): Promise<PartialObjectMetadata>;
  /** Metadata of the objects in the kind's metadata-only cache, sorted by namespace and name. */
  listMetadata(resource: TypedResource, options?: CacheListOptions): Promise<PartialObjectMetadata[]>;
  /** Creates `obj` (namespace from its metadata); resolves with the stored object. */
  create<T extends KubeObject>(resource: TypedResource<T>, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces `obj` (optimistic concurrency on metadata.resourceVersion). */
  update<T extends KubeObject>(resource: TypedResource<T>, obj: T, options?: WriteOptions): Promise<T>;
  /** Replaces the status subresource of `obj`. */
  updateStatus<T extends KubeObject>(resource: TypedResource<T>, obj: T, options?: WriteOptions): Promise<T>;
  /** Patches the object `key` (JSON, merge or strategic merge patch; see `PatchType`). */
  patch<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    patchType: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T>;
  /** Patches the status subresource of the object `key`. */
  patchStatus<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    patchType: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T>;
  /** Deletes the object `key`; NotFound when it is already gone. */
  delete<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    options?: Omit<DeleteOptions, 'signal' | 'timeoutMs'>,
  ): Promise<void>;
  /**
   * Server-side apply of `config`: the fields it sets become the field manager's, fields the
   * manager set before and leaves out now are removed (unless another manager owns them).
   * `force` defaults to true (see {@link ClientApplyOptions.force}).
   */
  apply<T extends KubeObject>(
    resource: TypedResource<T>,
    config: ApplyInput<T>,
    options?: ClientApplyOptions,
  ): Promise<T>;
  /** Server-side apply to the status subresource. */
  applyStatus<T extends KubeObject>(
    resource: TypedResource<T>,
    config: ApplyInput<T>,
    options?: ClientApplyOptions,
  ): Promise<T>;
  /**
   * controllerutil.CreateOrUpdate: reads `key` from the cache; when absent, `mutate`s a new
   * object (apiVersion, kind, name and namespace filled in) and creates it; else `mutate`s a
   * copy and updates it unless nothing changed. `mutate` must not change the name or namespace.
   * A create that finds the object already there (the cache was behind) reads it from the API
   * server and goes on as an update.
   *
   * A kind the manager caches as metadata only (a watch with `metadataOnly`, nothing reading
   * it whole) is not cached whole for this: `mutate` runs on the cached metadata alone to learn
   * what it sets, which is recorded in the object's `crdgen.dev/last-spec` annotation; when the
   * metadata says the object is as last written (specAsLastWritten: the record, and
   * managedFields, which that kind's cache must keep) nothing is read or sent, and the result's
   * object is the metadata with what `mutate` sets; otherwise the object is read from the API
   * server, `mutate`d and updated. There `mutate` must not assume the object has a spec.
   */
  createOrUpdate<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    mutate: (obj: T) => void | Promise<void>,
    options?: WriteOptions,
  ): Promise<{ operation: OperationResult; object: T }>;
  /**
   * Adds `finalizer` to `obj` unless it has it, with a JSON merge patch guarded by
   * `obj`'s resourceVersion (a Conflict when `obj` is stale). A patch is an update, not an
   * apply: the finalizer belongs to no apply configuration, so no server-side apply of the
   * object — by any field manager, this one included — removes it. Resolves with the object
   * as stored (or `obj` itself when the finalizer was there).
   */
  addFinalizer<T extends KubeObject>(resource: TypedResource<T>, obj: T, finalizer: string): Promise<T>;
  /**
   * Removes `finalizer` from `obj` with a JSON patch that tests the entry first (it fails,
   * to be retried, when the list changed meanwhile). Resolves with the stored object, or
   * undefined when that was the last finalizer of an object being deleted (it is gone) or the
   * object was gone already.
   */
  removeFinalizer<T extends KubeObject>(resource: TypedResource<T>, obj: T, finalizer: string): Promise<T | undefined>;
}

/** What the client needs from its manager: the API, and the shared informer of a resource once its cache has synced. */
export interface ClientHost {
  readonly backend: ClientBackend;
  readonly fieldManager: string;
  /** The one namespace the caches hold namespaced objects of, or '' for all (see `cachedNamespaces`). */
  readonly cacheNamespace?: string;
  /** The namespaces the cache holds of `resource` (a namespaced kind), undefined for all; wins over `cacheNamespace`. */
  cachedNamespaces?(resource: TypedResource): readonly string[] | undefined;
  /**
   * The shared informer of `resource` (its metadata-only one with `metadataOnly`), started
   * (if the manager runs) and synced; rejects before the manager starts.
   */
  syncedInformer<T extends KubeObject>(
    resource: TypedResource<T>,
    options?: { metadataOnly?: boolean },
  ): Promise<SharedIndexInformer<T>>;
  /**
   * How the cache holds `resource`: `metadata` when only its metadata-only informer exists
   * (a watch with metadataOnly), `whole` otherwise (a read starts the full one).
   */
  cachedAs?(resource: TypedResource): 'whole' | 'metadata';
  /** Changes an object before it is created or updated (a shard labels what its objects own). */
  decorate?(obj: KubeObject): void;
  /** Called before every write; throws to refuse it (a shard that no longer holds its Lease writes nothing). */
  beforeWrite?(): void;
}

/**
 * JSON equality where a key holding `undefined` counts as absent (what the server would store):
 * the runtime's one structural equality (`jsonEqual`), under the name reconcilers know it by.
 */
export const semanticEqual: (a: unknown, b: unknown) => boolean = jsonEqual;

function describe(resource: TypedResource, key: ObjectKey): string {
  return `${resource.resource} ${resource.namespaced ? `${key.namespace ?? ''}/` : ''}${key.name}`;
}

/** The client over `host`. */
export class ManagerClient implements Client {
  readonly apiReader: ApiReader;

  constructor(private readonly host: ClientHost) {
    this.apiReader = {
      get: (resource, key) =>
        this.api(resource, this.namespaceOf(resource, key, 'get'))
          .get(key.name)
          .then((o) => this.typed(resource, o)),
      list: async (resource, options = {}) => {
        const ns = resource.namespaced ? options.namespace || undefined : undefined;
        const sel = options.labelSelector === undefined ? undefined : String(toSelector(options.labelSelector));
        const list = await this.api(resource, ns).listAll(sel ? { labelSelector: sel } : {});
        return list.items.map((o) => this.typed(resource, o));
      },
    };
  }

  get fieldManager(): string {
    return this.host.fieldManager;
  }

  private api<T extends KubeObject>(
    resource: TypedResource<T>,
    namespace: string | undefined,
  ): ResourceClient<T, KubeList<T>> {
    return this.host.backend.resource<T>(resource, namespace);
  }

  /** The namespace of `key` for `resource`; throws for a namespaced kind without one. */
  private namespaceOf(resource: TypedResource, key: ObjectKey, verb: string): string | undefined {
    if (!key || typeof key.name !== 'string' || key.name === '')
      throw new Error(`${verb} ${resource.resource}: the key needs a name`);
    if (!resource.namespaced) return undefined;
    if (!key.namespace)
      throw new Error(
        `${verb} ${describe(resource, key)}: ${resource.resource} are namespaced; the key needs a namespace`,
      );
    return key.namespace;
  }

  /** `obj` with apiVersion and kind filled in from `resource` (list items and cached built-ins lack them). */
  private typed<T extends KubeObject>(resource: TypedResource<T>, obj: T): T {
    if (obj.apiVersion && obj.kind) return obj;
    return { ...obj, apiVersion: obj.apiVersion || apiVersionOf(resource), kind: obj.kind || resource.kind };
  }

  private writeOptions<O extends { fieldManager?: string }>(o: O | undefined): O & { fieldManager: string } {
    return { ...(o ?? ({} as O)), fieldManager: o?.fieldManager || this.host.fieldManager };
  }

  /** `obj` as the host's decorate leaves it (a copy when it changes anything). */
  private decorated<T extends KubeObject>(obj: T): T {
    if (!this.host.decorate) return obj;
    const copy = { ...obj, metadata: { ...obj.metadata } };
    this.host.decorate(copy);
    return copy;
  }

  /** Rejects a read of a namespace the cache does not hold (it would only ever be NotFound or empty). */
  private checkCached(resource: TypedResource, namespace: string | undefined, verb: string): void {
    if (!resource.namespaced) return;
    const only = this.host.cachedNamespaces
      ? this.host.cachedNamespaces(resource)
      : this.host.cacheNamespace
        ? [this.host.cacheNamespace]
        : undefined;
    if (!only) return;
    // a list of every namespace reads every namespace the cache holds
    if (namespace === undefined ? verb === 'list' || verb === 'listMetadata' : only.includes(namespace)) return;
    const held =
      only.length === 1
        ? `only namespace ${JSON.stringify(only[0])}`
        : `only namespaces ${only.map((n) => JSON.stringify(n)).join(', ')}`;
    throw new Error(
      `${verb} ${resource.resource}${namespace ? ` in namespace ${JSON.stringify(namespace)}` : ' in every namespace'}: the manager caches ${held} (use apiReader to read elsewhere)`,
    );
  }

  async get<T extends KubeObject>(resource: TypedResource<T>, key: ObjectKey): Promise<T> {
    return this.typed(resource, structuredClone(await this.cached(resource, key, 'get', false)));
  }

  async list<T extends KubeObject>(resource: TypedResource<T>, options: CacheListOptions = {}): Promise<T[]> {
    const out = await this.cachedList(resource, options, 'list', false);
    return out.map((o) => this.typed(resource, structuredClone(o)));
  }

  async getMetadata(resource: TypedResource, key: ObjectKey): Promise<PartialObjectMetadata> {
    return structuredClone(await this.cached(resource, key, 'getMetadata', true));
  }

  async listMetadata(resource: TypedResource, options: CacheListOptions = {}): Promise<PartialObjectMetadata[]> {
    return (await this.cachedList(resource, options, 'listMetadata', true)).map((o) => structuredClone(o));
  }

  /** The cached object `key` (not copied); NotFound when the cache does not have it. */
  private async cached<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    verb: string,
    metadataOnly: boolean,
  ): Promise<T> {
    const ns = this.namespaceOf(resource, key, verb);
    this.checkCached(resource, ns, verb);
    const informer = await this.host.syncedInformer(resource, metadataOnly ? { metadataOnly } : undefined);
    const cached = informer.getIndexer().getByKey(ns ? `${ns}/${key.name}` : key.name);
    if (cached === undefined) throw notFoundError({ group: resource.group, resource: resource.resource }, key.name);
    return cached;
  }

  /** The cached objects (not copied) of a list, sorted by namespace and name. */
  private async cachedList<T extends KubeObject>(
    resource: TypedResource<T>,
    options: CacheListOptions,
    verb: string,
    metadataOnly: boolean,
  ): Promise<T[]> {
    this.checkCached(resource, options.namespace || undefined, verb);
    const informer = await this.host.syncedInformer(resource, metadataOnly ? { metadataOnly } : undefined);
    const selector = options.labelSelector === undefined ? undefined : toSelector(options.labelSelector);
    const out: T[] = [];
    listAllByNamespace(informer.getIndexer(), resource.namespaced ? (options.namespace ?? '') : '', selector, (o) =>
      out.push(o),
    );
    const key = (o: T): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
    out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    return out;
  }

  async create<T extends KubeObject>(resource: TypedResource<T>, obj: T, options?: WriteOptions): Promise<T> {
    this.host.beforeWrite?.();
    const ns = resource.namespaced
      ? this.namespaceOf(
          resource,
          { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name || obj.metadata?.generateName || '' },
          'create',
        )
      : undefined;
    return this.typed(
      resource,
      await this.api(resource, ns).create(this.decorated(this.typed(resource, obj)), this.writeOptions(options)),
    );
  }

  async update<T extends KubeObject>(resource: TypedResource<T>, obj: T, options?: WriteOptions): Promise<T> {
    this.host.beforeWrite?.();
    const ns = this.namespaceOf(
      resource,
      { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' },
      'update',
    );
    return this.typed(
      resource,
      await this.api(resource, ns).update(this.decorated(this.typed(resource, obj)), this.writeOptions(options)),
    );
  }

  async updateStatus<T extends KubeObject>(resource: TypedResource<T>, obj: T, options?: WriteOptions): Promise<T> {
    this.host.beforeWrite?.();
    const ns = this.namespaceOf(
      resource,
      { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' },
      'updateStatus',
    );
    return this.typed(
      resource,
      await this.api(resource, ns).updateStatus(this.typed(resource, obj), this.writeOptions(options)),
    );
  }

  async patch<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    patchType: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T> {
    this.host.beforeWrite?.();
    const ns = this.namespaceOf(resource, key, 'patch');
    return this.typed(
      resource,
      await this.api(resource, ns).patch(key.name, patchType, patch, this.writeOptions(options) as PatchOptions),
    );
  }

  async patchStatus<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    patchType: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T> {
    this.host.beforeWrite?.();
    const ns = this.namespaceOf(resource, key, 'patchStatus');
    return this.typed(
      resource,
      await this.api(resource, ns).patchStatus(key.name, patchType, patch, this.writeOptions(options) as PatchOptions),
    );
  }

  async delete<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    options?: Omit<DeleteOptions, 'signal' | 'timeoutMs'>,
  ): Promise<void> {
    this.host.beforeWrite?.();
    const ns = this.namespaceOf(resource, key, 'delete');
    await this.api(resource, ns).delete(key.name, options);
  }

  private applyConfig<T extends KubeObject>(
    resource: TypedResource<T>,
    config: ApplyInput<T>,
    verb: string,
  ): ApplyConfigurationFor<T> {
    const apiVersion = apiVersionOf(resource);
    if (config.apiVersion !== undefined && config.apiVersion !== apiVersion)
      throw new Error(
        `${verb} ${resource.resource}: the apply configuration's apiVersion ${JSON.stringify(config.apiVersion)} is not ${JSON.stringify(apiVersion)}`,
      );
    if (config.kind !== undefined && config.kind !== resource.kind)
      throw new Error(
        `${verb} ${resource.resource}: the apply configuration's kind ${JSON.stringify(config.kind)} is not ${JSON.stringify(resource.kind)}`,
      );
    this.namespaceOf(resource, config.metadata ?? { name: '' }, verb);
    return { ...config, apiVersion, kind: resource.kind };
  }

  private applyOptions(o: ClientApplyOptions | undefined): {
    fieldManager: string;
    force: boolean;
    dryRun?: boolean;
    fieldValidation?: FieldValidation;
  } {
    return { ...o, fieldManager: o?.fieldManager || this.host.fieldManager, force: o?.force ?? true };
  }

  async apply<T extends KubeObject>(
    resource: TypedResource<T>,
    config: ApplyInput<T>,
    options?: ClientApplyOptions,
  ): Promise<T> {
    this.host.beforeWrite?.();
    const c = this.applyConfig(resource, config, 'apply');
    const ns = resource.namespaced ? c.metadata.namespace : undefined;
    return this.typed(resource, await this.api(resource, ns).apply(c as never, this.applyOptions(options)));
  }

  async applyStatus<T extends KubeObject>(
    resource: TypedResource<T>,
    config: ApplyInput<T>,
    options?: ClientApplyOptions,
  ): Promise<T> {
    this.host.beforeWrite?.();
    const c = this.applyConfig(resource, config, 'applyStatus');
    const ns = resource.namespaced ? c.metadata.namespace : undefined;
    return this.typed(resource, await this.api(resource, ns).applyStatus(c as never, this.applyOptions(options)));
  }

  async createOrUpdate<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    mutate: (obj: T) => void | Promise<void>,
    options?: WriteOptions,
  ): Promise<{ operation: OperationResult; object: T }> {
    const ns = this.namespaceOf(resource, key, 'createOrUpdate') ?? '';
    const mutated = async (obj: T): Promise<T> => {
      await mutate(obj);
      this.host.decorate?.(obj);
      if ((obj.metadata?.name ?? '') !== key.name || (resource.namespaced && (obj.metadata?.namespace ?? '') !== ns)) {
        throw new Error(
          `createOrUpdate ${describe(resource, key)}: the mutate function must not change the object's name or namespace`,
        );
      }
      return obj;
    };
    if (this.host.cachedAs?.(resource) === 'metadata')
      return this.createOrUpdateByMetadata(resource, key, mutated, options);
    // the cached object itself, only read here (the informer replaces cached objects, never changes
    // them): `mutate` gets the one copy, which is also what an unchanged result hands out
    let current: T | undefined;
    try {
      current = this.typed(resource, await this.cached(resource, key, 'get', false));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (current === undefined) {
      const fresh = {
        apiVersion: apiVersionOf(resource),
        kind: resource.kind,
        metadata: { name: key.name, ...(ns ? { namespace: ns } : {}) },
      } as T;
      try {
        return { operation: 'created', object: await this.create(resource, await mutated(fresh), options) };
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        current = await this.apiReader.get(resource, key); // the cache was behind a create
      }
    }
    const next = await mutated(structuredClone(current));
    // (equal as JSON: `next` is the caller's copy of what is stored)
    if (semanticEqual(current, next)) return { operation: 'unchanged', object: next };
    // a record of what was set before no longer says what the object holds
    if (next.metadata?.annotations?.[LAST_SPEC_ANNOTATION] !== undefined)
      delete next.metadata.annotations[LAST_SPEC_ANNOTATION];
    return { operation: 'updated', object: await this.update(resource, next, options) };
  }

  /** createOrUpdate of a kind cached as metadata only (see {@link Client.createOrUpdate}). */
  private async createOrUpdateByMetadata<T extends KubeObject>(
    resource: TypedResource<T>,
    key: ObjectKey,
    mutated: (obj: T) => Promise<T>,
    options: WriteOptions | undefined,
  ): Promise<{ operation: OperationResult; object: T }> {
    const record = (obj: T, content: Record<string, unknown>): T => {
      obj.metadata = {
        ...obj.metadata,
        annotations: { ...obj.metadata?.annotations, [LAST_SPEC_ANNOTATION]: canonicalJson(content) },
      };
      return obj;
    };
    // the cached metadata itself, only read here; `mutate` gets a copy without managedFields
    // (the largest part of it, which only the judgement below reads)
    let meta: PartialObjectMetadata | undefined;
    try {
      meta = await this.cached(resource, key, 'getMetadata', true);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (meta === undefined) {
      const ns = resource.namespaced ? key.namespace : undefined;
      const fresh = {
        apiVersion: apiVersionOf(resource),
        kind: resource.kind,
        metadata: { name: key.name, ...(ns ? { namespace: ns } : {}) },
      } as T;
      const next = await mutated(fresh);
      try {
        return {
          operation: 'created',
          object: await this.create(resource, record(next, objectContent(next)), options),
        };
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        meta = await this.apiReader.get(resource, key); // the cache was behind a create
      }
    }
    // what mutate sets, learnt from the metadata alone
    const { managedFields, ...metadata } = meta.metadata ?? {};
    const bare = { apiVersion: apiVersionOf(resource), kind: resource.kind, metadata: structuredClone(metadata) };
    const probe = await mutated(bare as T);
    const content = objectContent(probe);
    if (semanticEqual(metadata, probe.metadata) && specAsLastWritten(meta, this.fieldManager, content)) {
      // the result: the metadata (managedFields too, as cached) with what mutate sets
      if (managedFields !== undefined)
        probe.metadata = { ...probe.metadata, managedFields: structuredClone(managedFields) };
      return { operation: 'unchanged', object: probe };
    }
    const current = await this.apiReader.get(resource, key);
    const next = record(await mutated(structuredClone(current)), content);
    if (semanticEqual(current, next)) return { operation: 'unchanged', object: current };
    return { operation: 'updated', object: await this.update(resource, next, options) };
  }

  async addFinalizer<T extends KubeObject>(resource: TypedResource<T>, obj: T, finalizer: string): Promise<T> {
    checkFinalizerName(finalizer);
    if (hasFinalizer(obj, finalizer)) return obj;
    const key = { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
    const rv = obj.metadata?.resourceVersion;
    if (!rv)
      throw new Error(
        `addFinalizer ${describe(resource, key)}: the object has no resourceVersion (read it from the server or the cache first)`,
      );
    const patch = { metadata: { resourceVersion: rv, finalizers: [...(obj.metadata?.finalizers ?? []), finalizer] } };
    return this.patch(resource, key, PatchType.Merge, patch);
  }

  async removeFinalizer<T extends KubeObject>(
    resource: TypedResource<T>,
    obj: T,
    finalizer: string,
  ): Promise<T | undefined> {
    const list = obj.metadata?.finalizers ?? [];
    const i = list.indexOf(finalizer);
    if (i < 0) return obj;
    const key = { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '' };
    const path = `/metadata/finalizers/${i}`;
    try {
      const out = await this.patch(resource, key, PatchType.JSON, [
        { op: 'test', path, value: finalizer },
        { op: 'remove', path },
      ]);
      // The last finalizer of an object being deleted: the server removes the object (and may answer with its final state).
      return out.metadata?.deletionTimestamp && (out.metadata.finalizers ?? []).length === 0 ? undefined : out;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
}

/** A finalizer name the API server accepts: a non-empty qualified name (`example.com/cleanup`). */
export function checkFinalizerName(finalizer: string): void {
  if (
    typeof finalizer !== 'string' ||
    !/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(
      finalizer,
    ) ||
    finalizer.length > 316
  ) {
    throw new Error(`finalizer ${JSON.stringify(finalizer)} is not a qualified name (want e.g. "example.com/cleanup")`);
  }
}
