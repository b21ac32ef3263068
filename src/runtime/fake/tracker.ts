// ObjectTracker: the in-memory store behind the fake clientset (client-go's
// testing.ObjectTracker), with the apiserver's behaviour for custom resources where a
// controller can tell: resourceVersions, uid, generation, NotFound / AlreadyExists /
// Conflict / Invalid errors, status subresource rules, finalizers, and watches that
// resume from a resourceVersion (or answer 410 Expired when it is too old).
import { randomUUID } from 'node:crypto';
import type { KubeList, KubeObject, Status } from '../meta/types.js';
import type { ListOptions, Watch } from '../client/types.js';
import type { DeleteOptions, ResourceDescriptor } from '../client/resource.js';
import { apiVersionOf } from '../client/resource-client.js';
import { parseSelector } from '../labels/parse.js';
import { SelectorError, type Selector } from '../labels/selector.js';
import { alreadyExists, conflict, invalid, notFound, OBJECT_MODIFIED, statusError } from './errors.js';
import { FakeWatch } from './watch.js';

/** A resource the tracker serves: a descriptor, plus which subresources it has. */
export interface TrackedResource extends ResourceDescriptor {
  subresources?: { readonly status?: boolean; readonly scale?: boolean };
}

/** One stored change, kept for watches that resume from a resourceVersion. */
interface Change {
  rv: number;
  key: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  obj: KubeObject;
  /** The object before the change (MODIFIED), for selector transitions. */
  old?: KubeObject;
}

interface Watcher {
  key: string;
  namespace: string | undefined;
  filter: (o: KubeObject) => boolean;
  watch: FakeWatch<KubeObject>;
}

/** How many changes are kept for resuming watches; older resourceVersions get 410 Expired. */
export const TRACKER_HISTORY = 1000;

function clone<T>(v: T): T {
  return structuredClone(v);
}

function resKey(d: ResourceDescriptor): string {
  return `${d.group}/${d.version}/${d.resource}`;
}

function objKey(ns: string | undefined, name: string): string {
  return ns ? `${ns}/${name}` : name;
}

function specOf(o: KubeObject): string {
  const { metadata: _m, status: _s, ...rest } = o as KubeObject & { status?: unknown };
  return JSON.stringify(rest);
}

const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Options of `ObjectTracker.delete`. */
export type TrackerDeleteOptions = Pick<DeleteOptions, 'preconditions'>;

/**
 * The tracker. Invariants: stored objects are never handed out (copies go in and out);
 * the resourceVersion counter only grows; every change is broadcast to matching watchers
 * in order, and recorded in a bounded history.
 */
export class ObjectTracker {
  private readonly resources = new Map<string, TrackedResource>();
  private readonly byKind = new Map<string, TrackedResource>();
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: Change[] = [];
  private readonly watchers = new Set<Watcher>();
  private rv = 1;

  /** A tracker serving `resources`. */
  constructor(resources: readonly TrackedResource[]) {
    for (const r of resources) {
      this.resources.set(resKey(r), r);
      this.byKind.set(`${apiVersionOf(r)}/${r.kind}`, r);
      this.objects.set(resKey(r), new Map());
    }
  }

  /** The current resourceVersion (of the last write). */
  resourceVersion(): string {
    return String(this.rv);
  }

  /** The tracked resource of `d`; throws NotFound (404, as for an unknown path) when not served. */
  resource(d: ResourceDescriptor): TrackedResource {
    const r = this.resources.get(resKey(d));
    if (!r)
      throw statusError(
        404,
        'NotFound',
        `the server could not find the requested resource (${d.resource}.${d.version}.${d.group})`,
      );
    return r;
  }

  /** The resource of an object by its apiVersion and kind, or undefined. */
  resourceForObject(obj: KubeObject): TrackedResource | undefined {
    return this.byKind.get(`${obj.apiVersion ?? ''}/${obj.kind ?? ''}`);
  }

  /** Seeds an object (as `createFakeClientset(...objects)` does): created as is, status kept. */
  add(obj: KubeObject): KubeObject {
    const r = this.resourceForObject(obj);
    if (!r)
      throw new Error(
        `fake clientset: no resource for apiVersion ${JSON.stringify(obj.apiVersion)} kind ${JSON.stringify(obj.kind)}; known: ${[...this.byKind.keys()].join(', ')}`,
      );
    return this.create(r, obj, obj.metadata?.namespace, { keepStatus: true });
  }

  private store(d: ResourceDescriptor): Map<string, KubeObject> {
    return this.objects.get(resKey(this.resource(d)))!;
  }

  private namespaceOf(r: TrackedResource, ns: string | undefined, obj?: KubeObject): string | undefined {
    if (!r.namespaced) return undefined;
    const n = ns || obj?.metadata?.namespace;
    if (!n) throw statusError(400, 'BadRequest', `an empty namespace may not be set when a resource name is provided`);
    if (obj?.metadata?.namespace && ns && obj.metadata.namespace !== ns) {
      throw statusError(
        400,
        'BadRequest',
        `the namespace of the provided object does not match the namespace sent on the request`,
      );
    }
    return n;
  }

  private record(r: TrackedResource, type: Change['type'], obj: KubeObject, old?: KubeObject): void {
    const change: Change = { rv: this.rv, key: resKey(r), type, obj: clone(obj), ...(old ? { old } : {}) };
    this.history.push(change);
    if (this.history.length > TRACKER_HISTORY) this.history.shift();
    for (const w of this.watchers) this.deliver(w, change);
  }

  private deliver(w: Watcher, c: Change): void {
    if (w.key !== c.key) return;
    if (w.namespace !== undefined && c.obj.metadata?.namespace !== w.namespace) return;
    const now = w.filter(c.obj);
    if (c.type === 'MODIFIED' && c.old) {
      const before = w.filter(c.old);
      if (before && !now) w.watch.delete(clone(c.obj));
      else if (!before && now) w.watch.add(clone(c.obj));
      else if (now) w.watch.modify(clone(c.obj));
      return;
    }
    if (!now) return;
    if (c.type === 'ADDED') w.watch.add(clone(c.obj));
    else if (c.type === 'MODIFIED') w.watch.modify(clone(c.obj));
    else w.watch.delete(clone(c.obj));
  }

  /** Reads one object. */
  get(d: ResourceDescriptor, namespace: string | undefined, name: string): KubeObject {
    const r = this.resource(d);
    const obj = this.store(r).get(objKey(this.namespaceOf(r, namespace), name));
    if (!obj) throw notFound(r, name);
    return clone(obj);
  }

  /** Lists objects (one namespace, or all with namespace undefined/''), sorted by key, with selectors and paging. */
  list(d: ResourceDescriptor, namespace: string | undefined, options: ListOptions = {}): KubeList<KubeObject> {
    const r = this.resource(d);
    const filter = this.filter(options);
    const keys = [...this.store(r).keys()].sort();
    let items: KubeObject[] = [];
    for (const k of keys) {
      const o = this.store(r).get(k)!;
      if (r.namespaced && namespace && o.metadata?.namespace !== namespace) continue;
      if (filter(o)) items.push(o);
    }
    let cont: string | undefined;
    if (options.continue) {
      const after = Buffer.from(options.continue, 'base64url').toString('utf8');
      items = items.filter((o) => objKey(o.metadata?.namespace, o.metadata!.name!) > after);
    }
    if (options.limit && options.limit > 0 && items.length > options.limit) {
      items = items.slice(0, options.limit);
      const last = items[items.length - 1];
      cont = Buffer.from(objKey(last.metadata?.namespace, last.metadata!.name!), 'utf8').toString('base64url');
    }
    return {
      apiVersion: apiVersionOf(r),
      kind: r.listKind,
      metadata: { resourceVersion: this.resourceVersion(), ...(cont ? { continue: cont } : {}) },
      items: items.map(clone),
    };
  }

  private filter(options: ListOptions): (o: KubeObject) => boolean {
    let labels: Selector | undefined;
    try {
      labels = options.labelSelector ? parseSelector(options.labelSelector) : undefined;
    } catch (e) {
      throw e instanceof SelectorError ? statusError(400, 'BadRequest', e.apiserverMessage) : e;
    }
    const fields: ((o: KubeObject) => boolean)[] = [];
    for (const term of (options.fieldSelector ?? '').split(',').filter((t) => t.trim() !== '')) {
      const m = /^\s*([A-Za-z.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
      if (!m) throw statusError(400, 'BadRequest', `invalid selector: '${term}'; can't understand '${term}'`);
      const [, field, op, value] = m as unknown as [string, string, string, string];
      const get =
        field === 'metadata.name'
          ? (o: KubeObject) => o.metadata?.name ?? ''
          : field === 'metadata.namespace'
            ? (o: KubeObject) => o.metadata?.namespace ?? ''
            : undefined;
      if (!get) throw statusError(400, 'BadRequest', `field label not supported: ${field}`);
      fields.push(op === '!=' ? (o) => get(o) !== value : (o) => get(o) === value);
    }
    return (o) => (!labels || labels.matches(o.metadata?.labels)) && fields.every((f) => f(o));
  }

  /** Creates an object; `keepStatus` keeps the status even with a status subresource (seeding). */
  create(
    d: ResourceDescriptor,
    obj: KubeObject,
    namespace: string | undefined,
    opts: { keepStatus?: boolean; dryRun?: boolean } = {},
  ): KubeObject {
    const r = this.resource(d);
    const o = clone(obj) as KubeObject & { status?: unknown };
    o.metadata = { ...(o.metadata ?? {}) };
    const ns = this.namespaceOf(r, namespace, o);
    if (!o.metadata.name && o.metadata.generateName) {
      o.metadata.name = `${o.metadata.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    }
    const name = o.metadata.name;
    if (!name) throw invalid(r, '', 'metadata.name', 'Required value: name or generateName is required');
    if (!NAME_RE.test(name) || name.length > 253) {
      throw invalid(
        r,
        name,
        'metadata.name',
        `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      );
    }
    if (o.metadata.resourceVersion)
      throw invalid(r, name, 'metadata.resourceVersion', 'Invalid value: must not be set on create');
    const store = this.store(r);
    const key = objKey(ns, name);
    if (store.has(key)) throw alreadyExists(r, name);
    if (ns !== undefined) o.metadata.namespace = ns;
    else delete o.metadata.namespace;
    o.apiVersion = apiVersionOf(r);
    o.kind = r.kind;
    if (r.subresources?.status && !opts.keepStatus) delete o.status;
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    o.metadata.generation = 1;
    delete o.metadata.deletionTimestamp;
    if (opts.dryRun) return clone(o);
    this.rv++;
    o.metadata.resourceVersion = String(this.rv);
    store.set(key, o);
    this.record(r, 'ADDED', o);
    return clone(o);
  }

  /**
   * Replaces an object (`subresource` 'status': only its status). metadata.resourceVersion
   * is required and must be current. A no-op update writes nothing.
   */
  update(
    d: ResourceDescriptor,
    obj: KubeObject,
    namespace: string | undefined,
    opts: { subresource?: 'status'; dryRun?: boolean; allowUnconditional?: boolean } = {},
  ): KubeObject {
    const r = this.resource(d);
    const ns = this.namespaceOf(r, namespace, obj);
    const name = obj.metadata?.name;
    if (!name) throw invalid(r, '', 'metadata.name', 'Required value: name is required');
    const store = this.store(r);
    const key = objKey(ns, name);
    const old: (KubeObject & { status?: unknown }) | undefined = store.get(key);
    if (!old) throw notFound(r, name);
    const rv = obj.metadata?.resourceVersion;
    // as the apiserver's update strategy: the error names the resource, not the kind
    if (!rv && !opts.allowUnconditional)
      throw invalid(
        { ...r, kind: r.resource },
        name,
        'metadata.resourceVersion',
        'Invalid value: 0: must be specified for an update',
      );
    if (rv && rv !== old.metadata!.resourceVersion) throw conflict(r, name, OBJECT_MODIFIED);
    const incoming = clone(obj) as KubeObject & { status?: unknown };
    let next: KubeObject & { status?: unknown };
    if (opts.subresource === 'status') {
      next = clone(old);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      next.metadata = {
        ...incoming.metadata,
        uid: old.metadata!.uid!,
        creationTimestamp: old.metadata!.creationTimestamp!,
        generation: old.metadata!.generation ?? 1,
        ...(old.metadata!.deletionTimestamp ? { deletionTimestamp: old.metadata!.deletionTimestamp } : {}),
      };
      if (ns !== undefined) next.metadata.namespace = ns;
      else delete next.metadata.namespace;
      next.apiVersion = apiVersionOf(r);
      next.kind = r.kind;
      if (r.subresources?.status) {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      if (specOf(next) !== specOf(old)) next.metadata.generation = (old.metadata!.generation ?? 1) + 1;
    }
    next.metadata!.resourceVersion = old.metadata!.resourceVersion!;
    if (JSON.stringify(next) === JSON.stringify(old)) return clone(old);
    if (opts.dryRun) return clone(next);
    this.rv++;
    next.metadata!.resourceVersion = String(this.rv);
    if (next.metadata!.deletionTimestamp && (next.metadata!.finalizers ?? []).length === 0) {
      store.delete(key);
      this.record(r, 'DELETED', next);
      return clone(next);
    }
    store.set(key, next);
    this.record(r, 'MODIFIED', next, clone(old));
    return clone(next);
  }

  /**
   * Deletes an object: with finalizers it only gets a deletionTimestamp (MODIFIED);
   * otherwise it is removed (DELETED). Preconditions mismatch → Conflict.
   */
  delete(
    d: ResourceDescriptor,
    namespace: string | undefined,
    name: string,
    opts: TrackerDeleteOptions & { dryRun?: boolean } = {},
  ): KubeObject | Status {
    const r = this.resource(d);
    const ns = this.namespaceOf(r, namespace);
    const store = this.store(r);
    const key = objKey(ns, name);
    const old = store.get(key);
    if (!old) throw notFound(r, name);
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== old.metadata!.uid) {
      throw conflict(
        r,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata!.uid}`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata!.resourceVersion) {
      throw conflict(
        r,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata!.resourceVersion}`,
      );
    }
    if (opts.dryRun) return clone(old);
    if ((old.metadata!.finalizers ?? []).length > 0) {
      if (old.metadata!.deletionTimestamp) return clone(old);
      const next = clone(old);
      this.rv++;
      next.metadata!.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      next.metadata!.resourceVersion = String(this.rv);
      store.set(key, next);
      this.record(r, 'MODIFIED', next, clone(old));
      return clone(next);
    }
    this.rv++;
    const gone = clone(old);
    gone.metadata!.resourceVersion = String(this.rv);
    store.delete(key);
    this.record(r, 'DELETED', gone);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name, group: r.group, kind: r.resource, uid: old.metadata!.uid! },
    };
  }

  /**
   * Opens a watch. Without a resourceVersion (or with '0'), every current object comes
   * first as ADDED; with one, the changes after it are replayed (410 Expired when they
   * are no longer in the history). `sendInitialEvents: true` sends the current objects
   * whatever the version, then (with bookmarks) the `k8s.io/initial-events-end` bookmark;
   * false sends none.
   */
  watch(d: ResourceDescriptor, namespace: string | undefined, options: ListOptions = {}): Watch<KubeObject> {
    const r = this.resource(d);
    const filter = this.filter(options);
    const ns = r.namespaced && namespace ? namespace : undefined;
    let watcher: Watcher | undefined;
    const watch = new FakeWatch<KubeObject>({
      ...(options.signal ? { signal: options.signal } : {}),
      onStop: () => {
        if (watcher) this.watchers.delete(watcher);
      },
    });
    if (watch.isStopped()) return watch;
    const w: Watcher = { key: resKey(r), namespace: ns, filter, watch };
    const from = options.resourceVersion;
    const initial = options.sendInitialEvents;
    if (initial === false && (from === undefined || from === '' || from === '0')) {
      // no initial events: the changes from now on
    } else if (initial === true || from === undefined || from === '' || from === '0') {
      for (const o of this.list(
        r,
        ns,
        options.labelSelector || options.fieldSelector
          ? {
              ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
              ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
            }
          : {},
      ).items)
        watch.add(o);
      if (initial === true && options.allowWatchBookmarks) {
        watch.bookmark({
          apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
          kind: r.kind,
          metadata: { resourceVersion: String(this.rv), annotations: { 'k8s.io/initial-events-end': 'true' } },
        });
      }
    } else {
      const n = Number(from);
      if (!Number.isInteger(n) || n < 0)
        throw statusError(400, 'BadRequest', `invalid resource version: ${JSON.stringify(from)}`);
      const oldest = this.history.length > 0 ? this.history[0].rv : this.rv + 1;
      if (n < oldest - 1 && n < this.rv) {
        watch.error({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          code: 410,
          reason: 'Expired',
          message: `too old resource version: ${n} (${oldest - 1})`,
        });
        return watch;
      }
      for (const c of this.history) if (c.rv > n) this.deliver(w, c);
    }
    watcher = w;
    this.watchers.add(w);
    return watch;
  }

  /** Stops every open watch (the fake "server" going away). */
  stopWatches(): void {
    for (const w of [...this.watchers]) w.watch.stop();
  }
}
