// The watch side of a store, shared by the memory and etcd storages: a bounded window of
// the latest changes (index-based, so dropping the oldest is O(1) amortised) that serves
// watches from a past revision, and the open watchers the new changes fan out to.
import { jsonCopy } from '../../runtime/meta/json.js';
import { StorageError } from './storage.js';
import type { StorageEvent, StorageWatch } from './storage.js';

interface Watcher {
  prefix: string;
  /** Changes at or below this revision were not asked for (a watch "from" a future revision). */
  from: number;
  listener: (e: StorageEvent) => void;
  /** Whether the listener gets a copy of each change (else the kept change itself: it must not modify it). */
  copy: boolean;
  onExpired: ((e: StorageError) => void) | undefined;
  active: boolean;
}

/** Past the first this many dropped slots, the window is re-based once half of it is dropped. */
const REBASE_MIN = 1024;

/**
 * The latest changes of a store, oldest first, and its watchers.
 * Invariants: revisions in the window strictly increase; every change with a revision above
 * {@link WatchHistory.floor} is in the window or has not happened yet; the window holds at
 * most `limit` changes.
 */
export class WatchHistory {
  /** Slots `[head, events.length)` hold the window; slots before `head` were dropped (undefined). */
  private events: (StorageEvent | undefined)[] = [];
  private head = 0;
  private readonly watchers = new Set<Watcher>();
  private readonly limit: number;
  private floorRevision: number;

  /** @param limit most changes kept; @param floor every change after this revision is to come */
  constructor(limit: number, floor = 0) {
    this.limit = Math.max(1, limit);
    this.floorRevision = floor;
  }

  /** The oldest revision a watch may start from: every change after it is kept or to come. */
  get floor(): number {
    return this.floorRevision;
  }

  /** How many changes the window holds. */
  get size(): number {
    return this.events.length - this.head;
  }

  /**
   * Adds the newest change (its revision above every kept one), drops the oldest past the
   * limit (raising the floor), and delivers the change to every watcher of its key.
   */
  append(e: StorageEvent): void {
    this.events.push(e);
    if (this.size > this.limit) this.dropTo(this.events.length - this.limit);
    for (const w of [...this.watchers]) {
      if (!w.active || e.revision <= w.from || !e.key.startsWith(w.prefix)) continue;
      try {
        w.listener(w.copy ? jsonCopy(e) : e);
      } catch {
        // A failing listener must not break the write or the other watchers.
      }
    }
  }

  /** Forgets the changes up to and including `revision`; the floor rises to it. */
  compact(revision: number): void {
    if (revision <= this.floorRevision) return;
    this.dropTo(this.indexAfter(revision));
    this.floorRevision = revision;
  }

  /**
   * Starts a watch: replays the kept changes after `fromRevision` under `prefix`, then delivers
   * new ones. Throws `Expired` when changes after `fromRevision` are no longer kept. With
   * `copy` false the listener gets the kept changes themselves (it must not modify them).
   */
  watch(
    prefix: string,
    fromRevision: number,
    listener: (e: StorageEvent) => void,
    onExpired?: (e: StorageError) => void,
    copy = true,
  ): StorageWatch {
    if (fromRevision < this.floorRevision) {
      throw new StorageError('Expired', 'too old resource version', this.floorRevision);
    }
    const w: Watcher = { prefix, from: fromRevision, listener, copy, onExpired, active: true };
    for (let i = this.indexAfter(fromRevision); i < this.events.length; i++) {
      const e = this.events[i]!;
      if (e.key.startsWith(prefix)) listener(copy ? jsonCopy(e) : e);
    }
    this.watchers.add(w);
    return {
      stop: () => {
        w.active = false;
        this.watchers.delete(w);
      },
    };
  }

  /** The kept changes with a revision above `revision`, newest first (the stored objects: do not modify). */
  *newestFirst(revision: number): Generator<StorageEvent> {
    for (let i = this.events.length - 1; i >= this.head; i--) {
      const e = this.events[i]!;
      if (e.revision <= revision) return;
      yield e;
    }
  }

  /**
   * The store lost changes after `restartFrom` (etcd compacted them while its watch was away):
   * forgets the window, raises the floor, and ends every watch with `onExpired(error)` so
   * its client lists again.
   */
  expireAll(restartFrom: number, error: StorageError): void {
    this.events = [];
    this.head = 0;
    this.floorRevision = Math.max(this.floorRevision, restartFrom);
    const ended = [...this.watchers];
    this.watchers.clear();
    for (const w of ended) {
      w.active = false;
      try {
        w.onExpired?.(error);
      } catch {
        // A failing callback must not stop the others.
      }
    }
  }

  /** Ends every watch silently (the store is closing). */
  stopAll(): void {
    for (const w of this.watchers) w.active = false;
    this.watchers.clear();
  }

  /** Index of the first kept change with a revision above `revision` (binary search). */
  private indexAfter(revision: number): number {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Drops the slots before `index`; the floor rises to the newest dropped revision. */
  private dropTo(index: number): void {
    if (index <= this.head) return;
    this.floorRevision = Math.max(this.floorRevision, this.events[index - 1]!.revision);
    for (let i = this.head; i < index; i++) this.events[i] = undefined;
    this.head = index;
    if (this.head >= REBASE_MIN && this.head * 2 >= this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
