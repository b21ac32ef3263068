// Output: informers/factory.ts — `export class SharedInformerFactory { coolops(): CoolopsInformers }`;
// informers/<group>/interface.ts — `CoolopsInformers { v1alpha1() }`; informers/<group>/<version>/interface.ts —
// `CoolopsV1alpha1Informers { databaseManagers() }`; informers/<group>/<version>/<kind>.ts — `DatabaseManagerInformer { informer(); lister() }`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { isSafePathSegment, privateName, tsString } from '../model/naming.js';
import { emitsGroup, emitsShared, type Emitter, type GeneratedFile } from './emitter.js';
import { kindSources } from './walk.js';
import { apiFilePath, groupFolder } from './paths.js';
import { assertUniqueNames, clientKinds, type ClientGroupVersion } from './client-kinds.js';
import { listerPath } from './listers.js';
import { callLine, importLines, scalarArray, typeArgsLine } from './layout.js';

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
  const files: GeneratedFile[] = [];
  const runtime = ctx.runtimeImport;
  const gvs = clientKinds(model, ctx.client, true, (g) => emitsShared(ctx) || emitsGroup(ctx, g));
  const byGroup = new Map<string, ClientGroupVersion[]>();
  for (const gv of gvs) {
    const list = byGroup.get(gv.group.name) ?? [];
    list.push(gv);
    byGroup.set(gv.group.name, list);
    if (!emitsGroup(ctx, gv.group.name)) continue;
    const versionPath = informerPath(gv.group.name, gv.version.name, 'interface.ts');
    const apiVersion = gv.group.name === '' ? gv.version.name : `${gv.group.name}/${gv.version.name}`;
    for (const ck of gv.kinds) {
      const n = ck.names;
      const path = informerPath(gv.group.name, gv.version.name, n.fileName);
      const imports = new ImportTracker([`${n.type}Informer`, `new${n.type}Informer`], {
        aliasPrefixes: { [runtime]: 'Runtime' },
      });
      // the kind's names first: a runtime name equal to one of them is aliased
      const type = imports.use(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts')), n.type, {
        type: true,
      });
      const resource = imports.use(
        importPath(path, apiFilePath(gv.group.name, gv.version.name, 'register.ts')),
        `${n.type}Resource`,
      );
      const listerModule = importPath(path, listerPath(gv.group.name, gv.version.name, n.fileName));
      const newLister = imports.use(listerModule, `new${n.type}Lister`);
      const lister = imports.use(listerModule, `${n.type}Lister`, { type: true });
      const sharedIndexInformer = imports.use(runtime, 'SharedIndexInformer', { type: true });
      const factoryBase = imports.use(runtime, 'SharedInformerFactoryBase', { type: true });
      const stored = `${imports.use(runtime, 'Stored', { type: true })}<${type}, ${tsString(ck.kind.scope)}>`;
      assertUniqueNames(path, imports.localNames());
      files.push({
        path,
        contents: renderCode('informers', 'informer', {
          header: generatedHeader(kindSources([ck.kind], ctx.sources)),
          imports: importLines(imports),
          informerSignature: atColumn((w) => typeArgsLine(w, `informer(): ${sharedIndexInformer}`, [stored], ';')),
          newHead: atColumn((w) =>
            callLine(w, `export function new${n.type}Informer`, [`factory: ${factoryBase}`], `: ${n.type}Informer {`),
          ),
          informerHead: atColumn((w) => typeArgsLine(w, `function informer(): ${sharedIndexInformer}`, [stored], ' {')),
          informerFor: atColumn((w) => callLine(w, 'return factory.informerFor', [resource], ';')),
          listerCall: atColumn((w) => callLine(w, `return ${newLister}`, ['informer().getIndexer()'], ';')),
          type: n.type,
          lister,
          pluralType: n.plural,
          apiVersion,
        }),
      });
    }
    const versionImports = new ImportTracker([
      `${gv.names.groupVersionType}Informers`,
      `new${gv.names.groupVersionType}Informers`,
    ]);
    const versionBase = versionImports.use(runtime, 'SharedInformerFactoryBase', { type: true });
    for (const ck of gv.kinds) {
      const module = importPath(versionPath, informerPath(gv.group.name, gv.version.name, ck.names.fileName));
      versionImports.use(module, `new${ck.names.type}Informer`);
      versionImports.use(module, `${ck.names.type}Informer`, { type: true });
    }
    assertUniqueNames(versionPath, versionImports.localNames());
    files.push({
      path: versionPath,
      contents: renderCode('informers', 'version', {
        header: generatedHeader(
          kindSources(
            gv.kinds.map((ck) => ck.kind),
            ctx.sources,
          ),
        ),
        imports: importLines(versionImports),
        apiVersion,
        groupVersionType: gv.names.groupVersionType,
        newHead: atColumn((w) =>
          callLine(
            w,
            `export function new${gv.names.groupVersionType}Informers`,
            [`factory: ${versionBase}`],
            `: ${gv.names.groupVersionType}Informers {`,
          ),
        ),
        kinds: gv.kinds.map((ck) => ({
          type: ck.names.type,
          pluralType: ck.names.plural,
          pluralAccessor: ck.names.pluralAccessor,
          call: atColumn((w) => callLine(w, `return new${ck.names.type}Informer`, ['factory'], ';')),
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
    groups.push({ groupName, groupLabel: group, accessor: groupAccessor(groupName), path });
    if (!emitsGroup(ctx, group)) continue;
    const imports = new ImportTracker([`${groupName}Informers`, `new${groupName}Informers`]);
    const factoryBase = imports.use(runtime, 'SharedInformerFactoryBase', { type: true });
    for (const gv of list) {
      const module = importPath(path, informerPath(group, gv.version.name, 'interface.ts'));
      imports.use(module, `new${gv.names.groupVersionType}Informers`);
      imports.use(module, `${gv.names.groupVersionType}Informers`, { type: true });
    }
    assertUniqueNames(path, imports.localNames());
    files.push({
      path,
      contents: renderCode('informers', 'group', {
        header: generatedHeader(
          kindSources(
            list.flatMap((gv) => gv.kinds.map((ck) => ck.kind)),
            ctx.sources,
          ),
        ),
        imports: importLines(imports),
        groupName,
        groupLabel: group,
        newHead: atColumn((w) =>
          callLine(
            w,
            `export function new${groupName}Informers`,
            [`factory: ${factoryBase}`],
            `: ${groupName}Informers {`,
          ),
        ),
        versions: list.map((gv) => ({
          groupVersionType: gv.names.groupVersionType,
          accessor: privateName(gv.version.name),
          apiVersion: `${group}/${gv.version.name}`,
          call: atColumn((w) => callLine(w, `return new${gv.names.groupVersionType}Informers`, ['factory'], ';')),
        })),
      }),
    });
  }
  if (!emitsShared(ctx)) return files;
  const path = 'informers/factory.ts';
  const imports = new ImportTracker(['SharedInformerFactory', 'newSharedInformerFactory']);
  imports.use(runtime, 'SharedInformerFactoryBase');
  for (const t of ['ClientBackend', 'ResourceDescriptor', 'RestConfig', 'SharedInformerFactoryOptions'])
    imports.use(runtime, t, { type: true });
  for (const g of groups) {
    imports.use(importPath(path, g.path), `new${g.groupName}Informers`);
    imports.use(importPath(path, g.path), `${g.groupName}Informers`, { type: true });
  }
  // every descriptor under its group/version's name: two versions of a kind never clash
  const resources = gvs.flatMap((gv) =>
    gv.kinds.map((ck) =>
      imports.use(
        importPath(path, apiFilePath(gv.group.name, gv.version.name, 'register.ts')),
        `${ck.names.type}Resource`,
        { as: `${privateName(gv.names.groupVersionType)}${ck.names.type}Resource` },
      ),
    ),
  );
  assertUniqueNames(path, imports.localNames());
  const first = gvs[0];
  files.push({
    path,
    contents: renderCode('informers', 'factory', {
      header: generatedHeader(ctx.sources),
      imports: importLines(imports),
      example: `${groupAccessor(first.names.groupName)}().${privateName(first.version.name)}().${first.kinds[0].names.pluralAccessor}()`,
      groups: groups.map((g) => ({
        ...g,
        call: atColumn((w) => callLine(w, `return new${g.groupName}Informers`, ['this'], ';')),
      })),
      resourceList: atColumn((w) => ' '.repeat(w) + scalarArray(w, 'return ', resources, ';', false)),
    }),
  });
  return files;
};
