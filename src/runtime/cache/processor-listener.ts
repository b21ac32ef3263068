// ProcessorListener: one handler of a shared informer with its own unbounded buffer,
// delivering notifications one at a time so a slow handler never blocks the informer
// or the other handlers (client-go's processorListener).
import type { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import type { ResourceEventHandler } from './event-handler.js';
import type { ResourceEventHandlerRegistration } from './shared-informer.js';
import { RingBuffer } from '../workqueue/ring-buffer.js';

/** One pending notification. */
export type Notification<T> =
  | { kind: 'Add'; obj: T; isInInitialList: boolean }
  | { kind: 'Update'; oldObj: T; newObj: T }
  | { kind: 'Delete'; obj: T | DeletedFinalStateUnknown<T> };

/**
 * A listener. Invariants: notifications are delivered in the order added, one at a time;
 * `initialPending` counts queued or in-flight notifications from the initial list.
 */
export class ProcessorListener<T> implements ResourceEventHandlerRegistration {
  private readonly pending = new RingBuffer<Notification<T>>();
  private wakeUp: (() => void) | undefined;
  private stopped = false;
  private initialPending = 0;
  private loop: Promise<void> | undefined;
  /** Clock time of the next resync of this listener (ms); only used when resyncPeriodMs > 0. */
  nextResync = 0;

  /** A listener for `handler`. */
  constructor(
    readonly handler: ResourceEventHandler<T>,
    /** Resync period of this handler (ms, 0: none). */
    public resyncPeriodMs: number,
    private readonly informerSynced: () => boolean,
    private readonly onHandlerError: (err: unknown) => void,
  ) {}

  /** See {@link ResourceEventHandlerRegistration.hasSynced}. */
  hasSynced(): boolean {
    return this.informerSynced() && this.initialPending === 0;
  }

  /** Queues a notification (dropped once stopped). */
  add(n: Notification<T>): void {
    if (this.stopped) return;
    if (n.kind === 'Add' && n.isInInitialList) this.initialPending++;
    this.pending.push(n);
    const w = this.wakeUp;
    if (w) {
      this.wakeUp = undefined;
      w();
    }
  }

  /** Starts delivering (idempotent). */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops: pending notifications are dropped; resolves after the in-flight one finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.clear();
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
    await this.loop;
  }

  /** Number of notifications not yet delivered. */
  pendingCount(): number {
    return this.pending.size;
  }

  private async run(): Promise<void> {
    for (;;) {
      let n = this.pending.shift();
      while (n === undefined) {
        if (this.stopped) return;
        await new Promise<void>((resolve) => (this.wakeUp = resolve));
        n = this.pending.shift();
      }
      if (this.stopped) return;
      try {
        const r = this.deliver(n);
        if (r) await r;
      } catch (err) {
        this.onHandlerError(err);
      } finally {
        if (n.kind === 'Add' && n.isInInitialList) this.initialPending--;
      }
    }
  }

  private deliver(n: Notification<T>): void | Promise<void> {
    switch (n.kind) {
      case 'Add':
        return this.handler.onAdd?.(n.obj, n.isInInitialList);
      case 'Update':
        return this.handler.onUpdate?.(n.oldObj, n.newObj);
      case 'Delete':
        return this.handler.onDelete?.(n.obj);
    }
  }
}
