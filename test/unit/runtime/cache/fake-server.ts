// An in-memory API server for one resource, implementing ListerWatcher, with fault
// injection: failed requests (500, 429 + Retry-After, 410), dropped watches, ERROR
// events, history compaction and expired continue tokens. Test helper, not a test.
import {
  ApiError,
  type ListOptions,
  type ListerWatcher,
  type Watch,
  type WatchEvent,
  type KubeList,
  type KubeObject,
  type Status,
} from '../../../../src/runtime/index.js';

/** The object kind served. */
export interface Obj extends KubeObject {
  spec: { replicas: number };
}

/** A seeded PRNG (mulberry32): deterministic runs per seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Status body for an error. */
export function status(code: number, reason: string, message = reason): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message };
}

/** A request failure the server will answer with next. */
export type Fault = { kind: 'status'; code: number; reason: string; retryAfter?: string } | { kind: 'network' };

/** A watch stream fed by the server. */
export class FakeWatch<T> implements Watch<T> {
  private buf: WatchEvent<T>[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;

  /** Queues an event (ignored once closed). */
  push(ev: WatchEvent<T>): void {
    if (this.closed) return;
    this.buf.push(ev);
    this.wake();
  }

  /** Ends the stream after the queued events (server side). */
  end(): void {
    this.closed = true;
    this.wake();
  }

  /** True once ended or stopped. */
  isClosed(): boolean {
    return this.closed;
  }

  stop(): void {
    this.closed = true;
    this.buf = [];
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    for (;;) {
      const ev = this.buf.shift();
      if (ev) {
        yield ev;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => (this.waiter = r));
    }
  }
}

interface HistoryEntry {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  obj: Obj;
}

/** The fake server. */
export class FakeServer implements ListerWatcher<Obj> {
  /** Current objects by key. */
  readonly objects = new Map<string, Obj>();
  private rv = 100;
  private history: HistoryEntry[] = [];
  /** Events older than this version are compacted: watching from before it answers 410. */
  private horizon = 100;
  private readonly watches = new Set<FakeWatch<Obj>>();
  private readonly snapshots = new Map<string, { items: Obj[]; rv: number }>();
  private tokenSeq = 0;
  /** Failures to answer the next list calls with, in order. */
  listFaults: Fault[] = [];
  /** Failures to answer the next watch calls with, in order. */
  watchFaults: Fault[] = [];
  /** Probability that a continue token has expired when used. */
  continueExpiry = 0;
  /** Every call, for assertions: kind and options (without the signal). */
  readonly calls: { kind: 'list' | 'watch'; options: Omit<ListOptions, 'signal'> }[] = [];

  /** The current resourceVersion. */
  resourceVersion(): string {
    return String(this.rv);
  }

  /** Creates or replaces an object, emitting ADDED or MODIFIED. */
  upsert(name: string, replicas: number, namespace = 'default'): Obj {
    const key = `${namespace}/${name}`;
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    const obj: Obj = {
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManager',
      metadata: { namespace, name, resourceVersion: String(++this.rv) },
      spec: { replicas },
    };
    this.objects.set(key, obj);
    this.emit({ rv: this.rv, type, obj });
    return obj;
  }

  /** Deletes an object (no-op if absent), emitting DELETED. */
  remove(key: string): void {
    const cur = this.objects.get(key);
    if (!cur) return;
    this.objects.delete(key);
    const obj: Obj = { ...cur, metadata: { ...cur.metadata, resourceVersion: String(++this.rv) } };
    this.emit({ rv: this.rv, type: 'DELETED', obj });
  }

  /** Forgets history up to now: watches from older versions get 410. */
  compact(): void {
    this.horizon = this.rv;
    this.history = [];
  }

  /** Closes every open watch (as a connection drop or server timeout would). */
  dropWatches(): void {
    for (const w of this.watches) w.end();
    this.watches.clear();
  }

  /** Sends an ERROR event with a 410 Expired Status on every open watch, then ends them. */
  expireWatches(): void {
    for (const w of this.watches) {
      w.push({ type: 'ERROR', object: status(410, 'Expired', 'too old resource version') });
      w.end();
    }
    this.watches.clear();
  }

  /** Sends a BOOKMARK at the current version on every open watch. */
  bookmark(): void {
    for (const w of this.watches) {
      w.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(this.rv) } } as Obj });
    }
  }

  /** Number of open watches. */
  openWatches(): number {
    return this.watches.size;
  }

  async list(options: ListOptions = {}): Promise<KubeList<Obj>> {
    const { signal: _s, ...rest } = options;
    this.calls.push({ kind: 'list', options: rest });
    await Promise.resolve();
    this.fail(this.listFaults.shift());
    if (options.continue) {
      const snap = this.snapshots.get(options.continue);
      if (!snap) throw new ApiError(status(410, 'Expired', 'continue token expired'));
      if (this.continueExpiry > 0 && this.chance(this.continueExpiry)) {
        this.snapshots.delete(options.continue);
        throw new ApiError(status(410, 'Expired', 'the provided continue parameter is too old'));
      }
      this.snapshots.delete(options.continue);
      return this.page(snap.items, snap.rv, options.limit ?? 0);
    }
    const items = Array.from(this.objects.values()).sort((a, b) =>
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
    );
    return this.page(items, this.rv, options.limit ?? 0);
  }

  async watch(options: ListOptions = {}): Promise<Watch<Obj>> {
    const { signal, ...rest } = options;
    this.calls.push({ kind: 'watch', options: rest });
    await Promise.resolve();
    this.fail(this.watchFaults.shift());
    const from = Number(options.resourceVersion ?? '0');
    if (options.resourceVersion && from < this.horizon) {
      throw new ApiError(status(410, 'Expired', `too old resource version: ${from} (${this.horizon})`));
    }
    const w = new FakeWatch<Obj>();
    for (const h of this.history) if (h.rv > from) w.push({ type: h.type, object: h.obj });
    this.watches.add(w);
    signal?.addEventListener(
      'abort',
      () => {
        w.stop();
        this.watches.delete(w);
      },
      { once: true },
    );
    return w;
  }

  /** A random source for `continueExpiry`; replace for determinism. */
  chance: (p: number) => boolean = (p) => Math.random() < p;

  private page(items: Obj[], rv: number, limit: number): KubeList<Obj> {
    if (limit > 0 && items.length > limit) {
      const token = `t${++this.tokenSeq}`;
      this.snapshots.set(token, { items: items.slice(limit), rv });
      return {
        kind: 'DatabaseManagerList',
        metadata: { resourceVersion: String(rv), continue: token },
        items: items.slice(0, limit),
      };
    }
    return { kind: 'DatabaseManagerList', metadata: { resourceVersion: String(rv) }, items: items.slice() };
  }

  private fail(f: Fault | undefined): void {
    if (!f) return;
    if (f.kind === 'network') {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    }
    throw new ApiError(status(f.code, f.reason), f.retryAfter !== undefined ? { retryAfterHeader: f.retryAfter } : {});
  }

  private emit(h: HistoryEntry): void {
    this.history.push(h);
    for (const w of this.watches) w.push({ type: h.type, object: h.obj });
  }
}
