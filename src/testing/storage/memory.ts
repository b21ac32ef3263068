// In-memory Storage: a sorted map of objects, one global revision counter, and a
// bounded history of changes that serves watches from a past revision and exact lists.
import type { KubeObject } from '../../runtime/meta/types.js';
import { StorageError } from './storage.js';
import type { Storage, StorageEvent, StorageList, StorageWatch } from './storage.js';

/** Options of the in-memory store. */
export interface MemoryStorageOptions {
  /** How many changes are kept for watches from a past revision (default 10000). */
  historyLimit?: number;
}

interface Watcher {
  prefix: string;
  listener: (e: StorageEvent) => void;
  active: boolean;
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function withRevision(obj: KubeObject, rev: number): KubeObject {
  const o = clone(obj);
  o.metadata = { ...(o.metadata ?? {}), resourceVersion: String(rev) };
  return o;
}

function revisionOf(obj: KubeObject): number {
  return Number(obj.metadata?.resourceVersion ?? 0);
}

/** The in-memory implementation of {@link Storage}. Synchronous inside; async at the interface. */
export class MemoryStorage implements Storage {
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: StorageEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly historyLimit: number;
  private revision = 0;
  private compacted = 0;

  constructor(options: MemoryStorageOptions = {}) {
    this.historyLimit = Math.max(1, options.historyLimit ?? 10000);
  }

  async currentRevision(): Promise<number> {
    return this.revision;
  }

  async get(key: string): Promise<KubeObject | undefined> {
    const o = this.objects.get(key);
    return o ? clone(o) : undefined;
  }

  async list(prefix: string, atRevision?: number): Promise<StorageList> {
    const state = new Map<string, KubeObject>();
    for (const [k, v] of this.objects) if (k.startsWith(prefix)) state.set(k, v);
    let revision = this.revision;
    if (atRevision !== undefined && atRevision < this.revision) {
      if (atRevision < this.compacted) throw new StorageError('Expired', 'too old resource version', this.compacted);
      // Undo the changes newer than atRevision, newest first.
      for (let i = this.history.length - 1; i >= 0; i--) {
        const e = this.history[i]!;
        if (e.revision <= atRevision) break;
        if (!e.key.startsWith(prefix)) continue;
        if (e.type === 'ADDED') state.delete(e.key);
        else if (e.prevObject) state.set(e.key, e.prevObject);
      }
      revision = atRevision;
    }
    const keys = [...state.keys()].sort();
    return { items: keys.map((k) => clone(state.get(k)!)), keys, revision };
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    if (this.objects.has(key)) throw new StorageError('AlreadyExists', `${key} already exists`);
    const stored = withRevision(obj, ++this.revision);
    this.objects.set(key, stored);
    this.emit({ type: 'ADDED', key, revision: this.revision, object: stored });
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
    this.emit({ type: 'MODIFIED', key, revision: this.revision, object: stored, prevObject: prev });
    return clone(stored);
  }

  async delete(key: string, expectedRevision?: number): Promise<KubeObject> {
    const prev = this.objects.get(key);
    if (!prev) throw new StorageError('NotFound', `${key} not found`);
    if (expectedRevision !== undefined && revisionOf(prev) !== expectedRevision) {
      throw new StorageError('Conflict', `${key} was modified`);
    }
    this.objects.delete(key);
    // As etcd: the deleted object is reported at the revision of the delete.
    const last = withRevision(prev, ++this.revision);
    this.emit({ type: 'DELETED', key, revision: this.revision, object: last, prevObject: prev });
    return clone(last);
  }

  watch(prefix: string, fromRevision: number, listener: (e: StorageEvent) => void): StorageWatch {
    if (fromRevision < this.compacted) {
      throw new StorageError('Expired', 'too old resource version', this.compacted);
    }
    const w: Watcher = { prefix, listener, active: true };
    for (const e of this.history) {
      if (e.revision > fromRevision && e.key.startsWith(prefix)) listener(clone(e));
    }
    this.watchers.add(w);
    return {
      stop: () => {
        w.active = false;
        this.watchers.delete(w);
      },
    };
  }

  compact(revision: number): void {
    const upTo = Math.min(revision, this.revision);
    if (upTo <= this.compacted) return;
    this.compacted = upTo;
    while (this.history.length && this.history[0]!.revision <= upTo) this.history.shift();
  }

  compactedRevision(): number {
    return this.compacted;
  }

  private emit(e: StorageEvent): void {
    this.history.push(e);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compacted = Math.max(this.compacted, dropped[dropped.length - 1]!.revision);
    }
    for (const w of [...this.watchers]) {
      if (!w.active || !e.key.startsWith(w.prefix)) continue;
      try {
        w.listener(clone(e));
      } catch {
        // A failing listener must not break the write or the other watchers.
      }
    }
  }
}
