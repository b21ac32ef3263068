// Titles: the generated interface name of every object node, derived from the
// kind and the path (`DatabaseManagerSpec`, `CertificateSpecPrivateKey`, list items in
// the singular: `CertificateStatusCondition`), unique within one group/version. An
// object of the same schema as one already named (descriptions included) shares its
// name. Collisions get a numeric suffix in traversal order (kinds sorted, properties
// in source order), so names are deterministic.

import type { Kind, SchemaNode } from '../../model/types.js';
import { listTypeName, publicName, RESERVED_WORDS, typeName } from '../../model/naming.js';
import { assignPathTitles, RESERVED_TYPE_NAMES, ShapeIndex, titleClaimer } from '../../model/titles.js';

/**
 * Sets `title` on every object node of `kinds` (one group/version, sorted by kind).
 * The root object of a kind is titled with the kind itself; kind and list-kind
 * names are reserved first.
 */
export function assignTitles(kinds: readonly Kind[]): void {
  const used = new Set<string>([...RESERVED_TYPE_NAMES, ...RESERVED_WORDS]);
  for (const k of kinds) {
    used.add(typeName(k));
    used.add(listTypeName(k));
  }
  const claim = titleClaimer(used);
  // an embedded resource's metadata is skipped by the walk: it is typed as ObjectMeta
  const roots: Array<[SchemaNode, string]> = [];
  for (const k of kinds) {
    const root = k.schema;
    if (!root) continue;
    if (root.type === 'object') {
      root.title = typeName(k); // reserved above for this kind
      for (const p of root.properties) {
        if (p.name === 'metadata' || p.name === 'apiVersion' || p.name === 'kind') continue;
        roots.push([p.schema, root.title + publicName(p.name)]);
      }
    }
  }
  assignPathTitles(roots, { claim, shapes: new ShapeIndex() });
}
