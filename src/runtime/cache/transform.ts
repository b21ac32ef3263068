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

/**
 * {@link stripManagedFields} for an object nothing else holds: the object gets a new `metadata`
 * without `managedFields`, in place, and is returned. The informer factory drops managedFields
 * with this one. An informer hands its transform the object it has just decoded, before anything
 * else sees it (client-go's contract since 1.27: a transform may mutate in place), and the list's
 * decoded objects stay reachable until its sync ends: a copy kept each original, managedFields and
 * all, alive beside the copy, and the scavenges of a large sync copied both (docs/BENCHMARKS.md §3).
 * Idempotent, as a transform must be (a resync passes cached objects again).
 */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (!obj.metadata || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  obj.metadata = metadata;
  return obj;
}
