// In-memory Storage: objects by key with their keys kept sorted, one global revision
// counter, and a bounded history of changes (WatchHistory) that serves watches from a past
// revision and lists at a past revision (the changes since are undone for the keys listed).
import type { KubeObject } from '../../runtime/meta/types.js';
import { jsonCopy } from '../../runtime/meta/json.js';
import { SortedKeys, lowerBound, prefixEnd } from './sorted-keys.js';
import { SHARED_READS, StorageError } from './storage.js';
import type { ListPage, SharedReads, Storage, StorageEvent, StorageList, StorageWatch } from './storage.js';
import { WatchHistory } from './watch-history.js';

/** Options of the in-memory store. */
export interface MemoryStorageOptions {
  /** How many changes are kept for watches from a past revision (default 10000). */
  historyLimit?: number;
}

function clone<T>(v: T): T {
  return jsonCopy(v);
}

function withRevision(obj: KubeObject, rev: number): KubeObject {
  const o = clone(obj);
  o.metadata = { ...(o.metadata ?? {}), resourceVersion: String(rev) };
  return o;
}

/** `/<group>/<resource>/` of a key (its first three slashes), or undefined when it has fewer. */
function resourcePrefix(key: string): string | undefined {
  const a = key.indexOf('/');
  const b = a < 0 ? -1 : key.indexOf('/', a + 1);
  const c = b < 0 ? -1 : key.indexOf('/', b + 1);
  return c < 0 ? undefined : key.slice(0, c + 1);
}

function revisionOf(obj: KubeObject): number {
  return Number(obj.metadata?.resourceVersion ?? 0);
}

/**
 * The in-memory implementation of {@link Storage}. Synchronous inside; async at the interface.
 * Stored objects are never modified in place (a write stores a new object), so the history
 * can keep references to past states.
 */
/* eslint-disable @typescript-eslint/require-await -- the Storage contract is asynchronous (etcd); these bodies are synchronous, and `async` makes their throws the rejections the contract specifies */
export class MemoryStorage implements Storage {
  private readonly objects = new Map<string, KubeObject>();
  private readonly keys = new SortedKeys();
  /** How many keys each `/<group>/<resource>/` prefix holds (keys of that shape only). */
  private readonly perResource = new Map<string, number>();
  private readonly history: WatchHistory;
  private revision = 0;

  constructor(options: MemoryStorageOptions = {}) {
    this.history = new WatchHistory(options.historyLimit ?? 10000);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  /** The stored objects themselves, for the server's readers that do not modify them. */
  readonly [SHARED_READS]: SharedReads = {
    get: (key) => this.objects.get(key),
    list: (prefix, atRevision, page) => this.listFrom(prefix, atRevision, page, false),
    any: (prefix) => {
      if (resourcePrefix(prefix) === prefix) return (this.perResource.get(prefix) ?? 0) > 0;
      return this.listFrom(prefix, undefined, { limit: 1 }, false).items.length > 0;
    },
    watch: (prefix, fromRevision, listener, onExpired) =>
      this.history.watch(prefix, fromRevision, listener, onExpired, false),
  };

  async get(key: string): Promise<KubeObject | undefined> {
    const o = this.objects.get(key);
    return o ? clone(o) : undefined;
  }

  async list(prefix: string, atRevision?: number, page: ListPage = {}): Promise<StorageList> {
    return this.listFrom(prefix, atRevision, page, true);
  }

  private listFrom(prefix: string, atRevision: number | undefined, page: ListPage = {}, copy: boolean): StorageList {
    let revision = this.revision;
    // The state at atRevision of the keys changed since: undefined = absent then.
    const past = new Map<string, KubeObject | undefined>();
    if (atRevision !== undefined && atRevision < this.revision) {
      if (atRevision < this.history.floor)
        throw new StorageError('Expired', 'too old resource version', this.history.floor);
      // Newest first, so the oldest change since atRevision sets the key's state last.
      for (const e of this.history.newestFirst(atRevision)) {
        if (e.key.startsWith(prefix)) past.set(e.key, e.type === 'ADDED' ? undefined : e.prevObject);
      }
      revision = atRevision;
    }
    const from = page.start !== undefined && page.start > prefix ? page.start : prefix;
    const end = prefixEnd(prefix);
    const current = this.keys.view();
    const stop = end === undefined ? current.length : lowerBound(current, end);
    const changed = [...past.keys()].filter((k) => k >= from).sort();
    const stateOf = (k: string): KubeObject | undefined => (past.has(k) ? past.get(k) : this.objects.get(k));
    const limit = page.limit && page.limit > 0 ? page.limit : undefined;
    const out: StorageList = { items: [], keys: [], revision };
    // Walk the current keys and the changed ones in order (a key in both is taken once).
    let i = lowerBound(current, from);
    let j = 0;
    while (i < stop || j < changed.length) {
      let k: string;
      if (j >= changed.length || (i < stop && current[i] < changed[j])) k = current[i++]!;
      else {
        k = changed[j++]!;
        if (i < stop && current[i] === k) i++;
      }
      const obj = stateOf(k);
      if (!obj) continue;
      if (limit !== undefined && out.items.length >= limit) {
        out.more = true;
        out.remaining = this.countFrom(k, current, stop, changed, past);
        break;
      }
      if (page.predicate && !page.predicate(obj)) continue;
      out.items.push(copy ? clone(obj) : obj);
      out.keys.push(k);
    }
    if (limit !== undefined && !out.more) out.more = false;
    return out;
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    if (this.objects.has(key)) throw new StorageError('AlreadyExists', `${key} already exists`);
    const stored = withRevision(obj, ++this.revision);
    this.objects.set(key, stored);
    this.keys.add(key);
    this.count(key, 1);
    this.history.append({ type: 'ADDED', key, revision: this.revision, object: stored });
    return clone(stored);
  }

  async update(key: string, obj: KubeObject, expectedRevision?: number): Promise<KubeObject> {
    const prev = this.objects.get(key);
    if (!prev) throw new StorageError('NotFound', `${key} not found`);
    if (expectedRevision !== undefined && revisionOf(prev) !== expectedRevision) {
      throw new StorageError('Conflict', `${key} was modified`);
    }
    const stored = withRevision(obj, ++this.revision);
    this.objects.set(key, stored);
    this.history.append({ type: 'MODIFIED', key, revision: this.revision, object: stored, prevObject: prev });
    return clone(stored);
  }

  async delete(key: string, expectedRevision?: number): Promise<KubeObject> {
    const prev = this.objects.get(key);
    if (!prev) throw new StorageError('NotFound', `${key} not found`);
    if (expectedRevision !== undefined && revisionOf(prev) !== expectedRevision) {
      throw new StorageError('Conflict', `${key} was modified`);
    }
    this.objects.delete(key);
    this.keys.delete(key);
    this.count(key, -1);
    // As etcd: the deleted object is reported at the revision of the delete.
    const last = withRevision(prev, ++this.revision);
    this.history.append({ type: 'DELETED', key, revision: this.revision, object: last, prevObject: prev });
    return clone(last);
  }

  watch(
    prefix: string,
    fromRevision: number,
    listener: (e: StorageEvent) => void,
    onExpired?: (e: StorageError) => void,
  ): StorageWatch {
    return this.history.watch(prefix, fromRevision, listener, onExpired);
  }

  compact(revision: number): void {
    this.history.compact(Math.min(revision, this.revision));
  }

  compactedRevision(): number {
    return this.history.floor;
  }

  private count(key: string, delta: number): void {
    const p = resourcePrefix(key);
    if (p !== undefined) this.perResource.set(p, (this.perResource.get(p) ?? 0) + delta);
  }

  /**
   * How many keys at or after `k` existed at the list's revision: the current ones in range,
   * corrected by the changed ones (present then and gone now, or the reverse).
   */
  private countFrom(
    k: string,
    current: readonly string[],
    stop: number,
    changed: string[],
    past: Map<string, KubeObject | undefined>,
  ): number {
    let n = Math.max(0, stop - lowerBound(current, k));
    for (let c = lowerBound(changed, k); c < changed.length; c++) {
      const key = changed[c];
      n += (past.get(key) ? 1 : 0) - (this.objects.has(key) ? 1 : 0);
    }
    return n;
  }
}
/* eslint-enable @typescript-eslint/require-await */
