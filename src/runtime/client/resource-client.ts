// The generic typed client of one resource: URL building, options → query parameters,
// paging, and the verbs of ResourceClient over a shared RestClient.
import type { KubeList, KubeObject, Status } from '../meta/types.js';
import type { RestConfig } from './config.js';
import { isResourceExpired } from './errors.js';
import { RestClient, type HttpMethod, type Query } from './rest-client.js';
import type { ListOptions, Watch } from './types.js';
import {
  PatchType,
  type ApplyConfiguration,
  type ApplyOptions,
  type CreateOptions,
  type DeleteCollectionOptions,
  type DeleteOptions,
  type GetOptions,
  type PatchOptions,
  type ResourceClient,
  type ResourceDescriptor,
  type UpdateOptions,
} from './resource.js';

/** Default page size of listAll (client-go's pager default). */
export const DEFAULT_LIST_PAGE_SIZE = 500;

/** The API path of a group/version: `/api/v1` for the core group, else `/apis/<group>/<version>`. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** `apiVersion` of a group/version: `v1` or `<group>/<version>`. */
export function apiVersionOf(d: Pick<ResourceDescriptor, 'group' | 'version'>): string {
  return d.group === '' ? d.version : `${d.group}/${d.version}`;
}

function checkName(what: string, name: unknown): string {
  if (typeof name !== 'string' || name === '') throw new Error(`${what}: a non-empty name is required`);
  if (name === '.' || name === '..' || name.includes('/') || name.includes('%')) {
    throw new Error(
      `${what}: invalid name ${JSON.stringify(name)} (it may not contain '/' or '%', nor be '.' or '..')`,
    );
  }
  return name;
}

function listQuery(o: ListOptions | undefined): Query {
  if (!o) return {};
  return {
    labelSelector: o.labelSelector || undefined,
    fieldSelector: o.fieldSelector || undefined,
    limit: o.limit,
    continue: o.continue || undefined,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
    timeoutSeconds: o.timeoutSeconds,
    allowWatchBookmarks: o.allowWatchBookmarks,
    sendInitialEvents: o.sendInitialEvents,
  };
}

function writeQuery(o: CreateOptions | PatchOptions | undefined): Query {
  if (!o) return {};
  return {
    dryRun: o.dryRun ? 'All' : undefined,
    fieldManager: o.fieldManager,
    fieldValidation: o.fieldValidation,
    force: (o as PatchOptions).force,
  };
}

function deleteBody(o: DeleteOptions | undefined): Record<string, unknown> | undefined {
  if (!o) return undefined;
  const b: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (o.propagationPolicy) b.propagationPolicy = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) b.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) b.preconditions = o.preconditions;
  if (o.dryRun) b.dryRun = ['All'];
  return Object.keys(b).length > 2 ? b : undefined;
}

/** How to construct a ResourceClientImpl. */
export interface ResourceClientOptions {
  /** Bind the client to this namespace. */
  namespace?: string;
  /**
   * Read metadata only (client-go's metadata client): get, patch and watch ask for
   * `PartialObjectMetadata`, list for `PartialObjectMetadataList` (the Accept header), so the
   * server sends each object's metadata alone. See {@link metadataOnlyClient}.
   */
  metadataOnly?: boolean;
}

/** The Accept header of a metadata-only get, patch or watch (JSON; the full object from a server without the form). */
export const PARTIAL_OBJECT_METADATA_ACCEPT =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
/** The Accept header of a metadata-only list. */
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** `obj` as a PartialObjectMetadata: as the server sent it, or cut down to its metadata when it sent the whole object. */
export function asPartialObjectMetadata<T extends KubeObject>(obj: T): T {
  if (obj?.kind === 'PartialObjectMetadata' || typeof obj !== 'object' || obj === null) return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} } as T;
}

/**
 * ResourceClient over HTTP. Construct with a RestConfig (the RestClient is shared per
 * config object) or a RestClient, and the resource's descriptor.
 */
export class ResourceClientImpl<
  T extends KubeObject,
  TList extends KubeList<T> = KubeList<T>,
> implements ResourceClient<T, TList> {
  private readonly rest: RestClient;
  /** The namespace this client is bound to, if any. */
  readonly namespaceName: string | undefined;
  /** Its watches pass `sendInitialEvents` to the server: reflectors over it stream their lists. */
  readonly streamingLists = true;
  /** True when it reads metadata only (see ResourceClientOptions.metadataOnly). */
  readonly metadataOnly: boolean;

  /** See the class doc. */
  constructor(
    config: RestConfig | RestClient,
    readonly descriptor: ResourceDescriptor,
    options: ResourceClientOptions = {},
  ) {
    this.rest = config instanceof RestClient ? config : RestClient.for(config);
    this.metadataOnly = options.metadataOnly === true;
    if (options.namespace !== undefined && descriptor.namespaced) {
      this.namespaceName = checkName(`namespace of ${descriptor.resource}`, options.namespace);
    } else {
      this.namespaceName = undefined;
    }
  }

  /** A client of the same resource bound to namespace `ns`. */
  namespace(ns: string): ResourceClient<T, TList> {
    return new ResourceClientImpl<T, TList>(this.rest, this.descriptor, {
      namespace: ns,
      ...(this.metadataOnly ? { metadataOnly: true } : {}),
    });
  }

  /** Reads one object by name. */
  async get(name: string, options: GetOptions = {}): Promise<T> {
    const obj = await this.call<T>(
      'GET',
      this.itemPath('get', name),
      { resourceVersion: options.resourceVersion },
      undefined,
      options,
      undefined,
      this.metadataOnly ? PARTIAL_OBJECT_METADATA_ACCEPT : undefined,
    );
    return this.metadataOnly ? asPartialObjectMetadata(obj) : obj;
  }

  /** Lists one page, or everything without `limit`. */
  async list(options: ListOptions = {}): Promise<TList> {
    // parsed item by item as the body arrives: a large list's parsing overlaps its transfer
    const list = await this.rest.requestList<TList>({
      method: 'GET',
      path: this.collectionPath(undefined),
      query: listQuery(options),
      ...(this.metadataOnly ? { accept: PARTIAL_OBJECT_METADATA_LIST_ACCEPT } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // Go encodes an empty slice that was never allocated as null: kube-apiserver answers an empty
    // PartialObjectMetadataList with `"items": null` (client-go decodes it as no items)
    if (list && (list as { items?: unknown }).items === null) list.items = [];
    if (this.metadataOnly && list && Array.isArray(list.items) && list.kind !== 'PartialObjectMetadataList') {
      return {
        ...list,
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        items: list.items.map(asPartialObjectMetadata),
      };
    }
    return list;
  }

  /** Lists everything page by page; falls back to one full list if a continue token expires. */
  async listAll(options: ListOptions = {}): Promise<TList> {
    const pageSize = options.limit && options.limit > 0 ? options.limit : DEFAULT_LIST_PAGE_SIZE;
    const first = await this.list({ ...options, limit: pageSize, continue: undefined });
    const items = [...first.items];
    let token = first.metadata?.continue;
    for (let page = 1; token; page++) {
      let next: TList;
      try {
        next = await this.list({
          ...options,
          limit: pageSize,
          continue: token,
          resourceVersion: undefined,
          resourceVersionMatch: undefined,
        });
      } catch (e) {
        if (!isResourceExpired(e)) throw e;
        // The snapshot behind the continue token was compacted: list everything at once.
        return this.list({ ...options, limit: undefined, continue: undefined });
      }
      items.push(...next.items);
      token = next.metadata?.continue;
      if (page > 1_000_000)
        throw new Error(`listAll ${this.descriptor.resource}: the server never stopped returning continue tokens`);
    }
    const metadata = { ...first.metadata };
    delete metadata.continue;
    delete metadata.remainingItemCount;
    return { ...first, metadata, items };
  }

  /** Creates an object. */
  async create(obj: T, options: CreateOptions = {}): Promise<T> {
    return this.call<T>('POST', this.collectionPath(obj), writeQuery(options), this.withTypeMeta(obj), options);
  }

  /** Replaces an object. */
  async update(obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.call<T>('PUT', this.objectPath('update', obj), writeQuery(options), this.withTypeMeta(obj), options);
  }

  /** Replaces the status subresource. */
  async updateStatus(obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.call<T>(
      'PUT',
      `${this.objectPath('updateStatus', obj)}/status`,
      writeQuery(options),
      this.withTypeMeta(obj),
      options,
    );
  }

  /** Patches an object. */
  async patch(name: string, patchType: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    return this.doPatch(this.itemPath('patch', name), patchType, patch, options);
  }

  /** Patches the status subresource. */
  async patchStatus(name: string, patchType: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    return this.doPatch(`${this.itemPath('patchStatus', name)}/status`, patchType, patch, options);
  }

  /** Server-side apply. */
  async apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.doApply(this.objectPath('apply', obj), obj, options);
  }

  /** Server-side apply to the status subresource. */
  async applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    return this.doApply(`${this.objectPath('applyStatus', obj)}/status`, obj, options);
  }

  /** Deletes an object. */
  async delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    return this.call<T | Status>('DELETE', this.itemPath('delete', name), {}, deleteBody(options), options);
  }

  /** Deletes every matching object. */
  async deleteCollection(options: DeleteCollectionOptions = {}): Promise<TList | Status> {
    return this.call<TList | Status>(
      'DELETE',
      this.collectionPath(undefined),
      listQuery(options),
      deleteBody(options),
      options,
    );
  }

  /** Opens a watch. */
  async watch(options: ListOptions = {}): Promise<Watch<T>> {
    return this.rest.watch<T>(
      this.collectionPath(undefined),
      listQuery(options),
      options.signal,
      this.metadataOnly ? PARTIAL_OBJECT_METADATA_ACCEPT : undefined,
    );
  }

  private doPatch(path: string, patchType: PatchType, patch: unknown, options: PatchOptions): Promise<T> {
    if (!Object.values(PatchType).includes(patchType)) {
      throw new Error(`patch ${this.descriptor.resource}: unknown patch type ${JSON.stringify(patchType)}`);
    }
    if (patchType === PatchType.Apply && !options.fieldManager) {
      throw new Error(`patch ${this.descriptor.resource}: an apply patch needs a fieldManager`);
    }
    if (patchType !== PatchType.Apply && options.force !== undefined) {
      throw new Error(`patch ${this.descriptor.resource}: force is only allowed with an apply patch`);
    }
    if (!this.metadataOnly) return this.call<T>('PATCH', path, writeQuery(options), patch, options, patchType);
    return this.call<T>(
      'PATCH',
      path,
      writeQuery(options),
      patch,
      options,
      patchType,
      PARTIAL_OBJECT_METADATA_ACCEPT,
    ).then(asPartialObjectMetadata);
  }

  private doApply(path: string, obj: unknown, options: ApplyOptions): Promise<T> {
    if (!options || !options.fieldManager)
      throw new Error(`apply ${this.descriptor.resource}: options.fieldManager is required`);
    return this.call<T>('PATCH', path, writeQuery(options), obj, options, PatchType.Apply);
  }

  /**
   * `obj` with apiVersion and kind filled in from the descriptor when missing, as client-go's
   * typed encoder always writes them: items of a built-in list carry none, so an object from an
   * informer's cache (filled by a list) would otherwise be refused ("Object 'Kind' is missing").
   */
  private withTypeMeta(obj: T): T {
    if (obj.apiVersion && obj.kind) return obj;
    return {
      ...obj,
      apiVersion: obj.apiVersion || apiVersionOf(this.descriptor),
      kind: obj.kind || this.descriptor.kind,
    };
  }

  private call<R>(
    method: HttpMethod,
    path: string,
    query: Query,
    body: unknown,
    o: { signal?: AbortSignal; timeoutMs?: number },
    contentType?: string,
    accept?: string,
  ): Promise<R> {
    return this.rest.request<R>({
      method,
      path,
      query,
      ...(body !== undefined ? { body } : {}),
      ...(contentType ? { contentType } : {}),
      ...(accept ? { accept } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    });
  }

  /** Collection path; `obj` (for create) may supply the namespace. Without one, all namespaces. */
  private collectionPath(obj: KubeObject | undefined): string {
    const d = this.descriptor;
    const base = groupVersionPath(d.group, d.version);
    if (!d.namespaced) return `${base}/${d.resource}`;
    const ns = this.namespaceName ?? obj?.metadata?.namespace;
    if (obj && ns === undefined) {
      throw new Error(
        `create ${d.resource}: no namespace (bind the client with namespace(ns) or set metadata.namespace)`,
      );
    }
    if (
      ns !== undefined &&
      obj?.metadata?.namespace &&
      this.namespaceName &&
      obj.metadata.namespace !== this.namespaceName
    ) {
      throw new Error(
        `create ${d.resource}: object namespace ${JSON.stringify(obj.metadata.namespace)} does not match the client's ${JSON.stringify(this.namespaceName)}`,
      );
    }
    return ns === undefined
      ? `${base}/${d.resource}`
      : `${base}/namespaces/${encodeURIComponent(checkName('namespace', ns))}/${d.resource}`;
  }

  private objectPath(verb: string, obj: KubeObject): string {
    if (!obj || typeof obj !== 'object') throw new Error(`${verb} ${this.descriptor.resource}: an object is required`);
    const name = checkName(`${verb} ${this.descriptor.resource}`, obj.metadata?.name);
    const ns = obj.metadata?.namespace;
    if (this.descriptor.namespaced && ns && this.namespaceName && ns !== this.namespaceName) {
      throw new Error(
        `${verb} ${this.descriptor.resource}: object namespace ${JSON.stringify(ns)} does not match the client's ${JSON.stringify(this.namespaceName)}`,
      );
    }
    return this.pathFor(verb, name, this.namespaceName ?? ns);
  }

  private itemPath(verb: string, name: string): string {
    return this.pathFor(verb, checkName(`${verb} ${this.descriptor.resource}`, name), this.namespaceName);
  }

  private pathFor(verb: string, name: string, ns: string | undefined): string {
    const d = this.descriptor;
    const base = groupVersionPath(d.group, d.version);
    if (!d.namespaced) return `${base}/${d.resource}/${encodeURIComponent(name)}`;
    if (ns === undefined || ns === '') {
      throw new Error(
        `${verb} ${d.resource} ${JSON.stringify(name)}: ${d.resource} are namespaced; bind the client with namespace(ns)`,
      );
    }
    return `${base}/namespaces/${encodeURIComponent(checkName('namespace', ns))}/${d.resource}/${encodeURIComponent(name)}`;
  }
}

/**
 * A metadata-only client of `descriptor` (client-go's metadata client): get, list, watch and
 * patch return `PartialObjectMetadata` objects (`kind`, `apiVersion: meta.k8s.io/v1`,
 * `metadata`), a fraction of the bytes and memory of whole objects. A metadata-only informer
 * lists and watches through one.
 */
export function metadataOnlyClient<T extends KubeObject = KubeObject>(
  config: RestConfig | RestClient,
  descriptor: ResourceDescriptor,
  options: Omit<ResourceClientOptions, 'metadataOnly'> = {},
): ResourceClient<T> {
  return new ResourceClientImpl<T>(config, descriptor, { ...options, metadataOnly: true });
}

/** Builds a ResourceClient for `descriptor` (bound to `options.namespace` if given). */
export function resourceClient<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
  config: RestConfig | RestClient,
  descriptor: ResourceDescriptor,
  options: ResourceClientOptions = {},
): ResourceClient<T, TList> {
  return new ResourceClientImpl<T, TList>(config, descriptor, options);
}
