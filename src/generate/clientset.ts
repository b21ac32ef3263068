// Output: clientset/clientset.ts — `export class Clientset { static fromKubeConfig(); coolopsV1alpha1(): CoolopsV1alpha1Interface }`;
// clientset/typed/<group>/<version>/client.ts — `CoolopsV1alpha1Client { databaseManagers(namespace) }`;
// clientset/typed/<group>/<version>/<kind>.ts — `DatabaseManagerInterface { create, get, list, … }` with only the kind's verbs.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { safeIdentifier, tsString } from '../model/naming.js';
import { compareStrings } from '../emit/sorted.js';
import { assignLine, callLine, fitsLine, importDecl, interfaceExtends, signatureLine, typeArgsLine } from './layout.js';
import type { EmitContext, Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { checkClientOptions } from './client-options.js';
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
export function runtimeAliases(
  names: readonly string[],
  taken: readonly string[],
): {
  alias: (n: string) => string;
  specifiers: (ns: readonly string[]) => string;
  specifierList: (ns: readonly string[]) => string[];
} {
  const clash = new Set(names.filter((n) => taken.includes(n)));
  const alias = (n: string): string => (clash.has(n) ? `Runtime${n}` : n);
  const specifierList = (ns: readonly string[]): string[] =>
    [...ns].sort(compareStrings).map((n) => (clash.has(n) ? `${n} as ${alias(n)}` : n));
  return { alias, specifiers: (ns) => specifierList(ns).join(', '), specifierList };
}

function renderTypedResource(ck: ClientKind, ctx: EmitContext, path: string): string {
  const { group, version, kind, names: n } = ck;
  const own = [n.type, n.listType, `${n.type}Resource`, `${n.type}Interface`, `${n.plural}Getter`, `${n.type}Client`];
  const runtimeNames = [
    'ApplyConfigurationFor',
    'ClientBackend',
    'TypedResourceClient',
    'CreateOptions',
    'UpdateOptions',
    'DeleteOptions',
    'TypedDeleteCollectionOptions',
    'GetOptions',
    'TypedListOptions',
    'TypedWatch',
    'Stored',
    'StoredList',
    'PatchType',
    'PatchOptions',
    'ApplyOptions',
    'Scale',
  ];
  const rt = runtimeAliases(runtimeNames, own);
  const methods = clientMethods(kind, ck.verbs, n.type, n.listType, rt.alias);
  const runtimeTypes = new Set<string>(['ApplyConfigurationFor', 'ClientBackend']);
  for (const m of methods) for (const t of m.runtimeTypes) runtimeTypes.add(t);
  const namespaced = kind.scope === 'Namespaced';
  assertUniqueNames(path, [...own, ...[...runtimeTypes, 'TypedResourceClient'].map(rt.alias)]);
  const runtime = tsString(ctx.runtimeImport);
  const imports = [
    importDecl(rt.specifierList([...runtimeTypes]), runtime, true),
    importDecl(rt.specifierList(['TypedResourceClient']), runtime),
    importDecl(
      [n.type, n.listType],
      tsString(importPath(path, apiFilePath(group.name, version.name, 'types.ts'))),
      true,
    ),
    importDecl([`${n.type}Resource`], tsString(importPath(path, apiFilePath(group.name, version.name, 'register.ts')))),
  ].join('\n');
  const rtClient = rt.alias('TypedResourceClient');
  const getterParams = namespaced ? ['namespace: string'] : [];
  return render('clientset', 'typed-resource', {
    header: generatedHeader(ctx.sources),
    imports,
    rtBackend: rt.alias('ClientBackend'),
    clientField: typeArgsLine(
      2,
      `readonly #client: ${rtClient}`,
      [n.type, n.listType, `${rt.alias('ApplyConfigurationFor')}<${n.type}>`, tsString(kind.scope)],
      ';',
    ),
    clientInit: callLine(4, `this.#client = new ${rtClient}`, ['backend', `${n.type}Resource`, 'namespace'], ';'),
    getterSignature: callLine(2, n.pluralAccessor, getterParams, `: ${n.type}Interface;`),
    type: n.type,
    listType: n.listType,
    pluralType: n.plural,
    pluralAccessor: n.pluralAccessor,
    apiVersion: apiVersionOf(group.name, version.name),
    scope: namespaced ? 'namespaced' : 'cluster-scoped',
    getterDoc: getterDoc(ck),
    methods: methods.map((m) => {
      const params = m.params === '' ? [] : m.params.split(', ');
      return {
        doc: m.doc,
        signature: signatureLine(2, m.name, params, m.returns, ';'),
        head: signatureLine(2, m.name, params, m.returns, ' {'),
        body: callLine(4, `return this.#client.${m.name}`, m.args === '' ? [] : m.args.split(', '), ';'),
      };
    }),
  });
}

/**
 * One entry of the clientset's `validators` table: `"g/v/Kind": async () => { import … }`, with
 * the arrow function below the key when the key line does not fit (prettier's layout).
 */
function validatorEntry(key: string, from: string, validate: string, defaults: string): string {
  const moved = !fitsLine(2, `${key}: async () => {`);
  const pad = moved ? '    ' : '  ';
  const head = moved ? `  ${key}:\n    async () => {` : `  ${key}: async () => {`;
  const body = [
    assignLine(pad.length + 2, 'const m', `await import(${from})`),
    `${pad}  return {`,
    `${pad}    validate: m.${validate},`,
    `${pad}    applyDefaults: m.${defaults},`,
    `${pad}  };`,
  ];
  return `${head}\n${body.join('\n')}\n${pad}},`;
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
      pluralType: ck.names.plural,
      import: importDecl(
        [`${ck.names.type}Client`, `type ${ck.names.type}Interface`, `type ${ck.names.plural}Getter`],
        tsString(importPath(clientPath, typedClientPath(gv.group.name, gv.version.name, ck.names.fileName))),
      ),
      getterDoc: getterDoc(ck),
      head: callLine(
        2,
        ck.names.pluralAccessor,
        ck.kind.scope === 'Namespaced' ? ['namespace: string'] : [],
        `: ${ck.names.type}Interface {`,
      ),
      body: callLine(
        4,
        `return new ${ck.names.type}Client`,
        ['this.#backend', ck.kind.scope === 'Namespaced' ? 'namespace' : '""'],
        ';',
      ),
    }));
    assertUniqueNames(clientPath, [
      'ClientBackend',
      `${gv.names.groupVersionType}Interface`,
      `${gv.names.groupVersionType}Client`,
      ...gv.kinds.flatMap((ck) => [`${ck.names.type}Client`, `${ck.names.type}Interface`, `${ck.names.plural}Getter`]),
    ]);
    files.push({
      path: clientPath,
      contents: render('clientset', 'group-client', {
        header: generatedHeader(ctx.sources),
        imports: [importDecl(['ClientBackend'], tsString(ctx.runtimeImport), true), ...kinds.map((k) => k.import)].join(
          '\n',
        ),
        groupVersionType: gv.names.groupVersionType,
        apiVersion: apiVersionOf(gv.group.name, gv.version.name),
        interfaceDecl: interfaceExtends(
          `export interface ${gv.names.groupVersionType}Interface`,
          kinds.map((k) => `${k.pluralType}Getter`),
          '{}',
        ),
        kinds,
      }),
    });
    gvs.push({
      accessor: gv.names.groupVersionAccessor,
      groupVersionType: gv.names.groupVersionType,
      apiVersion: apiVersionOf(gv.group.name, gv.version.name),
      path: clientPath,
    });
  }
  if (gvs.length > 0) {
    const path = 'clientset/clientset.ts';
    assertUniqueNames(path, [
      'Clientset',
      'ClientsetInterface',
      'ClientsetOptions',
      'validators',
      'loadConfig',
      'restBackend',
      'isClientBackend',
      'validatingBackend',
      'defaultFieldManager',
      'withFieldManager',
      'ClientBackend',
      'KindValidator',
      'LoadConfigOptions',
      'RestConfig',
      ...gvs.flatMap((g) => [`${g.groupVersionType}Client`, `${g.groupVersionType}Interface`]),
    ]);
    assertUniqueNames(`${path} (accessors)`, [
      'backend',
      'fieldManager',
      'fromKubeConfig',
      ...gvs.map((g) => g.accessor),
    ]);
    files.push({
      path,
      contents: render('clientset', 'clientset', {
        header: generatedHeader(ctx.sources),
        imports: [
          importDecl(
            [
              'defaultFieldManager',
              'loadConfig',
              'restBackend',
              'isClientBackend',
              'validatingBackend',
              'withFieldManager',
              'type ClientBackend',
              'type KindValidator',
              'type LoadConfigOptions',
              'type RestConfig',
            ],
            tsString(ctx.runtimeImport),
          ),
          ...gvs.map((g) =>
            importDecl(
              [`${g.groupVersionType}Client`, `type ${g.groupVersionType}Interface`],
              tsString(importPath(path, g.path)),
            ),
          ),
        ].join('\n'),
        groupVersions: gvs.map((g) => ({
          ...g,
          init: callLine(4, `this.#${g.accessor} = new ${g.groupVersionType}Client`, ['this.backend'], ';'),
        })),
        validators: byGv.flatMap((gv) =>
          gv.kinds.map((ck) => ({
            entry: validatorEntry(
              tsString(`${gv.group.name}/${gv.version.name}/${ck.kind.kind}`),
              tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'validation.ts'))),
              safeIdentifier(`validate${ck.kind.kind}`),
              safeIdentifier(`default${ck.kind.kind}`),
            ),
          })),
        ),
      }),
    });
  }
  return files;
};
