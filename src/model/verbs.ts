// client-gen's verb rules, once (k8s.io/code-generator cmd/client-gen/generators/util/tags.go):
// readonly = get, list, watch; onlyVerbs adds to readonly and restricts to the union; skipVerbs
// removes; noStatus removes the status verbs. One difference from client-gen, shared by both
// readers: the status verbs also need the status subresource, since against a CRD without it
// `/status` does not exist. Used by the TypeScript reader (+genclient markers) and by the client
// generators (per-kind options for CRD input).
import { ALL_VERBS, READONLY_VERBS, STATUS_VERBS, type Verb } from './types.js';

/** How client-gen's markers narrow a kind's verbs. */
export interface VerbNarrowing {
  /** `+genclient:readonly`: get, list, watch. */
  readonly?: boolean;
  /** `+genclient:onlyVerbs=…`: only these verbs (plus the readonly ones with `readonly`). */
  onlyVerbs?: readonly Verb[];
  /** `+genclient:skipVerbs=…`: every verb but these. */
  skipVerbs?: readonly Verb[];
  /** `+genclient:noStatus`: no updateStatus/applyStatus. */
  noStatus?: boolean;
}

/**
 * `base` narrowed by `n` (see {@link VerbNarrowing}), without the status verbs when the kind has
 * no status subresource; in client-gen's order ({@link ALL_VERBS}).
 */
export function narrowVerbs(base: readonly Verb[], n: VerbNarrowing, hasStatus: boolean): Verb[] {
  let allowed = new Set<Verb>(base);
  if (n.readonly || n.onlyVerbs) {
    const only = new Set<Verb>([...(n.readonly ? READONLY_VERBS : []), ...(n.onlyVerbs ?? [])]);
    allowed = new Set([...allowed].filter((v) => only.has(v)));
  }
  for (const v of n.skipVerbs ?? []) allowed.delete(v);
  if (n.noStatus || !hasStatus) for (const v of STATUS_VERBS) allowed.delete(v);
  return ALL_VERBS.filter((v) => allowed.has(v));
}

/** The first verb that `n` both allows (onlyVerbs or readonly) and skips, if any: a contradiction. */
export function contradictoryVerb(n: VerbNarrowing): Verb | undefined {
  const only = new Set<Verb>([...(n.readonly ? READONLY_VERBS : []), ...(n.onlyVerbs ?? [])]);
  return (n.skipVerbs ?? []).find((v) => only.has(v));
}
