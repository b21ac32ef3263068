// Listers (client-go tools/cache listers.go + lister-gen's output, generically): read
// objects from an informer's indexer. Returned objects are the cache's own: READ-ONLY.
// Deep-copy before changing one (mutating the cache corrupts every other reader).
import type { KubeObject } from '../meta/types.js';
import { ApiError } from '../client/errors.js';
import type { IndexerReader } from '../cache/indexer.js';
import { listAll, listAllByNamespace } from '../cache/listers.js';
import type { Selector } from '../labels/selector.js';
import { toSelector } from '../labels/parse.js';

/** Who a lister serves: the group and the singular resource name, for NotFound errors. */
export interface ListerResource {
  /** API group, e.g. `coolops.cn`. */
  group: string;
  /** Lower-case singular, e.g. `databasemanager` (lister-gen's `Resource("databasemanager")`). */
  resource: string;
}

/** The apiserver's NotFound error for `name` of `r` (client-go errors.NewNotFound). */
export function notFoundError(r: ListerResource, name: string): ApiError {
  const qualified = r.group ? `${r.resource}.${r.group}` : r.resource;
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: 404,
    reason: 'NotFound',
    message: `${qualified} "${name}" not found`,
    details: { name, group: r.group, kind: r.resource },
  });
}

/**
 * Deep-freezes objects handed out by listers when `CRDGEN_FREEZE_CACHE=1` or
 * `NODE_ENV=development`, so an accidental mutation of a cached object throws in
 * development instead of silently corrupting the cache. Each object is frozen once.
 */
export const freezeListedObjects: boolean =
  typeof process !== 'undefined' &&
  (process.env['CRDGEN_FREEZE_CACHE'] === '1' || process.env['NODE_ENV'] === 'development');

const frozen = new WeakSet<object>();

function deepFreeze<T>(obj: T): T {
  if (obj === null || typeof obj !== 'object' || frozen.has(obj)) return obj;
  frozen.add(obj);
  for (const v of Object.values(obj)) deepFreeze(v);
  return Object.freeze(obj);
}

function out<T>(obj: T, freeze: boolean): T {
  return freeze ? deepFreeze(obj) : obj;
}

function collect<T extends KubeObject>(
  indexer: IndexerReader<T>,
  namespace: string | undefined,
  selector: Selector | string | undefined,
  freeze: boolean,
): T[] {
  const s = toSelector(selector);
  const res: T[] = [];
  const push = freeze ? (o: T) => res.push(deepFreeze(o)) : (o: T) => res.push(o);
  if (namespace === undefined) listAll(indexer, s, push);
  else listAllByNamespace(indexer, namespace, s, push);
  return res;
}

/** Lists and gets objects of one namespace (lister-gen's `<Kind>NamespaceLister`). */
export class NamespaceLister<T extends KubeObject> {
  /** See {@link ResourceLister.namespace}. */
  constructor(
    private readonly indexer: IndexerReader<T>,
    private readonly r: ListerResource,
    readonly namespace: string,
    private readonly freeze: boolean = freezeListedObjects,
  ) {}

  /** Objects of this namespace matching `selector` (default: all). Read-only. */
  list(selector?: Selector | string): T[] {
    return collect(this.indexer, this.namespace, selector, this.freeze);
  }

  /** The object `name` of this namespace; throws the NotFound {@link ApiError} when absent. Read-only. */
  get(name: string): T {
    const obj = this.indexer.getByKey(`${this.namespace}/${name}`);
    if (obj === undefined) throw notFoundError(this.r, name);
    return out(obj, this.freeze);
  }
}

/** Lists objects of a resource across namespaces, and gets cluster-scoped ones by name. */
export class ResourceLister<T extends KubeObject> {
  /** Reads `indexer` (an informer's `getIndexer()`); `r` names the resource in errors. */
  constructor(
    private readonly indexer: IndexerReader<T>,
    private readonly r: ListerResource,
    private readonly freeze: boolean = freezeListedObjects,
  ) {}

  /** Every cached object matching `selector` (default: all). Read-only. */
  list(selector?: Selector | string): T[] {
    return collect(this.indexer, undefined, selector, this.freeze);
  }

  /** A cluster-scoped object by name; throws the NotFound {@link ApiError} when absent. Read-only. */
  get(name: string): T {
    const obj = this.indexer.getByKey(name);
    if (obj === undefined) throw notFoundError(this.r, name);
    return out(obj, this.freeze);
  }

  /** The lister of namespace `namespace` (`''`: all namespaces). */
  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister<T>(this.indexer, this.r, namespace, this.freeze);
  }
}
