// Indexer: a Store with secondary indices (client-go tools/cache index.go): index
// functions map an object to values; byIndex finds the objects with a value.
import type { KubeObject } from '../meta/types.js';
import type { Store, StoreReader } from './store.js';

/** Maps an object to its index values (e.g. its namespace). Must not throw for valid objects. */
export type IndexFunc<T> = (obj: T) => string[];

/** Index functions by index name. */
export type Indexers<T> = Record<string, IndexFunc<T>>;

/** Name of the namespace index every informer's indexer has (client-go NamespaceIndex). */
export const NAMESPACE_INDEX = 'namespace';

/** client-go's MetaNamespaceIndexFunc: `[namespace]` (`['']` for cluster-scoped objects). */
export function metaNamespaceIndexFunc(obj: KubeObject): string[] {
  return [obj.metadata?.namespace ?? ''];
}

/** Read side of an indexer: what listers use. */
export interface IndexerReader<T> extends StoreReader<T> {
  /** Objects sharing any value of index `indexName` with `obj`. Throws if the index does not exist. */
  index(indexName: string, obj: T): T[];
  /** Keys of the objects whose index `indexName` has value `indexedValue`. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Every value index `indexName` currently has (one per non-empty bucket). */
  listIndexFuncValues(indexName: string): string[];
  /** Objects whose index `indexName` has value `indexedValue`. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** The index functions (a copy). */
  getIndexers(): Indexers<T>;
}

/** A Store with indices. */
export interface Indexer<T> extends Store<T>, IndexerReader<T> {
  /** Adds index functions; existing objects are indexed at once. A name already in use throws. */
  addIndexers(indexers: Indexers<T>): void;
  /** A read-only view of this indexer (no write methods, even by a cast). */
  reader(): IndexerReader<T>;
}
