// Titles: the generated interface name of every object node, derived from the
// kind and the path (`DatabaseManagerSpec`, `CertificateSpecPrivateKey`, …),
// unique within one group/version. Collisions get a numeric suffix in
// traversal order (kinds sorted, properties in source order), so names are
// deterministic.

import type { Kind, SchemaNode } from '../../model/types.js';
import { publicName, RESERVED_WORDS } from '../../model/naming.js';

/** Names generated code imports or defines in every version: never used as titles. */
export const RESERVED_TYPE_NAMES = ['ObjectMeta', 'ListMeta', 'JsonObject'];

/**
 * Sets `title` on every object node of `kinds` (one group/version, sorted by kind).
 * The root object of a kind is titled with the kind itself; kind and list-kind
 * names are reserved first.
 */
export function assignTitles(kinds: readonly Kind[]): void {
  const used = new Set<string>([...RESERVED_TYPE_NAMES, ...RESERVED_WORDS]);
  for (const k of kinds) {
    used.add(k.kind);
    used.add(k.listKind);
  }
  const claim = (candidate: string): string => {
    let name = candidate;
    for (let i = 2; used.has(name); i++) name = `${candidate}${i}`;
    used.add(name);
    return name;
  };
  const visit = (node: SchemaNode, candidate: string): void => {
    switch (node.type) {
      case 'object':
        node.title = claim(candidate);
        for (const p of node.properties) {
          // an embedded resource's metadata is typed as ObjectMeta, not a generated interface
          if (node.embeddedResource && p.name === 'metadata') continue;
          visit(p.schema, node.title + publicName(p.name));
        }
        break;
      case 'array':
        visit(node.items, node.items.type === 'array' ? `${candidate}Item` : candidate);
        break;
      case 'map':
        visit(node.values, node.values.type === 'map' ? `${candidate}Value` : candidate);
        break;
      default:
        break;
    }
  };
  for (const k of kinds) {
    const root = k.schema;
    if (!root) continue;
    if (root.type === 'object') {
      root.title = k.kind; // reserved above for this kind
      for (const p of root.properties) {
        if (p.name === 'metadata' || p.name === 'apiVersion' || p.name === 'kind') continue;
        visit(p.schema, root.title + publicName(p.name));
      }
    }
  }
}
