// client-gen's +genclient markers → the verbs a kind's generated client offers.
// Semantics of k8s.io/code-generator (cmd/client-gen/generators/util/tags.go): all verbs by
// default; readonly = get, list, watch; onlyVerbs adds to readonly; skipVerbs removes; a verb
// in both onlyVerbs and skipVerbs is an error; noVerbs leaves none. One difference, shared with
// the CRD reader: the status verbs need the status subresource (+kubebuilder:subresource:status)
// rather than a Go `Status` field, since against a CRD without it `/status` does not exist.
import { ALL_VERBS, READONLY_VERBS, STATUS_VERBS, type Verb } from '../../model/types.js';

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
  let allowed = new Set<Verb>(ALL_VERBS);
  if (tags.readonly || tags.onlyVerbs) {
    const only = new Set<Verb>([...(tags.readonly ? READONLY_VERBS : []), ...(tags.onlyVerbs ?? [])]);
    for (const v of tags.skipVerbs ?? []) {
      if (only.has(v)) return { error: `verb "${v}" is in both genclient:onlyVerbs (or readonly) and genclient:skipVerbs` };
    }
    allowed = only;
  }
  for (const v of tags.skipVerbs ?? []) allowed.delete(v);
  if (tags.noStatus || !tags.hasStatus) for (const v of STATUS_VERBS) allowed.delete(v);
  return { verbs: ALL_VERBS.filter((v) => allowed.has(v)) };
}
