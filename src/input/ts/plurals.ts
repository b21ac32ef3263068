// Resource plurals of TypeScript input: derived from the kind's name unless a marker gives one,
// so the reader finishes them as client-gen's plural namer would (irregular English plurals,
// the run's plural exceptions) before it hands the model over.
import type { Model } from '../../model/types.js';
import { IRREGULAR_PLURALS, pluralName } from '../../model/naming.js';

/**
 * For TypeScript input, whose resource plural is derived from the kind name: a new model
 * in which every kind whose plural is the regular derived one (`persons` for `Person`)
 * takes its plural from `pluralExceptions` or the {@link IRREGULAR_PLURALS} table instead
 * (lower-cased, as a resource name), as client-gen's plural namer does for URLs and names.
 * Explicit plurals (`+kubebuilder:resource:path=…` that differ from the derived one) stay.
 */
export function applyTypeScriptPlurals(model: Model, pluralExceptions?: Readonly<Record<string, string>>): Model {
  const pick = (kind: string): string | undefined =>
    pluralExceptions?.[kind] ??
    (Object.prototype.hasOwnProperty.call(IRREGULAR_PLURALS, kind) ? IRREGULAR_PLURALS[kind] : undefined);
  return {
    ...model,
    groups: model.groups.map((g) => ({
      ...g,
      versions: g.versions.map((v) => ({
        ...v,
        kinds: v.kinds.map((k) => {
          const p = pick(k.kind);
          if (p === undefined || k.plural !== pluralName(k.kind).toLowerCase()) return k;
          return { ...k, plural: p.toLowerCase() };
        }),
      })),
    })),
  };
}
