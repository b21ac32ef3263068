// Shared request/watch shapes: the contract between the REST client (client/) and
// the cache (cache/): a ResourceClient satisfies cache's ListerWatcher structurally.
import type { KubeList, Status } from '../meta/types.js';

/** Options of list and watch calls (metav1.ListOptions), plus an abort signal. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  /**
   * Watch only: start with the current state as ADDED events, ended by a BOOKMARK annotated
   * `k8s.io/initial-events-end` when bookmarks are allowed (a streaming list; needs
   * `resourceVersionMatch: 'NotOlderThan'`). false: no initial events.
   */
  sendInitialEvents?: boolean;
  signal?: AbortSignal;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One watch event. For `ERROR` the object is a metav1.Status (e.g. code 410, reason Expired). */
export type WatchEvent<T> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Status };

/**
 * An open watch stream. Iterate it to receive events; the iteration ends when the
 * server closes the stream, the call's signal aborts, or `stop()` is called.
 */
export interface Watch<T> extends AsyncIterable<WatchEvent<T>> {
  /** Closes the stream; pending and later iterations end. Idempotent. */
  stop(): void;
}

/**
 * The object of a BOOKMARK event: not an object of the kind, only where the watch has got to
 * (`metadata.resourceVersion`; the `k8s.io/initial-events-end` annotation after a watch list).
 */
export interface WatchBookmark {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion: string; annotations?: Record<string, string> };
}

/**
 * One watch event of a typed client: ADDED, MODIFIED and DELETED carry the object (`T`, e.g.
 * `Stored<DatabaseManager, "Namespaced">`), BOOKMARK a {@link WatchBookmark}, ERROR a metav1.Status.
 */
export type TypedWatchEvent<T> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T }
  | { type: 'BOOKMARK'; object: WatchBookmark }
  | { type: 'ERROR'; object: Status };

/** A typed client's open watch: iterate it for {@link TypedWatchEvent}s, `stop()` it when done. */
export interface TypedWatch<T> extends AsyncIterable<TypedWatchEvent<T>> {
  /** Closes the stream; pending and later iterations end. Idempotent. */
  stop(): void;
}

/** What a reflector needs: a list call and a watch call for one resource. */
export interface ListerWatcher<T, TList extends KubeList<T> = KubeList<T>> {
  list(options?: ListOptions): Promise<TList>;
  watch(options?: ListOptions): Promise<Watch<T>>;
  /**
   * True when `watch` passes `sendInitialEvents` to an API server (as the REST clients do):
   * a reflector then starts with a streaming list, and falls back to a paged list when the
   * server refuses. Absent or false: paged lists only (client-go's
   * `IsWatchListSemanticsUnSupported`, the other way round: a hand-written ListerWatcher or
   * a fake need not know the protocol).
   */
  readonly streamingLists?: boolean;
}
