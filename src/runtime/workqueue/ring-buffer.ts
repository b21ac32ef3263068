// RingBuffer: a growable FIFO with O(1) push and shift (no Array#shift copies).

/**
 * A first-in first-out buffer backed by a power-of-two array.
 * Invariants: `0 <= size <= buf.length`; the live items are
 * `buf[(head + i) & mask]` for `i < size`; every other slot is `undefined` (no leaks).
 */
/** Arrays of up to this many slots are kept when the buffer empties (no churn for small queues). */
const SHRINK_ABOVE = 1024;

export class RingBuffer<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private count = 0;
  private mask: number;
  private readonly initial: number;

  /** Creates an empty buffer with room for `capacity` items (rounded up to a power of two). */
  constructor(capacity = 16) {
    let c = 1;
    while (c < capacity) c <<= 1;
    this.initial = c;
    this.buf = new Array<T | undefined>(c);
    this.mask = c - 1;
  }

  /** Number of items. */
  get size(): number {
    return this.count;
  }

  /** Slots allocated (a power of two). */
  get capacity(): number {
    return this.buf.length;
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
    // A burst (an informer's relist of 50k objects) grew the array; once drained, give the memory
    // back instead of holding the peak for the life of the process. Small buffers keep theirs.
    if (this.count === 0 && this.buf.length > SHRINK_ABOVE && this.buf.length > this.initial) this.reset(this.initial);
    return item;
  }

  /** The head item without removing it. */
  peek(): T | undefined {
    return this.count === 0 ? undefined : this.buf[this.head];
  }

  /** Removes every item (and gives back a grown array's memory). */
  clear(): void {
    this.reset(this.buf.length > SHRINK_ABOVE ? this.initial : this.buf.length);
    this.count = 0;
  }

  private reset(capacity: number): void {
    this.buf = new Array<T | undefined>(capacity);
    this.mask = capacity - 1;
    this.head = 0;
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
