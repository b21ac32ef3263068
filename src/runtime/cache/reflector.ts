// Reflector: keeps a store in step with the server (client-go tools/cache/reflector.go).
// List (paged), then watch from the list's resourceVersion; re-watch from the last seen
// version when a watch ends; relist on 410/"too old resource version"; back off with
// jitter between failed cycles; never loop tightly against a failing server.
import type { KubeObject } from '../meta/types.js';
import type { ListOptions, ListerWatcher, Watch } from '../client/types.js';
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
}

/** Page size of paged lists (client-go pager's default). */
export const DEFAULT_PAGE_SIZE = 500;
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
   * One cycle: list, then watch (re-watching as watches end) until a watch fails, the
   * resource version expires, or `signal` aborts. Rejects with the error that ended it,
   * resolves when a relist is simply due (expired version) or on abort.
   */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    await this.list(signal);
    if (signal.aborted) return;
    const resync = this.startResync();
    try {
      await this.watchLoop(signal);
    } finally {
      resync?.cancel();
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
      this.metrics.onList?.(this.name, { durationSeconds: (this.clock.now() - start) / 1000, items: 0, error: err });
      throw err;
    }
    if (signal.aborted) return;
    this.metrics.onList?.(this.name, {
      durationSeconds: (this.clock.now() - start) / 1000,
      items: result.items.length,
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

  private async watchLoop(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) return;
      const start = this.clock.now();
      const minTimeout = this.options.minWatchTimeoutMs ?? MIN_WATCH_TIMEOUT_MS;
      const timeoutSeconds = Math.floor((minTimeout / 1000) * (this.random() + 1));
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
      const outcome = await this.handleWatch(w, start, signal, timeoutSeconds * 1000 + WATCH_TIMEOUT_GRACE_MS);
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
  private async handleWatch(
    w: Watch<T>,
    start: number,
    signal: AbortSignal,
    deadlineMs: number,
  ): Promise<WatchOutcome> {
    let events = 0;
    let outcome: WatchOutcome = { kind: 'Ended' };
    const onAbort = (): void => w.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    const guard = this.clock.setTimer(() => w.stop(), deadlineMs);
    try {
      // One batch per chunk of the stream, applied synchronously: no async hop per event.
      batches: for await (const batch of watchBatches(w)) {
        for (const ev of batch) {
          if (signal.aborted) break batches;
          if (ev.type === 'ERROR') {
            outcome = { kind: 'Failed', error: ApiError.fromStatus(ev.object) };
            break batches;
          }
          const obj = ev.object;
          if (typeof obj !== 'object' || obj === null || typeof obj.metadata !== 'object' || obj.metadata === null) {
            outcome = {
              kind: 'Failed',
              error: new Error(`${this.name}: watch event ${ev.type} carries no object metadata`),
            };
            break batches;
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
      }
    } catch (err) {
      // A broken stream is an ordinary end, unless the server said why.
      if (err instanceof ApiError) outcome = { kind: 'Failed', error: err };
    } finally {
      guard.cancel();
      signal.removeEventListener('abort', onAbort);
      w.stop();
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
