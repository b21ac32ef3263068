// Predicates (controller-runtime's pkg/predicate): filters on the events of a controller's
// watches. An event reaches the event handler only when every predicate of its watch (and
// every `withEventFilter` predicate of the controller) lets it through.
import type { KubeObject } from '../meta/types.js';
import type { CreateEvent, DeleteEvent, UpdateEvent } from '../handler/event.js';

/**
 * Decides which events of a watch go on to its handler. A method left out lets every event
 * of its type through (controller-runtime's predicate.Funcs with nil funcs).
 */
export interface Predicate<T = KubeObject> {
  create?(event: CreateEvent<T>): boolean;
  update?(event: UpdateEvent<T>): boolean;
  delete?(event: DeleteEvent<T>): boolean;
}

/** True when `p` lets `event` through (missing methods pass everything). */
export function passesCreate<T>(p: Predicate<T>, event: CreateEvent<T>): boolean {
  return p.create ? p.create(event) : true;
}
/** See {@link passesCreate}. */
export function passesUpdate<T>(p: Predicate<T>, event: UpdateEvent<T>): boolean {
  return p.update ? p.update(event) : true;
}
/** See {@link passesCreate}. */
export function passesDelete<T>(p: Predicate<T>, event: DeleteEvent<T>): boolean {
  return p.delete ? p.delete(event) : true;
}

/** A predicate applying `filter` to the object of every event (the new object of an update) (predicate.NewPredicateFuncs). */
export function newPredicateFuncs<T = KubeObject>(filter: (obj: T) => boolean): Predicate<T> {
  return {
    create: (e) => filter(e.object),
    update: (e) => filter(e.objectNew),
    delete: (e) => filter(e.object),
  };
}

/** Passes an event when every one of `predicates` does (predicate.And). */
export function allOf<T = KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.every((p) => passesCreate(p, e)),
    update: (e) => predicates.every((p) => passesUpdate(p, e)),
    delete: (e) => predicates.every((p) => passesDelete(p, e)),
  };
}

/** Passes an event when at least one of `predicates` does (predicate.Or; none: nothing passes). */
export function anyOf<T = KubeObject>(...predicates: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.some((p) => passesCreate(p, e)),
    update: (e) => predicates.some((p) => passesUpdate(p, e)),
    delete: (e) => predicates.some((p) => passesDelete(p, e)),
  };
}

/** Passes exactly the events `predicate` does not (predicate.Not). */
export function not<T = KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !passesCreate(predicate, e),
    update: (e) => !passesUpdate(predicate, e),
    delete: (e) => !passesDelete(predicate, e),
  };
}

/** Two string maps with the same entries; an absent map equals an empty one (Go's maps.Equal on nil and empty). */
function sameStringMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && b![k] === a![k]);
}

/**
 * Passes updates that change `metadata.generation` — a spec change; status-only writes and
 * resyncs do not pass — and every create and delete (predicate.GenerationChangedPredicate).
 * Kinds that never set a generation (ConfigMap, Secret, …) have every update filtered out.
 */
export const generationChanged: Predicate = {
  update: (e) => e.objectOld.metadata?.generation !== e.objectNew.metadata?.generation,
};

/** Passes updates that change `metadata.labels`, and every create and delete (predicate.LabelChangedPredicate). */
export const labelsChanged: Predicate = {
  update: (e) => !sameStringMap(e.objectOld.metadata?.labels, e.objectNew.metadata?.labels),
};

/** Passes updates that change `metadata.annotations`, and every create and delete (predicate.AnnotationChangedPredicate). */
export const annotationsChanged: Predicate = {
  update: (e) => !sameStringMap(e.objectOld.metadata?.annotations, e.objectNew.metadata?.annotations),
};

/**
 * Passes updates with a new `metadata.resourceVersion` — every real change, but not a
 * periodic resync — and every create and delete (predicate.ResourceVersionChangedPredicate).
 */
export const resourceVersionChanged: Predicate = {
  update: (e) => e.objectOld.metadata?.resourceVersion !== e.objectNew.metadata?.resourceVersion,
};
