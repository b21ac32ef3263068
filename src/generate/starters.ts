// Starters: the business logic crdgen ships for an operator, as kubebuilder's deploy-image
// plugin ships one. Each is a folder starters/<name>/ holding a manifest, starter.json, and the
// templates of the files it writes once (user-owned). The manifest says which kind it is picked
// for (group and kind), the fields of that kind its templates read (required ones must be there;
// optional ones switch parts of the templates on), the kinds the operator owns, the verbs it
// needs, and each file's template and imports. The controller generator reads manifests; it knows
// nothing of what a starter does.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kind, SchemaNode } from '../model/types.js';
import { compareStrings } from '../model/order.js';
import { STARTERS_DIR } from '../emit/handlebars.js';

/** The name `--starter` takes for the generic reconciler (the stub hooks), whatever the kind. */
export const GENERIC_STARTER = 'generic';

/** A field of the kind a starter's templates read. */
export interface StarterField {
  /** Dotted path from the object's root; `name[]` steps into the items of an array. */
  path: string;
  /** `conditions`: a list of metav1.Condition-shaped items (see {@link isConditionList}). */
  type: 'string' | 'integer' | 'object' | 'conditions';
  /** An optional field switches a part of the templates on; a required one must be there. */
  optional?: boolean;
}

/** Names a starter's file imports from one module, when the field `if` names is there. */
export interface StarterImport {
  /**
   * The runtime, crdgen/testing, the kind's `types.ts` or `register.ts`, the operator's
   * `controller.ts` or the starter's `reconcile.ts`, or a Node.js built-in (`node:test`).
   */
  from: 'runtime' | 'testing' | 'types' | 'register' | 'controller' | 'reconcile' | `node:${string}`;
  /** Values (`strict as assert` imports one under another name); `{type}` stands for the kind's type name. */
  names?: string[];
  /** Types; `{type}` as in `names`. */
  types?: string[];
  /** A field of the manifest: the import is there only when that field is. */
  if?: string;
}

/** A file a starter writes once into controllers/<kind>/ (the user's from then on). */
export interface StarterFile {
  path: string;
  /** Its template: starters/<name>/<template>.hbs. */
  template: string;
  imports: StarterImport[];
}

/** starters/<name>/starter.json. */
export interface StarterManifest {
  /** The folder's name. */
  name: string;
  description: string;
  /** The kind it is picked for without `--starter`. */
  for: { group: string; kind: string };
  fields: Readonly<Record<string, StarterField>>;
  /** What its operator owns, as `--owns` takes it (`apps/v1/Deployment`, `v1/Service`). */
  owns: string[];
  /**
   * The owned kinds (of `owns`) its files read the metadata of only: cached as
   * PartialObjectMetadata with managedFields, written with createOrUpdate (which judges them
   * from that metadata).
   */
  metadataOnly?: string[];
  /**
   * The verbs its files need: on the kind, on its status (the kind itself without a status
   * subresource), on its finalizers (an owner reference with blockOwnerDeletion needs update
   * there where the OwnerReferencesPermissionEnforcement admission plugin is on), on what it owns.
   */
  rbac: { kind: string[]; status: string[]; finalizers?: string[]; owns: string[] };
  files: StarterFile[];
}

/** The starters crdgen ships: every folder of starters/ with a starter.json, by name. */
export function starterNames(): string[] {
  return readdirSync(STARTERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(STARTERS_DIR, d.name, 'starter.json')))
    .map((d) => d.name)
    .sort(compareStrings);
}

const manifests = new Map<string, StarterManifest>();

/** The manifest of starter `name` (one of {@link starterNames}). */
export function loadStarter(name: string): StarterManifest {
  let m = manifests.get(name);
  if (!m) {
    const raw = JSON.parse(readFileSync(join(STARTERS_DIR, name, 'starter.json'), 'utf8')) as Omit<
      StarterManifest,
      'name'
    >;
    m = { ...raw, name };
    manifests.set(name, m);
  }
  return m;
}

/** The starter picked for `group`/`kind` without `--starter`: the one whose manifest names them. */
export function starterFor(group: string, kind: string): StarterManifest | undefined {
  return starterNames()
    .map(loadStarter)
    .find((m) => m.for.group === group && m.for.kind === kind);
}

/** The properties of an object node, by name. */
function properties(node: SchemaNode | undefined): Map<string, SchemaNode> {
  return new Map(node?.type === 'object' ? node.properties.map((p) => [p.name, p.schema]) : []);
}

/** The node at `path` (see {@link StarterField.path}) under `root`, if the schema has it. */
function nodeAt(root: SchemaNode | undefined, path: string): SchemaNode | undefined {
  let node = root;
  for (const step of path.split('.')) {
    const items = step.endsWith('[]');
    node = properties(node).get(items ? step.slice(0, -2) : step);
    if (items) node = node?.type === 'array' ? node.items : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** metav1.Condition's string fields. */
const CONDITION_FIELDS = ['type', 'status', 'reason', 'message', 'lastTransitionTime'];

/**
 * True when `node` is a list of items that take what the runtime's setCondition writes: every
 * field of metav1.Condition (type, status, reason, message, lastTransitionTime as strings;
 * observedGeneration an integer where declared), type and status required and nothing else
 * required but those, a status enum (if any) with True and False. A field the schema does not
 * declare would be pruned by the API server, and written again on every reconcile.
 */
export function isConditionList(node: SchemaNode | undefined): boolean {
  if (node?.type !== 'array' || node.items.type !== 'object') return false;
  const item = node.items;
  const props = properties(item);
  const required = new Set(item.properties.filter((p) => p.required).map((p) => p.name));
  const status = props.get('status');
  const statusEnum = status?.type === 'string' ? status.enum : undefined;
  const generation = props.get('observedGeneration');
  const known = new Set([...CONDITION_FIELDS, 'observedGeneration']);
  return (
    CONDITION_FIELDS.every((f) => props.get(f)?.type === 'string') &&
    required.has('type') &&
    required.has('status') &&
    (statusEnum === undefined || (statusEnum.includes('True') && statusEnum.includes('False'))) &&
    (generation === undefined || generation.type === 'integer') &&
    item.properties.every((p) => !p.required || known.has(p.name))
  );
}

/** True when `node` is what a field of type `type` reads. */
function fits(node: SchemaNode | undefined, type: StarterField['type']): boolean {
  return type === 'conditions' ? isConditionList(node) : node?.type === type;
}

/**
 * The manifest's fields against `kind`: `present` says which are there (for the templates),
 * `missing` lists the required ones that are not (`spec.replicas (integer)`).
 */
export function starterFields(m: StarterManifest, kind: Kind): { present: Record<string, boolean>; missing: string[] } {
  const present: Record<string, boolean> = {};
  const missing: string[] = [];
  for (const [name, f] of Object.entries(m.fields)) {
    present[name] = fits(nodeAt(kind.schema, f.path), f.type);
    if (!present[name] && !f.optional) missing.push(`${f.path} (${f.type})`);
  }
  return { present, missing };
}
