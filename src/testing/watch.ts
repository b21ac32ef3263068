// Watch streams: one JSON event per line, flushed at once; initial ADDED events for a
// watch list (`sendInitialEvents=true`, or a watch without a resourceVersion) ending with the
// `k8s.io/initial-events-end` bookmark; MODIFIED turned into ADDED/DELETED when an object
// enters or leaves the selectors; BOOKMARKs; a 410 ERROR event for expired versions.
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../runtime/meta/types.js';
import { viewJson } from './objects.js';
import type { ObjectService } from './objects.js';
import { groupVersion, listPrefix } from './resource.js';
import type { ResourceInfo } from './resource.js';
import type { Matcher } from './selectors.js';
import { ApiError, expired, internalError, tooLargeResourceVersion } from './status.js';
import { StorageError, listShared, watchShared } from './storage/storage.js';
import type { Storage } from './storage/storage.js';
import type { StorageEvent, StorageWatch } from './storage/storage.js';
import { toTable } from './table.js';
import { partialObjectMetadata } from './metadata.js';
import type { IncludeObject } from './table.js';

/** One open watch connection, tracked so that faults and stop() can close it. */
export interface WatchConnection {
  resource: ResourceInfo;
  /** Ends the stream (the client sees the connection close); callable unbound, as a listener. */
  close: () => void;
}

/** What a watch request asked for. */
export interface WatchRequest {
  resource: ResourceInfo;
  namespace: string | undefined;
  resourceVersion: string | undefined;
  labels: Matcher;
  fields: Matcher;
  bookmarks: boolean;
  /** After the apiserver's defaulting: true for a watch list, false for none, undefined for a legacy watch. */
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  table: IncludeObject | undefined;
  /** Events' objects (bookmarks too) as PartialObjectMetadata; as a list form, the stream ends at its first object. */
  metadata?: { version: 'v1' | 'v1beta1'; list: boolean } | undefined;
  bookmarkIntervalMs: number;
}

/** Serves a watch on `res` (the HTTP response is left open until the watch ends). */
export async function serveWatch(
  svc: ObjectService,
  storage: Storage,
  req: WatchRequest,
  res: ServerResponse,
  track: Set<WatchConnection>,
): Promise<void> {
  const r = req.resource;
  const prefix = listPrefix(r, req.namespace);
  const matches = (o: KubeObject): boolean => req.labels(o) && req.fields(o);
  res.writeHead(200, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  let closed = false;
  let sw: StorageWatch | undefined;
  const timers: NodeJS.Timeout[] = [];
  const conn: WatchConnection = {
    resource: r,
    close: () => {
      if (closed) return;
      closed = true;
      sw?.stop();
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      track.delete(conn);
      res.end();
    },
  };
  track.add(conn);
  res.on('close', conn.close);
  const send = (type: string, obj: unknown): void => {
    if (closed) return;
    let object = obj;
    if (req.table && type !== 'ERROR' && type !== 'BOOKMARK') {
      object = toTable(r, [obj as KubeObject], {}, req.table);
    } else if (req.metadata && type !== 'ERROR') {
      // the apiserver cannot encode an event's object as a list: the stream ends there
      if (req.metadata.list) return conn.close();
      object = partialObjectMetadata(obj as KubeObject, req.metadata.version);
    }
    // (`{"type":…,"object":…}`: a custom resource's text made once for every reader)
    res.write(
      object === undefined
        ? `${JSON.stringify({ type, object })}\n`
        : `{"type":${JSON.stringify(type)},"object":${viewJson(object)}}\n`,
    );
  };
  // events in order, each converted to the watched version (a CRD's conversion webhook may be called)
  let chain: Promise<void> = Promise.resolve();
  const emit = (type: string, stored: KubeObject): void => {
    chain = chain.then(async () => {
      if (closed) return;
      try {
        send(type, await svc.view(r, stored));
      } catch (e) {
        send('ERROR', (e instanceof ApiError ? e : internalError(String(e))).status);
        conn.close();
      }
    });
  };
  const later = (f: () => void): void => {
    chain = chain.then(f);
  };
  const rvParam = req.resourceVersion;
  const requested = rvParam && rvParam !== '0' ? Number(rvParam) : undefined;
  if (requested !== undefined && (!Number.isInteger(requested) || requested < 0)) {
    send('ERROR', expired(0, storage.compactedRevision() + 1).status);
    conn.close();
    return;
  }
  let from: number;
  if (req.sendInitialEvents === true || (req.sendInitialEvents === undefined && requested === undefined)) {
    // The current state as ADDED events, then a watch from its revision (the store replays
    // what happened in between). A watch list asking for a version the store has not reached
    // waits for it as the watch cache does (3 s), then fails with the apiserver's 504.
    if (req.sendInitialEvents && requested !== undefined && !(await reached(storage, requested, () => closed))) {
      const current = await storage.currentRevision();
      const err = tooLargeResourceVersion(requested, current).status;
      send('ERROR', { ...err, message: `Timeout: ${err.message ?? ''}` });
      conn.close();
      return;
    }
    if (closed) return;
    // Only matching objects are copied out of the store (kubectl delete watches one name).
    const snap = await listShared(storage, prefix, undefined, { predicate: matches });
    for (const o of snap.items) emit('ADDED', o);
    from = snap.revision;
    if (req.sendInitialEvents && req.bookmarks) {
      const rv = String(from);
      later(() =>
        send('BOOKMARK', {
          kind: r.kind,
          apiVersion: groupVersion(r),
          metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } },
        }),
      );
    }
  } else if (requested === undefined) {
    // sendInitialEvents=false from "" or "0": the changes from now on
    from = await storage.currentRevision();
  } else {
    from = requested;
  }
  try {
    sw = watchShared(
      storage,
      prefix,
      from,
      (e: StorageEvent) => {
        const cur = matches(e.object);
        const prev = e.prevObject ? matches(e.prevObject) : false;
        if (e.type === 'ADDED') {
          if (cur) emit('ADDED', e.object);
        } else if (e.type === 'DELETED') {
          if (prev || cur) emit('DELETED', e.object);
        } else if (cur && prev) emit('MODIFIED', e.object);
        else if (cur) emit('ADDED', e.object);
        else if (prev) emit('DELETED', e.object);
      },
      (e) => {
        // The store lost changes (etcd): the client must list again, as after a 410.
        later(() => {
          send('ERROR', expired(from, e.oldestRevision + 1).status);
          conn.close();
        });
      },
    );
  } catch (e) {
    if (e instanceof StorageError && e.code === 'Expired') {
      send('ERROR', expired(from, e.oldestRevision + 1).status);
      conn.close();
      return;
    }
    throw e;
  }
  if (req.bookmarks) {
    const t = setInterval(() => {
      void storage.currentRevision().then((rev) => {
        later(() =>
          send('BOOKMARK', { kind: r.kind, apiVersion: groupVersion(r), metadata: { resourceVersion: String(rev) } }),
        );
      });
    }, req.bookmarkIntervalMs);
    t.unref();
    timers.push(t);
  }
  if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
    const t = setTimeout(conn.close, req.timeoutSeconds * 1000);
    t.unref();
    timers.push(t);
  }
}

/** How long a watch list waits for the store to reach the version it asked for (the watch cache's 3 s). */
const FRESHNESS_WAIT_MS = 3000;

/** Resolves true once the store's revision is at least `rv`, false after {@link FRESHNESS_WAIT_MS} or when `gone()`. */
async function reached(storage: Storage, rv: number, gone: () => boolean): Promise<boolean> {
  const deadline = Date.now() + FRESHNESS_WAIT_MS;
  for (;;) {
    if ((await storage.currentRevision()) >= rv) return true;
    if (gone() || Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
