// The typed client of one group/version/resource (client-go's generated typed clients,
// as one generic interface): the shape generated clientsets are built on.
import type { KubeList, KubeObject, ResourceDescriptor, Status, TypedResource } from '../meta/types.js';

export type { ResourceDescriptor, TypedResource };
import type { ListerWatcher, ListOptions, Watch } from './types.js';

/** `descriptor` typed as a descriptor of `T` objects (no copy, no check: a compile-time cast). */
export function typedResource<T extends KubeObject>(descriptor: ResourceDescriptor): TypedResource<T> {
  return descriptor;
}

/** Content types of the patch flavours the apiserver accepts (client-go's types.PatchType). */
export const PatchType = {
  /** RFC 6902 JSON patch: an array of operations. */
  JSON: 'application/json-patch+json',
  /** RFC 7386 JSON merge patch. */
  Merge: 'application/merge-patch+json',
  /** Kubernetes strategic merge patch (built-in types only, not CRDs). */
  StrategicMerge: 'application/strategic-merge-patch+json',
  /** Server-side apply; the body is YAML (we send JSON, which is valid YAML). */
  Apply: 'application/apply-patch+yaml',
} as const;

/** One of the PatchType content types. */
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

/** Options every call takes. */
export interface RequestOptions {
  /** Aborts the call (and, for a watch, closes the stream). */
  signal?: AbortSignal;
  /** Per-call timeout in milliseconds; overrides RestConfig.timeoutMs. Not applied to watches. */
  timeoutMs?: number;
}

/** metav1.GetOptions */
export interface GetOptions extends RequestOptions {
  resourceVersion?: string;
}

/** Field validation modes (metav1.CreateOptions.fieldValidation). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** metav1.CreateOptions / UpdateOptions. */
export interface CreateOptions extends RequestOptions {
  /** When true, sends `dryRun=All`: validated and defaulted, not persisted. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
}

/** metav1.UpdateOptions */
export type UpdateOptions = CreateOptions;

/** metav1.PatchOptions */
export interface PatchOptions extends CreateOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/** Options of a server-side apply: a field manager is required. */
export interface ApplyOptions extends RequestOptions {
  fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with a conflict. */
  force?: boolean;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
}

/** metav1.Preconditions: the delete fails with a Conflict unless these match. */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** metav1.DeleteOptions */
export interface DeleteOptions extends RequestOptions {
  /** Orphan dependents, delete them in the background, or wait for them (foreground). */
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  dryRun?: boolean;
}

/** Options of deleteCollection: which objects (list options) and how (delete options). */
export type DeleteCollectionOptions = DeleteOptions &
  Pick<
    ListOptions,
    'labelSelector' | 'fieldSelector' | 'resourceVersion' | 'resourceVersionMatch' | 'limit' | 'continue'
  >;

/** An object as sent to server-side apply: apiVersion/kind/metadata.name required, the rest partial. */
export type ApplyConfiguration<T> = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & Record<string, unknown>;
} & {
  [K in Exclude<keyof T, 'apiVersion' | 'kind' | 'metadata'>]?: unknown;
};

/**
 * Typed client of one resource, namespaced or cluster-scoped (client-go's typed
 * `DatabaseManagerInterface`, generically). Satisfies `ListerWatcher<T, TList>`.
 *
 * Namespace rules: a client made with `namespace(ns)` works in `ns`. Without one, list,
 * watch and deleteCollection span all namespaces, calls carrying an object use the
 * object's `metadata.namespace`, and get/patch/delete of a namespaced resource fail
 * with a clear error. Cluster-scoped clients ignore namespaces.
 */
export interface ResourceClient<T extends KubeObject, TList extends KubeList<T> = KubeList<T>> extends ListerWatcher<
  T,
  TList
> {
  /** The resource this client talks to. */
  readonly descriptor: ResourceDescriptor;
  /** The namespace this client is bound to, if any. */
  readonly namespaceName: string | undefined;
  /** A client of the same resource bound to namespace `ns`. */
  namespace(ns: string): ResourceClient<T, TList>;

  /** Reads one object by name. */
  get(name: string, options?: GetOptions): Promise<T>;
  /** Lists one page (pass `limit` and `continue` to page), or everything without `limit`. */
  list(options?: ListOptions): Promise<TList>;
  /**
   * Lists everything, following `continue` tokens page by page (`limit` is the page size,
   * default 500). If a continue token expires mid-way (410), falls back to one full list,
   * as client-go's pager does. The result has all items and the first page's resourceVersion.
   */
  listAll(options?: ListOptions): Promise<TList>;
  /** Creates an object; returns it as stored. */
  create(obj: T, options?: CreateOptions): Promise<T>;
  /** Replaces an object (optimistic concurrency on metadata.resourceVersion). */
  update(obj: T, options?: UpdateOptions): Promise<T>;
  /** Replaces the status subresource. */
  updateStatus(obj: T, options?: UpdateOptions): Promise<T>;
  /** Patches an object; the body is serialised as JSON for every patch type. */
  patch(name: string, patchType: PatchType, patch: unknown, options?: PatchOptions): Promise<T>;
  /** Patches the status subresource. */
  patchStatus(name: string, patchType: PatchType, patch: unknown, options?: PatchOptions): Promise<T>;
  /** Server-side apply of `obj` (name and namespace from its metadata). */
  apply(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
  /** Server-side apply to the status subresource. */
  applyStatus(obj: ApplyConfiguration<T>, options: ApplyOptions): Promise<T>;
  /**
   * Deletes an object. Resolves with what the server returned: the object (still present
   * with a deletionTimestamp, e.g. while finalizers run) or a Success Status.
   */
  delete(name: string, options?: DeleteOptions): Promise<T | Status>;
  /** Deletes every object matching the selectors. */
  deleteCollection(options?: DeleteCollectionOptions): Promise<TList | Status>;
  /**
   * Opens a watch. Resolves once the server accepted it (an HTTP error rejects with an
   * ApiError); iterate the result for events.
   */
  watch(options?: ListOptions): Promise<Watch<T>>;
}
