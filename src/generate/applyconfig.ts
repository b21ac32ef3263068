// Output: applyconfigurations/<group>/<version>/<kind>.ts — `export type DatabaseManagerApplyConfiguration` (every field
// optional, deeply; identity required) and `databaseManager(name, namespace)` building one, as applyconfiguration-gen does.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { tsString } from '../model/naming.js';
import { emitsGroup, type Emitter, type GeneratedFile } from './emitter.js';
import { kindSources } from './walk.js';
import { apiFilePath } from './paths.js';
import { assertUniqueNames, clientKinds } from './client-kinds.js';
import { assignLine, callLine, importLines, propertyLine } from './layout.js';

/** `applyconfigurations/<group>/<version>/<file>`. */
export function applyConfigPath(group: string, version: string, file: string): string {
  return `applyconfigurations/${apiFilePath(group, version, file).slice('apis/'.length)}`;
}

/** The apply-configuration emitter: one file per kind whose client has `apply`. */
export const applyconfig: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const gv of clientKinds(model, ctx.client, false, (g) => emitsGroup(ctx, g))) {
    for (const ck of gv.kinds) {
      if (!ck.verbs.includes('apply') && !ck.verbs.includes('applyStatus')) continue;
      const n = ck.names;
      const path = applyConfigPath(gv.group.name, gv.version.name, n.fileName);
      const namespaced = ck.kind.scope === 'Namespaced';
      const ctor = n.singularAccessor;
      const apiVersion = gv.group.name === '' ? gv.version.name : `${gv.group.name}/${gv.version.name}`;
      const imports = new ImportTracker([`${n.type}ApplyConfiguration`, ctor]);
      const type = imports.use(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'types.ts')), n.type, {
        type: true,
      });
      const applyConfigurationFor = imports.use(ctx.runtimeImport, 'ApplyConfigurationFor', { type: true });
      assertUniqueNames(path, imports.localNames());
      files.push({
        path,
        contents: renderCode('applyconfig', 'applyconfig', {
          header: generatedHeader(kindSources([ck.kind], ctx.sources)),
          imports: importLines(imports),
          typeLine: atColumn((w) =>
            assignLine(w, `export type ${n.type}ApplyConfiguration`, `${applyConfigurationFor}<${type}>`),
          ),
          head: atColumn((w) =>
            callLine(
              w,
              `export function ${ctor}`,
              namespaced ? ['name: string', 'namespace: string'] : ['name: string'],
              `: ${n.type}ApplyConfiguration {`,
            ),
          ),
          apiVersionLine: atColumn((w) => propertyLine(w, 'apiVersion', tsString(apiVersion))),
          kindLine: atColumn((w) => propertyLine(w, 'kind', tsString(ck.kind.kind))),
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
