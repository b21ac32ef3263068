// The keys of a store in sorted order, for lists and pages that cost what they return:
// additions and removals are recorded in O(1) and merged into the sorted array on the
// next read (O(n) once per batch of writes, never a sort of the whole set per list).

/**
 * A set of strings read in ascending (UTF-16 code unit) order.
 * Invariant: `pendingAdd` and `sorted` are disjoint; `pendingRemove` ⊆ `sorted`.
 */
export class SortedKeys {
  private sorted: string[] = [];
  private readonly pendingAdd = new Set<string>();
  private readonly pendingRemove = new Set<string>();

  /** Adds a key that is not in the set. */
  add(key: string): void {
    if (this.pendingRemove.has(key)) this.pendingRemove.delete(key);
    else this.pendingAdd.add(key);
  }

  /** Removes a key that is in the set. */
  delete(key: string): void {
    if (this.pendingAdd.has(key)) this.pendingAdd.delete(key);
    else this.pendingRemove.add(key);
  }

  /** The keys in ascending order (do not modify the array). */
  view(): readonly string[] {
    if (this.pendingAdd.size === 0 && this.pendingRemove.size === 0) return this.sorted;
    const kept = this.pendingRemove.size ? this.sorted.filter((k) => !this.pendingRemove.has(k)) : this.sorted;
    const added = [...this.pendingAdd].sort(compare);
    this.sorted = mergeSorted(kept, added);
    this.pendingAdd.clear();
    this.pendingRemove.clear();
    return this.sorted;
  }
}

/** Index of the first element of sorted `keys` that is >= `key`. */
export function lowerBound(keys: readonly string[], key: string, lo = 0): number {
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The smallest string above every string that starts with `prefix` (undefined for ''). */
export function prefixEnd(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mergeSorted(a: string[], b: string[]): string[] {
  if (b.length === 0) return a;
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i] < b[j] ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
