// Output: clientset/clientset.ts — `export class Clientset { static fromKubeConfig(); coolopsV1alpha1(): CoolopsV1alpha1Interface }`;
// clientset/typed/<group>/<version>/client.ts — `CoolopsV1alpha1Client { databaseManagers(namespace) }`;
// clientset/typed/<group>/<version>/<kind>.ts — `DatabaseManagerInterface { create, get, list, … }` with only the kind's verbs.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { safeIdentifier, tsString } from '../model/naming.js';
import { compareStrings } from '../emit/sorted.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { checkClientOptions, clientVerbs } from './client-options.js';
import { clientMethods } from './client-methods.js';
import { assertUniqueNames, clientKinds, type ClientKind } from './client-kinds.js';

/** `clientset/typed/<group>/<version>/<file>`. */
export function typedClientPath(group: string, version: string, file: string): string {
  return `clientset/typed/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * How runtime names are imported into a file that also holds `taken` (kind-derived) names:
 * `Watch`, or `Watch as RuntimeWatch` when a kind is called `Watch`. Deterministic.
 */
export function runtimeAliases(names: readonly string[], taken: readonly string[]): { alias: (n: string) => string; specifiers: (ns: readonly string[]) => string } {
  const clash = new Set(names.filter((n) => taken.includes(n)));
  const alias = (n: string): string => (clash.has(n) ? `Runtime${n}` : n);
  return { alias, specifiers: (ns) => [...ns].sort(compareStrings).map((n) => (clash.has(n) ? `${n} as ${alias(n)}` : n)).join(', ') };
}

function renderTypedResource(ck: ClientKind, ctx: EmitContext, path: string): string {
  const { group, version, kind, names: n } = ck;
  const own = [n.type, n.listType, `${n.type}Resource`, `${n.type}Interface`, `${n.plural}Getter`, `${n.type}Client`];
  const runtimeNames = ['ApplyConfigurationFor', 'ClientBackend', 'TypedResourceClient', 'CreateOptions', 'UpdateOptions', 'DeleteOptions', 'TypedDeleteCollectionOptions', 'GetOptions', 'TypedListOptions', 'Watch', 'PatchType', 'PatchOptions', 'ApplyOptions', 'Scale'];
  const rt = runtimeAliases(runtimeNames, own);
  const methods = clientMethods(kind, ck.verbs, n.type, n.listType, rt.alias);
  const runtimeTypes = new Set<string>(['ApplyConfigurationFor', 'ClientBackend']);
  for (const m of methods) for (const t of m.runtimeTypes) runtimeTypes.add(t);
  const namespaced = kind.scope === 'Namespaced';
  assertUniqueNames(path, [...own, ...[...runtimeTypes, 'TypedResourceClient'].map(rt.alias)]);
  return render('clientset', 'typed-resource', {
    header: generatedHeader(ctx.sources),
    runtimeImport: ctx.runtimeImport,
    runtimeTypes: rt.specifiers([...runtimeTypes]),
    runtimeValues: rt.specifiers(['TypedResourceClient']),
    rtClient: rt.alias('TypedResourceClient'),
    rtApply: rt.alias('ApplyConfigurationFor'),
    rtBackend: rt.alias('ClientBackend'),
    typesImport: tsString(importPath(path, apiFilePath(group.name, version.name, 'types.ts'))),
    registerImport: tsString(importPath(path, apiFilePath(group.name, version.name, 'register.ts'))),
    type: n.type,
    listType: n.listType,
    pluralType: n.plural,
    pluralAccessor: n.pluralAccessor,
    apiVersion: apiVersionOf(group.name, version.name),
    scope: namespaced ? 'namespaced' : 'cluster-scoped',
    getterParams: namespaced ? 'namespace: string' : '',
    getterDoc: getterDoc(ck),
    methods,
  });
}

/** The doc line of a kind's accessor (`databaseManagers(namespace)`). */
export function getterDoc(ck: ClientKind): string {
  return ck.kind.scope === 'Namespaced'
    ? `The ${ck.names.type} client of \`namespace\` (\`''\`: all namespaces, for list/watch/deleteCollection).`
    : `The ${ck.names.type} client (cluster-scoped).`;
}

/** The clientset emitter. */
export const clientset: Emitter = (model: Model, ctx) => {
  checkClientOptions(model, ctx.client);
  const files: GeneratedFile[] = [];
  const byGv = clientKinds(model, ctx.client);
  const gvs: { accessor: string; groupVersionType: string; apiVersion: string; path: string }[] = [];
  for (const gv of byGv) {
    const clientPath = typedClientPath(gv.group.name, gv.version.name, 'client.ts');
    for (const ck of gv.kinds) {
      const path = typedClientPath(gv.group.name, gv.version.name, ck.names.fileName);
      files.push({ path, contents: renderTypedResource(ck, ctx, path) });
    }
    const kinds = gv.kinds.map((ck) => ({
      type: ck.names.type,
      pluralType: ck.names.plural,
      pluralAccessor: ck.names.pluralAccessor,
      import: tsString(importPath(clientPath, typedClientPath(gv.group.name, gv.version.name, ck.names.fileName))),
      getterParams: ck.kind.scope === 'Namespaced' ? 'namespace: string' : '',
      namespaceArg: ck.kind.scope === 'Namespaced' ? 'namespace' : "''",
      getterDoc: getterDoc(ck),
    }));
    assertUniqueNames(clientPath, ['ClientBackend', `${gv.names.groupVersionType}Interface`, `${gv.names.groupVersionType}Client`, ...gv.kinds.flatMap((ck) => [`${ck.names.type}Client`, `${ck.names.type}Interface`, `${ck.names.plural}Getter`])]);
    files.push({
      path: clientPath,
      contents: render('clientset', 'group-client', {
        header: generatedHeader(ctx.sources),
        runtimeImport: ctx.runtimeImport,
        groupVersionType: gv.names.groupVersionType,
        apiVersion: apiVersionOf(gv.group.name, gv.version.name),
        extends: kinds.length > 0 ? ` extends ${kinds.map((k) => `${k.pluralType}Getter`).join(', ')}` : '',
        kinds,
      }),
    });
    gvs.push({ accessor: gv.names.groupVersionAccessor, groupVersionType: gv.names.groupVersionType, apiVersion: apiVersionOf(gv.group.name, gv.version.name), path: clientPath });
  }
  if (gvs.length > 0) {
    const path = 'clientset/clientset.ts';
    assertUniqueNames(path, ['Clientset', 'ClientsetInterface', 'ClientsetOptions', 'validators', 'loadConfig', 'restBackend', 'isClientBackend', 'validatingBackend', 'ClientBackend', 'KindValidator', 'LoadConfigOptions', 'RestConfig', ...gvs.flatMap((g) => [`${g.groupVersionType}Client`, `${g.groupVersionType}Interface`])]);
    assertUniqueNames(`${path} (accessors)`, ['backend', 'fromKubeConfig', ...gvs.map((g) => g.accessor)]);
    files.push({
      path,
      contents: render('clientset', 'clientset', {
        header: generatedHeader(ctx.sources),
        runtimeImport: ctx.runtimeImport,
        groupVersions: gvs.map((g) => ({ ...g, import: tsString(importPath(path, g.path)) })),
        validators: byGv.flatMap((gv) =>
          gv.kinds.map((ck) => ({
            key: `${gv.group.name}/${gv.version.name}/${ck.kind.kind}`,
            import: tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'validation.ts'))),
            validate: safeIdentifier(`validate${ck.kind.kind}`),
            default: safeIdentifier(`default${ck.kind.kind}`),
          })),
        ),
      }),
    });
  }
  return files;
};
