// Reflector: keeps a store in step with the server (client-go tools/cache/reflector.go).
// A streaming list (a watch with sendInitialEvents, synced at the `k8s.io/initial-events-end`
// bookmark, then kept as the watch) where the server supports it, else a paged list and a
// watch from the list's resourceVersion; re-watch from the last seen version when a watch
// ends; relist on 410/"too old resource version"; back off with jitter between failed
// cycles; never loop tightly against a failing server.
import type { KubeObject } from '../meta/types.js';
import type { ListOptions, ListerWatcher, Watch, WatchEvent } from '../client/types.js';
import { ApiError, isResourceExpired, isTooManyRequests } from '../client/errors.js';
import { watchBatches } from '../client/watch.js';
import { realClock, sleep, type Clock, type Timer } from '../workqueue/clock.js';
import type { ReflectorMetrics } from '../metrics/reflector.js';
import { ExponentialBackoffManager, type BackoffManager } from './backoff.js';
import type { StoreWriter } from './store.js';

/** What a reflector is doing; one line per state (kube-rs watcher style). */
export type ReflectorState =
  /** Not started yet. */
  | { kind: 'Idle' }
  /** Listing at `resourceVersion` ('0': any cached state, '': the latest, quorum read). */
  | { kind: 'Listing'; resourceVersion: string }
  /** Streaming the initial list (a watch with sendInitialEvents) not older than `resourceVersion` ('': the latest). */
  | { kind: 'Streaming'; resourceVersion: string }
  /** Watching from `resourceVersion`. */
  | { kind: 'Watching'; resourceVersion: string }
  /** Waiting `ms` (from `since`) before the next attempt, because of `cause`. */
  | { kind: 'BackingOff'; since: number; ms: number; cause: unknown }
  /** `run` returned. */
  | { kind: 'Stopped' };

/** Options of a Reflector. Durations are milliseconds. */
export interface ReflectorOptions {
  /** Name in messages and metrics (default 'reflector'). */
  name?: string;
  /** How often to call `store.resync()` while watching (0: never; default 0). */
  resyncPeriodMs?: number;
  /** Consulted at each resync tick; resync happens only when it returns true. */
  shouldResync?: () => boolean;
  /**
   * List page size. Default: 500 (client-go's pager) for the first list and whenever
   * the server paged before; no limit when relisting at a known resourceVersion (served
   * from the watch cache). Set explicitly to always page with this size.
   */
  pageSize?: number;
  /** Watches ask the server to end after a random time in [min, 2·min) (default 5 min). */
  minWatchTimeoutMs?: number;
  /** Backoff between failed cycles (default: 800 ms → 30 s, ×2, jitter 1, reset after 2 min). */
  backoff?: BackoffManager;
  /** Time source. */
  clock?: Clock;
  /** Random source in [0, 1) for watch timeouts (the backoff has its own). */
  random?: () => number;
  /** Metrics hooks. */
  metrics?: ReflectorMetrics;
  /** Called with the error of each failed cycle and the reflector's name (default: a warning on stderr). */
  watchErrorHandler?: (err: unknown, name: string) => void;
  /**
   * Start each cycle with a streaming list when the ListerWatcher supports it
   * (`streamingLists`): one watch with `sendInitialEvents=true`,
   * `resourceVersionMatch=NotOlderThan` and bookmarks, synced at the bookmark annotated
   * `k8s.io/initial-events-end`, then kept as the watch (client-go's WatchListClient, on by
   * default since 1.35). Where the server refuses, or sends no such bookmark, the cycle
   * falls back to a paged list. Default true.
   */
  streamingList?: boolean;
  /**
   * A streaming list that receives nothing for this long before its end bookmark is given up
   * for a paged list (a server that ignores `sendInitialEvents` sends no such bookmark).
   * Default 30000.
   */
  initialEventsTimeoutMs?: number;
  /** Informational lines: which way the reflector lists (once, and again when that changes). Default: none. */
  log?: (message: string) => void;
}

/** How a reflector fills its store: a streaming list or a paged list. */
export type ListMode = 'streaming' | 'paged';

/** Page size of paged lists (client-go pager's default). */
export const DEFAULT_PAGE_SIZE = 500;
/** How long a streaming list may go without an event before its end bookmark (see ReflectorOptions). */
export const INITIAL_EVENTS_TIMEOUT_MS = 30_000;
/** The annotation of the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
/** Lower bound of watch timeouts (client-go: 5 min). */
export const MIN_WATCH_TIMEOUT_MS = 5 * 60_000;
/** A watch that ends sooner than this without any event counts as a failure. */
const SHORT_WATCH_MS = 1000;
/**
 * A watch still open this long after its `timeoutSeconds` is stopped client-side: the
 * server should have closed it, so the connection is presumably dead (half-open TCP).
 * This keeps an informer from silently hanging on a stream that will never deliver.
 */
export const WATCH_TIMEOUT_GRACE_MS = 30_000;

/** How a watch ended. */
type WatchOutcome = { kind: 'Ended' } | { kind: 'Failed'; error: unknown } | { kind: 'Stopped' };

/** An open watch and where its reading stands: the iterator of its batches, events already read but not applied. */
interface OpenWatch<T> {
  watch: Watch<T>;
  batches: AsyncIterator<readonly WatchEvent<T>[]>;
  leftover: readonly WatchEvent<T>[];
  /** When it was opened, and its timeoutSeconds. */
  start: number;
  timeoutSeconds: number;
}

/** How a streaming list ended: synced (its watch goes on), given up for a paged list, or stopped. */
type StreamOutcome<T> =
  { kind: 'Synced'; open: OpenWatch<T> } | { kind: 'Fallback'; reason: string } | { kind: 'Stopped' };

/**
 * The reflector. Invariants: `lastSyncRV` only moves to versions the store has seen
 * (the list's, or a watch event's after applying it); while `state` is Watching, the
 * store reflects the server at `lastSyncRV`.
 */
export class Reflector<T extends KubeObject> {
  private readonly name: string;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: BackoffManager;
  private readonly metrics: ReflectorMetrics;
  private readonly onError: (err: unknown, name: string) => void;
  private lastSyncRV = '';
  private lastSyncRVUnavailable = false;
  private paginatedResult = false;
  private mode: ListMode | undefined;
  private current: ReflectorState = { kind: 'Idle' };
  private started = false;

  /** Feeds `store` from `listerWatcher`. */
  constructor(
    private readonly listerWatcher: ListerWatcher<T>,
    private readonly store: StoreWriter<T>,
    private readonly options: ReflectorOptions = {},
  ) {
    this.name = options.name ?? 'reflector';
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.backoff = options.backoff ?? new ExponentialBackoffManager({ clock: this.clock });
    this.metrics = options.metrics ?? {};
    this.onError =
      options.watchErrorHandler ??
      ((err) => console.warn(`${this.name}: list/watch failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** The current state. */
  state(): ReflectorState {
    return this.current;
  }

  /** The resource version of the last list or watch event applied ('' before the first list). */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** How the last (or current) cycle filled the store; undefined before the first sync. */
  listMode(): ListMode | undefined {
    return this.mode;
  }

  /**
   * Lists and watches until `signal` aborts, backing off between cycles; each failed
   * cycle goes to the watch error handler. Resolves once stopped; rejects only when
   * called a second time (a reflector runs once).
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`${this.name}: a reflector runs once`);
    this.started = true;
    while (!signal.aborted) {
      let cause: unknown;
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        cause = err;
        if (!signal.aborted) this.report(err);
      }
      if (signal.aborted) break;
      if (!(await this.wait(cause, signal))) break;
    }
    this.current = { kind: 'Stopped' };
  }

  /**
   * One cycle: a streaming list (or a paged list), then watch (re-watching as watches end)
   * until a watch fails, the resource version expires, or `signal` aborts. Rejects with the
   * error that ended it, resolves when a relist is simply due (expired version) or on abort.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    let open: OpenWatch<T> | undefined;
    if (this.options.streamingList !== false && this.listerWatcher.streamingLists === true) {
      const streamed = await this.streamList(signal);
      if (streamed.kind === 'Stopped') return;
      if (streamed.kind === 'Synced') {
        open = streamed.open;
        this.setMode('streaming');
      } else this.setMode('paged', streamed.reason);
    } else this.setMode('paged');
    if (!open) await this.list(signal);
    if (signal.aborted) {
      open?.watch.stop();
      return;
    }
    const resync = this.startResync();
    try {
      await this.watchLoop(signal, open);
    } finally {
      resync?.cancel();
    }
  }

  private setMode(mode: ListMode, reason?: string): void {
    if (this.mode === mode) return;
    this.mode = mode;
    const why = reason ? ` (${reason})` : '';
    this.options.log?.(
      mode === 'streaming'
        ? `${this.name}: streaming lists (watch with sendInitialEvents)`
        : `${this.name}: paged lists of ${this.options.pageSize ?? DEFAULT_PAGE_SIZE}${why}`,
    );
  }

  /**
   * A streaming list (client-go's watchList): a watch with `sendInitialEvents=true` from the
   * last seen version ('' when there is none, or it is gone: the latest, as a quorum read);
   * its ADDED events are collected until the `k8s.io/initial-events-end` bookmark, then
   * replace the store at the bookmark's version, and the same watch goes on. An expired or
   * too large version streams again from the latest; anything the server refuses, a stream
   * that ends or goes quiet before the bookmark, or a bookmark without the annotation (a
   * server that ignores sendInitialEvents) gives up for a paged list.
   */
  private async streamList(signal: AbortSignal): Promise<StreamOutcome<T>> {
    for (;;) {
      if (signal.aborted) return { kind: 'Stopped' };
      const rv = this.lastSyncRVUnavailable ? '' : this.lastSyncRV;
      this.current = { kind: 'Streaming', resourceVersion: rv };
      const timeoutSeconds = this.watchTimeoutSeconds();
      const start = this.clock.now();
      let w: Watch<T>;
      try {
        w = await this.listerWatcher.watch({
          resourceVersion: rv,
          resourceVersionMatch: 'NotOlderThan',
          sendInitialEvents: true,
          allowWatchBookmarks: true,
          timeoutSeconds,
          signal,
        });
      } catch (err) {
        if (signal.aborted) return { kind: 'Stopped' };
        if (isWatchErrorRetriable(err)) {
          this.report(err); // a server that cannot be reached is the watch error handler's news, as on a paged list
          if (!(await this.wait(err, signal))) return { kind: 'Stopped' };
          continue;
        }
        if (rv !== '' && (isResourceExpired(err) || isTooLargeResourceVersion(err))) {
          this.lastSyncRVUnavailable = true;
          continue;
        }
        return { kind: 'Fallback', reason: `the server refused a streaming list: ${errorText(err)}` };
      }
      const got = await this.collectInitialEvents(w, start, timeoutSeconds, signal);
      if (got.kind === 'Items') {
        this.metrics.onList?.(this.name, {
          durationSeconds: (this.clock.now() - start) / 1000,
          items: got.items.length,
          mode: 'streaming',
        });
        this.lastSyncRVUnavailable = false;
        this.store.replace(got.items, got.resourceVersion);
        this.setLastSyncResourceVersion(got.resourceVersion);
        return { kind: 'Synced', open: got.open };
      }
      w.stop();
      if (got.kind === 'Stopped' || signal.aborted) return { kind: 'Stopped' };
      if (got.kind === 'Expired' && rv !== '') {
        this.lastSyncRVUnavailable = true;
        continue;
      }
      const reason = got.kind === 'Expired' ? 'the latest resource version expired' : got.reason;
      this.metrics.onList?.(this.name, {
        durationSeconds: (this.clock.now() - start) / 1000,
        items: 0,
        mode: 'streaming',
        error: new Error(reason),
      });
      return { kind: 'Fallback', reason };
    }
  }

  /** Reads a streaming list's initial events up to the end bookmark. */
  private async collectInitialEvents(
    w: Watch<T>,
    start: number,
    timeoutSeconds: number,
    signal: AbortSignal,
  ): Promise<
    | { kind: 'Items'; items: T[]; resourceVersion: string; open: OpenWatch<T> }
    | { kind: 'Expired' }
    | { kind: 'GiveUp'; reason: string }
    | { kind: 'Stopped' }
  > {
    const batches = watchBatches(w)[Symbol.asyncIterator]();
    const idleMs = this.options.initialEventsTimeoutMs ?? INITIAL_EVENTS_TIMEOUT_MS;
    let lastActivity = this.clock.now();
    let quiet = false;
    let idle: Timer | undefined;
    const arm = (ms: number): void => {
      idle = this.clock.setTimer(() => {
        const since = this.clock.now() - lastActivity;
        if (since < idleMs) return arm(idleMs - since);
        quiet = true;
        w.stop();
      }, ms);
    };
    arm(idleMs);
    const onAbort = (): void => w.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    // ADDED events in arrival order; a MODIFIED or DELETED before the bookmark (not sent by
    // kube-apiserver, which streams a snapshot) switches to a map by key.
    let items: T[] = [];
    let byKey: Map<string, T> | undefined;
    try {
      for (;;) {
        let next: IteratorResult<readonly WatchEvent<T>[]>;
        try {
          next = await batches.next();
        } catch {
          next = { done: true, value: undefined };
        }
        if (signal.aborted) return { kind: 'Stopped' };
        if (next.done) {
          return {
            kind: 'GiveUp',
            reason: quiet
              ? `no ${INITIAL_EVENTS_END_ANNOTATION} bookmark: nothing arrived for ${idleMs} ms`
              : `the stream ended before its ${INITIAL_EVENTS_END_ANNOTATION} bookmark`,
          };
        }
        lastActivity = this.clock.now();
        const batch = next.value;
        for (let i = 0; i < batch.length; i++) {
          const ev = batch[i];
          if (ev.type === 'ERROR') {
            const err = ApiError.fromStatus(ev.object);
            if (isResourceExpired(err) || isTooLargeResourceVersion(err)) return { kind: 'Expired' };
            return { kind: 'GiveUp', reason: `the streaming list failed: ${err.message}` };
          }
          const obj = ev.object;
          if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
            return { kind: 'GiveUp', reason: `a streaming list event ${ev.type} carries no object metadata` };
          }
          if (ev.type === 'BOOKMARK') {
            if (obj.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') {
              return {
                kind: 'GiveUp',
                reason: `a bookmark came before the ${INITIAL_EVENTS_END_ANNOTATION} one: the server does not stream lists`,
              };
            }
            const resourceVersion = obj.metadata.resourceVersion ?? '';
            if (byKey) items = [...byKey.values()];
            return {
              kind: 'Items',
              items,
              resourceVersion,
              open: { watch: w, batches, leftover: batch.slice(i + 1), start, timeoutSeconds },
            };
          }
          if (ev.type === 'ADDED' && !byKey) {
            items.push(obj);
            continue;
          }
          byKey ??= new Map(items.map((o) => [objectKey(o), o]));
          if (ev.type === 'DELETED') byKey.delete(objectKey(obj));
          else byKey.set(objectKey(obj), obj);
        }
      }
    } finally {
      idle?.cancel();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** The version to list at: '0' first (any cached state), the last seen after, '' when that is gone. */
  private relistResourceVersion(): string {
    if (this.lastSyncRVUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  private async list(signal: AbortSignal): Promise<void> {
    const rv = this.relistResourceVersion();
    this.current = { kind: 'Listing', resourceVersion: rv };
    let pageSize = DEFAULT_PAGE_SIZE;
    if (this.options.pageSize !== undefined) pageSize = this.options.pageSize;
    else if (!this.paginatedResult && rv !== '' && rv !== '0') pageSize = 0;
    const start = this.clock.now();
    let result: PagedList<T>;
    try {
      try {
        result = await this.pagedList({ resourceVersion: rv, signal }, pageSize, signal);
      } catch (err) {
        if (signal.aborted || !(isResourceExpired(err) || isTooLargeResourceVersion(err))) throw err;
        // The version is gone (or ahead of this server): list the latest instead.
        this.lastSyncRVUnavailable = true;
        const latest = this.relistResourceVersion();
        this.current = { kind: 'Listing', resourceVersion: latest };
        result = await this.pagedList({ resourceVersion: latest, signal }, pageSize, signal);
      }
    } catch (err) {
      this.metrics.onList?.(this.name, {
        durationSeconds: (this.clock.now() - start) / 1000,
        items: 0,
        mode: 'paged',
        error: err,
      });
      throw err;
    }
    if (signal.aborted) return;
    this.metrics.onList?.(this.name, {
      durationSeconds: (this.clock.now() - start) / 1000,
      items: result.items.length,
      mode: 'paged',
    });
    if (rv === '0' && result.paginated) this.paginatedResult = true;
    this.lastSyncRVUnavailable = false;
    this.store.replace(result.items, result.resourceVersion);
    this.setLastSyncResourceVersion(result.resourceVersion);
  }

  /** Lists every page; falls back to one full list when a continue token expires. */
  private async pagedList(options: ListOptions, pageSize: number, signal: AbortSignal): Promise<PagedList<T>> {
    const first: ListOptions = pageSize > 0 ? { ...options, limit: pageSize } : { ...options };
    let page = checkList<T>(await this.listerWatcher.list(first), this.name);
    let cont = page.metadata?.continue;
    if (!cont) return { items: page.items, resourceVersion: page.metadata?.resourceVersion ?? '', paginated: false };
    const items = page.items.slice();
    while (cont) {
      if (signal.aborted) break;
      try {
        // Continuation pages carry no resourceVersion: the token pins the snapshot.
        const next: ListOptions = { signal, limit: pageSize, continue: cont };
        page = checkList<T>(await this.listerWatcher.list(next), this.name);
      } catch (err) {
        if (!isResourceExpired(err) || signal.aborted) throw err;
        const full = checkList<T>(await this.listerWatcher.list({ ...options }), this.name);
        return { items: full.items, resourceVersion: full.metadata?.resourceVersion ?? '', paginated: true };
      }
      for (const it of page.items) items.push(it);
      cont = page.metadata?.continue;
    }
    return { items, resourceVersion: page.metadata?.resourceVersion ?? '', paginated: true };
  }

  private watchTimeoutSeconds(): number {
    const minTimeout = this.options.minWatchTimeoutMs ?? MIN_WATCH_TIMEOUT_MS;
    return Math.floor((minTimeout / 1000) * (this.random() + 1));
  }

  /** Watches (starting with `first`, a streaming list's watch, when given) until a watch fails or `signal` aborts. */
  private async watchLoop(signal: AbortSignal, first?: OpenWatch<T>): Promise<void> {
    let open = first;
    for (;;) {
      if (signal.aborted) {
        open?.watch.stop();
        return;
      }
      if (!open) {
        const start = this.clock.now();
        const timeoutSeconds = this.watchTimeoutSeconds();
        let w: Watch<T>;
        try {
          this.current = { kind: 'Watching', resourceVersion: this.lastSyncRV };
          w = await this.listerWatcher.watch({
            resourceVersion: this.lastSyncRV,
            timeoutSeconds,
            allowWatchBookmarks: true,
            signal,
          });
        } catch (err) {
          if (signal.aborted) return;
          this.metrics.onWatchStartError?.(this.name, err);
          if (isWatchErrorRetriable(err)) {
            if (!(await this.wait(err, signal))) return;
            continue;
          }
          throw err; // 410 included: the cycle ends and the next one relists.
        }
        open = { watch: w, batches: watchBatches(w)[Symbol.asyncIterator](), leftover: [], start, timeoutSeconds };
      }
      this.current = { kind: 'Watching', resourceVersion: this.lastSyncRV };
      const outcome = await this.handleWatch(open, signal, open.timeoutSeconds * 1000 + WATCH_TIMEOUT_GRACE_MS);
      open = undefined;
      if (outcome.kind === 'Stopped') return;
      if (outcome.kind === 'Failed') {
        if (isResourceExpired(outcome.error)) return; // relist at the last seen version
        if (isTooManyRequests(outcome.error)) {
          if (!(await this.wait(outcome.error, signal))) return;
          continue;
        }
        throw outcome.error;
      }
    }
  }

  /** Applies a watch's events to the store until it ends; always stops it. */
  private async handleWatch(open: OpenWatch<T>, signal: AbortSignal, deadlineMs: number): Promise<WatchOutcome> {
    const { watch: w, start } = open;
    let events = 0;
    let outcome: WatchOutcome = { kind: 'Ended' };
    const onAbort = (): void => w.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    const guard = this.clock.setTimer(() => w.stop(), Math.max(0, start + deadlineMs - this.clock.now()));
    /** Applies one batch; false when the watch must end. */
    const apply = (batch: readonly WatchEvent<T>[]): boolean => {
      for (const ev of batch) {
        if (signal.aborted) return false;
        if (ev.type === 'ERROR') {
          outcome = { kind: 'Failed', error: ApiError.fromStatus(ev.object) };
          return false;
        }
        const obj = ev.object;
        if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
          outcome = {
            kind: 'Failed',
            error: new Error(`${this.name}: watch event ${ev.type} carries no object metadata`),
          };
          return false;
        }
        events++;
        try {
          if (ev.type === 'ADDED') this.store.add(obj);
          else if (ev.type === 'MODIFIED') this.store.update(obj);
          else if (ev.type === 'DELETED') this.store.delete(obj);
        } catch (err) {
          // A bad object (e.g. no name) is reported and skipped, as client-go does.
          this.report(err);
        }
        const rv = obj.metadata.resourceVersion;
        if (rv) this.setLastSyncResourceVersion(rv);
      }
      return true;
    };
    try {
      // One batch per chunk of the stream, applied synchronously: no async hop per event.
      if (open.leftover.length === 0 || apply(open.leftover)) {
        for (;;) {
          const next = await open.batches.next();
          if (next.done || !apply(next.value)) break;
        }
      }
    } catch (err) {
      // A broken stream is an ordinary end, unless the server said why.
      if (err instanceof ApiError) outcome = { kind: 'Failed', error: err };
    } finally {
      guard.cancel();
      signal.removeEventListener('abort', onAbort);
      w.stop();
      void open.batches.return?.();
    }
    const duration = this.clock.now() - start;
    const short = outcome.kind === 'Ended' && events === 0 && duration < SHORT_WATCH_MS;
    this.metrics.onWatch?.(this.name, {
      durationSeconds: duration / 1000,
      events,
      short,
      ...(outcome.kind === 'Failed' ? { error: outcome.error } : {}),
    });
    if (signal.aborted) return { kind: 'Stopped' };
    if (short) {
      return {
        kind: 'Failed',
        error: new Error(`${this.name}: very short watch: no events and ended after ${Math.round(duration)} ms`),
      };
    }
    return outcome;
  }

  /** Starts the periodic resync while watching; undefined when resync is off. */
  private startResync(): Timer | undefined {
    const period = this.options.resyncPeriodMs ?? 0;
    if (!(period > 0)) return undefined;
    let timer: Timer | undefined;
    const tick = (): void => {
      if (!this.options.shouldResync || this.options.shouldResync()) {
        try {
          this.store.resync();
        } catch (err) {
          this.report(err);
        }
      }
      timer = this.clock.setTimer(tick, period);
    };
    timer = this.clock.setTimer(tick, period);
    return { cancel: () => timer?.cancel() };
  }

  /** Backs off (at least the server's Retry-After); false if aborted meanwhile. */
  private async wait(cause: unknown, signal: AbortSignal): Promise<boolean> {
    let ms = this.backoff.backoff();
    const retryAfter = cause instanceof ApiError ? cause.retryAfterSeconds : undefined;
    if (retryAfter !== undefined && retryAfter * 1000 > ms) ms = retryAfter * 1000;
    this.metrics.onBackoff?.(this.name, ms);
    this.current = { kind: 'BackingOff', since: this.clock.now(), ms, cause };
    return sleep(this.clock, ms, signal);
  }

  private setLastSyncResourceVersion(rv: string): void {
    this.lastSyncRV = rv;
    this.metrics.onResourceVersion?.(this.name, rv);
  }

  private report(err: unknown): void {
    try {
      this.onError(err, this.name);
    } catch {
      /* a throwing handler must not stop the reflector */
    }
  }
}

interface PagedList<T> {
  items: T[];
  resourceVersion: string;
  paginated: boolean;
}

function checkList<T>(
  list: unknown,
  name: string,
): { items: T[]; metadata?: { resourceVersion?: string; continue?: string } } {
  if (typeof list !== 'object' || list === null || !Array.isArray((list as { items?: unknown }).items)) {
    throw new Error(`${name}: list response has no items array`);
  }
  return list as { items: T[]; metadata?: { resourceVersion?: string; continue?: string } };
}

/** `namespace/name` (client-go's MetaNamespaceKeyFunc). */
function objectKey(o: KubeObject): string {
  const m = o.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Watch-start errors worth retrying on the same version: connection refused and 429. */
function isWatchErrorRetriable(err: unknown): boolean {
  if (isTooManyRequests(err)) return true;
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

/** The apiserver's "Too large resource version" (a 504 with cause ResourceVersionTooLarge). */
function isTooLargeResourceVersion(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.causes.some((c) => c.reason === 'ResourceVersionTooLarge')) return true;
  return err.code === 504 && /too large resource version/i.test(err.status.message ?? '');
}
