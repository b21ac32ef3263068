// Object keys: `namespace/name` for namespaced objects, `name` for cluster-scoped ones
// (client-go's MetaNamespaceKeyFunc format). The cache's key functions use the same shape.
import type { KubeObject } from './types.js';

/** The `namespace/name` (or `name`) key of an object; throws if it has no name. */
export function objectKey(obj: KubeObject): string {
  const name = obj?.metadata?.name;
  if (typeof name !== 'string' || name === '') throw new Error('objectKey: the object has no metadata.name');
  const ns = obj.metadata?.namespace;
  return ns ? `${ns}/${name}` : name;
}

/** Splits a key made by objectKey; `namespace` is `''` for cluster-scoped keys. Throws on other shapes. */
export function splitKey(key: string): { namespace: string; name: string } {
  const parts = key.split('/');
  if (parts.length === 1 && parts[0]) return { namespace: '', name: parts[0] };
  if (parts.length === 2 && parts[1]) return { namespace: parts[0] ?? '', name: parts[1] };
  throw new Error(`splitKey: unexpected key format ${JSON.stringify(key)} (want "namespace/name" or "name")`);
}
