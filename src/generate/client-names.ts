// Names the client generators share (client-gen / lister-gen / informer-gen naming in
// TypeScript casing). Built only from src/model/naming.ts helpers; the emitters and
// their templates get every identifier from here.
import type { Group, GroupVersion, Kind, Model } from '../model/types.js';
import {
  IRREGULAR_PLURALS,
  isSafePathSegment,
  listTypeName,
  pluralName,
  privateName,
  publicName,
  typeName,
} from '../model/naming.js';
import type { ClientGenOptions } from './client-options.js';

/**
 * The plural of a kind in identifiers (`databaseManagers()`, `DatabaseManagersGetter`):
 * a `pluralExceptions` entry if any; else, when the CRD's own `names.plural` is a
 * lower-cased plural of the kind name, that plural in the kind's casing (`gatewayclasses`
 * → `GatewayClasses`, `endpoints` → `Endpoints`); else the irregular table; else
 * the regular English plural of the kind.
 */
export function kindPlural(kind: Kind, options?: ClientGenOptions): string {
  const exception = options?.pluralExceptions?.[kind.kind];
  if (exception !== undefined) return publicName(exception);
  const lowerKind = kind.kind.toLowerCase();
  const regular = pluralName(kind.kind);
  const irregular = Object.prototype.hasOwnProperty.call(IRREGULAR_PLURALS, kind.kind)
    ? IRREGULAR_PLURALS[kind.kind]
    : undefined;
  const p = kind.plural;
  if (p === regular.toLowerCase()) return regular;
  if (irregular !== undefined && p === irregular.toLowerCase()) return irregular;
  if (p.startsWith(lowerKind) && /^[a-z0-9]*$/.test(p.slice(lowerKind.length)))
    return publicName(kind.kind + p.slice(lowerKind.length));
  if (p === '' && irregular !== undefined) return irregular;
  return publicName(p === '' ? regular : p);
}

/**
 * Name of each group in generated code (client-gen's group "GoName"): the first DNS
 * label (`coolops.cn` → `Coolops`, `gateway.networking.k8s.io` → `Gateway`, core → `Core`);
 * when two groups of the model share a first label, every label (`GatewayNetworkingK8sIo`).
 */
export function groupNames(model: Model): ReadonlyMap<string, string> {
  // every kind's names need them: computed once per model
  const known = groupNamesOf.get(model);
  if (known) return known;
  const first = (g: string): string => (g === '' ? 'core' : g.split('.')[0]);
  const counts = new Map<string, number>();
  for (const g of model.groups) counts.set(publicName(first(g.name)), (counts.get(publicName(first(g.name))) ?? 0) + 1);
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const g of model.groups) {
    let name = publicName(first(g.name));
    if ((counts.get(name) ?? 0) > 1) name = publicName(g.name === '' ? 'core' : g.name.split('.').join('-'));
    for (let i = 2; used.has(name); i++) name = `${name}${i}`;
    used.add(name);
    out.set(g.name, name);
  }
  groupNamesOf.set(model, out);
  return out;
}

const groupNamesOf = new WeakMap<Model, ReadonlyMap<string, string>>();

/** Per-version file names the emitters use themselves; a kind of that name gets `<name>-kind.ts`. */
const RESERVED_FILE_NAMES: ReadonlySet<string> = new Set(['client', 'interface', 'index']);

/** Everything the client emitters name for one kind of one group/version. */
export interface KindNames {
  /** The group's generated name, e.g. `Coolops`. */
  groupName: string;
  /** `V1alpha1` */
  versionName: string;
  /** `coolopsV1alpha1` (clientset accessor). */
  groupVersionAccessor: string;
  /** `CoolopsV1alpha1` (typed group client prefix). */
  groupVersionType: string;
  /** Kind type name, e.g. `DatabaseManager`. */
  type: string;
  /** List type name, e.g. `DatabaseManagerList`. */
  listType: string;
  /** `DatabaseManagers` */
  plural: string;
  /** `databaseManagers` (accessor of the typed client / informer). */
  pluralAccessor: string;
  /** `databaseManager` (a local, or the apply configuration constructor). */
  singularAccessor: string;
  /** `databaseManagerResource` (the ResourceDescriptor constant). */
  descriptorConst: string;
  /** `databasemanager.ts` (file of this kind in every per-version folder). */
  fileName: string;
}

/** A method name that is safe in a class body: `constructor` gets a `_` suffix. */
function classMember(name: string): string {
  return name === 'constructor' ? `${name}_` : name;
}

/** Names of `kind` in `group`/`version`. File names are checked as path segments. */
export function kindNames(
  model: Model,
  group: Group,
  version: GroupVersion,
  kind: Kind,
  options?: ClientGenOptions,
): KindNames {
  const groupName = groupNames(model).get(group.name)!;
  const versionName = publicName(version.name);
  const plural = kindPlural(kind, options);
  const lower = kind.kind.toLowerCase();
  // `client.ts` (typed group client) and `interface.ts` (informer group/version) are taken
  const fileName = RESERVED_FILE_NAMES.has(lower) ? `${lower}-kind.ts` : `${lower}.ts`;
  if (!isSafePathSegment(fileName)) throw new Error(`unsafe file name ${JSON.stringify(fileName)}`);
  return {
    groupName,
    versionName,
    groupVersionAccessor: privateName(groupName) + versionName,
    groupVersionType: groupName + versionName,
    type: publicName(typeName(kind)),
    listType: publicName(listTypeName(kind)),
    plural,
    // A class method named `constructor` would be the class constructor (plural `constructor` is a legal resource name).
    pluralAccessor: classMember(privateName(plural)),
    singularAccessor: privateName(typeName(kind)),
    descriptorConst: `${privateName(typeName(kind))}Resource`,
    fileName,
  };
}

/** The kinds of a version that get a client: served ones. */
export function servedKinds(version: GroupVersion): Kind[] {
  return version.kinds.filter((k) => k.served);
}
