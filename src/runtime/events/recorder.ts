// Events (client-go's tools/record): an EventBroadcaster sends core/v1 Events for the
// recorders it hands out, in the background; repeats of the same event on the same
// object are folded into one Event whose `count` goes up (the EventCorrelator's
// aggregation), so a retry loop does not flood the API server.
import type { KubeObject } from '../meta/types.js';
import type { ClientBackend } from '../typed/backend.js';
import { CoreV1EventResource, type CoreV1Event, type ObjectReference } from '../builtin/index.js';
import { PatchType } from '../client/resource.js';
import { isNotFound } from '../client/errors.js';
import { gvkApiVersion, type GroupVersionKind } from '../meta/owner.js';
import { formatTime } from '../meta/conditions.js';
import { errorMessage, noopLogger, type Logger } from '../log/logger.js';

/** core/v1 Event types. */
export type EventType = 'Normal' | 'Warning';

/** Records events about objects (client-go's EventRecorder). Never blocks, never throws for API errors. */
export interface EventRecorder {
  /** Records `reason`/`message` of `type` about `obj`. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

/** Options of {@link EventBroadcaster}. */
export interface EventBroadcasterOptions {
  /** `source.component` and `reportingComponent` (the controller's name). */
  component: string;
  /** `source.host` (default: none). */
  host?: string;
  /** Where send failures are logged (they are never thrown). */
  logger?: Logger;
  /** Events waiting to be sent beyond which new ones are dropped (default 1000). */
  maxPending?: number;
  /** Distinct events remembered for aggregation (default 4096, oldest forgotten first). */
  cacheSize?: number;
  /** Clock for timestamps (tests). */
  now?: () => Date;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
}

/**
 * Sends Events one at a time in the order recorded. Invariant: at most `maxPending`
 * events wait; `flush()` resolves once everything recorded before it was sent or failed.
 */
export class EventBroadcaster {
  private readonly logger: Logger;
  private readonly seen = new Map<string, Seen>();
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private stopped = false;
  /** Events dropped because too many were pending or the broadcaster was shut down. */
  dropped = 0;

  constructor(
    private readonly backend: ClientBackend,
    private readonly options: EventBroadcasterOptions,
  ) {
    this.logger = options.logger ?? noopLogger;
  }

  /** A recorder; `gvk` fills involvedObject's apiVersion/kind when the object lacks them (list items often do). */
  newRecorder(gvk?: GroupVersionKind): EventRecorder {
    return { event: (obj, type, reason, message) => this.record(obj, gvk, type, reason, message) };
  }

  /** Resolves once every event recorded so far has been sent (or has failed). */
  flush(): Promise<void> {
    return this.chain;
  }

  /** Stops accepting events and waits for those pending. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.chain;
  }

  private record(
    obj: KubeObject,
    gvk: GroupVersionKind | undefined,
    type: EventType,
    reason: string,
    message: string,
  ): void {
    if (this.stopped || this.pending >= (this.options.maxPending ?? 1000)) {
      this.dropped++;
      return;
    }
    const m = obj.metadata ?? {};
    const ref: ObjectReference = {
      apiVersion: obj.apiVersion ?? (gvk ? gvkApiVersion(gvk) : undefined),
      kind: obj.kind ?? gvk?.kind,
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
    };
    const at = formatTime((this.options.now ?? (() => new Date()))());
    this.pending++;
    this.chain = this.chain.then(async () => {
      try {
        await this.send(ref, type, reason, message, at);
      } catch (e) {
        this.logger.warn(
          { err: errorMessage(e), reason, object: `${ref.namespace ?? ''}/${ref.name ?? ''}` },
          'could not record event',
        );
      } finally {
        this.pending--;
      }
    });
  }

  private async send(
    ref: ObjectReference,
    type: EventType,
    reason: string,
    message: string,
    at: string,
  ): Promise<void> {
    const namespace = ref.namespace || 'default';
    const events = this.backend.resource<CoreV1Event>(CoreV1EventResource, namespace);
    const key = JSON.stringify([namespace, ref.kind, ref.name, ref.uid, type, reason, message]);
    const prev = this.seen.get(key);
    if (prev) {
      this.seen.delete(key);
      this.seen.set(key, prev); // most recently used last
      try {
        await events.patch(prev.name, PatchType.Merge, { count: prev.count + 1, lastTimestamp: at });
        prev.count++;
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        this.seen.delete(key); // expired or deleted: start a new one
      }
    }
    const name = `${ref.name ?? 'object'}.${(BigInt(Date.now()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`;
    const ev: CoreV1Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: ref,
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: this.options.component, ...(this.options.host ? { host: this.options.host } : {}) },
      reportingComponent: this.options.component,
      reportingInstance: this.options.host ?? '',
    };
    await events.create(ev);
    this.seen.set(key, { name, namespace, count: 1 });
    const max = this.options.cacheSize ?? 4096;
    while (this.seen.size > max) this.seen.delete(this.seen.keys().next().value!);
  }
}
