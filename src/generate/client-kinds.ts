// The kinds the client generators emit for, grouped by group/version, with their
// names and verbs computed once (client-gen skips kinds without verbs; informer-gen
// and lister-gen need list and watch).
import type { Group, GroupVersion, Kind, Model, Verb } from '../model/types.js';
import { clientVerbs, type ClientGenOptions } from './client-options.js';
import { groupNames, kindNames, type KindNames } from './client-names.js';
import { publicName, privateName } from '../model/naming.js';

/** One kind with everything the emitters need. */
export interface ClientKind {
  group: Group;
  version: GroupVersion;
  kind: Kind;
  verbs: Verb[];
  names: KindNames;
}

/** One group/version's client kinds. */
export interface ClientGroupVersion {
  group: Group;
  version: GroupVersion;
  names: { groupName: string; versionName: string; groupVersionAccessor: string; groupVersionType: string };
  kinds: ClientKind[];
}

/** A generated name would be declared twice in one file: reported, never silently overwritten. */
export class NameCollisionError extends Error {
  override readonly name = 'NameCollisionError';
}

/** Throws {@link NameCollisionError} when `names` (declared or imported in `file`) repeat. */
export function assertUniqueNames(file: string, names: readonly string[]): void {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  if (dup.size > 0) {
    throw new NameCollisionError(
      `generated names collide in ${file}: ${[...dup].sort().join(', ')} (rename a kind, or set a plural exception)`,
    );
  }
}

/**
 * Served kinds with at least one verb, per group/version in model order. With
 * `needListWatch`, only kinds whose client can list and watch (informers, listers); with
 * `only`, only the groups it accepts (a run that emits group by group).
 */
export function clientKinds(
  model: Model,
  options: ClientGenOptions | undefined,
  needListWatch = false,
  only?: (group: string) => boolean,
): ClientGroupVersion[] {
  const gnames = groupNames(model);
  const out: ClientGroupVersion[] = [];
  for (const group of model.groups) {
    if (only && !only(group.name)) continue;
    for (const version of group.versions) {
      const kinds: ClientKind[] = [];
      for (const kind of version.kinds) {
        if (!kind.served) continue;
        const verbs = clientVerbs(group, kind, options);
        if (verbs.length === 0) continue;
        if (needListWatch && !(verbs.includes('list') && verbs.includes('watch'))) continue;
        kinds.push({ group, version, kind, verbs, names: kindNames(model, group, version, kind, options) });
      }
      if (kinds.length === 0) continue;
      const groupName = gnames.get(group.name)!;
      const versionName = publicName(version.name);
      out.push({
        group,
        version,
        names: {
          groupName,
          versionName,
          groupVersionAccessor: privateName(groupName) + versionName,
          groupVersionType: groupName + versionName,
        },
        kinds,
      });
    }
  }
  return out;
}
