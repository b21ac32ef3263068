// TypedResourceClient: every client-gen verb of one resource, over a ClientBackend.
// Generated typed clients delegate to it and expose only the verbs their kind has.
import type { KubeList, KubeObject, ResourceScope, Stored, StoredList } from '../meta/types.js';
import type { ListOptions, TypedWatch } from '../client/types.js';
import type {
  ApplyConfiguration,
  ApplyOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceDescriptor,
  UpdateOptions,
} from '../client/resource.js';
import { apiVersionOf } from '../client/resource-client.js';
import type { Selector } from '../labels/selector.js';
import type { ClientBackend } from './backend.js';
import type { Scale, ScaleClient } from './scale.js';

/** List/watch options whose label selector may be a parsed {@link Selector}. */
export type TypedListOptions = Omit<ListOptions, 'labelSelector'> & { labelSelector?: string | Selector };

/** deleteCollection options whose label selector may be a parsed {@link Selector}. */
export type TypedDeleteCollectionOptions = Omit<DeleteCollectionOptions, 'labelSelector'> & {
  labelSelector?: string | Selector;
};

function withSelector<O extends { labelSelector?: string | Selector }>(
  o: O | undefined,
): (Omit<O, 'labelSelector'> & { labelSelector?: string }) | undefined {
  if (!o || o.labelSelector === undefined || typeof o.labelSelector === 'string')
    return o as (Omit<O, 'labelSelector'> & { labelSelector?: string }) | undefined;
  const s = o.labelSelector;
  // nothing() has no text form; sent as '' it would select everything
  if (!s.empty() && s.requirements.length === 0)
    throw new Error('a selector that matches nothing cannot be sent to the server');
  return { ...o, labelSelector: s.toString() };
}

/**
 * All verbs of one resource in one namespace (or all namespaces / cluster scope).
 * `T` is the kind, `TList` its list, `TApply` its apply configuration, `S` its scope: what the
 * server returns is typed {@link Stored}`<T, S>` (apiVersion, kind, metadata.name, uid,
 * resourceVersion, and for `'Namespaced'` metadata.namespace present).
 */
export class TypedResourceClient<
  T extends KubeObject,
  TList extends KubeList<T>,
  TApply = ApplyConfiguration<T>,
  S extends ResourceScope = 'Cluster',
> {
  private readonly client: ResourceClient<T, TList>;
  private scaleClient: ScaleClient | undefined;

  /** `namespace` `''` or undefined: all namespaces (list/watch) or cluster scope. */
  constructor(
    private readonly backend: ClientBackend,
    readonly descriptor: ResourceDescriptor,
    readonly namespace: string = '',
  ) {
    if (typeof namespace !== 'string')
      throw new Error(`${descriptor.resource}: the namespace must be a string, got ${typeof namespace}`);
    this.client = backend.resource<T, TList>(
      descriptor,
      descriptor.namespaced && namespace !== '' ? namespace : undefined,
    );
  }

  /** The object with apiVersion and kind filled in when missing. */
  private typed(obj: T): T {
    if (!obj || typeof obj !== 'object') throw new Error(`${this.descriptor.resource}: an object is required`);
    if (obj.apiVersion && obj.kind) return obj;
    return {
      ...obj,
      apiVersion: obj.apiVersion || apiVersionOf(this.descriptor),
      kind: obj.kind || this.descriptor.kind,
    };
  }

  /** Creates `obj`; resolves with the stored object. */
  async create(obj: T, options?: CreateOptions): Promise<Stored<T, S>> {
    return (await this.client.create(this.typed(obj), options)) as Stored<T, S>;
  }
  /** Replaces `obj` (optimistic concurrency on metadata.resourceVersion). */
  async update(obj: T, options?: UpdateOptions): Promise<Stored<T, S>> {
    return (await this.client.update(this.typed(obj), options)) as Stored<T, S>;
  }
  /** Replaces the status subresource of `obj`. */
  async updateStatus(obj: T, options?: UpdateOptions): Promise<Stored<T, S>> {
    return (await this.client.updateStatus(this.typed(obj), options)) as Stored<T, S>;
  }
  /** Deletes the object `name`. */
  async delete(name: string, options?: DeleteOptions): Promise<void> {
    await this.client.delete(name, options);
  }
  /** Deletes every object matching the options' selectors. */
  async deleteCollection(options?: TypedDeleteCollectionOptions): Promise<void> {
    await this.client.deleteCollection(withSelector(options));
  }
  /** Reads the object `name`. */
  async get(name: string, options?: GetOptions): Promise<Stored<T, S>> {
    return (await this.client.get(name, options)) as Stored<T, S>;
  }
  /** Lists objects (one page with `limit`, else all). */
  async list(options?: TypedListOptions): Promise<StoredList<TList, S>> {
    return (await this.client.list(withSelector(options))) as unknown as StoredList<TList, S>;
  }
  /** Opens a watch; iterate the result for events. */
  async watch(options?: TypedListOptions): Promise<TypedWatch<Stored<T, S>>> {
    return (await this.client.watch(withSelector(options))) as unknown as TypedWatch<Stored<T, S>>;
  }
  /** Patches the object `name` with `data` of `patchType`. */
  async patch(name: string, patchType: PatchType, data: unknown, options?: PatchOptions): Promise<Stored<T, S>> {
    return (await this.client.patch(name, patchType, data, options)) as Stored<T, S>;
  }
  /** Server-side apply of `config` (identity from its metadata). */
  async apply(config: TApply, options: ApplyOptions): Promise<Stored<T, S>> {
    return (await this.client.apply(config as unknown as ApplyConfiguration<T>, options)) as Stored<T, S>;
  }
  /** Server-side apply to the status subresource. */
  async applyStatus(config: TApply, options: ApplyOptions): Promise<Stored<T, S>> {
    return (await this.client.applyStatus(config as unknown as ApplyConfiguration<T>, options)) as Stored<T, S>;
  }
  /** Reads the scale subresource of `name`. */
  async getScale(name: string, options?: GetOptions): Promise<Scale> {
    return this.scale().getScale(name, options);
  }
  /** Replaces the scale subresource of `name`. */
  async updateScale(name: string, scale: Scale, options?: UpdateOptions): Promise<Scale> {
    return this.scale().updateScale(name, scale, options);
  }

  private scale(): ScaleClient {
    this.scaleClient ??= this.backend.scale(
      this.descriptor,
      this.descriptor.namespaced && this.namespace !== '' ? this.namespace : undefined,
    );
    return this.scaleClient;
  }
}
