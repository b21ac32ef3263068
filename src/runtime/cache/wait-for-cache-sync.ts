// waitForCacheSync: waits until informers have synced, or gives up when a signal
// aborts (client-go's cache.WaitForCacheSync, polling every 100 ms).
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
  for (;;) {
    if (signal.aborted) return false;
    if (cacheSyncs.every((synced) => synced())) return true;
    if (!(await sleep(clock, SYNCED_POLL_PERIOD_MS, signal))) return false;
  }
}
