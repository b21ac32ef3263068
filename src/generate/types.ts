// Output: apis/<group>/<version>/types.ts — `export interface DatabaseManager { metadata?: ObjectMeta; spec?: DatabaseManagerSpec … }`,
// one interface per named object, and `DatabaseManagerList`.

import type { GroupVersion, Kind, Model, ObjectNode, SchemaNode } from '../model/types.js';
import { tsString } from '../model/naming.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { isMetaProperty, kindRoot, namedObjects, ROOT_META_PROPERTIES, versionSources } from './walk.js';

interface Member {
  name: string;
  optional: boolean;
  type: string;
  doc: string;
}

interface Decl {
  name: string;
  doc: string;
  members: Member[];
  indexSignature: boolean;
}

/** The TypeScript type expression for a schema node (named objects by title). */
export function typeExpr(node: SchemaNode): string {
  const t = baseTypeExpr(node);
  return node.nullable ? `${t} | null` : t;
}

function wrapForArray(t: string): string {
  return /[|&]/.test(t) ? `(${t})[]` : `${t}[]`;
}

function baseTypeExpr(node: SchemaNode): string {
  switch (node.type) {
    case 'object':
      return node.title ?? '{ [key: string]: unknown }';
    case 'map':
      return `Record<string, ${typeExpr(node.values)}>`;
    case 'array':
      return wrapForArray(typeExpr(node.items));
    case 'string':
      return node.enum && node.enum.length > 0 ? [...new Set(node.enum)].map(tsString).join(' | ') : 'string';
    case 'integer':
    case 'number':
      return node.enum && node.enum.length > 0 ? [...new Set(node.enum)].map((n) => String(n)).join(' | ') : 'number';
    case 'boolean':
      return 'boolean';
    case 'int-or-string':
      return 'number | string';
    case 'unknown':
      return node.object ? '{ [key: string]: unknown }' : 'unknown';
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

function objectDecl(node: ObjectNode, isRoot: boolean): Decl {
  const members: Member[] = [];
  if (isRoot || node.embeddedResource) {
    members.push(
      { name: 'apiVersion', optional: true, type: 'string', doc: docFor(node, 'apiVersion') },
      { name: 'kind', optional: true, type: 'string', doc: docFor(node, 'kind') },
      { name: 'metadata', optional: true, type: 'ObjectMeta', doc: docFor(node, 'metadata') },
    );
  }
  for (const p of node.properties) {
    if ((isRoot || node.embeddedResource) && ROOT_META_PROPERTIES.has(p.name)) continue;
    members.push({ name: p.name, optional: !p.required, type: isMetaProperty(node, p.name, isRoot) ? 'ObjectMeta' : typeExpr(p.schema), doc: docText(p.schema) });
  }
  return { name: node.title!, doc: node.description ?? '', members, indexSignature: node.preserveUnknownFields };
}

function docFor(node: ObjectNode, name: string): string {
  const p = node.properties.find((x) => x.name === name);
  return p?.schema.description ?? '';
}

function listDecl(kind: Kind): Decl {
  return {
    name: kind.listKind,
    doc: `${kind.listKind} is a list of ${kind.kind}.`,
    members: [
      { name: 'apiVersion', optional: true, type: 'string', doc: '' },
      { name: 'kind', optional: true, type: 'string', doc: '' },
      { name: 'metadata', optional: true, type: 'ListMeta', doc: '' },
      { name: 'items', optional: false, type: `${kind.kind}[]`, doc: `The ${kind.plural}.` },
    ],
    indexSignature: false,
  };
}

/** The declarations of one group/version, in output order. */
export function versionDecls(gv: GroupVersion): Decl[] {
  const decls: Decl[] = [];
  for (const kind of gv.kinds) {
    const root = kindRoot(kind);
    for (const node of namedObjects(kind)) decls.push(objectDecl(node, node === root));
    decls.push(listDecl(kind));
  }
  return decls;
}

/** The types emitter. */
export const types: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    for (const v of g.versions) {
      const path = apiFilePath(g.name, v.name, 'types.ts');
      const contents = render('types', 'file', { header: generatedHeader(versionSources(v, ctx.sources)), runtimeImport: ctx.runtimeImport, decls: versionDecls(v) });
      files.push({ path, contents });
    }
  }
  return files;
};
