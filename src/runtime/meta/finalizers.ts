// Finalizer helpers (controller-runtime's controllerutil.AddFinalizer and friends).
import type { KubeObject } from './types.js';

/** True when `obj` carries `finalizer`. */
export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** Adds `finalizer` to `obj` (mutated) unless present; true when added. */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  if (hasFinalizer(obj, finalizer)) return false;
  obj.metadata ??= {};
  obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), finalizer];
  return true;
}

/** Removes every occurrence of `finalizer` from `obj` (mutated); true when one was removed. */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const list = obj.metadata?.finalizers;
  if (!list || !list.includes(finalizer)) return false;
  obj.metadata!.finalizers = list.filter((f) => f !== finalizer);
  return true;
}
