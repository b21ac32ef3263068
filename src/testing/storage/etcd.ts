// Storage on etcd 3 (the npm `etcd3` client, an optional peer dependency loaded lazily):
// objects are JSON values under `<prefix><key>`, resourceVersions are etcd revisions
// (the key's mod_revision), writes are transactions guarded by version/mod_revision, and
// watches are served from a watch cache fed by one etcd watch, as the apiserver's cacher.
import type { Etcd3, IKeyValue, IOptions, IRangeResponse, IRequestOp, ITxnResponse } from 'etcd3';
import type { KubeObject } from '../../runtime/meta/types.js';
import { EtcdFeed } from './etcd-feed.js';
import type { EtcdChange } from './etcd-feed.js';
import { StorageError } from './storage.js';
import type { ListPage, Storage, StorageEvent, StorageList, StorageWatch } from './storage.js';
import { WatchHistory } from './watch-history.js';

/** Options of {@link openEtcdStorage}. */
export interface EtcdStorageOptions {
  /** etcd client URLs, e.g. `['http://127.0.0.1:2379']`. */
  endpoints: string[];
  /** Prefix of every key (default `/registry`); two servers on one etcd need different prefixes. */
  prefix?: string;
  /** How many changes the watch cache keeps for watches from a past revision (default 10000). */
  historyLimit?: number;
  /** How long a call retries while etcd is unavailable (default 10000 ms). */
  unavailableTimeoutMs?: number;
}

const NO_RETRY = {
  execute: <T>(fn: (ctx: { signal: AbortSignal; attempt: number }) => T | Promise<T>): Promise<T> =>
    Promise.resolve().then(() => fn({ signal: new AbortController().signal, attempt: 0 })),
};

function backoff(ms: number): { duration: number; next(): unknown } {
  return { duration: ms, next: () => backoff(Math.min(ms * 2, 1000)) };
}

/** The etcd3 module, loaded on first use with a clear error when it is not installed. */
async function loadEtcd3(): Promise<typeof import('etcd3')> {
  try {
    return await import('etcd3');
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error('etcd storage needs the npm package "etcd3": run `npm install etcd3`');
    }
    throw e;
  }
}

/** The end of a prefix range: the prefix with its last byte incremented. */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i] += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

function isCompacted(e: unknown): boolean {
  return /required revision has been compacted/i.test((e as Error)?.message ?? '');
}

function isFutureRevision(e: unknown): boolean {
  return /future revision/i.test((e as Error)?.message ?? '');
}

function isUnavailable(e: unknown): boolean {
  const name = (e as Error)?.constructor?.name ?? '';
  const msg = (e as Error)?.message ?? '';
  return (
    name === 'GRPCUnavailableError' ||
    name === 'GRPCDeadlineExceededError' ||
    /UNAVAILABLE|No connection established|ECONNREFUSED/i.test(msg)
  );
}

/** Opens etcd storage: connects, finds the compacted revision, and starts the watch cache. */
export async function openEtcdStorage(options: EtcdStorageOptions): Promise<EtcdStorage> {
  if (!options.endpoints.length) throw new Error('etcd storage needs at least one endpoint');
  for (const e of options.endpoints) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(e))
      throw new Error(`"${e}" is not an etcd endpoint (e.g. http://127.0.0.1:2379)`);
  }
  const { Etcd3 } = await loadEtcd3();
  const timeout = options.unavailableTimeoutMs ?? 10000;
  const clientOptions: IOptions = {
    hosts: options.endpoints,
    dialTimeout: timeout,
    grpcOptions: { 'grpc.max_receive_message_length': 256 * 1024 * 1024 },
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + Math.max(1000, timeout) }),
    faultHandling: {
      host: () => NO_RETRY as never,
      global: NO_RETRY as never,
      watchBackoff: backoff(50) as never,
    },
  };
  const client = new Etcd3(clientOptions);
  const storage = new EtcdStorage(client, options);
  try {
    await storage.open();
  } catch (e) {
    await storage.close();
    throw new Error(`cannot use etcd at ${options.endpoints.join(',')}: ${(e as Error).message}`);
  }
  return storage;
}

/**
 * {@link Storage} on etcd. Create it with {@link openEtcdStorage}; {@link EtcdStorage.close}
 * when done. A write resolves once the watch cache has seen it, so watchers have received
 * the change (as with the memory store).
 */
export class EtcdStorage implements Storage {
  private readonly root: string;
  private readonly rootBuf: Buffer;
  private readonly historyLimit: number;
  private readonly timeoutMs: number;
  /** The watch cache; its floor (>= `compacted`): every event after it is kept or still to come from the feed. */
  private readonly history: WatchHistory;
  private readonly waiting: { revision: number; resolve: () => void }[] = [];
  /** Watches and exact lists from revisions older than this get `Expired`. */
  private compacted = 0;
  private highest = 0;
  private pendingCompaction: Promise<unknown> = Promise.resolve();
  private feed: EtcdFeed | undefined;
  private closed = false;

  /** Use {@link openEtcdStorage}. */
  constructor(
    private readonly client: Etcd3,
    options: EtcdStorageOptions,
  ) {
    this.root = (options.prefix ?? '/registry').replace(/\/+$/, '');
    this.rootBuf = Buffer.from(this.root);
    this.historyLimit = Math.max(1, options.historyLimit ?? 10000);
    this.timeoutMs = options.unavailableTimeoutMs ?? 10000;
    this.history = new WatchHistory(this.historyLimit);
  }

  /** Connects and fills the watch cache from etcd's history (bounded by the history limit). */
  async open(): Promise<void> {
    const current = await this.currentRevision();
    const etcdCompacted = await this.findCompactedRevision(current);
    // etcd keeps the compact revision itself: a watch may start there.
    this.compacted = Math.max(0, etcdCompacted - 1);
    this.history.compact(Math.max(this.compacted, current - this.historyLimit));
    this.highest = current;
    this.feed = new EtcdFeed(
      this.client,
      this.history.floor,
      {
        onChanges: (changes, revision) => this.onChanges(changes, revision),
        onGap: (_last, restartFrom) => this.onGap(restartFrom),
      },
      () => this.currentRevision(),
    );
    await this.feed.start();
    await this.caughtUp(current);
  }

  /** Stops the watch cache and closes the etcd client. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.resolve();
    this.history.stopAll();
    await this.feed?.stop();
    await this.pendingCompaction.catch(() => undefined);
    this.client.close();
  }

  async currentRevision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: this.rootBuf, count_only: true }));
    const rev = Number(res.header.revision);
    this.highest = Math.max(this.highest, rev);
    await this.caughtUp(rev);
    return rev;
  }

  async get(key: string): Promise<KubeObject | undefined> {
    const res = await this.call(() => this.client.kv.range({ key: this.full(key) }));
    const kv = res.kvs[0];
    return kv ? this.decode(kv) : undefined;
  }

  async list(prefix: string, atRevision?: number, page: ListPage = {}): Promise<StorageList> {
    if (atRevision !== undefined && atRevision < this.compacted) {
      throw new StorageError('Expired', 'too old resource version', this.compacted);
    }
    const start = this.full(prefix);
    const end = prefixEnd(start);
    const limit = page.limit && page.limit > 0 ? page.limit : undefined;
    let from = page.start !== undefined && page.start > prefix ? this.full(page.start) : start;
    let rev = atRevision ?? 0;
    let revision: number | undefined;
    const out: StorageList = { items: [], keys: [], revision: 0 };
    // One range without a limit. With one: ranges from the key after the last one read, all
    // at the revision of the first (one consistent list), twice as large each time while the
    // predicate skips keys (as the apiserver), until the page is full or the keys run out.
    let batch = limit ?? 0;
    for (;;) {
      let res: IRangeResponse;
      try {
        res = await this.call(() => this.client.kv.range({ key: from, range_end: end, revision: rev, limit: batch }));
      } catch (e) {
        if (isCompacted(e))
          throw new StorageError('Expired', 'too old resource version', Math.max(this.compacted, atRevision ?? 0));
        if (!isFutureRevision(e) || revision !== undefined) throw e;
        // A revision etcd has not reached: list the current state.
        atRevision = undefined;
        rev = 0;
        continue;
      }
      if (revision === undefined) {
        const current = Number(res.header.revision);
        revision = atRevision !== undefined && atRevision < current ? atRevision : current;
        rev = revision;
      }
      let read = 0;
      for (const kv of res.kvs) {
        if (limit !== undefined && out.items.length >= limit) break;
        read++;
        const obj = this.decode(kv);
        if (page.predicate && !page.predicate(obj)) continue;
        out.items.push(obj);
        out.keys.push(this.keyOf(kv));
      }
      if (limit === undefined) break;
      if (read < res.kvs.length || (out.items.length >= limit && res.more)) {
        // etcd's count is of the keys from `from` on: those after the last one read remain.
        out.more = true;
        out.remaining = Number(res.count) - read;
        break;
      }
      const last = res.kvs[res.kvs.length - 1];
      if (!res.more || !last) break;
      from = Buffer.concat([last.key, Buffer.from([0])]);
      batch = Math.min(batch * 2, 10000);
    }
    if (limit !== undefined && !out.more) out.more = false;
    out.revision = revision ?? 0;
    return out;
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    const k = this.full(key);
    const res = await this.txn(
      [{ key: k, target: 'Version', result: 'Equal', version: 0 }],
      [{ request_put: { key: k, value: this.encode(obj) } }],
      [],
    );
    if (!res.succeeded) throw new StorageError('AlreadyExists', `${key} already exists`);
    return this.written(obj, Number(res.header.revision));
  }

  async update(key: string, obj: KubeObject, expectedRevision?: number): Promise<KubeObject> {
    const k = this.full(key);
    const res = await this.txn(
      this.guard(k, expectedRevision),
      [{ request_put: { key: k, value: this.encode(obj) } }],
      [{ request_range: { key: k } }],
    );
    if (!res.succeeded) this.refused(key, res);
    return this.written(obj, Number(res.header.revision));
  }

  async delete(key: string, expectedRevision?: number): Promise<KubeObject> {
    const k = this.full(key);
    const res = await this.txn(
      this.guard(k, expectedRevision),
      [{ request_delete_range: { key: k, prev_kv: true } }],
      [{ request_range: { key: k } }],
    );
    if (!res.succeeded) this.refused(key, res);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs?.[0];
    const last = prev ? this.decode(prev) : ({} as KubeObject);
    return this.written(last, Number(res.header.revision));
  }

  watch(
    prefix: string,
    fromRevision: number,
    listener: (e: StorageEvent) => void,
    onExpired?: (e: StorageError) => void,
  ): StorageWatch {
    const oldest = Math.max(this.compacted, this.history.floor);
    if (fromRevision < oldest) throw new StorageError('Expired', 'too old resource version', oldest);
    return this.history.watch(prefix, fromRevision, listener, onExpired);
  }

  compact(revision: number): void {
    const upTo = Math.min(revision, this.highest);
    if (upTo <= this.compacted) return;
    this.compacted = upTo;
    this.history.compact(upTo);
    // etcd compacts in the background of this call; a list at an older revision is refused
    // here first (this.compacted), then by etcd itself.
    this.pendingCompaction = this.pendingCompaction
      .then(() => this.client.kv.compact({ revision: upTo, physical: true }))
      .catch(() => undefined);
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Resolves when etcd has finished the compactions asked so far. */
  async compactionDone(): Promise<void> {
    await this.pendingCompaction;
  }

  private full(key: string): Buffer {
    return Buffer.from(this.root + key);
  }

  private keyOf(kv: IKeyValue): string {
    return kv.key.toString().slice(this.root.length);
  }

  private encode(obj: KubeObject): Buffer {
    const o = structuredClone(obj);
    // As the apiserver: the resourceVersion is not stored, it is the key's mod_revision.
    if (o.metadata) delete o.metadata.resourceVersion;
    return Buffer.from(JSON.stringify(o));
  }

  private decode(kv: IKeyValue, revision = Number(kv.mod_revision)): KubeObject {
    let o: KubeObject;
    try {
      o = JSON.parse(kv.value.toString()) as KubeObject;
    } catch {
      o = {};
    }
    if (o === null || typeof o !== 'object') o = {};
    o.metadata = { ...(o.metadata ?? {}), resourceVersion: String(revision) };
    return o;
  }

  private guard(
    k: Buffer,
    expectedRevision: number | undefined,
  ): {
    key: Buffer;
    target: 'Mod' | 'Version';
    result: 'Equal' | 'Greater';
    mod_revision?: number;
    version?: number;
  }[] {
    return expectedRevision !== undefined
      ? [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }]
      : [{ key: k, target: 'Version', result: 'Greater', version: 0 }];
  }

  private refused(key: string, res: ITxnResponse): never {
    const found = res.responses[0]?.response_range?.kvs?.length ?? 0;
    if (!found) throw new StorageError('NotFound', `${key} not found`);
    throw new StorageError('Conflict', `${key} was modified`);
  }

  private async written(obj: KubeObject, revision: number): Promise<KubeObject> {
    this.highest = Math.max(this.highest, revision);
    await this.caughtUp(revision);
    const o = structuredClone(obj);
    o.metadata = { ...(o.metadata ?? {}), resourceVersion: String(revision) };
    return o;
  }

  private txn(
    compare: {
      key: Buffer;
      target: 'Mod' | 'Version';
      result: 'Equal' | 'Greater';
      mod_revision?: number;
      version?: number;
    }[],
    success: IRequestOp[],
    failure: IRequestOp[],
  ): Promise<ITxnResponse> {
    return this.call(() => this.client.kv.txn({ compare, success, failure }));
  }

  /** Runs an etcd call, retrying while etcd is unavailable (bounded by unavailableTimeoutMs). */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('etcd storage is closed');
    const deadline = Date.now() + this.timeoutMs;
    let wait = 25;
    for (;;) {
      try {
        return await fn();
      } catch (e) {
        if (!isUnavailable(e) || Date.now() + wait > deadline || this.closed) {
          if (isUnavailable(e)) throw new Error(`etcd unavailable: ${(e as Error).message}`);
          throw e;
        }
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 500);
    }
  }

  /** Waits (bounded) until the watch cache has seen `revision`, so watchers got every change up to it. */
  private caughtUp(revision: number): Promise<void> {
    // Revision 1 is etcd's empty start: no event carries it.
    if (!this.feed || this.feed.revision >= revision || revision <= 1 || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const entry = { revision, resolve: () => (clearTimeout(t), resolve()) };
      const t = setTimeout(() => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve();
      }, this.timeoutMs);
      t.unref();
      this.waiting.push(entry);
    });
  }

  /** The smallest revision etcd can still read (1 when nothing was compacted): a binary search. */
  private async findCompactedRevision(current: number): Promise<number> {
    const readable = async (rev: number): Promise<boolean> => {
      try {
        await this.call(() => this.client.kv.range({ key: this.rootBuf, count_only: true, revision: rev }));
        return true;
      } catch (e) {
        if (isCompacted(e)) return false;
        throw e;
      }
    };
    if (current <= 1 || (await readable(1))) return 1;
    let lo = 1;
    let hi = current;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  private onChanges(changes: EtcdChange[], revision: number): void {
    for (const c of changes) {
      const key = c.kv.key.toString();
      if (!key.startsWith(this.root + '/')) continue;
      const rev = Number(c.kv.mod_revision);
      const prev = c.prevKv ? this.decode(c.prevKv) : undefined;
      let e: StorageEvent;
      if (c.type === 'delete') {
        const last = prev
          ? this.decode(c.prevKv!, rev)
          : ({ metadata: { resourceVersion: String(rev) } } as KubeObject);
        e = { type: 'DELETED', key: this.keyOf(c.kv), revision: rev, object: last };
      } else {
        e = {
          type: c.kv.version === '1' || !prev ? 'ADDED' : 'MODIFIED',
          key: this.keyOf(c.kv),
          revision: rev,
          object: this.decode(c.kv),
        };
      }
      if (prev) e.prevObject = prev;
      this.history.append(e);
    }
    this.highest = Math.max(this.highest, revision);
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i].revision <= revision) this.waiting.splice(i, 1)[0].resolve();
    }
  }

  /**
   * The feed lost revisions (compacted while etcd was unreachable): every open watch ends
   * with `onExpired`, and watches from before `restartFrom` get `Expired`. Called by the
   * feed; public so tests can drive it.
   */
  onGap(restartFrom: number): void {
    this.compacted = Math.max(this.compacted, restartFrom);
    // Watchers may have missed changes: end them so their clients relist.
    this.history.expireAll(
      restartFrom,
      new StorageError('Expired', 'the watch cache lost changes to an etcd compaction; list again', restartFrom),
    );
  }
}
