// waitForCacheSync: waits until informers have synced, or gives up when a signal
// aborts (client-go's cache.WaitForCacheSync, polling every 100 ms). pollUntilTrue is the one
// polling loop of the runtime's sync waits (the controllers' faster start-up wait uses it too).
import { realClock, sleep, type Clock } from '../workqueue/clock.js';
import type { InformerSynced } from './shared-informer.js';

/** How often the sync functions are polled (client-go's syncedPollPeriod). */
export const SYNCED_POLL_PERIOD_MS = 100;

/**
 * Resolves `true` once every `cacheSyncs` function returns true, `false` if `signal`
 * aborts first. Checks at once, then every 100 ms. Never rejects.
 */
export function waitForCacheSync(signal: AbortSignal, ...cacheSyncs: InformerSynced[]): Promise<boolean> {
  return waitForCacheSyncWithClock(realClock, signal, ...cacheSyncs);
}

/** waitForCacheSync on an injected clock (tests). */
export async function waitForCacheSyncWithClock(
  clock: Clock,
  signal: AbortSignal,
  ...cacheSyncs: InformerSynced[]
): Promise<boolean> {
  return pollUntilTrue(
    clock,
    signal,
    () => cacheSyncs.every((synced) => synced()),
    SYNCED_POLL_PERIOD_MS,
    SYNCED_POLL_PERIOD_MS,
  );
}

/**
 * Checks `done()` at once, then after `firstGapMs`, doubling the gap up to `maxGapMs`, on `clock`;
 * `true` once it holds, `false` as soon as `signal` aborts. Never rejects.
 */
export async function pollUntilTrue(
  clock: Clock,
  signal: AbortSignal,
  done: () => boolean,
  firstGapMs: number,
  maxGapMs: number,
): Promise<boolean> {
  for (let gap = firstGapMs; ; gap = Math.min(gap * 2, maxGapMs)) {
    if (signal.aborted) return false;
    if (done()) return true;
    if (!(await sleep(clock, gap, signal))) return false;
  }
}
