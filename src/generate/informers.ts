// Output: informers/factory.ts — `export class SharedInformerFactory { coolops(): CoolopsInformers }`;
// informers/<group>/interface.ts — `CoolopsInformers { v1alpha1() }`; informers/<group>/<version>/interface.ts —
// `CoolopsV1alpha1Informers { databaseManagers() }`; informers/<group>/<version>/<kind>.ts — `DatabaseManagerInformer { informer(); lister() }`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { isSafePathSegment, privateName, tsString } from '../model/naming.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { checkClientOptions } from './client-options.js';
import { assertUniqueNames, clientKinds, type ClientGroupVersion } from './client-kinds.js';
import { listerPath } from './listers.js';

/** `informers/<group>/<version>/<file>`. */
export function informerPath(group: string, version: string, file: string): string {
  return `informers/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

/** Members of SharedInformerFactoryBase a group accessor must not shadow. */
const FACTORY_MEMBERS = ['backend', 'defaultResyncMs', 'options', 'informerFor', 'start', 'waitForCacheSync', 'shutdown', 'forResource', 'knownResources', 'constructor'];

/** The factory accessor of a group: `coolops`, or `startGroup` when it would shadow a factory member. */
export function groupAccessor(groupName: string): string {
  const a = privateName(groupName);
  return FACTORY_MEMBERS.includes(a) ? `${a}Group` : a;
}

/** The informers emitter. */
export const informers: Emitter = (model: Model, ctx) => {
  checkClientOptions(model, ctx.client);
  const files: GeneratedFile[] = [];
  const header = generatedHeader(ctx.sources);
  const gvs = clientKinds(model, ctx.client, true);
  const byGroup = new Map<string, ClientGroupVersion[]>();
  for (const gv of gvs) {
    const list = byGroup.get(gv.group.name) ?? [];
    list.push(gv);
    byGroup.set(gv.group.name, list);
    const versionPath = informerPath(gv.group.name, gv.version.name, 'interface.ts');
    const apiVersion = gv.group.name === '' ? gv.version.name : `${gv.group.name}/${gv.version.name}`;
    for (const ck of gv.kinds) {
      const n = ck.names;
      const path = informerPath(gv.group.name, gv.version.name, n.fileName);
      assertUniqueNames(path, ['SharedIndexInformer', 'SharedInformerFactoryBase', n.type, `${n.type}Resource`, `new${n.type}Lister`, `${n.type}Lister`, `${n.type}Informer`, `new${n.type}Informer`]);
      files.push({
        path,
        contents: render('informers', 'informer', {
          header,
          runtimeImport: ctx.runtimeImport,
          typesImport: tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts'))),
          registerImport: tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'register.ts'))),
          listerImport: tsString(importPath(path, listerPath(gv.group.name, gv.version.name, n.fileName))),
          type: n.type,
          pluralType: n.plural,
          apiVersion,
        }),
      });
    }
    assertUniqueNames(versionPath, ['SharedInformerFactoryBase', `${gv.names.groupVersionType}Informers`, `new${gv.names.groupVersionType}Informers`, ...gv.kinds.flatMap((ck) => [`${ck.names.type}Informer`, `new${ck.names.type}Informer`])]);
    files.push({
      path: versionPath,
      contents: render('informers', 'version', {
        header,
        runtimeImport: ctx.runtimeImport,
        apiVersion,
        groupVersionType: gv.names.groupVersionType,
        kinds: gv.kinds.map((ck) => ({
          type: ck.names.type,
          pluralType: ck.names.plural,
          pluralAccessor: ck.names.pluralAccessor,
          import: tsString(importPath(versionPath, informerPath(gv.group.name, gv.version.name, ck.names.fileName))),
        })),
      }),
    });
  }
  if (gvs.length === 0) return files;
  const groups: { groupName: string; groupLabel: string; accessor: string; path: string }[] = [];
  for (const [group, list] of byGroup) {
    if (!isSafePathSegment(group)) throw new Error(`unsafe path segment ${JSON.stringify(group)}`);
    const path = `informers/${group}/interface.ts`;
    const groupName = list[0]!.names.groupName;
    assertUniqueNames(path, ['SharedInformerFactoryBase', `${groupName}Informers`, `new${groupName}Informers`, ...list.flatMap((gv) => [`${gv.names.groupVersionType}Informers`, `new${gv.names.groupVersionType}Informers`])]);
    files.push({
      path,
      contents: render('informers', 'group', {
        header,
        runtimeImport: ctx.runtimeImport,
        groupName,
        groupLabel: group,
        versions: list.map((gv) => ({
          groupVersionType: gv.names.groupVersionType,
          accessor: privateName(gv.version.name),
          apiVersion: `${group}/${gv.version.name}`,
          import: tsString(importPath(path, informerPath(group, gv.version.name, 'interface.ts'))),
        })),
      }),
    });
    groups.push({ groupName, groupLabel: group, accessor: groupAccessor(groupName), path });
  }
  const path = 'informers/factory.ts';
  const resources = gvs.flatMap((gv) =>
    gv.kinds.map((ck) => ({
      type: ck.names.type,
      alias: `${privateName(gv.names.groupVersionType)}${ck.names.type}Resource`,
      import: tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'register.ts'))),
    })),
  );
  assertUniqueNames(path, ['SharedInformerFactoryBase', 'ClientBackend', 'ResourceDescriptor', 'RestConfig', 'SharedInformerFactoryOptions', 'SharedInformerFactory', 'newSharedInformerFactory', ...groups.flatMap((g) => [`${g.groupName}Informers`, `new${g.groupName}Informers`]), ...resources.map((r) => r.alias)]);
  const first = gvs[0]!;
  files.push({
    path,
    contents: render('informers', 'factory', {
      header,
      runtimeImport: ctx.runtimeImport,
      example: `${groupAccessor(first.names.groupName)}().${privateName(first.version.name)}().${first.kinds[0]!.names.pluralAccessor}()`,
      groups: groups.map((g) => ({ ...g, import: tsString(importPath(path, g.path)) })),
      resources,
      resourceList: resources.map((r) => r.alias).join(', '),
    }),
  });
  return files;
};
