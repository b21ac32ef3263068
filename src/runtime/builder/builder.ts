// The controller builder (controller-runtime's pkg/builder):
//   newControllerManagedBy(manager).for(FooResource, { labelSelector: 'shard=a' })
//     .owns(DeploymentResource, { metadataOnly: true })
//     .watches(SecretResource, mapToRequests).withEventFilter(generationChanged)
//     .withOptions({ maxConcurrentReconciles: 4 }).complete(reconciler)
import type { KubeObject } from '../meta/types.js';
import type { TypedResource } from '../client/resource.js';
import {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  type EventHandler,
  type MapFunc,
} from '../handler/handler.js';
import type { Predicate } from '../predicate/predicate.js';
import type { Reconciler } from '../reconcile/reconcile.js';
import { Controller, type ControllerOptions } from '../controller/controller.js';
import type { Manager } from '../manager/manager.js';

/**
 * What the manager's cache holds of a watched kind (its `byObject` settings), set from the
 * builder: the cache is the manager's, shared by its controllers and client, so a kind is
 * scoped once (the same settings again are fine, different ones an error at `complete`).
 */
export interface WatchScope {
  /** Cache and watch only these namespaces of the kind. */
  namespaces?: readonly string[];
  /** Cache and watch only objects whose labels match (`shard=a`, `app in (db,cache)`): the server filters. */
  labelSelector?: string;
  /** Cache and watch only objects whose fields match (`metadata.name=x`): the server filters. */
  fieldSelector?: string;
  /** Keep metadata.managedFields in the cache (dropped by default), e.g. to see who changed a metadata-only object. */
  keepManagedFields?: boolean;
}

/** How a watch reads its kind. */
export interface WatchForm {
  /**
   * Watch the kind's metadata only (controller-runtime's `OnlyMetadata`): its informer lists
   * and watches PartialObjectMetadata, so the cache holds each object's metadata alone.
   * Handlers and predicates see PartialObjectMetadata; the reconciler reads it with
   * `client.getMetadata`/`listMetadata` (a `client.get` of the kind starts a full cache).
   */
  metadataOnly?: boolean;
}

/** Options of `for`. */
export interface ForOptions<T> extends WatchScope, WatchForm {
  /** Filters of this watch only (besides the controller's `withEventFilter`). */
  predicates?: Predicate<T>[];
}

/** Options of `owns`. */
export interface OwnsOptions<T> extends WatchScope, WatchForm {
  predicates?: Predicate<T>[];
  /** Map an owned object to every owner of the `for` kind, not only its controller (builder.MatchEveryOwner). */
  matchEveryOwner?: boolean;
}

/** Options of `watches`. */
export interface WatchesOptions<T> extends WatchScope, WatchForm {
  predicates?: Predicate<T>[];
}

interface PendingWatch {
  resource: TypedResource;
  handler: EventHandler;
  predicates: Predicate[];
  scope: WatchScope;
  metadataOnly: boolean;
}

/** The scope fields of an options object (undefined when none is set). */
function scopeOf(o: WatchScope): WatchScope | undefined {
  const s: WatchScope = {};
  if (o.namespaces !== undefined) s.namespaces = o.namespaces;
  if (o.labelSelector !== undefined) s.labelSelector = o.labelSelector;
  if (o.fieldSelector !== undefined) s.fieldSelector = o.fieldSelector;
  if (o.keepManagedFields !== undefined) s.keepManagedFields = o.keepManagedFields;
  return Object.keys(s).length ? s : undefined;
}

/**
 * Builds a controller into a manager. Nothing happens until `complete`, which validates the
 * whole chain, registers the watches on the manager's shared informers and adds the controller.
 * `T` is the kind of `for`.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- T names the kind in the type a reader sees (`for(widgets)` gives ControllerBuilder<Widget>); removing it would break users' annotations
export class ControllerBuilder<T extends KubeObject = KubeObject> {
  private forInput:
    { resource: TypedResource; predicates: Predicate[]; scope: WatchScope; metadataOnly: boolean } | undefined;
  private readonly owned: Array<{
    resource: TypedResource;
    predicates: Predicate[];
    matchEveryOwner: boolean;
    scope: WatchScope;
    metadataOnly: boolean;
  }> = [];
  private readonly watched: PendingWatch[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: ControllerOptions = {};
  private name: string | undefined;
  private completed = false;

  constructor(private readonly manager: Manager) {}

  /**
   * The kind the controller reconciles: every event of it queues its own request
   * (handler.EnqueueRequestForObject). Called once.
   */
  for<U extends KubeObject>(resource: TypedResource<U>, options: ForOptions<NoInfer<U>> = {}): ControllerBuilder<U> {
    if (this.forInput)
      throw new Error(
        `for() was already called (with ${this.forInput.resource.resource}): a controller reconciles one kind`,
      );
    checkResource(resource, 'for');
    this.forInput = {
      resource,
      predicates: options.predicates ?? [],
      scope: scopeOf(options) ?? {},
      metadataOnly: options.metadataOnly === true,
    };
    return this;
  }

  /**
   * A kind the `for` kind owns: an event of an owned object queues the request of its
   * controller owner of the `for` kind (handler.EnqueueRequestForOwner, controller only).
   */
  owns<O extends KubeObject>(resource: TypedResource<O>, options: OwnsOptions<NoInfer<O>> = {}): this {
    checkResource(resource, 'owns');
    this.owned.push({
      resource,
      predicates: options.predicates ?? [],
      matchEveryOwner: options.matchEveryOwner ?? false,
      scope: scopeOf(options) ?? {},
      metadataOnly: options.metadataOnly === true,
    });
    return this;
  }

  /**
   * Any other kind: `handler` maps its events to requests — a map function (object →
   * requests; handler.EnqueueRequestsFromMapFunc) or an EventHandler.
   */
  watches<W extends KubeObject>(
    resource: TypedResource<W>,
    handler: MapFunc<NoInfer<W>> | EventHandler<NoInfer<W>>,
    options: WatchesOptions<NoInfer<W>> = {},
  ): this {
    checkResource(resource, 'watches');
    const h = typeof handler === 'function' ? enqueueRequestsFromMapFunc<W>(handler) : handler;
    if (!h || typeof h !== 'object')
      throw new Error(`watches(${resource.resource}): the handler must be a map function or an EventHandler`);
    this.watched.push({
      resource,
      handler: h,
      predicates: options.predicates ?? [],
      scope: scopeOf(options) ?? {},
      metadataOnly: options.metadataOnly === true,
    });
    return this;
  }

  /** Predicates every watch of the controller applies (its `for`, `owns` and `watches`). */
  withEventFilter(...predicates: Predicate[]): this {
    this.globalPredicates.push(...predicates);
    return this;
  }

  /** Controller options (`maxConcurrentReconciles`, `rateLimiter`, `cacheSyncTimeoutMs`, `clock`). */
  withOptions(options: ControllerOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /** The controller's name (default: the `for` kind in lower case): logs, metrics, workqueue. Unique in the manager. */
  named(name: string): this {
    if (typeof name !== 'string' || name === '') throw new Error('named(): the name must be a non-empty string');
    this.name = name;
    return this;
  }

  /**
   * Builds the controller with `reconciler`, registers its watches and adds it to the
   * manager (started with it, or at once if it runs). Returns the controller.
   */
  complete(reconciler: Reconciler): Controller {
    if (this.completed) throw new Error('complete() was already called on this builder');
    if (typeof reconciler !== 'function')
      throw new Error('complete(): the reconciler must be a function (request, context) => Promise<Result>');
    const f = this.forInput;
    if (this.owned.length > 0 && !f)
      throw new Error('owns() needs for(): owned objects map to their owner of the for() kind');
    if (!f && this.watched.length === 0)
      throw new Error('the controller watches nothing: call for(), owns() or watches()');
    const name = this.name ?? f?.resource.kind.toLowerCase();
    if (!name) throw new Error('a controller without for() needs named()');
    if (this.manager.isStopped()) throw new Error(`the manager has stopped; controller ${name} was not added`);
    if (this.manager.getControllers().some((c) => c.name === name)) {
      throw new Error(
        `a controller named ${JSON.stringify(name)} is already in this manager; name controllers uniquely with named()`,
      );
    }
    // the cache scopes first, before any watch creates an informer (a conflict throws here)
    for (const w of [...(f ? [f] : []), ...this.owned, ...this.watched]) {
      if (Object.keys(w.scope).length > 0) this.manager.scope(w.resource, w.scope);
    }
    this.completed = true;
    const controller = new Controller(name, this.manager.host, reconciler, this.options, f?.resource);
    const global = this.globalPredicates;
    const form = (metadataOnly: boolean) => (metadataOnly ? { metadataOnly } : {});
    if (f) controller.watch(f.resource, enqueueRequestForObject(), [...f.predicates, ...global], form(f.metadataOnly));
    for (const o of this.owned) {
      const owner = {
        group: f!.resource.group,
        version: f!.resource.version,
        kind: f!.resource.kind,
        namespaced: f!.resource.namespaced,
      };
      controller.watch(
        o.resource,
        enqueueRequestForOwner(owner, { onlyController: !o.matchEveryOwner }),
        [...o.predicates, ...global],
        { ...form(o.metadataOnly), owns: true },
      );
    }
    for (const w of this.watched)
      controller.watch(w.resource, w.handler, [...w.predicates, ...global], form(w.metadataOnly));
    this.manager.add(controller);
    return controller;
  }
}

function checkResource(resource: TypedResource, verb: string): void {
  if (
    !resource ||
    typeof resource !== 'object' ||
    typeof resource.resource !== 'string' ||
    typeof resource.kind !== 'string' ||
    typeof resource.version !== 'string'
  ) {
    throw new Error(
      `${verb}(): want a resource descriptor ({ group, version, resource, kind, listKind, namespaced }), e.g. DeploymentResource`,
    );
  }
}

/** Starts a controller builder for `manager` (controller-runtime's builder.ControllerManagedBy). */
export function newControllerManagedBy(manager: Manager): ControllerBuilder {
  return new ControllerBuilder(manager);
}
