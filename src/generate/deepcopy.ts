// Output: apis/<group>/<version>/deepcopy.ts — `export function deepCopyDatabaseManager(src: DatabaseManager): DatabaseManager`
// for every named type and list: lossless (unknown fields, null vs absent), alias-free, specialised per field.
//
// Shape of each copy: `{ ...src }` keeps every scalar (and unknown fields), then one pass over
// the keys replaces the values that are objects or arrays: the schema's object, array-of-object
// and map-of-object fields through typed copiers, metadata through the runtime's
// `deepCopyObjectMeta`/`deepCopyListMeta`, everything else (preserve-unknown-fields, unknown
// fields, scalar arrays and maps, wrong-typed values) through the runtime's `copyJson`. The
// shared helpers live in `crdgen/runtime` (src/runtime/deepcopy.ts). Output is prettier-stable:
// the few statements whose length depends on names are laid out as prettier lays them out.

import type { GroupVersion, Kind, Model, ObjectNode, SchemaNode } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode, type AtColumn } from '../emit/code.js';
import { compareStrings } from '../model/order.js';
import { type Emitter, type GeneratedFile, emitsGroup } from './emitter.js';
import { apiFilePath } from './paths.js';
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
import { useForeign } from './types.js';
import { listTypeName, tsString } from '../model/naming.js';
import { assignCallLines, callLine, importLines } from './layout.js';

/** Name of the exported deep-copy function for a named type. */
export function deepCopyName(typeName: string): string {
  return `deepCopy${typeName}`;
}

/** Properties of `Object.prototype` (and `__proto__`): their keys take the generic path. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)]);

/**
 * Property access on the copy for a key the switch matched: always bracketed (`out["spec"]`,
 * a named store for V8), as `noPropertyAccessFromIndexSignature` requires on a JsonObject.
 */
function outAccess(name: string): string {
  return `out[${tsString(name)}]`;
}

/** `case "<key>": out["<key>"] = copier(v); continue;` of an object copier's switch. */
interface CaseView {
  key: string;
  assign: AtColumn;
}

/**
 * One internal copier function for templates/deepcopy/file.hbs: its signature and the shape of
 * its body (an array, a map, an object or list with a switch over its keys, or a type of another
 * group/version), with the statements whose layout depends on names.
 */
type CopierView = { signature: AtColumn } & (
  | { array: true; assign: AtColumn }
  | { map: true; assign: AtColumn }
  | { foreign: true; call: AtColumn }
  | { object: true; cases: CaseView[] }
);

interface TypeView {
  jsdocType: string;
  signature: AtColumn;
  body: AtColumn;
}

/** `function <name>(<param>): unknown {` laid out at its column. */
function copierSignature(name: string, param: string): AtColumn {
  return atColumn((w) => callLine(w, `function ${name}`, [param], ': unknown {'));
}

/** `<lhs> = <fn>(<arg>);` laid out at its column. */
function assignment(lhs: string, fn: string, arg: string): AtColumn {
  return atColumn((w) => assignCallLines(w, lhs, fn, arg));
}

/**
 * The internal copiers of one file, `(v: object) => unknown`, deduplicated by name: `copy_X`
 * for a named object type, `copy_array_…` and `copy_map_…` for arrays and maps of them. Each
 * copies a value of the wrong kind (an array where an object belongs, or the reverse) as JSON.
 */
class Copiers {
  private readonly byName = new Map<string, CopierView>();
  /** Named object types whose `copy_X` is still to be written (filled by the caller). */
  readonly objectTypes = new Map<string, ObjectNode>();
  /** Shared objects declared in another group/version: their `deepCopyX` is imported from there. */
  readonly foreign = new Map<string, ObjectNode>();
  /** True once a nested `ObjectMeta` (a shared definition the runtime declares) is copied. */
  usesObjectMeta = false;

  constructor(private readonly here: GroupVersionRef) {}

  /**
   * Name of the copier for `node`: a generated one for objects and arrays or maps of them, the
   * runtime's `copyScalarArray`/`copyScalarMap` for arrays and maps of scalars; undefined when
   * the generic `copyJson` is the copy (scalars, preserve-unknown-fields, untitled objects).
   */
  copierFor(node: SchemaNode): string | undefined {
    if (node.type === 'array' && isScalar(node.items)) return this.runtime('copyScalarArray');
    if (node.type === 'map' && isScalar(node.values)) return this.runtime('copyScalarMap');
    switch (node.type) {
      case 'object': {
        if (!node.title) return undefined;
        if (node.declaredIn === 'runtime') {
          if (node.title === 'ObjectMeta') {
            this.usesObjectMeta = true;
            return OBJECT_META_COPIER;
          }
          if (node.title === 'ListMeta') return 'copyListMeta';
          return undefined;
        }
        if (foreignHome(node, this.here)) {
          const name = `copy_${node.title}`;
          this.foreign.set(node.title, node);
          this.define(name, foreignCopier(name, node.title));
          return name;
        }
        return `copy_${node.title}`;
      }
      case 'array': {
        const inner = this.copierFor(node.items);
        if (!inner) return undefined;
        const name = `copy_array_${copierSuffix(inner)}`;
        this.define(name, arrayCopier(name, inner));
        return name;
      }
      case 'map': {
        const inner = this.copierFor(node.values);
        if (!inner) return undefined;
        const name = `copy_map_${copierSuffix(inner)}`;
        this.define(name, mapCopier(name, inner));
        return name;
      }
      default:
        return undefined;
    }
  }

  /** Runtime copiers the file uses. */
  readonly runtimeNames = new Set<string>();

  private runtime(name: string): string {
    this.runtimeNames.add(name);
    return name;
  }

  define(name: string, copier: CopierView): void {
    if (!this.byName.has(name)) this.byName.set(name, copier);
  }

  /** Copier definitions sorted by name (deterministic output). */
  list(): CopierView[] {
    return [...this.byName.entries()].sort((a, b) => compareStrings(a[0], b[0])).map(([, copier]) => copier);
  }
}

/** `copy_array_X` → `array_X`; the runtime's `copyScalarArray` → `scalar_array`. */
function copierSuffix(copier: string): string {
  if (copier === 'copyScalarArray') return 'scalar_array';
  if (copier === 'copyScalarMap') return 'scalar_map';
  return copier.slice('copy_'.length);
}

function isScalar(node: SchemaNode): boolean {
  return (
    node.type === 'string' ||
    node.type === 'integer' ||
    node.type === 'number' ||
    node.type === 'boolean' ||
    node.type === 'int-or-string'
  );
}

function arrayCopier(name: string, inner: string): CopierView {
  return { signature: copierSignature(name, 'v: object'), array: true, assign: assignment('a[i]', inner, 'x') };
}

function mapCopier(name: string, inner: string): CopierView {
  return { signature: copierSignature(name, 'v: object'), map: true, assign: assignment('o[k]', inner, 'x') };
}

/** The copier of a shared object declared in another group/version: that version's exported deep copy. */
function foreignCopier(name: string, title: string): CopierView {
  return {
    signature: copierSignature(name, 'v: object'),
    foreign: true,
    call: atColumn((w) => callLine(w, `return ${deepCopyName(title)}`, [`v as ${title}`], ';')),
  };
}

interface Case {
  name: string;
  /** Runtime or generated function copying the value (`(v: object) => unknown`). */
  copier: string;
}

/** `copy_X`: spread, then the one pass over keys with a case per typed non-scalar field. */
function objectCopier(name: string, cases: readonly Case[]): CopierView {
  return {
    signature: copierSignature(name, 'src: object'),
    object: true,
    cases: cases.map((c) => ({ key: tsString(c.name), assign: assignment(outAccess(c.name), c.copier, 'v') })),
  };
}

/** The copier of a root or embedded `metadata` field, from the runtime. */
const OBJECT_META_COPIER = 'copyObjectMeta';

function casesOf(node: ObjectNode, isRoot: boolean, copiers: Copiers): Case[] {
  const cases: Case[] = [];
  for (const p of node.properties) {
    if (PROTOTYPE_KEYS.has(p.name)) continue; // copied by the generic path, which guards the key
    if (isRoot && ROOT_META_PROPERTIES.has(p.name)) continue;
    if (isMetaProperty(node, p.name, isRoot)) {
      cases.push({ name: p.name, copier: OBJECT_META_COPIER });
      continue;
    }
    const copier = copiers.copierFor(p.schema);
    if (copier) cases.push({ name: p.name, copier });
  }
  if (isRoot) cases.unshift({ name: 'metadata', copier: OBJECT_META_COPIER });
  return cases;
}

function typeView(type: string, copier: string): TypeView {
  return {
    jsdocType: type,
    signature: atColumn((w) => callLine(w, `export function ${deepCopyName(type)}`, [`src: ${type}`], `: ${type} {`)),
    body: atColumn((w) => callLine(w, `return ${copier}`, ['src'], ` as ${type};`)),
  };
}

/** Renders deepcopy.ts for one group/version; `runtimeImport` is where the shared helpers come from. */
export function renderDeepCopy(gv: GroupVersion, header: string, runtimeImport: string, group = ''): string {
  const here: GroupVersionRef = { group, version: gv.name };
  const copiers = new Copiers(here);
  const types: TypeView[] = [];
  const typeNames: string[] = [];
  let usesObjectMeta = false;
  const seen = kindTitles(gv);
  for (const kind of gv.kinds) {
    if (kind.noDeepCopy) continue;
    const root = kindRoot(kind);
    for (const node of namedObjects(kind, seen, here)) {
      const name = `copy_${node.title!}`;
      const cases = casesOf(node, node === root, copiers);
      if (cases.some((c) => c.copier === OBJECT_META_COPIER)) usesObjectMeta = true;
      copiers.define(name, objectCopier(name, cases));
      types.push(typeView(node.title!, name));
      typeNames.push(node.title!);
    }
    types.push(listView(kind, root, copiers));
    typeNames.push(listTypeName(kind));
  }
  if (copiers.usesObjectMeta) usesObjectMeta = true;
  const path = apiFilePath(group, gv.name, 'deepcopy.ts');
  const imports = new ImportTracker();
  for (const v of ['copyJson', 'copyJsonArray', ...copiers.runtimeNames, 'deepCopyListMeta'])
    imports.use(runtimeImport, v);
  for (const t of ['JsonObject', 'ListMeta']) imports.use(runtimeImport, t, { type: true });
  if (usesObjectMeta) {
    imports.use(runtimeImport, 'deepCopyObjectMeta');
    imports.use(runtimeImport, 'ObjectMeta', { type: true });
  }
  for (const t of typeNames) imports.use('./types.js', t, { type: true });
  useForeign(imports, path, 'deepcopy.ts', copiers.foreign, here, (t) => deepCopyName(t), false);
  useForeign(imports, path, 'types.ts', copiers.foreign, here, (t) => t, true);
  return renderCode('deepcopy', 'file', {
    header,
    imports: importLines(imports),
    usesObjectMeta,
    copiers: copiers.list(),
    types,
  });
}

function listView(kind: Kind, root: ObjectNode, copiers: Copiers): TypeView {
  const items = copiers.copierFor({ type: 'array', items: root })!;
  const name = `copy_${listTypeName(kind)}`;
  copiers.define(
    name,
    objectCopier(name, [
      { name: 'metadata', copier: 'copyListMeta' },
      { name: 'items', copier: items },
    ]),
  );
  return typeView(listTypeName(kind), name);
}

/** The deepcopy emitter. */
export const deepcopy: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    if (!emitsGroup(ctx, g.name)) continue;
    for (const v of g.versions) {
      if (v.kinds.every((k) => k.noDeepCopy)) continue;
      files.push({
        path: apiFilePath(g.name, v.name, 'deepcopy.ts'),
        contents: renderDeepCopy(v, generatedHeader(versionSources(v, ctx.sources)), ctx.runtimeImport, g.name),
      });
    }
  }
  return files;
};
