// Output: apis/<group>/<version>/deepcopy.ts — `export function deepCopyDatabaseManager(src: DatabaseManager): DatabaseManager`
// for every named type and list: lossless (unknown fields, null vs absent), alias-free, specialised per field.

import type { GroupVersion, Kind, Model, ObjectNode, SchemaNode } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { compareStrings } from '../emit/sorted.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { isMetaProperty, kindRoot, namedObjects, ROOT_META_PROPERTIES, versionSources } from './walk.js';

/** Name of the exported deep-copy function for a named type. */
export function deepCopyName(typeName: string): string {
  return `deepCopy${typeName}`;
}

interface FnView {
  name: string;
  type: string;
  cases: { name: string; copier: string }[];
}

/** Collects the internal copier helpers of one file (deduplicated by name, in first-use order). */
class Helpers {
  private readonly byName = new Map<string, string>();

  /** Name of a `(v: object) => unknown` copier for `node`, or undefined when `copyJson` is exact. */
  copierFor(node: SchemaNode): string | undefined {
    switch (node.type) {
      case 'object': {
        if (!node.title) return undefined;
        const name = `copy_${node.title}`;
        this.define(name, `function ${name}(v: object): unknown {\n  return Array.isArray(v) ? copyJson(v) : ${deepCopyName(node.title)}(v as ${node.title});\n}`);
        return name;
      }
      case 'array': {
        const inner = this.copierFor(node.items);
        if (!inner) return undefined;
        const name = `copy_array_${inner.slice('copy_'.length)}`;
        this.define(name, `function ${name}(v: object): unknown {\n  return Array.isArray(v) ? copyArray(v, ${inner}) : copyJson(v);\n}`);
        return name;
      }
      case 'map': {
        const inner = this.copierFor(node.values);
        if (!inner) return undefined;
        const name = `copy_map_${inner.slice('copy_'.length)}`;
        this.define(name, `function ${name}(v: object): unknown {\n  return Array.isArray(v) ? copyJson(v) : copyMap(v as JsonObject, ${inner});\n}`);
        return name;
      }
      default:
        return undefined;
    }
  }

  private define(name: string, code: string): void {
    if (!this.byName.has(name)) this.byName.set(name, code);
  }

  /** True when some copier walks a map (so the file needs `copyMap`). */
  usesMap(): boolean {
    return [...this.byName.keys()].some((n) => n.startsWith('copy_map_'));
  }

  /** Helper definitions sorted by name (deterministic output). */
  list(): { code: string }[] {
    return [...this.byName.entries()].sort((a, b) => compareStrings(a[0], b[0])).map(([, code]) => ({ code }));
  }
}

function objectFn(node: ObjectNode, isRoot: boolean, helpers: Helpers): FnView {
  const cases: FnView['cases'] = [];
  for (const p of node.properties) {
    if (p.name === '__proto__') continue; // copied by the generic path, which guards the key
    if (isRoot && ROOT_META_PROPERTIES.has(p.name)) continue;
    if (isMetaProperty(node, p.name, isRoot)) continue;
    const copier = helpers.copierFor(p.schema);
    if (copier) cases.push({ name: p.name, copier });
  }
  return { name: deepCopyName(node.title!), type: node.title!, cases };
}

function listFn(kind: Kind, root: ObjectNode, helpers: Helpers): FnView {
  const items = helpers.copierFor({ type: 'array', items: root })!;
  return { name: deepCopyName(kind.listKind), type: kind.listKind, cases: [{ name: 'items', copier: items }] };
}

/** Renders deepcopy.ts for one group/version. */
export function renderDeepCopy(gv: GroupVersion, header: string): string {
  const helpers = new Helpers();
  const functions: FnView[] = [];
  const typeNames: string[] = [];
  for (const kind of gv.kinds) {
    if (kind.noDeepCopy) continue;
    const root = kindRoot(kind);
    for (const node of namedObjects(kind)) {
      functions.push(objectFn(node, node === root, helpers));
      typeNames.push(node.title!);
    }
    functions.push(listFn(kind, root, helpers));
    typeNames.push(kind.listKind);
  }
  const typeImports = [...new Set(typeNames)].sort(compareStrings).join(', ');
  return render('deepcopy', 'file', { header, typeImports, usesMap: helpers.usesMap(), helpers: helpers.list(), functions });
}

/** The deepcopy emitter. */
export const deepcopy: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    for (const v of g.versions) {
      if (v.kinds.every((k) => k.noDeepCopy)) continue;
      files.push({ path: apiFilePath(g.name, v.name, 'deepcopy.ts'), contents: renderDeepCopy(v, generatedHeader(versionSources(v, ctx.sources))) });
    }
  }
  return files;
};
