// Reflector metrics hooks: plain callbacks a controller can back with prom-client
// (client-go's former reflector MetricsProvider: lists, watches, short watches, items…).

/**
 * Called by a reflector as it lists and watches. Every member is optional; `name` is the
 * reflector's name. Durations are seconds.
 */
export interface ReflectorMetrics {
  /**
   * A list finished, successfully or not: a paged list (all its pages) or a streaming list
   * (its initial events up to the end bookmark; a failed one is followed by a paged list).
   */
  onList?(
    name: string,
    info: { durationSeconds: number; items: number; mode?: 'streaming' | 'paged'; error?: unknown },
  ): void;
  /** A watch ended; `events` counts its events, `short` is true when it ended in under a second with none. */
  onWatch?(name: string, info: { durationSeconds: number; events: number; short: boolean; error?: unknown }): void;
  /** A watch request could not be opened. */
  onWatchStartError?(name: string, error: unknown): void;
  /** The last synced resource version changed. */
  onResourceVersion?(name: string, resourceVersion: string): void;
  /** The reflector is about to wait `ms` before retrying. */
  onBackoff?(name: string, ms: number): void;
}

/**
 * Counters of one or more reflectors, kept in memory: a ready-made ReflectorMetrics for
 * tests and for exposing as gauges/counters.
 */
export class ReflectorCounters implements ReflectorMetrics {
  /** Lists done (successful or failed). */
  lists = 0;
  /** Lists that failed. */
  listErrors = 0;
  /** Streaming lists that synced. */
  streamingLists = 0;
  /** Paged lists that synced. */
  pagedLists = 0;
  /** Watches that ran (opened and ended). */
  watches = 0;
  /** Watches that ended within a second without events. */
  shortWatches = 0;
  /** Watch requests that failed to open. */
  watchStartErrors = 0;
  /** Events received over all watches. */
  watchEvents = 0;
  /** Backoff waits. */
  backoffs = 0;
  /** Last resource version seen. */
  lastResourceVersion = '';

  /** See {@link ReflectorMetrics.onList}. */
  onList(
    _name: string,
    info: { durationSeconds: number; items: number; mode?: 'streaming' | 'paged'; error?: unknown },
  ): void {
    this.lists++;
    if (info.error !== undefined) this.listErrors++;
    else if (info.mode === 'streaming') this.streamingLists++;
    else this.pagedLists++;
  }

  /** See {@link ReflectorMetrics.onWatch}. */
  onWatch(_name: string, info: { durationSeconds: number; events: number; short: boolean }): void {
    this.watches++;
    this.watchEvents += info.events;
    if (info.short) this.shortWatches++;
  }

  /** See {@link ReflectorMetrics.onWatchStartError}. */
  onWatchStartError(): void {
    this.watchStartErrors++;
  }

  /** See {@link ReflectorMetrics.onResourceVersion}. */
  onResourceVersion(_name: string, rv: string): void {
    this.lastResourceVersion = rv;
  }

  /** See {@link ReflectorMetrics.onBackoff}. */
  onBackoff(): void {
    this.backoffs++;
  }
}
