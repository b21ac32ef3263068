// Owner references (apimachinery's metav1.NewControllerRef, GetControllerOf,
// IsControlledBy): how a controller marks and recognises the objects it owns.
import type { KubeObject, OwnerReference } from './types.js';

/** A group, version and kind; `group` is `''` for the core group. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** `v1` for the core group, else `<group>/<version>`. */
export function gvkApiVersion(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/**
 * An OwnerReference naming `owner` as the controller (controller and
 * blockOwnerDeletion true), as metav1.NewControllerRef. The owner must have a name and uid
 * (it must come from the server).
 */
export function newControllerRef(owner: KubeObject, gvk: GroupVersionKind): OwnerReference {
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!name || !uid) {
    throw new Error(
      `newControllerRef: the owner ${gvk.kind} needs metadata.name and metadata.uid (read it from the server first)`,
    );
  }
  return { apiVersion: gvkApiVersion(gvk), kind: gvk.kind, name, uid, blockOwnerDeletion: true, controller: true };
}

/** The owner reference with `controller: true`, if any (metav1.GetControllerOf). */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True when `obj`'s controller reference has `owner`'s uid (metav1.IsControlledBy). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(obj);
  const uid = owner.metadata?.uid;
  return ref !== undefined && uid !== undefined && uid !== '' && ref.uid === uid;
}

/** The group of an apiVersion (`apps/v1` → `apps`, `v1` → `''`). */
function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** True when two owner references name the same object: same group, kind and name (controller-runtime's referSameObject; the version may differ). */
function sameOwner(a: OwnerReference, b: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name'>): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

/** Thrown by {@link setControllerReference} when another object already controls the object. */
export class AlreadyOwnedError extends Error {
  constructor(
    /** The object that was to get the reference. */
    readonly object: KubeObject,
    /** Its existing controller reference. */
    readonly owner: OwnerReference,
  ) {
    const m = object.metadata ?? {};
    super(
      `${m.namespace ?? ''}/${m.name ?? ''} is already controlled by ${owner.kind} ${JSON.stringify(owner.name)}: an object has at most one controller`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

/** Owner references never cross namespaces, and a cluster-scoped object has no namespaced owner. */
function validateOwner(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace ?? '';
  if (ownerNs === '') return;
  const objNs = object.metadata?.namespace ?? '';
  if (objNs === '')
    throw new Error(
      `a cluster-scoped object cannot have a namespaced owner (the owner is in namespace ${JSON.stringify(ownerNs)})`,
    );
  if (objNs !== ownerNs)
    throw new Error(
      `owner references cannot cross namespaces: the owner is in ${JSON.stringify(ownerNs)}, the object in ${JSON.stringify(objNs)}`,
    );
}

function upsertOwnerRef(object: KubeObject, ref: OwnerReference): void {
  object.metadata ??= {};
  const refs = [...(object.metadata.ownerReferences ?? [])];
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i < 0) refs.push(ref);
  else refs[i] = ref;
  object.metadata.ownerReferences = refs;
}

/**
 * Makes `owner` (of kind `ownerType`) the controller of `object` (mutated), as
 * controller-runtime's controllerutil.SetControllerReference: the reference has controller and
 * blockOwnerDeletion true; an existing reference to the same owner is replaced. Throws
 * {@link AlreadyOwnedError} when another object is the controller already, and an Error for a
 * cross-namespace reference or a namespaced owner of a cluster-scoped object.
 */
export function setControllerReference(owner: KubeObject, object: KubeObject, ownerType: GroupVersionKind): void {
  validateOwner(owner, object);
  const ref = newControllerRef(owner, ownerType);
  const existing = getControllerOf(object);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(object, existing);
  upsertOwnerRef(object, ref);
}

/**
 * Adds `owner` (of kind `ownerType`) to `object`'s owner references (mutated) as a plain owner,
 * not the controller (controllerutil.SetOwnerReference); an existing reference to it is replaced.
 */
export function setOwnerReference(owner: KubeObject, object: KubeObject, ownerType: GroupVersionKind): void {
  validateOwner(owner, object);
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!name || !uid)
    throw new Error(
      `setOwnerReference: the owner ${ownerType.kind} needs metadata.name and metadata.uid (read it from the server first)`,
    );
  upsertOwnerRef(object, { apiVersion: gvkApiVersion(ownerType), kind: ownerType.kind, name, uid });
}

/** Removes the reference to `owner` (of kind `ownerType`) from `object` (mutated); true when there was one. */
export function removeOwnerReference(owner: KubeObject, object: KubeObject, ownerType: GroupVersionKind): boolean {
  const refs = object.metadata?.ownerReferences;
  const probe = { apiVersion: gvkApiVersion(ownerType), kind: ownerType.kind, name: owner.metadata?.name ?? '' };
  const i = refs?.findIndex((r) => sameOwner(r, probe)) ?? -1;
  if (!refs || i < 0) return false;
  object.metadata!.ownerReferences = refs.filter((_, j) => j !== i);
  return true;
}

/** True when `object` has a controller reference (controllerutil.HasControllerReference). */
export function hasControllerReference(object: KubeObject): boolean {
  return getControllerOf(object) !== undefined;
}
