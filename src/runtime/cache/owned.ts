// The objects an owner controls, read from a shared informer's cache through an index on the
// controller owner's uid (what a generated operator hands its reconciler as `context.owned`):
// one lookup per kind a reconcile reads, instead of a scan of every cached object of the kind.
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

/**
 * The objects `owner` controls, by kind: one property per informer of `informers`, listed from
 * that informer's cache with {@link controlledObjects} the first time it is read and kept for
 * later reads (what a generated controller hands its reconciler as `context.owned`). A reconcile
 * that never reads a kind never looks it up. A property may be assigned like a plain one.
 */
export function lazyControlledObjects<O extends Record<string, KubeObject>>(
  informers: { readonly [K in keyof O]: SharedIndexInformer<O[K]> },
  owner: KubeObject,
): { [K in keyof O]: O[K][] } {
  const out = {} as { [K in keyof O]: O[K][] };
  for (const key of Object.keys(informers) as (keyof O & string)[]) {
    let listed: O[typeof key][] | undefined;
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get: () => (listed ??= controlledObjects(informers[key], owner)),
      set: (value: O[typeof key][]) => void (listed = value),
    });
  }
  return out;
}
