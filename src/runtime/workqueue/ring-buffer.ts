// RingBuffer: a growable FIFO with O(1) push and shift (no Array#shift copies).

/**
 * A first-in first-out buffer backed by a power-of-two array.
 * Invariants: `0 <= size <= buf.length`; the live items are
 * `buf[(head + i) & mask]` for `i < size`; every other slot is `undefined` (no leaks).
 */
export class RingBuffer<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private count = 0;
  private mask: number;

  /** Creates an empty buffer with room for `capacity` items (rounded up to a power of two). */
  constructor(capacity = 16) {
    let c = 1;
    while (c < capacity) c <<= 1;
    this.buf = new Array<T | undefined>(c);
    this.mask = c - 1;
  }

  /** Number of items. */
  get size(): number {
    return this.count;
  }

  /** Appends an item at the tail. */
  push(item: T): void {
    if (this.count === this.buf.length) this.grow();
    this.buf[(this.head + this.count) & this.mask] = item;
    this.count++;
  }

  /** Removes and returns the head item; `undefined` when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.count--;
    return item;
  }

  /** The head item without removing it. */
  peek(): T | undefined {
    return this.count === 0 ? undefined : this.buf[this.head];
  }

  /** Removes every item. */
  clear(): void {
    this.buf = new Array<T | undefined>(this.buf.length);
    this.head = 0;
    this.count = 0;
  }

  /** The items, head first (a copy). */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.buf[(this.head + i) & this.mask] as T);
    return out;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = old[(this.head + i) & this.mask];
    this.buf = next;
    this.head = 0;
    this.mask = next.length - 1;
  }
}
