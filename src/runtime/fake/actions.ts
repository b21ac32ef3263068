// Actions and reactors (client-go's k8s.io/client-go/testing Fake): every call of the
// fake clientset is recorded as an Action, then offered to the reactor chain; the
// object tracker answers whatever no reactor handled.
import type { ListOptions, Watch } from '../client/types.js';
import type { KubeObject } from '../meta/types.js';

/** Verbs as recorded (client-go's action verbs; apply is a `patch` with patchType Apply). */
export type ActionVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete' | 'delete-collection' | 'patch';

/** One recorded call (client-go's testing.Action). */
export interface Action {
  verb: ActionVerb;
  /** Group, version and plural resource. */
  resource: { group: string; version: string; resource: string };
  /** `''` for calls on the object itself; `status`, `scale`. */
  subresource: string;
  /** `''` for cluster-scoped resources and all-namespace calls. */
  namespace: string;
  /** Object name (get, delete, patch, update, create when known). */
  name?: string;
  /** Body of create/update (a copy). */
  object?: KubeObject;
  /** Patch type and body of patch calls. */
  patchType?: string;
  patch?: unknown;
  /** List/watch/delete-collection options. */
  listOptions?: Omit<ListOptions, 'signal'>;
}

/** What a reactor answers: an object to return, or an error to throw. */
export type Reaction = { object: unknown } | { error: unknown };

/** Answers an action, or returns undefined to pass it on to the next reactor. */
export type ReactionFunc = (action: Action) => Reaction | undefined | Promise<Reaction | undefined>;

/** Answers a watch action with a Watch (e.g. a FakeWatch the test feeds), or undefined to pass it on. */
export type WatchReactionFunc = (action: Action) => Watch<unknown> | undefined;

interface Reactor<F> {
  verb: string;
  resource: string;
  fn: F;
}

function matches(r: { verb: string; resource: string }, a: Action): boolean {
  return (
    (r.verb === '*' || r.verb === a.verb) &&
    (r.resource === '*' ||
      r.resource === a.resource.resource ||
      r.resource === `${a.resource.resource}/${a.subresource}`)
  );
}

/**
 * The recorded actions and the reactor chains. Reactors are tried in order; the tracker
 * always answers last. Unlike client-go (where `AddReactor` lands after the tracker and
 * so never runs for tracked resources), `addReactor` here runs before the tracker.
 */
export class Fake {
  private readonly recorded: Action[] = [];
  private readonly reactors: Reactor<ReactionFunc>[] = [];
  private readonly watchReactors: Reactor<WatchReactionFunc>[] = [];

  /** Every action so far, oldest first (copies). */
  actions(): Action[] {
    return this.recorded.map((a) => structuredClone(a));
  }

  /** Forgets the recorded actions. */
  clearActions(): void {
    this.recorded.length = 0;
  }

  /** Records an action. */
  record(action: Action): void {
    this.recorded.push(structuredClone(action));
  }

  /**
   * Runs `fn` first for actions of `verb` on `resource` (`'*'` matches any; `resource`
   * may be `plural` or `plural/subresource`).
   */
  prependReactor(verb: ActionVerb | '*', resource: string, fn: ReactionFunc): void {
    this.reactors.unshift({ verb, resource, fn });
  }

  /** Runs `fn` after the reactors already added (still before the tracker). */
  addReactor(verb: ActionVerb | '*', resource: string, fn: ReactionFunc): void {
    this.reactors.push({ verb, resource, fn });
  }

  /** Runs `fn` first for watch actions on `resource`. */
  prependWatchReactor(resource: string, fn: WatchReactionFunc): void {
    this.watchReactors.unshift({ verb: 'watch', resource, fn });
  }

  /** The first reactor's answer for `action`, or undefined when none handled it. */
  async react(action: Action): Promise<Reaction | undefined> {
    for (const r of this.reactors) {
      if (!matches(r, action)) continue;
      const res = await r.fn(action);
      if (res !== undefined) return res;
    }
    return undefined;
  }

  /** The first watch reactor's Watch for `action`, or undefined. */
  reactWatch(action: Action): Watch<unknown> | undefined {
    for (const r of this.watchReactors) {
      if (!matches(r, action)) continue;
      const w = r.fn(action);
      if (w !== undefined) return w;
    }
    return undefined;
  }
}
