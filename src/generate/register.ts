// Output: apis/<group>/<version>/register.ts — `export const GroupName = 'coolops.cn'`, `Version`,
// `DatabaseManagerGVK`/`GVR`/`Resource` constants and `isDatabaseManager` type guards.

import type { GroupVersion, Model } from '../model/types.js';
import { privateName, safeIdentifier, tsString } from '../model/naming.js';
import { assignLine, callLine, fitsLine, importDecl, scalarArray } from './layout.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { compareStrings } from '../emit/sorted.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { versionSources } from './walk.js';

/** `left right<tail>` in a broken `&&` chain; `right` goes to the next line, indented, when the line is too long (as prettier breaks a binary expression). */
function comparisonLine(indentWidth: number, left: string, right: string, tail: string): string {
  const pad = ' '.repeat(indentWidth);
  const flat = `${left} ${right}${tail}`;
  return fitsLine(indentWidth, flat) ? pad + flat : `${pad}${left}\n${pad}  ${right}${tail}`;
}

/**
 * `head: left & right = value;` as prettier lays it out: on one line; else broken after `=`;
 * else the intersection broken after `&` (then after `=` too when still too long).
 */
function typedResourceLine(head: string, left: string, right: string, value: string): string {
  const flat = `${head}: ${left} & ${right} = ${value};`;
  if (fitsLine(0, flat)) return flat;
  if (fitsLine(0, `${head}: ${left} & ${right} =`)) return `${head}: ${left} & ${right} =\n  ${value};`;
  const second = `  ${right} = ${value};`;
  return `${head}: ${left} &\n${fitsLine(0, second) ? second : `  ${right} =\n  ${value};`}`;
}

/** Renders register.ts for one group/version. */
export function renderRegister(group: string, gv: GroupVersion, header: string, runtimeImport: string): string {
  const descriptors = new Set<string>();
  const kinds = gv.kinds.map((k) => {
    const kind = safeIdentifier(k.kind);
    const listKind = safeIdentifier(k.listKind);
    // the untyped descriptor (module-private): `httpRouteResource`, numbered if two kinds differ only in case
    let descriptor = `${privateName(k.kind)}Resource`;
    for (let i = 2; descriptors.has(descriptor); i++) descriptor = `${privateName(k.kind)}Resource${i}`;
    descriptors.add(descriptor);
    return {
      descriptor,
      typedLine: typedResourceLine(`export const ${kind}Resource`, `typeof ${descriptor}`, `TypedResource<${kind}>`, descriptor),
      kind: k.kind,
      listKind: k.listKind,
      plural: k.plural,
      singular: k.singular,
      namespaced: k.scope === 'Namespaced' ? 'true' : 'false',
      status: k.subresources.status ? 'true' : 'false',
      scale: k.subresources.scale ? 'true' : 'false',
      kindLine: assignLine(0, `export const ${kind}Kind`, tsString(k.kind)),
      listKindLine: assignLine(0, `export const ${listKind}Kind`, tsString(k.listKind)),
      shortNamesLine: '  ' + scalarArray(2, 'shortNames: Object.freeze(', k.shortNames.map(tsString), ' as const),', false),
      categoriesLine: '  ' + scalarArray(2, 'categories: Object.freeze(', k.categories.map(tsString), ' as const),', false),
      kindCheck: comparisonLine(4, '(obj as { kind?: unknown }).kind ===', `${kind}Kind`, ''),
      listKindCheck: comparisonLine(4, '(obj as { kind?: unknown }).kind ===', `${listKind}Kind`, ' &&'),
      isKindHead: callLine(0, `export function is${kind}`, ['obj: unknown'], `: obj is ${kind} {`),
      isListHead: callLine(0, `export function is${listKind}`, ['obj: unknown'], `: obj is ${listKind} {`),
    };
  });
  const typeImports = [...new Set(gv.kinds.flatMap((k) => [k.kind, k.listKind]))].sort(compareStrings).map(safeIdentifier);
  return render('register', 'file', {
    header,
    imports: [importDecl(['TypedResource'], tsString(runtimeImport), true), importDecl(typeImports, tsString('./types.js'), true)].join('\n'),
    groupLine: assignLine(0, 'export const GroupName', tsString(group)),
    versionLine: assignLine(0, 'export const Version', tsString(gv.name)),
    apiVersionLine: assignLine(0, 'export const APIVersion', tsString(group === '' ? gv.name : `${group}/${gv.name}`)),
    kinds,
    kindsLine: scalarArray(0, 'export const Kinds = Object.freeze(', gv.kinds.map((k) => tsString(k.kind)), ' as const);', false),
  });
}

/** The register emitter. */
export const register: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    for (const v of g.versions) {
      files.push({ path: apiFilePath(g.name, v.name, 'register.ts'), contents: renderRegister(g.name, v, generatedHeader(versionSources(v, ctx.sources)), ctx.runtimeImport) });
    }
  }
  return files;
};
