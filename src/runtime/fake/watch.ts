// A push-driven Watch (client-go's watch.FakeWatcher): whoever holds it sends events,
// the consumer iterates them. Used by the fake tracker and by watch reactors in tests.
import type { Status } from '../meta/types.js';
import type { Watch, WatchEvent } from '../client/types.js';

/**
 * A watch fed by calls: `add`, `modify`, `delete`, `bookmark`, `error`. Events queue until
 * read (unbounded; tests are small). `stop()` ends iteration; sends after stop are dropped.
 */
export class FakeWatch<T> implements Watch<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private waiting: ((r: IteratorResult<WatchEvent<T>>) => void) | undefined;
  private stopped = false;
  private closing = false;
  private readonly onStop: (() => void) | undefined;

  /** `signal` aborting stops the watch; `onStop` runs once when it stops. */
  constructor(options: { signal?: AbortSignal; onStop?: () => void } = {}) {
    this.onStop = options.onStop;
    if (options.signal) {
      if (options.signal.aborted) this.stop();
      else options.signal.addEventListener('abort', () => this.stop(), { once: true });
    }
  }

  /** True once stopped. */
  isStopped(): boolean {
    return this.stopped;
  }

  /** Queues one event. */
  send(event: WatchEvent<T>): void {
    if (this.stopped || this.closing) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  /** Sends an ADDED event. */
  add(obj: T): void {
    this.send({ type: 'ADDED', object: obj });
  }
  /** Sends a MODIFIED event. */
  modify(obj: T): void {
    this.send({ type: 'MODIFIED', object: obj });
  }
  /** Sends a DELETED event. */
  delete(obj: T): void {
    this.send({ type: 'DELETED', object: obj });
  }
  /** Sends a BOOKMARK event. */
  bookmark(obj: T): void {
    this.send({ type: 'BOOKMARK', object: obj });
  }
  /** Sends an ERROR event carrying `status` (e.g. 410 Expired). */
  error(status: Status): void {
    this.send({ type: 'ERROR', object: status });
  }

  /**
   * Ends the stream from the producer's side (the server closing it): events already
   * sent are still delivered, then iteration ends. Idempotent.
   */
  close(): void {
    if (this.stopped || this.closing) return;
    this.closing = true;
    if (this.queue.length === 0) this.stop();
  }

  /** Ends the stream from the consumer's side; undelivered events are dropped. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.length = 0;
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
    this.onStop?.();
  }

  /** Iterates the events until stopped. */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: () => {
        const e = this.queue.shift();
        if (e) {
          if (this.closing && this.queue.length === 0) this.stop();
          return Promise.resolve({ value: e, done: false });
        }
        if (this.stopped) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
