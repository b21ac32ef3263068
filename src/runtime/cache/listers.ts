// Lister helpers: what generated listers stand on (client-go tools/cache/listers.go:
// ListAll, ListAllByNamespace, GenericLister). Read-only views over an informer's cache.
import type { KubeObject } from '../meta/types.js';
import { NAMESPACE_INDEX, type IndexerReader } from './indexer.js';
import type { StoreReader } from './store.js';

/**
 * Anything that matches label maps: `crdgen/runtime`'s label `Selector` (from
 * `parseSelector`, `selectorFromSet`, `everything()`) fits. `empty()` true means
 * "matches everything" and skips the per-object check.
 */
export interface LabelMatcher {
  /** True when `labels` satisfy the selector (undefined counts as no labels). */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** True for the select-everything selector. */
  empty?(): boolean;
}

/** All namespaces (metav1.NamespaceAll). */
export const NAMESPACE_ALL = '';

function selectsAll(selector: LabelMatcher | undefined): boolean {
  return selector === undefined || (selector.empty?.() ?? false);
}

/** Calls `append` for every object of `store` whose labels match `selector` (undefined: all). */
export function listAll<T extends KubeObject>(
  store: StoreReader<T>,
  selector: LabelMatcher | undefined,
  append: (obj: T) => void,
): void {
  const all = selectsAll(selector);
  for (const obj of store.list()) {
    if (all || (selector as LabelMatcher).matches(obj.metadata?.labels)) append(obj);
  }
}

/**
 * Like listAll, restricted to `namespace` through the namespace index (`''`: every
 * namespace). An indexer without the namespace index is scanned instead.
 */
export function listAllByNamespace<T extends KubeObject>(
  indexer: IndexerReader<T>,
  namespace: string,
  selector: LabelMatcher | undefined,
  append: (obj: T) => void,
): void {
  if (namespace === NAMESPACE_ALL) {
    listAll(indexer, selector, append);
    return;
  }
  const all = selectsAll(selector);
  const objs =
    NAMESPACE_INDEX in indexer.getIndexers()
      ? indexer.byIndex(NAMESPACE_INDEX, namespace)
      : indexer.list().filter((o) => (o.metadata?.namespace ?? '') === namespace);
  for (const obj of objs) {
    if (all || (selector as LabelMatcher).matches(obj.metadata?.labels)) append(obj);
  }
}

/** Reads objects of one namespace. Returned objects are the cache's: never mutate them. */
export interface GenericNamespaceLister<T> {
  /** Objects of the namespace matching `selector` (undefined: all). */
  list(selector?: LabelMatcher): T[];
  /** The object named `name` in the namespace, or undefined. */
  get(name: string): T | undefined;
}

/** Reads objects of a resource from an informer's cache (client-go's GenericLister). */
export interface GenericLister<T> {
  /** Objects of every namespace matching `selector` (undefined: all). */
  list(selector?: LabelMatcher): T[];
  /** A cluster-scoped object by name (for namespaced resources use `byNamespace`), or undefined. */
  get(name: string): T | undefined;
  /** The objects of namespace `namespace`. */
  byNamespace(namespace: string): GenericNamespaceLister<T>;
}

/** A GenericLister over `indexer` (an informer's `getIndexer()`). */
export function newGenericLister<T extends KubeObject>(indexer: IndexerReader<T>): GenericLister<T> {
  return {
    list(selector) {
      const out: T[] = [];
      listAll(indexer, selector, (o) => out.push(o));
      return out;
    },
    get: (name) => indexer.getByKey(name),
    byNamespace(namespace) {
      return {
        list(selector) {
          const out: T[] = [];
          listAllByNamespace(indexer, namespace, selector, (o) => out.push(o));
          return out;
        },
        get: (name) => indexer.getByKey(namespace ? `${namespace}/${name}` : name),
      };
    },
  };
}
