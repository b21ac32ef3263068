// Running out of memory is an error, not a crash: at the points where a run has let go of what it
// no longer needs (after each input, each cluster of groups), the heap is compared with its limit.
// Past HEAP_SHARE of it — after a full garbage collection, so that garbage does not count — the
// run stops with CLI004, naming the heap used and how to raise it, and the output folder is left
// as it was (nothing under it changes before the commit).

import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The share of the heap limit a run may fill at a check point. */
export const HEAP_SHARE = 0.8;

/** Thrown at a check point when the heap is nearly full. */
export class HeapLimitError extends Error {
  override name = 'HeapLimitError';
  constructor(
    readonly usedMb: number,
    readonly limitMb: number,
    readonly during: string,
  ) {
    super(`heap nearly full while ${during}: ${usedMb} MB used of ${limitMb} MB`);
  }
}

let collect: (() => void) | undefined;

/** A full garbage collection (V8's gc(), exposed once for this). */
function fullGc(): void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

/** Throws {@link HeapLimitError} when the heap, collected, holds more than {@link HEAP_SHARE} of its limit. */
export function checkHeap(during: string): void {
  const limit = getHeapStatistics().heap_size_limit;
  if (getHeapStatistics().used_heap_size <= limit * HEAP_SHARE) return;
  fullGc();
  const used = getHeapStatistics().used_heap_size;
  if (used > limit * HEAP_SHARE) throw new HeapLimitError(mb(used), mb(limit), during);
}
