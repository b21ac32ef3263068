// Output: apis/<group>/<version>/types.ts — `export interface DatabaseManager { metadata?: ObjectMeta; spec?: DatabaseManagerSpec … }`,
// one interface per named object, and `DatabaseManagerList`.

import type { GroupVersion, Kind, Model, ObjectNode, PropertyNode, SchemaNode } from '../model/types.js';
import { listTypeName, numberLiteral, propertyKey, tsString, typeName } from '../model/naming.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { type Emitter, type GeneratedFile, emitsGroup } from './emitter.js';
import { importLines, memberLine, type TypeExpr } from './layout.js';
import { apiFilePath } from './paths.js';
import { importPath } from '../emit/ts-text.js';
import {
  foreignHome,
  isMetaProperty,
  kindRoot,
  kindTitles,
  namedObjects,
  ROOT_META_PROPERTIES,
  versionSources,
  type GroupVersionRef,
} from './walk.js';

interface Member {
  name: string;
  optional: boolean;
  type: TypeExpr;
  doc: string;
}

interface Decl {
  name: string;
  doc: string;
  members: Member[];
  indexSignature: boolean;
}

const ref = (text: string): TypeExpr => ({ kind: 'ref', text });
const keyword = (text: string): TypeExpr => ({ kind: 'keyword', text });

/** The TypeScript type expression for a schema node (named objects by title). */
export function typeExpr(node: SchemaNode): TypeExpr {
  const t = baseTypeExpr(node);
  if (!node.nullable) return t;
  return t.kind === 'union'
    ? { kind: 'union', members: [...t.members, keyword('null')] }
    : { kind: 'union', members: [t, keyword('null')] };
}

function literalUnion(values: readonly string[]): TypeExpr {
  return values.length === 1
    ? { kind: 'literal', text: values[0] }
    : { kind: 'union', members: values.map((text) => ({ kind: 'literal', text })) };
}

function baseTypeExpr(node: SchemaNode): TypeExpr {
  switch (node.type) {
    case 'object':
      return node.title ? ref(node.title) : { kind: 'anyObject' };
    case 'map':
      return { kind: 'record', value: typeExpr(node.values) };
    case 'array':
      return { kind: 'array', item: typeExpr(node.items) };
    case 'string':
      return node.enum && node.enum.length > 0
        ? literalUnion([...new Set(node.enum)].map(tsString))
        : keyword('string');
    case 'integer':
    case 'number':
      return node.enum && node.enum.length > 0
        ? literalUnion([...new Set(node.enum)].map(numberLiteral))
        : keyword('number');
    case 'boolean':
      return keyword('boolean');
    case 'int-or-string':
      return { kind: 'union', members: [keyword('number'), keyword('string')] };
    case 'unknown':
      return node.object ? { kind: 'anyObject' } : keyword('unknown');
  }
}

/** JSDoc text for a node: its description plus validation facts as tags. */
export function docText(node: SchemaNode): string {
  const lines: string[] = [];
  if (node.description) lines.push(node.description);
  const tags: string[] = [];
  const add = (tag: string, v: unknown): void => {
    if (v !== undefined) tags.push(`@${tag} ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  };
  switch (node.type) {
    case 'string':
      add('format', node.format);
      add('pattern', node.pattern);
      add('minLength', node.minLength);
      add('maxLength', node.maxLength);
      break;
    case 'integer':
    case 'number':
      add('format', node.format);
      add(node.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum', node.minimum);
      add(node.exclusiveMaximum ? 'exclusiveMaximum' : 'maximum', node.maximum);
      add('multipleOf', node.multipleOf);
      break;
    case 'array':
      add('minItems', node.minItems);
      add('maxItems', node.maxItems);
      add('listType', node.listType);
      if (node.listMapKeys && node.listMapKeys.length > 0) add('listMapKeys', node.listMapKeys.join(', '));
      break;
    default:
      break;
  }
  if (node.default !== undefined) add('default', JSON.stringify(node.default));
  if (tags.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(...tags);
  }
  return lines.join('\n');
}

/** The `group/version` of apiVersion (`version` alone for the core group). */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * `apiVersion`/`kind`: the kind's own literals on its root (`apiVersion?: "coolops.cn/v1alpha1"`),
 * `string` on an embedded resource. Optional as the schema has them (the client fills them in;
 * objects the server returns have them: `Stored<T>`).
 */
function typeMetaMembers(node: ObjectNode, literals: { apiVersion: string; kind: string } | undefined): Member[] {
  const lit = (text: string): TypeExpr => ({ kind: 'literal', text: tsString(text) });
  return [
    {
      name: 'apiVersion',
      optional: true,
      type: literals ? lit(literals.apiVersion) : keyword('string'),
      doc: docFor(node, 'apiVersion'),
    },
    {
      name: 'kind',
      optional: true,
      type: literals ? lit(literals.kind) : keyword('string'),
      doc: docFor(node, 'kind'),
    },
  ];
}

function objectDecl(node: ObjectNode, root: { apiVersion: string; kind: string } | undefined): Decl {
  const isRoot = root !== undefined;
  const members: Member[] = [];
  if (isRoot || node.embeddedResource) {
    members.push(...typeMetaMembers(node, root), {
      name: 'metadata',
      optional: true,
      type: ref('ObjectMeta'),
      doc: docFor(node, 'metadata'),
    });
  }
  for (const p of node.properties) {
    if ((isRoot || node.embeddedResource) && ROOT_META_PROPERTIES.has(p.name)) continue;
    members.push({
      name: p.name,
      optional: !p.required,
      type: isMetaProperty(node, p.name, isRoot) ? ref('ObjectMeta') : typeExpr(p.schema),
      doc: propertyDoc(p),
    });
  }
  return { name: node.title!, doc: node.description ?? '', members, indexSignature: node.preserveUnknownFields };
}

function docFor(node: ObjectNode, name: string): string {
  const p = node.properties.find((x) => x.name === name);
  return p?.description ?? p?.schema.description ?? '';
}

/** A property's JSDoc: its own description (a shared type's use site) or its schema's, with the schema's facts. */
export function propertyDoc(p: PropertyNode): string {
  return docText(p.description === undefined ? p.schema : { ...p.schema, description: p.description });
}

function listDecl(kind: Kind, apiVersion: string): Decl {
  return {
    name: listTypeName(kind),
    doc: `${kind.listKind} is a list of ${kind.kind}.`,
    members: [
      { name: 'apiVersion', optional: true, type: { kind: 'literal', text: tsString(apiVersion) }, doc: '' },
      { name: 'kind', optional: true, type: { kind: 'literal', text: tsString(kind.listKind) }, doc: '' },
      { name: 'metadata', optional: true, type: ref('ListMeta'), doc: '' },
      {
        name: 'items',
        optional: false,
        type: { kind: 'array', item: ref(typeName(kind)) },
        doc: `The ${kind.plural}.`,
      },
    ],
    indexSignature: false,
  };
}

/**
 * The declarations of one group/version, in output order: each named shape once. Shared objects
 * declared in another group/version are not declared here; `foreign` (if given) receives them.
 */
export function versionDecls(group: string, gv: GroupVersion, foreign?: Map<string, ObjectNode>): Decl[] {
  const decls: Decl[] = [];
  const seen = kindTitles(gv);
  const apiVersion = apiVersionOf(group, gv.name);
  const here: GroupVersionRef = { group, version: gv.name };
  for (const kind of gv.kinds) {
    const root = kindRoot(kind);
    for (const node of namedObjects(kind, seen, here, foreign))
      decls.push(objectDecl(node, node === root ? { apiVersion, kind: kind.kind } : undefined));
    decls.push(listDecl(kind, apiVersion));
  }
  return decls;
}

/**
 * Imports into `imports`, for the file at `path`, `name(title)` of every `foreign` node from the
 * `file` of the group/version it is declared in.
 */
export function useForeign(
  imports: ImportTracker,
  path: string,
  file: string,
  foreign: ReadonlyMap<string, ObjectNode>,
  here: GroupVersionRef,
  name: (title: string) => string,
  typeOnly: boolean,
): void {
  for (const [title, node] of foreign) {
    const home = foreignHome(node, here);
    if (home)
      imports.use(importPath(path, apiFilePath(home.group, home.version, file)), name(title), { type: typeOnly });
  }
}

/** The types emitter. */
export const types: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    if (!emitsGroup(ctx, g.name)) continue;
    for (const v of g.versions) {
      const path = apiFilePath(g.name, v.name, 'types.ts');
      const foreign = new Map<string, ObjectNode>();
      const decls = versionDecls(g.name, v, foreign).map((d) => ({
        ...d,
        empty: d.members.length === 0 && !d.indexSignature,
        members: d.members.map((m) => ({
          doc: m.doc,
          line: atColumn((w) => memberLine(w, `${propertyKey(m.name)}${m.optional ? '?' : ''}`, m.type)),
        })),
      }));
      const imports = new ImportTracker();
      for (const t of ['ListMeta', 'ObjectMeta']) imports.use(ctx.runtimeImport, t, { type: true });
      useForeign(imports, path, 'types.ts', foreign, { group: g.name, version: v.name }, (t) => t, true);
      const contents = renderCode('types', 'file', {
        header: generatedHeader(versionSources(v, ctx.sources)),
        imports: importLines(imports),
        decls,
      });
      files.push({ path, contents });
    }
  }
  return files;
};
