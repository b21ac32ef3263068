// TimerHeap: a binary min-heap of items keyed by ready time, with at most one entry
// per item (the delaying queue's waitingForQueue + waitingEntryByData).

/** One waiting item. */
export interface TimerHeapEntry<T> {
  readonly item: T;
  /** Clock time (ms) at which the item becomes ready. */
  readyAt: number;
  /** Insertion order; breaks ties so that equal ready times come out first-in first-out. */
  seq: number;
  /** Position in the heap array (maintained by the heap). */
  index: number;
}

/**
 * Min-heap ordered by (readyAt, seq). Invariants: `entries[i].index === i`;
 * `byItem` maps each item to its single entry; parent ≤ child for every node.
 */
export class TimerHeap<T> {
  private readonly entries: TimerHeapEntry<T>[] = [];
  private readonly byItem = new Map<T, TimerHeapEntry<T>>();
  private seq = 0;

  /** Number of waiting items. */
  get size(): number {
    return this.entries.length;
  }

  /** The earliest entry, or undefined. */
  peek(): TimerHeapEntry<T> | undefined {
    return this.entries[0];
  }

  /**
   * Adds `item` ready at `readyAt`. If it is already waiting, its time only moves
   * earlier, never later (client-go: "if the item is already present, update it only
   * if the new time is sooner").
   */
  insert(item: T, readyAt: number): void {
    const existing = this.byItem.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const entry: TimerHeapEntry<T> = { item, readyAt, seq: this.seq++, index: this.entries.length };
    this.entries.push(entry);
    this.byItem.set(item, entry);
    this.up(entry.index);
  }

  /** Removes and returns the earliest entry. */
  pop(): TimerHeapEntry<T> | undefined {
    const n = this.entries.length;
    if (n === 0) return undefined;
    const top = this.entries[0];
    const last = this.entries.pop() as TimerHeapEntry<T>;
    if (n > 1) {
      this.entries[0] = last;
      last.index = 0;
      this.down(0);
    }
    this.byItem.delete(top.item);
    return top;
  }

  /** The entry of `item`, if it is waiting. */
  entryOf(item: T): TimerHeapEntry<T> | undefined {
    return this.byItem.get(item);
  }

  /** Removes `item`'s entry, if it is waiting; true when it was. */
  remove(item: T): boolean {
    const e = this.byItem.get(item);
    if (!e) return false;
    const i = e.index;
    const last = this.entries.pop() as TimerHeapEntry<T>;
    if (last !== e) {
      this.entries[i] = last;
      last.index = i;
      this.down(i);
      this.up(last.index);
    }
    this.byItem.delete(item);
    return true;
  }

  /** Removes every entry. */
  clear(): void {
    this.entries.length = 0;
    this.byItem.clear();
  }

  private less(a: TimerHeapEntry<T>, b: TimerHeapEntry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.entries[i];
    const b = this.entries[j];
    this.entries[i] = b;
    this.entries[j] = a;
    a.index = j;
    b.index = i;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.entries[i], this.entries[p])) break;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.entries.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      const r = l + 1;
      if (r < n && this.less(this.entries[r], this.entries[l])) m = r;
      if (!this.less(this.entries[m], this.entries[i])) break;
      this.swap(i, m);
      i = m;
    }
  }
}
