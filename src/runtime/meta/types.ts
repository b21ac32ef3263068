// metav1-like object metadata types, as the apiserver serialises them (JSON names).
// Generated `types.ts` files import these from `crdgen/runtime`.

/** Standard object metadata (metav1.ObjectMeta). Unknown fields from newer servers may be present. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339 date-time. */
  creationTimestamp?: string;
  /** RFC 3339 date-time; set when deletion was requested. */
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

/** metav1.ListMeta */
export interface ListMeta {
  selfLink?: string;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

/** metav1.OwnerReference */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** metav1.ManagedFieldsEntry */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | (string & {});
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** metav1.Condition */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  /** RFC 3339 date-time. */
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** metav1.StatusCause */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** metav1.StatusDetails */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** metav1.Status, the body of every API error. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** Any Kubernetes object: what every generated kind extends structurally. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/**
 * An object's metadata alone (meta.k8s.io/v1 PartialObjectMetadata): what metadata-only
 * clients and informers return, whatever the kind.
 */
export interface PartialObjectMetadata extends KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Any list of Kubernetes objects. */
export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}

/** Where a kind lives: in a namespace or cluster-wide (a CRD's `spec.scope`). */
export type ResourceScope = 'Namespaced' | 'Cluster';

/**
 * Object metadata as the API server returns it: `name`, `uid`, `resourceVersion` and
 * `creationTimestamp` are always set, and `namespace` too for a kind of scope `Namespaced`.
 */
export type StoredObjectMeta<S extends ResourceScope = 'Cluster'> = ObjectMeta & {
  name: string;
  uid: string;
  resourceVersion: string;
  /** RFC 3339 date-time. */
  creationTimestamp: string;
} & (S extends 'Namespaced' ? { namespace: string } : unknown);

/**
 * `T` as the API server returns it — from a typed client's get, create, update, patch, apply,
 * list and watch, and from listers and informers: `apiVersion`, `kind` and `metadata` present,
 * with `metadata.name`, `uid`, `resourceVersion`, `creationTimestamp` and, for `S` =
 * `'Namespaced'`, `metadata.namespace` (see {@link StoredObjectMeta}). The rest of `T` is as its
 * schema says (a field the schema does not require may be absent). Objects you build to send
 * are plain `T`: the client fills in apiVersion and kind, the server the rest.
 *
 * ```ts
 * const dm = await clientset.coolopsV1alpha1().databaseManagers("default").get("orders");
 * dm.metadata.namespace; // string, no `?.` or `!`
 * ```
 */
export type Stored<T extends KubeObject, S extends ResourceScope = 'Cluster'> = T & {
  apiVersion: NonNullable<T['apiVersion']>;
  kind: NonNullable<T['kind']>;
  metadata: StoredObjectMeta<S>;
};

/**
 * A list as the API server returns it: `metadata.resourceVersion` set (where a watch resumes)
 * and every item {@link Stored}.
 */
export type StoredList<L extends KubeList<KubeObject>, S extends ResourceScope = 'Cluster'> = Omit<
  L,
  'metadata' | 'items'
> & {
  metadata: ListMeta & { resourceVersion: string };
  items: Array<Stored<L['items'][number], S>>;
};

/** What a ResourceClient needs to know about a resource: its GVR, kind and scope. */
export interface ResourceDescriptor {
  /** API group; `''` for the core (legacy `/api/v1`) group. */
  group: string;
  /** API version, e.g. `v1alpha1`. */
  version: string;
  /** Plural resource name as in the URL, e.g. `databasemanagers`. */
  resource: string;
  /** Kind of one object, e.g. `DatabaseManager`. */
  kind: string;
  /** Kind of the list, e.g. `DatabaseManagerList`. */
  listKind: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  namespaced: boolean;
}

/** The phantom key of {@link TypedResource}: a type, never a value. */
declare const objectType: unique symbol;

/**
 * A {@link ResourceDescriptor} that also names the TypeScript type of its objects, so that
 * a controller builder or a reconciler client typed by it hands out `T` without a cast
 * (`for(DeploymentResource)` → `Deployment`). The type exists only at compile time: any
 * descriptor object is one (`typedResource<Foo>(FooResource)`), and a plain descriptor is a
 * `TypedResource<KubeObject>`.
 */
export interface TypedResource<T extends KubeObject = KubeObject> extends ResourceDescriptor {
  /** Never set: carries `T` for type inference only. */
  readonly [objectType]?: T;
}
