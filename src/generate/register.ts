// Output: apis/<group>/<version>/register.ts — `export const GroupName = 'coolops.cn'`, `Version`,
// `DatabaseManagerGVK`/`GVR`/`Resource` constants and `isDatabaseManager` type guards.

import type { GroupVersion, Model } from '../model/types.js';
import { listTypeName, privateName, safeIdentifier, tsString, typeName } from '../model/naming.js';
import { assignLine, callLine, fitsLine, importLines, scalarArray } from './layout.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { type Emitter, type GeneratedFile, emitsGroup } from './emitter.js';
import { apiFilePath } from './paths.js';
import { versionSources } from './walk.js';

/** `left right<tail>` in a broken `&&` chain at `indentWidth`; `right` goes to the next line, indented, when the line is too long (as prettier breaks a binary expression). */
function comparisonLine(indentWidth: number, left: string, right: string, tail: string): string {
  const pad = ' '.repeat(indentWidth);
  const flat = `${left} ${right}${tail}`;
  return fitsLine(indentWidth, flat) ? pad + flat : `${pad}${left}\n${pad}  ${right}${tail}`;
}

/**
 * `head: left & right = value;` at `indentWidth` spaces as prettier lays it out: on one line;
 * else broken after `=`; else the intersection broken after `&` (then after `=` too when still
 * too long).
 */
function typedResourceLine(indentWidth: number, head: string, left: string, right: string, value: string): string {
  const pad = ' '.repeat(indentWidth);
  const flat = `${head}: ${left} & ${right} = ${value};`;
  if (fitsLine(indentWidth, flat)) return pad + flat;
  if (fitsLine(indentWidth, `${head}: ${left} & ${right} =`))
    return `${pad}${head}: ${left} & ${right} =\n${pad}  ${value};`;
  const second = `${right} = ${value};`;
  return `${pad}${head}: ${left} &\n${pad}  ${fitsLine(indentWidth + 2, second) ? second : `${right} =\n${pad}  ${value};`}`;
}

/** A frozen string array member `key: Object.freeze([…] as const),` laid out at its column. */
function frozenArrayMember(key: string, items: readonly string[]) {
  return atColumn(
    (w) => ' '.repeat(w) + scalarArray(w, `${key}: Object.freeze(`, items.map(tsString), ' as const),', false),
  );
}

/** Renders register.ts for one group/version. */
export function renderRegister(group: string, gv: GroupVersion, header: string, runtimeImport: string): string {
  const descriptors = new Set<string>();
  const kinds = gv.kinds.map((k) => {
    // the untyped descriptor (module-private): `httpRouteResource`, numbered if two kinds differ only in case
    let descriptor = `${privateName(typeName(k))}Resource`;
    for (let i = 2; descriptors.has(descriptor); i++) descriptor = `${privateName(typeName(k))}Resource${i}`;
    descriptors.add(descriptor);
    return descriptor;
  });
  const declared = [
    'GroupName',
    'Version',
    'APIVersion',
    'SchemeGroupVersion',
    'Kinds',
    ...gv.kinds.flatMap((k, i) => {
      const kind = safeIdentifier(typeName(k));
      const listKind = safeIdentifier(listTypeName(k));
      return [
        `${kind}Kind`,
        `${listKind}Kind`,
        `${kind}GVK`,
        `${kind}GVR`,
        kinds[i],
        `${kind}Resource`,
        `is${kind}`,
        `is${listKind}`,
      ];
    }),
  ];
  const imports = new ImportTracker(declared, {
    aliasPrefixes: { [runtimeImport]: 'Runtime' },
  });
  for (const k of gv.kinds)
    for (const t of [typeName(k), listTypeName(k)]) imports.use('./types.js', safeIdentifier(t), { type: true });
  const typedResource = imports.use(runtimeImport, 'TypedResource', { type: true });
  return renderCode('register', 'file', {
    header,
    imports: importLines(imports),
    groupLine: atColumn((w) => assignLine(w, 'export const GroupName', tsString(group))),
    versionLine: atColumn((w) => assignLine(w, 'export const Version', tsString(gv.name))),
    apiVersionLine: atColumn((w) =>
      assignLine(w, 'export const APIVersion', tsString(group === '' ? gv.name : `${group}/${gv.name}`)),
    ),
    kinds: gv.kinds.map((k, i) => {
      const kind = safeIdentifier(typeName(k));
      const listKind = safeIdentifier(listTypeName(k));
      const descriptor = kinds[i];
      return {
        descriptor,
        typedLine: atColumn((w) =>
          typedResourceLine(
            w,
            `export const ${kind}Resource`,
            `typeof ${descriptor}`,
            `${typedResource}<${kind}>`,
            descriptor,
          ),
        ),
        kind: typeName(k),
        listKind: listTypeName(k),
        plural: k.plural,
        singular: k.singular,
        namespaced: k.scope === 'Namespaced' ? 'true' : 'false',
        status: k.subresources.status ? 'true' : 'false',
        scale: k.subresources.scale ? 'true' : 'false',
        kindLine: atColumn((w) => assignLine(w, `export const ${kind}Kind`, tsString(k.kind))),
        listKindLine: atColumn((w) => assignLine(w, `export const ${listKind}Kind`, tsString(k.listKind))),
        shortNamesLine: frozenArrayMember('shortNames', k.shortNames),
        categoriesLine: frozenArrayMember('categories', k.categories),
        kindCheck: atColumn((w) => comparisonLine(w, '(obj as { kind?: unknown }).kind ===', `${kind}Kind`, '')),
        listKindCheck: atColumn((w) =>
          comparisonLine(w, '(obj as { kind?: unknown }).kind ===', `${listKind}Kind`, ' &&'),
        ),
        isKindHead: atColumn((w) => callLine(w, `export function is${kind}`, ['obj: unknown'], `: obj is ${kind} {`)),
        isListHead: atColumn((w) =>
          callLine(w, `export function is${listKind}`, ['obj: unknown'], `: obj is ${listKind} {`),
        ),
      };
    }),
    kindsLine: atColumn(
      (w) =>
        ' '.repeat(w) +
        scalarArray(
          w,
          'export const Kinds = Object.freeze(',
          gv.kinds.map((k) => tsString(k.kind)),
          ' as const);',
          false,
        ),
    ),
  });
}

/** The register emitter. */
export const register: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    if (!emitsGroup(ctx, g.name)) continue;
    for (const v of g.versions) {
      files.push({
        path: apiFilePath(g.name, v.name, 'register.ts'),
        contents: renderRegister(g.name, v, generatedHeader(versionSources(v, ctx.sources)), ctx.runtimeImport),
      });
    }
  }
  return files;
};
