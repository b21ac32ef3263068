// Model traversal shared by emitters: the named object types of a kind, in a
// fixed order (the kind's root first, then nested objects depth-first in
// property order).

import { typeName } from '../model/naming.js';
import type { GroupVersion, Kind, ObjectNode, SchemaNode } from '../model/types.js';
import { compareStrings } from '../model/order.js';

/** Root-level properties every kind has and types specially (`TypeMeta`/`ObjectMeta`). */
export const ROOT_META_PROPERTIES: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * The object node describing a kind: its schema root, or — for a CRD without a
 * schema or with a non-object root — an empty object that keeps unknown fields.
 * Its title is always the kind name.
 */
export function kindRoot(kind: Kind): ObjectNode {
  const s = kind.schema;
  if (s && s.type === 'object' && s.title) return s;
  // A root made here is made once per kind, so that emitters can compare it by identity.
  const made = madeRoots.get(kind);
  if (made) return made;
  let root: ObjectNode;
  if (s && s.type === 'object') root = { ...s, title: typeName(kind) };
  else {
    root = {
      type: 'object',
      title: typeName(kind),
      properties: [],
      preserveUnknownFields: true,
      embeddedResource: false,
    };
    if (s?.description !== undefined) root.description = s.description;
  }
  madeRoots.set(kind, root);
  return root;
}

const madeRoots = new WeakMap<Kind, ObjectNode>();

/** True when the property of `parent` is typed as `ObjectMeta` rather than a generated interface. */
export function isMetaProperty(parent: ObjectNode, name: string, isRoot: boolean): boolean {
  return (isRoot || parent.embeddedResource) && name === 'metadata';
}

/** The group/version an emitter is writing (where `declaredIn` is compared). */
export interface GroupVersionRef {
  group: string;
  version: string;
}

/**
 * True when a named object is declared in the files of `here`: every node without
 * `declaredIn` (a CRD's, or a definition whose own version is not in the model), and shared
 * definitions whose home is `here`. Others are imported: from their version, or the runtime.
 */
export function isDeclaredIn(node: ObjectNode, here: GroupVersionRef): boolean {
  const d = node.declaredIn;
  return d === undefined || (d !== 'runtime' && d.group === here.group && d.version === here.version);
}

/** The home of a node declared in another group/version of the model (not the runtime), if any. */
export function foreignHome(node: ObjectNode, here: GroupVersionRef): GroupVersionRef | undefined {
  const d = node.declaredIn;
  return d !== undefined && d !== 'runtime' && !isDeclaredIn(node, here) ? d : undefined;
}

/**
 * Every titled object node of the kind (root first, then depth-first), excluding metadata
 * objects, each title once: a node whose title is in `seen` (an identical shape named earlier,
 * in this kind or an earlier one of the version) is skipped with everything under it. Titles
 * returned are added to `seen`; pass one set for all kinds of a version. With `here`, shared
 * objects declared elsewhere (see {@link isDeclaredIn}) are skipped too, and those of another
 * group/version are added to `foreign` (title → node), for the file to import.
 */
export function namedObjects(
  kind: Kind,
  seen: Set<string> = new Set(),
  here?: GroupVersionRef,
  foreign?: Map<string, ObjectNode>,
): ObjectNode[] {
  const out: ObjectNode[] = [];
  const visit = (node: SchemaNode): void => {
    switch (node.type) {
      case 'object': {
        if (node.title) {
          if (here && !isDeclaredIn(node, here)) {
            if (foreignHome(node, here)) foreign?.set(node.title, node);
            return;
          }
          if (seen.has(node.title)) return;
          seen.add(node.title);
          out.push(node);
        }
        for (const p of node.properties) {
          if (isMetaProperty(node, p.name, false)) continue;
          visit(p.schema);
        }
        break;
      }
      case 'array':
        visit(node.items);
        break;
      case 'map':
        visit(node.values);
        break;
      default:
        break;
    }
  };
  const root = kindRoot(kind);
  seen.add(root.title!);
  out.push(root);
  for (const p of root.properties) {
    if (ROOT_META_PROPERTIES.has(p.name)) continue;
    visit(p.schema);
  }
  return out;
}

/**
 * The titles `namedObjects` must not declare again in a version: its kinds' own (a kind's root
 * reached from another kind — an OpenAPI `$ref` to it — is declared once, as the kind).
 */
export function kindTitles(gv: GroupVersion): Set<string> {
  return new Set(gv.kinds.map((k) => kindRoot(k).title!));
}

/**
 * The input files that defined the kinds of a group/version (sorted, unique),
 * for the generated header; `fallback` when the kinds carry no source file.
 */
export function versionSources(gv: GroupVersion, fallback: readonly string[]): string[] {
  return kindSources(gv.kinds, fallback);
}

/**
 * The input files that defined `kinds` (sorted, unique), for the header of a file generated from
 * them alone; `fallback` (the run's inputs) when the kinds carry no source file. A file made from
 * a few kinds names only their inputs, so that the headers of a run grow with its kinds, not with
 * kinds × inputs.
 */
export function kindSources(kinds: readonly Kind[], fallback: readonly string[]): string[] {
  const files = [...new Set(kinds.map((k) => k.source.file.replace(/\\/g, '/')).filter((f) => f !== ''))].sort(
    compareStrings,
  );
  return files.length > 0 ? files : [...fallback];
}
