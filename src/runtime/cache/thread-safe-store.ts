// ThreadSafeStore: the indexed cache behind informers and listers (client-go's
// threadSafeMap + cache). Every mutation is synchronous and complete when it returns.
import type { KubeObject } from '../meta/types.js';
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import {
  NAMESPACE_INDEX,
  metaNamespaceIndexFunc,
  type IndexFunc,
  type Indexer,
  type IndexerReader,
  type Indexers,
} from './indexer.js';
import { deletionHandlingMetaNamespaceKeyFunc, type KeyFunc } from './store.js';

/** The index values of an absent object. */
const NO_VALUES: readonly string[] = Object.freeze([]);

/** Index value → keys of the objects with that value. */
type Index = Map<string, Set<string>>;

/**
 * An indexed store. Invariants: for every index `n` and stored key `k`, `k` is in
 * `indices[n][v]` exactly for the values `v` of `indexers[n](items[k])`; no bucket is
 * empty (empty ones are deleted so that churned values do not leak memory).
 */
export class ThreadSafeStore<T> implements Indexer<T> {
  private items = new Map<string, T>();
  private indexers: Map<string, IndexFunc<T>> = new Map();
  /** The entries of `indexers`, as an array (iterated on every write). */
  private indexerList: [string, IndexFunc<T>][] = [];
  private indices = new Map<string, Index>();

  /** A store keyed by `keyFunc`, with `indexers`. */
  constructor(
    private readonly keyFunc: KeyFunc,
    indexers: Indexers<T> = {},
  ) {
    this.addIndexers(indexers);
  }

  /** See {@link Store.add}. */
  add(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  /** See {@link Store.update}. */
  update(obj: T): void {
    this.put(this.keyFunc(obj), obj);
  }

  /** See {@link Store.delete}. */
  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    this.deleteByKey(this.keyFunc(obj));
  }

  /**
   * Stores `obj` under `key`, which must be this store's key of `obj` (a caller that has
   * the key already, such as the informer with its queue's key, saves computing it
   * again); returns the object it replaced, if any.
   */
  putByKey(key: string, obj: T): T | undefined {
    return this.put(key, obj);
  }

  /** Removes the object stored under `key`, if any. */
  deleteByKey(key: string): void {
    const old = this.items.get(key);
    if (old === undefined) return;
    this.updateIndices(old, undefined, key);
    this.items.delete(key);
  }

  /** See {@link Store.replace}. The new content and indices are built aside, then swapped in. */
  replace(list: T[], _resourceVersion: string): void {
    const items = new Map<string, T>();
    for (const obj of list) items.set(this.keyFunc(obj), obj);
    const indices = new Map<string, Index>();
    for (const [name, fn] of this.indexers) indices.set(name, buildIndex(items, fn));
    this.items = items;
    this.indices = indices;
  }

  /** No-op: a cache has nothing to re-deliver. */
  resync(): void {}

  /** See {@link StoreReader.getByKey}. */
  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  /** See {@link StoreReader.get}. */
  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  /** See {@link StoreReader.list}. */
  list(): T[] {
    return Array.from(this.items.values());
  }

  /** See {@link StoreReader.listKeys}. */
  listKeys(): string[] {
    return Array.from(this.items.keys());
  }

  /** See {@link IndexerReader.index}. */
  index(indexName: string, obj: T): T[] {
    const fn = this.indexFunc(indexName);
    const idx = this.indices.get(indexName) as Index;
    const keys = new Set<string>();
    for (const v of fn(obj)) for (const k of idx.get(v) ?? []) keys.add(k);
    return this.objectsOf(keys);
  }

  /** See {@link IndexerReader.indexKeys}. */
  indexKeys(indexName: string, indexedValue: string): string[] {
    this.indexFunc(indexName);
    return Array.from(this.indices.get(indexName)?.get(indexedValue) ?? []);
  }

  /** See {@link IndexerReader.listIndexFuncValues}. */
  listIndexFuncValues(indexName: string): string[] {
    this.indexFunc(indexName);
    return Array.from(this.indices.get(indexName)?.keys() ?? []);
  }

  /** See {@link IndexerReader.byIndex}. */
  byIndex(indexName: string, indexedValue: string): T[] {
    this.indexFunc(indexName);
    return this.objectsOf(this.indices.get(indexName)?.get(indexedValue) ?? []);
  }

  /** See {@link IndexerReader.getIndexers}. */
  getIndexers(): Indexers<T> {
    return Object.fromEntries(this.indexers);
  }

  /** See {@link Indexer.addIndexers}. */
  addIndexers(indexers: Indexers<T>): void {
    for (const name of Object.keys(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer conflict: index ${JSON.stringify(name)} already exists`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      this.indexers.set(name, fn);
      this.indexerList.push([name, fn]);
      this.indices.set(name, buildIndex(this.items, fn));
    }
  }

  /** See {@link Indexer.reader}. */
  reader(): IndexerReader<T> {
    return Object.freeze({
      getByKey: (key: string) => this.getByKey(key),
      get: (obj: T) => this.get(obj),
      list: () => this.list(),
      listKeys: () => this.listKeys(),
      index: (indexName: string, obj: T) => this.index(indexName, obj),
      indexKeys: (indexName: string, value: string) => this.indexKeys(indexName, value),
      listIndexFuncValues: (indexName: string) => this.listIndexFuncValues(indexName),
      byIndex: (indexName: string, value: string) => this.byIndex(indexName, value),
      getIndexers: () => this.getIndexers(),
    });
  }

  private put(key: string, obj: T): T | undefined {
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.updateIndices(old, obj, key);
    return old;
  }

  private indexFunc(indexName: string): IndexFunc<T> {
    const fn = this.indexers.get(indexName);
    if (!fn) throw new Error(`index with name ${JSON.stringify(indexName)} does not exist`);
    return fn;
  }

  private objectsOf(keys: Iterable<string>): T[] {
    const out: T[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o !== undefined) out.push(o);
    }
    return out;
  }

  /** Moves `key` from the buckets of `oldObj` to those of `newObj` in every index. */
  private updateIndices(oldObj: T | undefined, newObj: T | undefined, key: string): void {
    for (let i = 0; i < this.indexerList.length; i++) {
      const [name, fn] = this.indexerList[i];
      const oldValues = oldObj === undefined ? NO_VALUES : fn(oldObj);
      const newValues = newObj === undefined ? NO_VALUES : fn(newObj);
      // Fast path: one unchanged value (the common case for the namespace index).
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) continue;
      const idx = this.indices.get(name) as Index;
      for (const v of oldValues) {
        const set = idx.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) idx.delete(v);
      }
      for (const v of newValues) {
        let set = idx.get(v);
        if (!set) idx.set(v, (set = new Set()));
        set.add(key);
      }
    }
  }
}

function buildIndex<T>(items: Map<string, T>, fn: IndexFunc<T>): Index {
  const idx: Index = new Map();
  for (const [key, obj] of items) {
    for (const v of fn(obj)) {
      let set = idx.get(v);
      if (!set) idx.set(v, (set = new Set()));
      set.add(key);
    }
  }
  return idx;
}

/**
 * Creates an indexer (client-go's `NewIndexer`). Keys default to
 * `deletionHandlingMetaNamespaceKeyFunc`; the namespace index is always present.
 */
export function newIndexer<T extends KubeObject>(
  indexers: Indexers<T> = {},
  keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc,
): ThreadSafeStore<T> {
  const all: Indexers<T> = { [NAMESPACE_INDEX]: metaNamespaceIndexFunc, ...indexers };
  return new ThreadSafeStore<T>(keyFunc, all);
}

/** Creates a plain store without indices (client-go's `NewStore`). */
export function newStore<T>(keyFunc: KeyFunc = deletionHandlingMetaNamespaceKeyFunc): Indexer<T> {
  return new ThreadSafeStore<T>(keyFunc);
}
