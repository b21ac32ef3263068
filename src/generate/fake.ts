// Output: clientset/fake/clientset.ts — `export function createFakeClientset(...objects): FakeClientset`, the generated
// Clientset over crdgen/runtime's in-memory tracker, with `actions()`, `prependReactor`, `addReactor`, `prependWatchReactor`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode } from '../emit/code.js';
import { importPath } from '../emit/ts-text.js';
import { privateName } from '../model/naming.js';
import { emitsShared, type Emitter } from './emitter.js';
import { importLines, scalarArray } from './layout.js';
import { apiFilePath } from './paths.js';
import { assertUniqueNames, clientKinds } from './client-kinds.js';

/** The fake clientset emitter (needs the clientset emitter's `clientset/clientset.ts`). */
export const fake: Emitter = (model: Model, ctx) => {
  if (!emitsShared(ctx)) return [];
  const gvs = clientKinds(model, ctx.client);
  if (gvs.length === 0) return [];
  const path = 'clientset/fake/clientset.ts';
  const imports = new ImportTracker(['FakeClientset', 'createFakeClientset', 'fakeResources']);
  const runtime = ctx.runtimeImport;
  imports.use(runtime, 'FakeClientBackend');
  for (const t of ['Action', 'ActionVerb', 'KubeObject', 'ObjectTracker', 'ReactionFunc', 'WatchReactionFunc'])
    imports.use(runtime, t, { type: true });
  const trackedResource = imports.use(runtime, 'TrackedResource', { type: true });
  imports.use(importPath(path, 'clientset/clientset.ts'), 'Clientset');
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
  return [
    {
      path,
      contents: renderCode('fake', 'clientset', {
        header: generatedHeader(ctx.sources),
        imports: importLines(imports),
        resourceList: atColumn(
          (w) =>
            ' '.repeat(w) +
            scalarArray(w, `export const fakeResources: readonly ${trackedResource}[] = `, resources, ';', false),
        ),
      }),
    },
  ];
};
