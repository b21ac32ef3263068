// Informer transforms for operators: what a controller never reads need not be cached.
import type { KubeObject } from '../meta/types.js';

/**
 * Drops `metadata.managedFields` (server-side apply bookkeeping, often the largest part of
 * an object) before the object is cached, as controller-runtime's
 * `cache.TransformStripManagedFields`. Returns a shallow copy; the input is not changed.
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}
