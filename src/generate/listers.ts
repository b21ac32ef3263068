// Output: listers/<group>/<version>/<kind>.ts — `export interface DatabaseManagerLister { list(selector?); databaseManagers(namespace) }`,
// `DatabaseManagerNamespaceLister { list(selector?); get(name) }` (cluster kinds: `get`/`list` directly) and `newDatabaseManagerLister(indexer)`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { tsString } from '../model/naming.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { checkClientOptions } from './client-options.js';
import { assertUniqueNames, clientKinds } from './client-kinds.js';
import { runtimeAliases } from './clientset.js';
import { callLine, importDecl, propertyLine, signatureLine } from './layout.js';

/** `listers/<group>/<version>/<file>`. */
export function listerPath(group: string, version: string, file: string): string {
  return `listers/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

/** The listers emitter: one file per kind that can list and watch. */
export const listers: Emitter = (model: Model, ctx) => {
  checkClientOptions(model, ctx.client);
  const files: GeneratedFile[] = [];
  for (const gv of clientKinds(model, ctx.client, true)) {
    for (const ck of gv.kinds) {
      const n = ck.names;
      const path = listerPath(gv.group.name, gv.version.name, n.fileName);
      const namespaced = ck.kind.scope === 'Namespaced';
      const own = [n.type, `${n.type}Lister`, `new${n.type}Lister`, ...(namespaced ? [`${n.type}NamespaceLister`] : [])];
      const rt = runtimeAliases(['ResourceLister', 'IndexerReader', 'Selector', 'Stored'], own);
      assertUniqueNames(path, [...own, ...['ResourceLister', 'IndexerReader', 'Selector', 'Stored'].map(rt.alias)]);
      // cached objects are as the server returned them: name, namespace, uid, resourceVersion present
      const stored = `${rt.alias('Stored')}<${n.type}, ${tsString(ck.kind.scope)}>`;
      files.push({
        path,
        contents: render('listers', namespaced ? 'lister-namespaced' : 'lister-cluster', {
          header: generatedHeader(ctx.sources),
          imports: [
            importDecl([rt.specifiers(['ResourceLister']), ...['IndexerReader', 'Selector', 'Stored'].map((x) => `type ${rt.specifiers([x])}`)], tsString(ctx.runtimeImport)),
            importDecl([n.type], tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts'))), true),
          ].join('\n'),
          listSignature: signatureLine(2, 'list', [`selector?: ${rt.alias('Selector')} | string`], `${stored}[]`, ';'),
          getSignature: signatureLine(2, 'get', ['name: string'], stored, ';'),
          namespaceSignature: callLine(2, n.pluralAccessor, ['namespace: string'], `: ${n.type}NamespaceLister;`),
          newHead: signatureLine(0, `export function new${n.type}Lister`, [`indexer: ${rt.alias('IndexerReader')}<${stored}>`], `${n.type}Lister`, ' {'),
          groupLine: propertyLine(4, 'group', tsString(gv.group.name)),
          resourceLine: propertyLine(4, 'resource', tsString(ck.kind.kind.toLowerCase())),
          listerLine: callLine(2, `const lister = new ${rt.alias('ResourceLister')}`, ['indexer', 'resource'], ';'),
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
