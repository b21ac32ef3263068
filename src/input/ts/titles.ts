// Titles (generated interface names) of the object nodes of one group/version. A node from an
// interface or object type alias keeps its name; an anonymous one (an inline `{…}`, a nested
// ObjectMeta) is named from the kind and the path exactly as the CRD reader names every object
// (src/input/crd/titles.ts: pre-order, numeric suffix on collision), so that the same API gives
// the same names from either input.
import type { ts } from 'ts-morph';
import { publicName, RESERVED_WORDS } from '../../model/naming.js';
import type { Kind, ObjectNode, SchemaNode, SourcePos } from '../../model/types.js';
import { assignPathTitles, RESERVED_TYPE_NAMES, ShapeIndex, titleClaimer } from '../../model/titles.js';
import type { ReadCtx } from './context.js';
import { tsDiag } from './diagnostics.js';

const IMPLIED = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Names the anonymous object nodes of `kinds` (one group/version, sorted by kind) and reports
 * two different named types with one name, or a named type that takes a name generated code uses.
 * `origin` maps named nodes to their declaration; `where` is `group/version` for messages.
 */
export function assignTitles(
  ctx: ReadCtx,
  kinds: readonly Kind[],
  origin: WeakMap<ObjectNode, ts.Declaration>,
  where: string,
): void {
  const reserved = new Set<string>([...RESERVED_TYPE_NAMES, ...RESERVED_WORDS, ...kinds.map((k) => k.listKind)]);
  const kindNames = new Set(kinds.map((k) => k.kind));
  const used = new Set<string>([...reserved, ...kindNames]);
  const owner = new Map<string, { decl: ts.Declaration; pos: SourcePos | undefined }>();

  const walk = (node: SchemaNode, f: (n: ObjectNode) => void): void => {
    if (node.type === 'array') walk(node.items, f);
    else if (node.type === 'map') walk(node.values, f);
    else if (node.type === 'object') {
      f(node);
      for (const p of node.properties) walk(p.schema, f);
    }
  };
  const props = (k: Kind) =>
    k.schema?.type === 'object' ? k.schema.properties.filter((p) => !IMPLIED.has(p.name)) : [];

  // Named types keep their names; anonymous ones step around them.
  for (const k of kinds) {
    for (const p of props(k)) {
      walk(p.schema, (n) => {
        const decl = origin.get(n);
        if (!decl || n.title === undefined) return;
        const title = n.title;
        const pos = n.source;
        if (reserved.has(title) || kindNames.has(title)) {
          ctx.report(
            tsDiag('TS012', `type ${title} in ${where} takes a name that generated code uses`, pos, 'rename it'),
          );
          return;
        }
        const prev = owner.get(title);
        if (prev && prev.decl !== decl) {
          const at = prev.pos ? ` (the other is at ${prev.pos.file}:${prev.pos.line}:${prev.pos.col})` : '';
          ctx.report(
            tsDiag('TS012', `two different types are named ${title} in ${where}${at}`, pos, 'rename one of them'),
          );
          return;
        }
        owner.set(title, { decl, pos });
        used.add(title);
      });
    }
  }

  const claim = titleClaimer(used);
  const named = (n: ObjectNode): boolean => origin.has(n);
  assignPathTitles(
    kinds.flatMap((k) => props(k).map((p) => [p.schema, k.kind + publicName(p.name)] as const)),
    {
      claim,
      // an interface keeps its name (and is its own shape); anonymous objects of one shape share a name
      shapes: new ShapeIndex(named),
      keep: named,
      // typed as ObjectMeta by the types emitter, like the CRD reader leaves it untitled
      embeddedMetadata: (schema) => {
        if (schema.type === 'object' && !origin.has(schema)) delete schema.title;
      },
    },
  );
}
