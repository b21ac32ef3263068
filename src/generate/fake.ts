// Output: clientset/fake/clientset.ts — `export function createFakeClientset(...objects): FakeClientset`, the generated
// Clientset over crdgen/runtime's in-memory tracker, with `actions()`, `prependReactor`, `addReactor`, `prependWatchReactor`.
import type { Model } from '../model/types.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { importPath } from '../emit/ts-text.js';
import { privateName, tsString } from '../model/naming.js';
import type { Emitter } from './emitter.js';
import { importDecl, scalarArray } from './layout.js';
import { apiFilePath } from './paths.js';
import { checkClientOptions } from './client-options.js';
import { assertUniqueNames, clientKinds } from './client-kinds.js';

/** The fake clientset emitter (needs the clientset emitter's `clientset/clientset.ts`). */
export const fake: Emitter = (model: Model, ctx) => {
  checkClientOptions(model, ctx.client);
  const gvs = clientKinds(model, ctx.client);
  if (gvs.length === 0) return [];
  const path = 'clientset/fake/clientset.ts';
  const resources = gvs.flatMap((gv) =>
    gv.kinds.map((ck) => ({
      type: ck.names.type,
      alias: `${privateName(gv.names.groupVersionType)}${ck.names.type}Resource`,
      import: tsString(importPath(path, apiFilePath(gv.group.name, gv.version.name, 'register.ts'))),
    })),
  );
  assertUniqueNames(path, [
    'FakeClientBackend',
    'Action',
    'ActionVerb',
    'KubeObject',
    'ObjectTracker',
    'ReactionFunc',
    'TrackedResource',
    'WatchReactionFunc',
    'Clientset',
    'FakeClientset',
    'createFakeClientset',
    'fakeResources',
    ...resources.map((r) => r.alias),
  ]);
  return [
    {
      path,
      contents: render('fake', 'clientset', {
        header: generatedHeader(ctx.sources),
        imports: [
          importDecl(
            [
              'FakeClientBackend',
              'type Action',
              'type ActionVerb',
              'type KubeObject',
              'type ObjectTracker',
              'type ReactionFunc',
              'type TrackedResource',
              'type WatchReactionFunc',
            ],
            tsString(ctx.runtimeImport),
          ),
          importDecl(['Clientset'], tsString(importPath(path, 'clientset/clientset.ts'))),
          ...resources.map((r) => importDecl([`${r.type}Resource as ${r.alias}`], r.import)),
        ].join('\n'),
        resourceList: scalarArray(
          0,
          'export const fakeResources: readonly TrackedResource[] = ',
          resources.map((r) => r.alias),
          ';',
          false,
        ),
      }),
    },
  ];
};
