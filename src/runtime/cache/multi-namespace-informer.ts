// One informer over several namespaces (controller-runtime's multiNamespaceCache for one kind):
// an informer per namespace, seen as one. Handlers are registered on each; the store reads
// merge them (a key names its namespace, so a read goes to one informer).
import type { ResourceEventHandler } from './event-handler.js';
import type { IndexerReader, Indexers } from './indexer.js';
import { NAMESPACE_INDEX } from './indexer.js';
import type {
  HandlerOptions,
  ResourceEventHandlerRegistration,
  SharedIndexInformer,
  WatchErrorHandler,
} from './shared-informer.js';

/** A registration on every namespace's informer: synced once each is. */
class MultiRegistration implements ResourceEventHandlerRegistration {
  constructor(readonly parts: ReadonlyMap<SharedIndexInformer<unknown>, ResourceEventHandlerRegistration>) {}
  hasSynced(): boolean {
    for (const r of this.parts.values()) if (!r.hasSynced()) return false;
    return true;
  }
}

/**
 * The informers of `namespaces` (each listing and watching its namespace only) as one
 * SharedIndexInformer. Objects are keyed `namespace/name` as in each informer.
 */
export class MultiNamespaceInformer<T> implements SharedIndexInformer<T> {
  private readonly byNamespace: ReadonlyMap<string, SharedIndexInformer<T>>;
  private readonly reader: IndexerReader<T>;

  constructor(informers: ReadonlyMap<string, SharedIndexInformer<T>>) {
    if (informers.size === 0) throw new Error('MultiNamespaceInformer: at least one namespace');
    this.byNamespace = informers;
    const all = (): SharedIndexInformer<T>[] => [...this.byNamespace.values()];
    const forKey = (key: string): SharedIndexInformer<T> | undefined => {
      const slash = key.indexOf('/');
      return slash < 0 ? undefined : this.byNamespace.get(key.slice(0, slash));
    };
    const first = all()[0];
    this.reader = {
      getByKey: (key) => forKey(key)?.getIndexer().getByKey(key),
      get: (obj) => {
        const ns = (obj as { metadata?: { namespace?: string } })?.metadata?.namespace;
        return ns === undefined ? undefined : this.byNamespace.get(ns)?.getIndexer().get(obj);
      },
      list: () => all().flatMap((i) => i.getIndexer().list()),
      listKeys: () => all().flatMap((i) => i.getIndexer().listKeys()),
      index: (name, obj) => all().flatMap((i) => i.getIndexer().index(name, obj)),
      indexKeys: (name, value) => this.pick(name, value).flatMap((i) => i.getIndexer().indexKeys(name, value)),
      listIndexFuncValues: (name) => [...new Set(all().flatMap((i) => i.getIndexer().listIndexFuncValues(name)))],
      byIndex: (name, value) => this.pick(name, value).flatMap((i) => i.getIndexer().byIndex(name, value)),
      getIndexers: () => first.getIndexer().getIndexers(),
    };
  }

  /** The informers that can hold objects of index value `value` (one namespace for the namespace index). */
  private pick(indexName: string, value: string): SharedIndexInformer<T>[] {
    if (indexName === NAMESPACE_INDEX) {
      const one = this.byNamespace.get(value);
      return one ? [one] : [];
    }
    return [...this.byNamespace.values()];
  }

  /** The namespaces this informer watches. */
  namespaces(): string[] {
    return [...this.byNamespace.keys()];
  }

  addEventHandler(handler: ResourceEventHandler<T>, options?: HandlerOptions): ResourceEventHandlerRegistration {
    const parts = new Map<SharedIndexInformer<unknown>, ResourceEventHandlerRegistration>();
    for (const i of this.byNamespace.values())
      parts.set(i as SharedIndexInformer<unknown>, i.addEventHandler(handler, options));
    return new MultiRegistration(parts);
  }

  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    if (!(registration instanceof MultiRegistration)) return;
    for (const [i, r] of registration.parts) i.removeEventHandler(r);
  }

  getStore(): IndexerReader<T> {
    return this.reader;
  }

  getIndexer(): IndexerReader<T> {
    return this.reader;
  }

  addIndexers(indexers: Indexers<T>): void {
    for (const i of this.byNamespace.values()) i.addIndexers(indexers);
  }

  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([...this.byNamespace.values()].map((i) => i.run(signal)));
  }

  hasSynced(): boolean {
    for (const i of this.byNamespace.values()) if (!i.hasSynced()) return false;
    return true;
  }

  /** The namespaces' versions are of one etcd: the highest one seen ('' before every namespace listed). */
  lastSyncResourceVersion(): string {
    let best = '';
    for (const i of this.byNamespace.values()) {
      const rv = i.lastSyncResourceVersion();
      if (rv === '') return '';
      if (best === '' || (/^\d+$/.test(rv) && /^\d+$/.test(best) && BigInt(rv) > BigInt(best))) best = rv;
    }
    return best;
  }

  setWatchErrorHandler(handler: WatchErrorHandler): void {
    for (const i of this.byNamespace.values()) i.setWatchErrorHandler(handler);
  }

  setTransform(transform: (obj: T) => T): void {
    for (const i of this.byNamespace.values()) i.setTransform(transform);
  }

  isStopped(): boolean {
    for (const i of this.byNamespace.values()) if (!i.isStopped()) return false;
    return true;
  }
}
