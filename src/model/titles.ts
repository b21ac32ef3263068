// The naming rule for object types that have no name of their own, shared by both readers so
// that the same API gets the same interface names from CRD YAML and from TypeScript: the kind
// and the property path in PascalCase (`DatabaseManagerSpec`), the items of a list named in the
// singular (`conditions` → `…Condition`), `Item`/`Value` for nested arrays and maps, pre-order,
// and a numeric suffix when a name is taken. An object identical to one already named (the same
// schema, descriptions included) takes that one's name, so one shape is emitted once.

import pluralize from 'pluralize';
import { publicName, splitWords } from './naming.js';
import type { ObjectNode, SchemaNode } from './types.js';

/** Names generated code imports or defines in every version: never used as titles. */
export const RESERVED_TYPE_NAMES = ['ObjectMeta', 'ListMeta', 'JsonObject'];

/**
 * Returns a claim function: the candidate itself, else the first free alternative, else
 * `<candidate>2`, `3`, … when all are taken.
 */
export function titleClaimer(used: Set<string>): (candidate: string, ...alternatives: string[]) => string {
  return (candidate, ...alternatives) => {
    let name = [candidate, ...alternatives].find((c) => !used.has(c)) ?? candidate;
    for (let i = 2; used.has(name); i++) name = `${candidate}${i}`;
    used.add(name);
    return name;
  };
}

/**
 * Words the singularizer must leave alone: acronyms and names that end in `s` without being
 * plurals (`TLS` → `TL`, `Redis` → `Redi` otherwise), and `data` (not `datum`).
 */
const KEEP_WORDS: ReadonlySet<string> = new Set([
  'alias',
  'bias',
  'canvas',
  'chaos',
  'cors',
  'data',
  'dns',
  'ens',
  'gas',
  'gps',
  'https',
  'iops',
  'jenkins',
  'kubernetes',
  'lens',
  'metadata',
  'nas',
  'ops',
  'redis',
  'sas',
  'status',
  'tls',
  'vps',
]);

/**
 * The singular of a PascalCase name's last word, for the items of a list: `CertificateStatusConditions`
 * → `CertificateStatusCondition`, `…Policies` → `…Policy`, `…IPs` → `…IP`; words that are not
 * plurals stay (`…Status`, `…TLS`, `…Env`). English rules from the `pluralize` package; acronyms
 * (`IPs`, `CIDRs`) lose their `s`; short words (three letters or fewer) and {@link KEEP_WORDS} are kept.
 */
export function singularTitle(name: string): string {
  // an acronym plural: IPs, CIDRs, URLs
  if (/[A-Z0-9]{2,}s$/.test(name)) return name.slice(0, -1);
  const words = splitWords(name);
  const last = words.at(-1);
  if (last === undefined || !name.endsWith(last)) return name;
  const stem = name.slice(0, name.length - last.length);
  const lower = last.toLowerCase();
  if (lower.length <= 3 || KEEP_WORDS.has(lower) || /^[A-Z0-9]+$/.test(last) || !pluralize.isPlural(lower)) return name;
  const singular = pluralize.singular(lower);
  if (singular === lower || singular.length === 0) return name;
  const cased = last[0] === last[0].toUpperCase() ? singular[0].toUpperCase() + singular.slice(1) : singular;
  return publicName(stem + cased);
}

/**
 * Structural identity of schema nodes: two nodes get the same id exactly when they are the same
 * schema — every facet of the typed view (type, format, enum, validations, default, nullable,
 * required, …) and every description, all the way down; not the `keywords`, which no generated
 * type shows (two objects that differ only there are one interface). Source positions do not count, and titles only where `named`
 * says a title is the user's own (a TypeScript interface name), not one derived from the path.
 */
export class ShapeIndex {
  private readonly ids = new Map<string, number>();
  private readonly memo = new WeakMap<SchemaNode, number>();
  /** Descriptions by number: a shape's key holds the number, not the text, so keys do not repeat every description. */
  private readonly texts = new Map<string, number>();

  constructor(private readonly named: (node: ObjectNode) => boolean = () => false) {}

  /** The shape id of `node` (equal ids: identical schemas). */
  id(node: SchemaNode): number {
    const known = this.memo.get(node);
    if (known !== undefined) return known;
    const facets: Record<string, unknown> = {};
    for (const k of Object.keys(node).sort()) {
      // keywords are not part of the shape: the generated types do not show them
      if (k === 'source' || k === 'title' || k === 'keywords') continue;
      const v = (node as unknown as Record<string, unknown>)[k];
      facets[k] = k === 'description' && typeof v === 'string' ? this.text(v) : v;
    }
    if (node.type === 'object') {
      facets['properties'] = node.properties.map((p) => [p.name, p.required, this.id(p.schema)]);
      if (this.named(node) && node.title !== undefined) facets['title'] = node.title;
    } else if (node.type === 'array') facets['items'] = this.id(node.items);
    else if (node.type === 'map') facets['values'] = this.id(node.values);
    const key = JSON.stringify(facets);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    this.memo.set(node, id);
    return id;
  }

  /** The number of a description (equal numbers: equal texts). */
  private text(s: string): number {
    let n = this.texts.get(s);
    if (n === undefined) this.texts.set(s, (n = this.texts.size));
    return n;
  }
}

/**
 * Gives every object node under `to` the title of the node at the same place under `from`
 * (two nodes of one shape, see {@link ShapeIndex}), so that a shared shape is named alike
 * everywhere. Returns true when a title changed.
 */
export function copyTitles(from: SchemaNode, to: SchemaNode): boolean {
  let changed = false;
  if (from.type === 'object' && to.type === 'object') {
    if (to.title !== from.title) {
      if (from.title !== undefined) to.title = from.title;
      else delete to.title;
      changed = true;
    }
    from.properties.forEach((p, i) => {
      if (copyTitles(p.schema, to.properties[i].schema)) changed = true;
    });
  } else if (from.type === 'array' && to.type === 'array') changed = copyTitles(from.items, to.items);
  else if (from.type === 'map' && to.type === 'map') changed = copyTitles(from.values, to.values);
  return changed;
}

/** What {@link visitPathTitles} asks the reader at each node. */
export interface PathTitleHooks {
  /**
   * Titles an object node (`candidate` is its path name, `fallback` the name to take when that
   * one is taken — the plural, for a list item —, `depth` the number of properties from the
   * kind's root) and returns the title its properties extend, or `undefined` not to walk them.
   */
  object(node: ObjectNode, candidate: string, depth: number, fallback: string | undefined): string | undefined;
  /** Called for the `metadata` of an embedded resource, which is typed as ObjectMeta and not walked. */
  embeddedMetadata?(schema: SchemaNode): void;
}

/** Walks `node` in pre-order, offering every object node the name its path gives it. */
export function visitPathTitles(
  node: SchemaNode,
  candidate: string,
  hooks: PathTitleHooks,
  depth = 1,
  fallback?: string,
): void {
  switch (node.type) {
    case 'object': {
      const title = hooks.object(node, candidate, depth, fallback);
      if (title === undefined) break;
      for (const p of node.properties) {
        if (node.embeddedResource && p.name === 'metadata') {
          hooks.embeddedMetadata?.(p.schema);
          continue;
        }
        visitPathTitles(p.schema, title + publicName(p.name), hooks, depth + 1);
      }
      break;
    }
    case 'array': {
      // the item in the singular; the plural (the property's own name) when the singular is taken
      const item = singularTitle(candidate);
      if (node.items.type === 'array')
        visitPathTitles(
          node.items,
          `${item}Item`,
          hooks,
          depth,
          fallback === undefined ? `${candidate}Item` : `${fallback}Item`,
        );
      else visitPathTitles(node.items, item, hooks, depth, item === candidate ? fallback : candidate);
      break;
    }
    case 'map':
      visitPathTitles(
        node.values,
        node.values.type === 'map' ? `${candidate}Value` : candidate,
        hooks,
        depth,
        fallback === undefined || node.values.type !== 'map' ? fallback : `${fallback}Value`,
      );
      break;
    default:
      break;
  }
}

/**
 * The object nodes {@link visitPathTitles} offers when every hook walks on, in the same order and
 * at the same depths, without working out their path names (which only naming needs).
 */
function visitObjects(node: SchemaNode, depth: number, visit: (node: ObjectNode, depth: number) => void): void {
  switch (node.type) {
    case 'object':
      visit(node, depth);
      for (const p of node.properties)
        if (!(node.embeddedResource && p.name === 'metadata')) visitObjects(p.schema, depth + 1, visit);
      break;
    case 'array':
      visitObjects(node.items, depth, visit);
      break;
    case 'map':
      visitObjects(node.values, depth, visit);
      break;
    default:
      break;
  }
}

/** How {@link assignPathTitles} names the nodes of one group/version. */
export interface PathTitleOptions {
  /** Claims a free name for a candidate, else an alternative (see {@link titleClaimer}). */
  claim: (candidate: string, ...alternatives: string[]) => string;
  /** Structural identity of nodes. */
  shapes: ShapeIndex;
  /** Nodes that keep the title they have (a TypeScript interface's name). */
  keep?: (node: ObjectNode) => boolean;
  /** See {@link PathTitleHooks.embeddedMetadata}. */
  embeddedMetadata?: (schema: SchemaNode) => void;
}

/**
 * Names every object node under `roots` (each a property schema of a kind's root and its path
 * name, kinds in order) from its path, once per shape: of the objects that share a schema
 * ({@link ShapeIndex}), the one nearest a kind's root (the first in pre-order among equals) is
 * named from its path, and the others — with everything under them — take its names. So
 * `spec.source` names the shape that `status.history[].source` and `operation.sync.source` share.
 */
export function assignPathTitles(roots: ReadonlyArray<readonly [SchemaNode, string]>, options: PathTitleOptions): void {
  const { claim, shapes } = options;
  const keep = options.keep ?? (() => false);
  // pass 1: where each shape first occurs nearest a root
  const best = new Map<number, { node: ObjectNode; depth: number }>();
  const survey = (node: ObjectNode, depth: number): void => {
    const id = shapes.id(node);
    const b = best.get(id);
    if (b === undefined || depth < b.depth) best.set(id, { node, depth });
  };
  for (const [node] of roots) visitObjects(node, 1, survey);
  // pass 2: name the chosen nodes; the others wait for their shape's names
  const copies: ObjectNode[] = [];
  const name: PathTitleHooks = {
    object: (node, candidate, _depth, fallback) => {
      if (best.get(shapes.id(node))!.node !== node) {
        copies.push(node);
        return undefined;
      }
      if (!keep(node)) node.title = fallback === undefined ? claim(candidate) : claim(candidate, fallback);
      return node.title!;
    },
    ...(options.embeddedMetadata ? { embeddedMetadata: options.embeddedMetadata } : {}),
  };
  for (const [node, candidate] of roots) visitPathTitles(node, candidate, name);
  // pass 3: the copies take the names of their shape — until nothing changes, as a named node
  // may hold copies of other shapes that get their names in the same pass
  for (let round = 0; round < 1000; round++) {
    let changed = false;
    for (const node of copies) if (copyTitles(best.get(shapes.id(node))!.node, node)) changed = true;
    if (!changed) break;
  }
}
