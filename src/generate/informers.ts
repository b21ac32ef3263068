// Output: informers/factory.ts — `export class SharedInformerFactory { coolops(): CoolopsInformers }`;
// informers/<group>/interface.ts — `CoolopsInformers { v1alpha1() }`; informers/<group>/<version>/interface.ts —
// `CoolopsV1alpha1Informers { databaseManagers() }`; informers/<group>/<version>/<kind>.ts — `DatabaseManagerInformer { informer(); lister() }`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { isSafePathSegment, privateName, tsString } from '../model/naming.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath, groupFolder } from './paths.js';
import { checkClientOptions } from './client-options.js';
import { assertUniqueNames, clientKinds, type ClientGroupVersion } from './client-kinds.js';
import { listerPath } from './listers.js';
import { runtimeAliases } from './clientset.js';
import { callLine, importDecl, scalarArray, typeArgsLine } from './layout.js';

/** `informers/<group>/<version>/<file>`. */
export function informerPath(group: string, version: string, file: string): string {
  return `informers/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

/** Members of SharedInformerFactoryBase a group accessor must not shadow. */
const FACTORY_MEMBERS = [
  'backend',
  'defaultResyncMs',
  'options',
  'informerFor',
  'start',
  'waitForCacheSync',
  'shutdown',
  'forResource',
  'knownResources',
  'constructor',
];

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
      const own = [
        n.type,
        `${n.type}Resource`,
        `new${n.type}Lister`,
        `${n.type}Lister`,
        `${n.type}Informer`,
        `new${n.type}Informer`,
      ];
      const rt = runtimeAliases(['Stored'], own);
      const stored = `${rt.alias('Stored')}<${n.type}, ${tsString(ck.kind.scope)}>`;
      assertUniqueNames(path, [
        'SharedIndexInformer',
        'SharedInformerFactoryBase',
        rt.alias('Stored'),
        n.type,
        `${n.type}Resource`,
        `new${n.type}Lister`,
        `${n.type}Lister`,
        `${n.type}Informer`,
        `new${n.type}Informer`,
      ]);
      files.push({
        path,
        contents: render('informers', 'informer', {
          header,
          imports: [
            importDecl(
              ['SharedIndexInformer', 'SharedInformerFactoryBase', ...rt.specifierList(['Stored'])],
              tsString(ctx.runtimeImport),
              true,
            ),
            importDecl(
              [n.type],
              tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts'))),
              true,
            ),
            importDecl(
              [`${n.type}Resource`],
              tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'register.ts'))),
            ),
            importDecl(
              [`new${n.type}Lister`, `type ${n.type}Lister`],
              tsString(importPath(path, listerPath(gv.group.name, gv.version.name, n.fileName))),
            ),
          ].join('\n'),
          informerSignature: typeArgsLine(2, 'informer(): SharedIndexInformer', [stored], ';'),
          newHead: callLine(
            0,
            `export function new${n.type}Informer`,
            ['factory: SharedInformerFactoryBase'],
            `: ${n.type}Informer {`,
          ),
          informerHead: typeArgsLine(2, 'function informer(): SharedIndexInformer', [stored], ' {'),
          informerFor: callLine(4, 'return factory.informerFor', [`${n.type}Resource`], ';'),
          listerCall: callLine(6, `return new${n.type}Lister`, ['informer().getIndexer()'], ';'),
          type: n.type,
          pluralType: n.plural,
          apiVersion,
        }),
      });
    }
    assertUniqueNames(versionPath, [
      'SharedInformerFactoryBase',
      `${gv.names.groupVersionType}Informers`,
      `new${gv.names.groupVersionType}Informers`,
      ...gv.kinds.flatMap((ck) => [`${ck.names.type}Informer`, `new${ck.names.type}Informer`]),
    ]);
    files.push({
      path: versionPath,
      contents: render('informers', 'version', {
        header,
        imports: [
          importDecl(['SharedInformerFactoryBase'], tsString(ctx.runtimeImport), true),
          ...gv.kinds.map((ck) =>
            importDecl(
              [`new${ck.names.type}Informer`, `type ${ck.names.type}Informer`],
              tsString(importPath(versionPath, informerPath(gv.group.name, gv.version.name, ck.names.fileName))),
            ),
          ),
        ].join('\n'),
        apiVersion,
        groupVersionType: gv.names.groupVersionType,
        newHead: callLine(
          0,
          `export function new${gv.names.groupVersionType}Informers`,
          ['factory: SharedInformerFactoryBase'],
          `: ${gv.names.groupVersionType}Informers {`,
        ),
        kinds: gv.kinds.map((ck) => ({
          type: ck.names.type,
          pluralType: ck.names.plural,
          pluralAccessor: ck.names.pluralAccessor,
          call: callLine(6, `return new${ck.names.type}Informer`, ['factory'], ';'),
        })),
      }),
    });
  }
  if (gvs.length === 0) return files;
  const groups: { groupName: string; groupLabel: string; accessor: string; path: string }[] = [];
  for (const [group, list] of byGroup) {
    if (!isSafePathSegment(groupFolder(group))) throw new Error(`unsafe path segment ${JSON.stringify(group)}`);
    const path = `informers/${groupFolder(group)}/interface.ts`;
    const groupName = list[0].names.groupName;
    assertUniqueNames(path, [
      'SharedInformerFactoryBase',
      `${groupName}Informers`,
      `new${groupName}Informers`,
      ...list.flatMap((gv) => [`${gv.names.groupVersionType}Informers`, `new${gv.names.groupVersionType}Informers`]),
    ]);
    files.push({
      path,
      contents: render('informers', 'group', {
        header,
        imports: [
          importDecl(['SharedInformerFactoryBase'], tsString(ctx.runtimeImport), true),
          ...list.map((gv) =>
            importDecl(
              [`new${gv.names.groupVersionType}Informers`, `type ${gv.names.groupVersionType}Informers`],
              tsString(importPath(path, informerPath(group, gv.version.name, 'interface.ts'))),
            ),
          ),
        ].join('\n'),
        groupName,
        groupLabel: group,
        newHead: callLine(
          0,
          `export function new${groupName}Informers`,
          ['factory: SharedInformerFactoryBase'],
          `: ${groupName}Informers {`,
        ),
        versions: list.map((gv) => ({
          groupVersionType: gv.names.groupVersionType,
          accessor: privateName(gv.version.name),
          apiVersion: `${group}/${gv.version.name}`,
          call: callLine(6, `return new${gv.names.groupVersionType}Informers`, ['factory'], ';'),
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
  assertUniqueNames(path, [
    'SharedInformerFactoryBase',
    'ClientBackend',
    'ResourceDescriptor',
    'RestConfig',
    'SharedInformerFactoryOptions',
    'SharedInformerFactory',
    'newSharedInformerFactory',
    ...groups.flatMap((g) => [`${g.groupName}Informers`, `new${g.groupName}Informers`]),
    ...resources.map((r) => r.alias),
  ]);
  const first = gvs[0];
  files.push({
    path,
    contents: render('informers', 'factory', {
      header,
      imports: [
        importDecl(
          [
            'SharedInformerFactoryBase',
            'type ClientBackend',
            'type ResourceDescriptor',
            'type RestConfig',
            'type SharedInformerFactoryOptions',
          ],
          tsString(ctx.runtimeImport),
        ),
        ...groups.map((g) =>
          importDecl(
            [`new${g.groupName}Informers`, `type ${g.groupName}Informers`],
            tsString(importPath(path, g.path)),
          ),
        ),
        ...resources.map((r) => importDecl([`${r.type}Resource as ${r.alias}`], r.import)),
      ].join('\n'),
      example: `${groupAccessor(first.names.groupName)}().${privateName(first.version.name)}().${first.kinds[0].names.pluralAccessor}()`,
      groups: groups.map((g) => ({ ...g, call: callLine(4, `return new${g.groupName}Informers`, ['this'], ';') })),
      resourceList:
        '    ' +
        scalarArray(
          4,
          'return ',
          resources.map((r) => r.alias),
          ';',
          false,
        ),
    }),
  });
  return files;
};
