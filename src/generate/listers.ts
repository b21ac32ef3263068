// Output: listers/<group>/<version>/<kind>.ts — `export interface DatabaseManagerLister { list(selector?); databaseManagers(namespace) }`,
// `DatabaseManagerNamespaceLister { list(selector?); get(name) }` (cluster kinds: `get`/`list` directly) and `newDatabaseManagerLister(indexer)`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { tsString } from '../model/naming.js';
import { emitsGroup, type Emitter, type GeneratedFile } from './emitter.js';
import { kindSources } from './walk.js';
import { apiFilePath } from './paths.js';
import { assertUniqueNames, clientKinds } from './client-kinds.js';
import { callLine, importLines, propertyLine, signatureLine } from './layout.js';

/** `listers/<group>/<version>/<file>`. */
export function listerPath(group: string, version: string, file: string): string {
  return `listers/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

/** The listers emitter: one file per kind that can list and watch. */
export const listers: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const gv of clientKinds(model, ctx.client, true, (g) => emitsGroup(ctx, g))) {
    for (const ck of gv.kinds) {
      const n = ck.names;
      const path = listerPath(gv.group.name, gv.version.name, n.fileName);
      const namespaced = ck.kind.scope === 'Namespaced';
      const runtime = ctx.runtimeImport;
      const typesModule = importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts'));
      const declared = [`${n.type}Lister`, `new${n.type}Lister`, ...(namespaced ? [`${n.type}NamespaceLister`] : [])];
      const imports = new ImportTracker(declared, {
        aliasPrefixes: { [runtime]: 'Runtime' },
      });
      const type = imports.use(typesModule, n.type, { type: true }); // first: a runtime name equal to the kind's is aliased
      const resourceLister = imports.use(runtime, 'ResourceLister');
      const indexerReader = imports.use(runtime, 'IndexerReader', { type: true });
      const selector = imports.use(runtime, 'Selector', { type: true });
      // cached objects are as the server returned them: name, namespace, uid, resourceVersion present
      const stored = `${imports.use(runtime, 'Stored', { type: true })}<${type}, ${tsString(ck.kind.scope)}>`;
      assertUniqueNames(path, imports.localNames());
      files.push({
        path,
        contents: renderCode('listers', namespaced ? 'lister-namespaced' : 'lister-cluster', {
          header: generatedHeader(kindSources([ck.kind], ctx.sources)),
          imports: importLines(imports),
          listSignature: atColumn((w) =>
            signatureLine(w, 'list', [`selector?: ${selector} | string`], `${stored}[]`, ';'),
          ),
          getSignature: atColumn((w) => signatureLine(w, 'get', ['name: string'], stored, ';')),
          namespaceSignature: atColumn((w) =>
            callLine(w, n.pluralAccessor, ['namespace: string'], `: ${n.type}NamespaceLister;`),
          ),
          newHead: atColumn((w) =>
            signatureLine(
              w,
              `export function new${n.type}Lister`,
              [`indexer: ${indexerReader}<${stored}>`],
              `${n.type}Lister`,
              ' {',
            ),
          ),
          groupLine: atColumn((w) => propertyLine(w, 'group', tsString(gv.group.name))),
          resourceLine: atColumn((w) => propertyLine(w, 'resource', tsString(ck.kind.kind.toLowerCase()))),
          listerLine: atColumn((w) =>
            callLine(w, `const lister = new ${resourceLister}`, ['indexer', 'resource'], ';'),
          ),
          type: n.type,
          pluralType: n.plural,
          pluralAccessor: n.pluralAccessor,
          apiVersion: gv.group.name === '' ? gv.version.name : `${gv.group.name}/${gv.version.name}`,
        }),
      });
    }
  }
  return files;
};
