// Output: applyconfigurations/<group>/<version>/<kind>.ts — `export type DatabaseManagerApplyConfiguration` (every field
// optional, deeply; identity required) and `databaseManager(name, namespace)` building one, as applyconfiguration-gen does.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { tsString } from '../model/naming.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { checkClientOptions } from './client-options.js';
import { assertUniqueNames, clientKinds } from './client-kinds.js';
import { assignLine, callLine, importDecl, propertyLine } from './layout.js';

/** `applyconfigurations/<group>/<version>/<file>`. */
export function applyConfigPath(group: string, version: string, file: string): string {
  return `applyconfigurations/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

/** The apply-configuration emitter: one file per kind whose client has `apply`. */
export const applyconfig: Emitter = (model: Model, ctx) => {
  checkClientOptions(model, ctx.client);
  const files: GeneratedFile[] = [];
  for (const gv of clientKinds(model, ctx.client)) {
    for (const ck of gv.kinds) {
      if (!ck.verbs.includes('apply') && !ck.verbs.includes('applyStatus')) continue;
      const n = ck.names;
      const path = applyConfigPath(gv.group.name, gv.version.name, n.fileName);
      const namespaced = ck.kind.scope === 'Namespaced';
      const ctor = n.singularAccessor;
      const apiVersion = gv.group.name === '' ? gv.version.name : `${gv.group.name}/${gv.version.name}`;
      assertUniqueNames(path, ['ApplyConfigurationFor', n.type, `${n.type}ApplyConfiguration`, ctor]);
      files.push({
        path,
        contents: render('applyconfig', 'applyconfig', {
          header: generatedHeader(ctx.sources),
          imports: [
            importDecl(['ApplyConfigurationFor'], tsString(ctx.runtimeImport), true),
            importDecl(
              [n.type],
              tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts'))),
              true,
            ),
          ].join('\n'),
          typeLine: assignLine(0, `export type ${n.type}ApplyConfiguration`, `ApplyConfigurationFor<${n.type}>`),
          head: callLine(
            0,
            `export function ${ctor}`,
            namespaced ? ['name: string', 'namespace: string'] : ['name: string'],
            `: ${n.type}ApplyConfiguration {`,
          ),
          apiVersionLine: propertyLine(4, 'apiVersion', tsString(apiVersion)),
          kindLine: propertyLine(4, 'kind', tsString(ck.kind.kind)),
          type: n.type,
          apiVersion,
          scope: namespaced ? 'namespaced' : 'cluster-scoped',
          metadata: namespaced ? '{ name, namespace }' : '{ name }',
        }),
      });
    }
  }
  return files;
};
