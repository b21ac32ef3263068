// The objects an owner controls, read from a shared informer's cache through an index on the
// controller owner's uid (what a generated operator hands its reconciler as `context.owned`):
// one lookup per reconcile instead of a scan of every cached object of the kind.
import type { KubeObject } from '../meta/types.js';
import type { SharedIndexInformer } from './shared-informer.js';
import { getControllerOf, isControlledBy } from '../meta/owner.js';

/** The index of {@link controlledObjects}: the uid of an object's controller owner reference. */
export const CONTROLLER_UID_INDEX = 'crdgen.io/controller-uid';

function controllerUid(obj: KubeObject): string[] {
  const uid = getControllerOf(obj)?.uid;
  return uid ? [uid] : [];
}

/**
 * Adds the controller-uid index to `informer` unless it has it. Call before the informer
 * starts, or at any time: objects already cached are indexed at once.
 */
export function ensureControllerIndex<T extends KubeObject>(informer: SharedIndexInformer<T>): void {
  if (CONTROLLER_UID_INDEX in informer.getIndexer().getIndexers()) return;
  informer.addIndexers({ [CONTROLLER_UID_INDEX]: controllerUid });
}

/**
 * The objects in `informer`'s cache whose controller reference is `owner` (same uid), as
 * copies sorted by namespace and name. A namespaced owner controls objects of its own
 * namespace only (the garbage collector ignores a reference across namespaces), so others
 * are left out.
 */
export function controlledObjects<T extends KubeObject>(informer: SharedIndexInformer<T>, owner: KubeObject): T[] {
  const uid = owner.metadata?.uid;
  if (!uid) return [];
  ensureControllerIndex(informer);
  const ns = owner.metadata?.namespace ?? '';
  const key = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  return informer
    .getIndexer()
    .byIndex(CONTROLLER_UID_INDEX, uid)
    .filter((o) => isControlledBy(o, owner) && (ns === '' || (o.metadata?.namespace ?? '') === ns))
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
    .map((o) => structuredClone(o));
}
