// Output: apis/<group>/<version>/register.ts — `export const GroupName = 'coolops.cn'`, `Version`,
// `DatabaseManagerGVK`/`GVR`/`Resource` constants and `isDatabaseManager` type guards.

import type { GroupVersion, Model } from '../model/types.js';
import { tsString } from '../model/naming.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { compareStrings } from '../emit/sorted.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { versionSources } from './walk.js';

/** Renders register.ts for one group/version. */
export function renderRegister(group: string, gv: GroupVersion, header: string): string {
  const kinds = gv.kinds.map((k) => ({
    kind: k.kind,
    listKind: k.listKind,
    plural: k.plural,
    singular: k.singular,
    namespaced: k.scope === 'Namespaced' ? 'true' : 'false',
    shortNames: k.shortNames,
    categories: k.categories,
    status: k.subresources.status ? 'true' : 'false',
    scale: k.subresources.scale ? 'true' : 'false',
  }));
  const typeImports = [...new Set(gv.kinds.flatMap((k) => [k.kind, k.listKind]))].sort(compareStrings).join(', ');
  return render('register', 'file', {
    header,
    typeImports,
    group,
    version: gv.name,
    apiVersion: group === '' ? gv.name : `${group}/${gv.name}`,
    kinds,
    kindList: gv.kinds.map((k) => tsString(k.kind)).join(', '),
  });
}

/** The register emitter. */
export const register: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    for (const v of g.versions) {
      files.push({ path: apiFilePath(g.name, v.name, 'register.ts'), contents: renderRegister(g.name, v, generatedHeader(versionSources(v, ctx.sources))) });
    }
  }
  return files;
};
