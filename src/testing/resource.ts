// What the server knows about one served resource (a built-in kind or a CRD's version):
// names, scope, subresources, how to validate and default it, and how to print it.
import type { KubeObject } from '../runtime/meta/types.js';
import type { FieldCause } from './status.js';

/** A `kubectl get` column (metav1.TableColumnDefinition plus where its value comes from). */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  /** JSONPath in the CRD style (`.spec.replicas`), or a function for built-ins. */
  jsonPath?: string;
  value?: (obj: KubeObject) => unknown;
}

/** The /scale subresource mapping (as a CRD's `subresources.scale`). */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Validation, defaulting and pruning of a resource's objects. */
export interface ObjectSchema {
  /** Field errors of `obj` (with `old` on update), with the metadata's before and the scale paths' after the schema's. */
  validate(
    obj: KubeObject,
    old?: KubeObject,
    context?: { before?: FieldCause[]; afterSchema?: FieldCause[] },
  ): FieldCause[];
  /** Fills defaults in place. */
  applyDefaults(obj: KubeObject): void;
  /** Drops unknown fields in place; returns the dropped paths (`spec.foo`) for strict field validation. */
  prune(obj: KubeObject): string[];
}

/** One resource served at one group/version. */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural, e.g. `databasemanagers`. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Served with a `/status` subresource that owns `.status`. */
  statusSubresource: boolean;
  scale?: ScaleSpec;
  /** `metadata.generation` is maintained (bumped on spec changes). */
  hasGeneration: boolean;
  /** Strategic merge patch accepted (built-in kinds). */
  strategicMerge: boolean;
  /** A custom resource (served from a CRD). */
  custom: boolean;
  /** Columns for Table output (Name is implicit). */
  columns: PrinterColumn[];
  /** A custom resource version's openAPIV3Schema (field ownership and server-side apply follow its list/map types). */
  openAPIV3Schema?: Record<string, unknown>;
  /** Validation/defaulting/pruning, compiled on the first call (the first write); absent when none. */
  schema?: () => Promise<ObjectSchema>;
  /** Defaults and checks specific to a built-in kind, run on create and update. */
  prepare?: (obj: KubeObject, old: KubeObject | undefined) => FieldCause[];
  /**
   * The registry's BeginCreate/BeginUpdate and late validation (Services: allocation after the
   * field manager ran, then validation with `errors`, the metadata errors found before): throws
   * the write's error, or returns what to call when the write ended (success or not).
   */
  beginWrite?: (w: {
    storage: import('./storage/storage.js').Storage;
    obj: KubeObject;
    old: KubeObject | undefined;
    dryRun: boolean;
    scope: string;
    errors: FieldCause[];
  }) => Promise<() => void>;
  /**
   * For a version stored in another version's form (events.k8s.io/v1 events, kept as core/v1
   * ones under the same storagePrefix): the stored form of an object, and the object of a stored one.
   */
  toStorage?: (obj: KubeObject) => KubeObject;
  /** The group its validation errors name (events.k8s.io/v1 events are validated as the internal core Event: ''). */
  errorGroup?: string;
  fromStorage?: (stored: KubeObject) => KubeObject;
  /** A delete answers the deleted object, not a Status (the registry's ReturnDeletedObject). */
  returnDeletedObject?: boolean;
  /** Names are DNS-1123 labels (namespaces, services), not subdomains. */
  nameIsLabel?: boolean;
  /** Subresources served with a fixed answer (Services' `proxy`): name → the error. */
  fixedSubresources?: Record<string, { kind: string; verbs: string[]; answer: (name: string) => Error }>;
  /** What the kind's strategy sets on create after the field manager ran (so no manager owns it). */
  prepareForCreate?: (obj: KubeObject) => void;
  /** A CRD version's selectableFields (JSONPaths such as `.spec.color`): more field selectors. */
  selectableFields?: string[];
  /** A custom resource's conversion (its CRD's strategy and storage version). */
  conversion?: import('./conversion.js').CrdConversion;
  /** Keys added to every stored object's storage path: `/<group>/<resource>`. */
  storagePrefix: string;
}

/** `apps/v1` or `v1`. */
export function groupVersion(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** Storage key of one object. */
export function storageKey(r: ResourceInfo, namespace: string | undefined, name: string): string {
  return r.namespaced ? `${r.storagePrefix}/${namespace}/${name}` : `${r.storagePrefix}/${name}`;
}

/** Storage prefix of a list (all namespaces when `namespace` is empty). */
export function listPrefix(r: ResourceInfo, namespace: string | undefined): string {
  return r.namespaced && namespace ? `${r.storagePrefix}/${namespace}/` : `${r.storagePrefix}/`;
}
