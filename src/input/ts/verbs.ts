// client-gen's +genclient markers → the verbs a kind's generated client offers.
// All verbs by default, narrowed by the rules in src/model/verbs.ts; a verb in both onlyVerbs
// and skipVerbs is an error; noVerbs leaves none. The status verbs need the status subresource
// (+kubebuilder:subresource:status) rather than a Go `Status` field.
import { ALL_VERBS, type Verb } from '../../model/types.js';
import { contradictoryVerb, narrowVerbs } from '../../model/verbs.js';

/** The genclient markers on one kind. */
export interface GenclientTags {
  genclient: boolean;
  noVerbs: boolean;
  noStatus: boolean;
  readonly: boolean;
  onlyVerbs?: Verb[];
  skipVerbs?: Verb[];
  /** True when the kind has the status subresource. */
  hasStatus: boolean;
}

/** The verbs, or an error message when the markers contradict each other. */
export function verbsOf(tags: GenclientTags): { verbs: Verb[] } | { error: string } {
  if (!tags.genclient || tags.noVerbs) return { verbs: [] };
  if (tags.readonly || tags.onlyVerbs) {
    const v = contradictoryVerb(tags);
    if (v !== undefined)
      return { error: `verb "${v}" is in both genclient:onlyVerbs (or readonly) and genclient:skipVerbs` };
  }
  return { verbs: narrowVerbs(ALL_VERBS, tags, tags.hasStatus) };
}
