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
    throw new Error(`newControllerRef: the owner ${gvk.kind} needs metadata.name and metadata.uid (read it from the server first)`);
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
