// The naming rule for object types that have no name of their own, shared by both readers so
// that the same API gets the same interface names from CRD YAML and from TypeScript: the kind
// and the property path in PascalCase (`DatabaseManagerSpec`), `Item`/`Value` for nested arrays
// and maps, pre-order, and a numeric suffix when a name is taken.

import { publicName } from './naming.js';
import type { ObjectNode, SchemaNode } from './types.js';

/** Names generated code imports or defines in every version: never used as titles. */
export const RESERVED_TYPE_NAMES = ['ObjectMeta', 'ListMeta', 'JsonObject'];

/** Returns a claim function: the candidate itself, or `<candidate>2`, `3`, … when taken. */
export function titleClaimer(used: Set<string>): (candidate: string) => string {
  return (candidate) => {
    let name = candidate;
    for (let i = 2; used.has(name); i++) name = `${candidate}${i}`;
    used.add(name);
    return name;
  };
}

/** What {@link visitPathTitles} asks the reader at each node. */
export interface PathTitleHooks {
  /** Titles an object node (`candidate` is its path name) and returns the title its properties extend. */
  object(node: ObjectNode, candidate: string): string;
  /** Called for the `metadata` of an embedded resource, which is typed as ObjectMeta and not walked. */
  embeddedMetadata?(schema: SchemaNode): void;
}

/** Walks `node` in pre-order, offering every object node the name its path gives it. */
export function visitPathTitles(node: SchemaNode, candidate: string, hooks: PathTitleHooks): void {
  switch (node.type) {
    case 'object': {
      const title = hooks.object(node, candidate);
      for (const p of node.properties) {
        if (node.embeddedResource && p.name === 'metadata') {
          hooks.embeddedMetadata?.(p.schema);
          continue;
        }
        visitPathTitles(p.schema, title + publicName(p.name), hooks);
      }
      break;
    }
    case 'array':
      visitPathTitles(node.items, node.items.type === 'array' ? `${candidate}Item` : candidate, hooks);
      break;
    case 'map':
      visitPathTitles(node.values, node.values.type === 'map' ? `${candidate}Value` : candidate, hooks);
      break;
    default:
      break;
  }
}
