// One etcd watch over the whole keyspace, resumed from the last revision it delivered after
// every disconnect (etcd restarts, network drops). The etcd watch cache of EtcdStorage
// stands on it, as the apiserver's cacher stands on one etcd watch per resource.
import type { Etcd3, IKeyValue, IWatchResponse, Watcher } from 'etcd3';

/** One change seen by the feed, in etcd's terms (`kv.mod_revision` is its revision). */
export interface EtcdChange {
  type: 'put' | 'delete';
  kv: IKeyValue;
  prevKv?: IKeyValue;
}

/** Callbacks of {@link EtcdFeed}. */
export interface EtcdFeedHandlers {
  /** The changes of one etcd revision or more, in revision order; `revision` is the last one seen. */
  onChanges(changes: EtcdChange[], revision: number): void;
  /**
   * The feed could not resume: revisions after `lastRevision` were compacted while it was
   * disconnected. The feed restarts from `restartFrom` (the current revision); changes in
   * between are lost to it.
   */
  onGap(lastRevision: number, restartFrom: number): void;
}

/**
 * The state of the feed: `Connecting` (creating the etcd watch from `next`), `Watching`
 * (events flow) or `Stopped`.
 */
type FeedState =
  { kind: 'Connecting'; pending?: Watcher } | { kind: 'Watching'; watcher: Watcher } | { kind: 'Stopped' };

/**
 * A whole-keyspace etcd watch that never skips a revision: it counts the revisions it has
 * delivered itself and, after a disconnect, creates a new watch from the next one (the etcd3
 * client's own resume point can run ahead of what it delivered).
 */
export class EtcdFeed {
  private state: FeedState = { kind: 'Connecting' };
  /** Revisions up to `delivered` have been handed to `onChanges`. */
  private delivered: number;
  private retryMs = 50;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Etcd3,
    fromRevision: number,
    private readonly handlers: EtcdFeedHandlers,
    private readonly currentRevision: () => Promise<number>,
  ) {
    this.delivered = fromRevision;
  }

  /** The last revision delivered (events at or before it were all handed out). */
  get revision(): number {
    return this.delivered;
  }

  /** Creates the etcd watch; resolves once etcd accepted it. */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Stops watching. Idempotent. */
  async stop(): Promise<void> {
    const s = this.state;
    this.state = { kind: 'Stopped' };
    if (this.timer) clearTimeout(this.timer);
    if (s.kind === 'Watching') await s.watcher.cancel().catch(() => undefined);
    // A watch still being created (etcd unreachable) stays attached to the client, which
    // reconnects for it forever and keeps the process alive: detach it too.
    else if (s.kind === 'Connecting' && s.pending) await s.pending.cancel().catch(() => undefined);
  }

  private isStopped(): boolean {
    return this.state.kind === 'Stopped';
  }

  private async connect(): Promise<void> {
    if (this.state.kind === 'Stopped') return;
    // the builder's create(), with the watcher kept so that stop() can cancel it while pending
    const pending = this.client
      .watch()
      .prefix('')
      .withPreviousKV()
      .startRevision(String(this.delivered + 1))
      .watcher();
    this.state = { kind: 'Connecting', pending };
    let watcher: Watcher;
    try {
      watcher = await new Promise<Watcher>((resolve, reject) => {
        pending.once('connected', () => resolve(pending));
        pending.once('error', reject);
      });
    } catch (e) {
      await pending.cancel().catch(() => undefined);
      if (this.isStopped()) return;
      if (/compact/i.test((e as Error).message ?? '')) await this.restartAfterGap();
      else this.retryLater();
      return;
    }
    if (this.isStopped()) {
      await watcher.cancel().catch(() => undefined);
      return;
    }
    this.state = { kind: 'Watching', watcher };
    this.retryMs = 50;
    watcher.on('data', (res: IWatchResponse) => this.onData(watcher, res));
    watcher.on('disconnected', () => void this.drop(watcher, false));
    watcher.on('error', (e: Error) => void this.drop(watcher, /compact/i.test(e.message ?? '')));
  }

  private onData(watcher: Watcher, res: IWatchResponse): void {
    if (this.state.kind !== 'Watching' || this.state.watcher !== watcher) return;
    const changes: EtcdChange[] = [];
    let last = this.delivered;
    for (const ev of res.events) {
      const rev = Number(ev.kv.mod_revision);
      if (rev <= this.delivered) continue; // replayed after a resume
      const type = String(ev.type).toLowerCase() === 'delete' ? 'delete' : 'put';
      changes.push(ev.prev_kv ? { type, kv: ev.kv, prevKv: ev.prev_kv } : { type, kv: ev.kv });
      last = Math.max(last, rev);
    }
    if (!changes.length) return;
    this.delivered = last;
    this.handlers.onChanges(changes, last);
  }

  /** The etcd watch broke: cancel it (the client would resume from its own point) and make ours. */
  private async drop(watcher: Watcher, compacted: boolean): Promise<void> {
    if (this.state.kind !== 'Watching' || this.state.watcher !== watcher) return;
    this.state = { kind: 'Connecting' };
    watcher.removeAllListeners('data');
    await watcher.cancel().catch(() => undefined);
    if (compacted) await this.restartAfterGap();
    else this.retryLater();
  }

  private async restartAfterGap(): Promise<void> {
    let current: number;
    try {
      current = await this.currentRevision();
    } catch {
      this.retryLater();
      return;
    }
    if (this.state.kind === 'Stopped') return;
    const last = this.delivered;
    this.delivered = current;
    this.handlers.onGap(last, current);
    this.retryLater(0);
  }

  private retryLater(ms = this.retryMs): void {
    if (this.state.kind === 'Stopped') return;
    this.retryMs = Math.min(this.retryMs * 2, 1000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, ms);
    this.timer.unref();
  }
}
