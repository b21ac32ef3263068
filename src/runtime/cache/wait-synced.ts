// Waiting for a controller's informer caches at start-up without client-go's 100 ms poll:
// the first reconcile is what an operator's start-up time is measured to.
import { pollUntilTrue } from './wait-for-cache-sync.js';
import { realClock, type Clock } from '../workqueue/clock.js';

/** The longest gap between two checks of {@link waitForSynced}, in ms. */
export const SYNCED_MAX_POLL_MS = 10;

/**
 * Resolves `true` once `synced()` returns true, `false` if `signal` aborts first. Checks at
 * once, then after 1, 2, 4, 8, 10, 10, … ms: a small cache is seen synced within a few ms of
 * its list arriving (client-go's WaitForCacheSync polls every 100 ms), and a large one costs a
 * check every 10 ms while it loads. Never rejects.
 */
export function waitForSynced(synced: () => boolean, signal: AbortSignal, clock: Clock = realClock): Promise<boolean> {
  return pollUntilTrue(clock, signal, synced, 1, SYNCED_MAX_POLL_MS);
}

/**
 * {@link waitForSynced} with a time limit: `false` when `signal` aborts or `timeoutMs` passes
 * first. The limit is a timer of its own, cleared when the wait ends: Node 20 holds the sources of
 * `AbortSignal.any()` weakly, so an `AbortSignal.timeout()` combined with it is garbage that a
 * collection removes before it fires, and the wait would never end.
 */
export async function waitForSyncedWithin(
  synced: () => boolean,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<boolean> {
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), timeoutMs);
  try {
    return await waitForSynced(synced, AbortSignal.any([signal, limit.signal]));
  } finally {
    clearTimeout(timer);
  }
}
