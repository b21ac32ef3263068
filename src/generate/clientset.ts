// Output: clientset/clientset.ts — `export class Clientset { static fromKubeConfig(); coolopsV1alpha1(): CoolopsV1alpha1Interface }`;
// clientset/typed/<group>/<version>/client.ts — `CoolopsV1alpha1Client { databaseManagers(namespace) }`;
// clientset/typed/<group>/<version>/<kind>.ts — `DatabaseManagerInterface { create, get, list, … }` with only the kind's verbs.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { safeIdentifier, tsString, typeName } from '../model/naming.js';
import { compareStrings } from '../model/order.js';
import {
  assignLine,
  callLine,
  fitsLine,
  importLines,
  interfaceExtends,
  signatureLine,
  typeArgsLine,
} from './layout.js';
import { emitsGroup, emitsShared, type EmitContext, type Emitter, type GeneratedFile } from './emitter.js';
import { kindSources } from './walk.js';
import { apiFilePath } from './paths.js';
import { clientMethods } from './client-methods.js';
import { assertUniqueNames, clientKinds, type ClientKind } from './client-kinds.js';

/** `clientset/typed/<group>/<version>/<file>`. */
export function typedClientPath(group: string, version: string, file: string): string {
  return `clientset/typed/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

function renderTypedResource(ck: ClientKind, ctx: EmitContext, path: string): string {
  const { group, version, kind, names: n } = ck;
  const runtime = ctx.runtimeImport;
  const imports = new ImportTracker([`${n.type}Interface`, `${n.plural}Getter`, `${n.type}Client`], {
    aliasPrefixes: { [runtime]: 'Runtime' },
  });
  // the kind's names first: a runtime name equal to one of them is aliased
  const typesModule = importPath(path, apiFilePath(group.name, version.name, 'types.ts'));
  const type = imports.use(typesModule, n.type, { type: true });
  const listType = imports.use(typesModule, n.listType, { type: true });
  const resource = imports.use(
    importPath(path, apiFilePath(group.name, version.name, 'register.ts')),
    `${n.type}Resource`,
  );
  // the runtime types the kind's methods need, then the methods with their local names
  const needed = new Set(['ApplyConfigurationFor', 'ClientBackend']);
  for (const m of clientMethods(kind, ck.verbs, type, listType)) for (const t of m.runtimeTypes) needed.add(t);
  const local = new Map([...needed].sort(compareStrings).map((t) => [t, imports.use(runtime, t, { type: true })]));
  const runtimeName = (t: string): string => local.get(t) ?? t;
  const methods = clientMethods(kind, ck.verbs, type, listType, runtimeName);
  const typedClient = imports.use(runtime, 'TypedResourceClient');
  assertUniqueNames(path, imports.localNames());
  const namespaced = kind.scope === 'Namespaced';
  const getterParams = namespaced ? ['namespace: string'] : [];
  return renderCode('clientset', 'typed-resource', {
    header: generatedHeader(kindSources([kind], ctx.sources)),
    imports: importLines(imports),
    rtBackend: runtimeName('ClientBackend'),
    clientField: atColumn((w) =>
      typeArgsLine(
        w,
        `readonly #client: ${typedClient}`,
        [type, listType, `${runtimeName('ApplyConfigurationFor')}<${type}>`, tsString(kind.scope)],
        ';',
      ),
    ),
    clientInit: atColumn((w) =>
      callLine(w, `this.#client = new ${typedClient}`, ['backend', resource, 'namespace'], ';'),
    ),
    getterSignature: atColumn((w) => callLine(w, n.pluralAccessor, getterParams, `: ${n.type}Interface;`)),
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
        signature: atColumn((w) => signatureLine(w, m.name, params, m.returns, ';')),
        head: atColumn((w) => signatureLine(w, m.name, params, m.returns, ' {')),
        body: atColumn((w) =>
          callLine(w, `return this.#client.${m.name}`, m.args === '' ? [] : m.args.split(', '), ';'),
        ),
      };
    }),
  });
}

/**
 * One entry of the clientset's `validators` table at `indentWidth`: `"g/v/Kind": async () => { import … }`,
 * with the arrow function below the key when the key line does not fit (prettier's layout).
 */
function validatorEntry(indentWidth: number, key: string, from: string, validate: string, defaults: string): string {
  const moved = !fitsLine(indentWidth, `${key}: async () => {`);
  const at = ' '.repeat(indentWidth);
  const pad = moved ? `${at}  ` : at;
  const head = moved ? `${at}${key}:\n${pad}async () => {` : `${at}${key}: async () => {`;
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
  const files: GeneratedFile[] = [];
  const runtime = ctx.runtimeImport;
  const byGv = clientKinds(model, ctx.client, false, (g) => emitsShared(ctx) || emitsGroup(ctx, g));
  const gvs: { accessor: string; groupVersionType: string; apiVersion: string; path: string }[] = [];
  for (const gv of byGv) {
    const clientPath = typedClientPath(gv.group.name, gv.version.name, 'client.ts');
    gvs.push({
      accessor: gv.names.groupVersionAccessor,
      groupVersionType: gv.names.groupVersionType,
      apiVersion: apiVersionOf(gv.group.name, gv.version.name),
      path: clientPath,
    });
    if (!emitsGroup(ctx, gv.group.name)) continue;
    for (const ck of gv.kinds) {
      const path = typedClientPath(gv.group.name, gv.version.name, ck.names.fileName);
      files.push({ path, contents: renderTypedResource(ck, ctx, path) });
    }
    const imports = new ImportTracker([`${gv.names.groupVersionType}Interface`, `${gv.names.groupVersionType}Client`]);
    imports.use(runtime, 'ClientBackend', { type: true });
    for (const ck of gv.kinds) {
      const module = importPath(clientPath, typedClientPath(gv.group.name, gv.version.name, ck.names.fileName));
      imports.use(module, `${ck.names.type}Client`);
      imports.use(module, `${ck.names.type}Interface`, { type: true });
      imports.use(module, `${ck.names.plural}Getter`, { type: true });
    }
    assertUniqueNames(clientPath, imports.localNames());
    const kinds = gv.kinds.map((ck) => ({
      getterDoc: getterDoc(ck),
      head: atColumn((w) =>
        callLine(
          w,
          ck.names.pluralAccessor,
          ck.kind.scope === 'Namespaced' ? ['namespace: string'] : [],
          `: ${ck.names.type}Interface {`,
        ),
      ),
      body: atColumn((w) =>
        callLine(
          w,
          `return new ${ck.names.type}Client`,
          ['this.#backend', ck.kind.scope === 'Namespaced' ? 'namespace' : '""'],
          ';',
        ),
      ),
    }));
    files.push({
      path: clientPath,
      contents: renderCode('clientset', 'group-client', {
        header: generatedHeader(
          kindSources(
            gv.kinds.map((ck) => ck.kind),
            ctx.sources,
          ),
        ),
        imports: importLines(imports),
        groupVersionType: gv.names.groupVersionType,
        apiVersion: apiVersionOf(gv.group.name, gv.version.name),
        interfaceDecl: atColumn((w) =>
          interfaceExtends(
            w,
            `export interface ${gv.names.groupVersionType}Interface`,
            gv.kinds.map((ck) => `${ck.names.plural}Getter`),
            '{}',
          ),
        ),
        kinds,
      }),
    });
  }
  if (gvs.length > 0 && emitsShared(ctx)) {
    const path = 'clientset/clientset.ts';
    const imports = new ImportTracker(['Clientset', 'ClientsetInterface', 'ClientsetOptions', 'validators']);
    for (const v of [
      'defaultFieldManager',
      'loadConfig',
      'restBackend',
      'isClientBackend',
      'validatingBackend',
      'withFieldManager',
    ])
      imports.use(runtime, v);
    for (const t of ['ClientBackend', 'KindValidator', 'LoadConfigOptions', 'RestConfig'])
      imports.use(runtime, t, { type: true });
    for (const g of gvs) {
      imports.use(importPath(path, g.path), `${g.groupVersionType}Client`);
      imports.use(importPath(path, g.path), `${g.groupVersionType}Interface`, { type: true });
    }
    assertUniqueNames(path, imports.localNames());
    assertUniqueNames(`${path} (accessors)`, [
      'backend',
      'fieldManager',
      'fromKubeConfig',
      ...gvs.map((g) => g.accessor),
    ]);
    files.push({
      path,
      contents: renderCode('clientset', 'clientset', {
        header: generatedHeader(ctx.sources),
        imports: importLines(imports),
        groupVersions: gvs.map((g) => ({
          ...g,
          init: atColumn((w) =>
            callLine(w, `this.#${g.accessor} = new ${g.groupVersionType}Client`, ['this.backend'], ';'),
          ),
        })),
        validators: byGv.flatMap((gv) =>
          gv.kinds.map((ck) => ({
            entry: atColumn((w) =>
              validatorEntry(
                w,
                tsString(`${gv.group.name}/${gv.version.name}/${ck.kind.kind}`),
                tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'validation.ts'))),
                safeIdentifier(`validate${typeName(ck.kind)}`),
                safeIdentifier(`default${typeName(ck.kind)}`),
              ),
            ),
          })),
        ),
      }),
    });
  }
  return files;
};
