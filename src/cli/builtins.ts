// Output: src/runtime/builtin/ — the runtime's typed built-in kinds (`Deployment`, `Service`, …
// and `DeploymentResource: TypedResource<Deployment>`), generated from the committed OpenAPI v3
// document of the real kube-apiserver (schema/kubernetes/<version>/openapi-v3.json) by the types
// and register emitters, plus an index that names them for `crdgen/runtime`.
// `npm run builtins:update` writes them; test/unit/runtime/builtins.test.ts regenerates and compares.

import { readOpenApiInputs } from '../input/openapi/index.js';
import type { Model } from '../model/types.js';
import { GENERATED_HEADER, generatedHeader } from '../emit/header.js';
import { compareStrings } from '../model/order.js';
import { createEmitContext, type GeneratedFile } from '../generate/emitter.js';
import { types, versionDecls } from '../generate/types.js';
import { register } from '../generate/register.js';
import { apiFilePath, groupFolder } from '../generate/paths.js';
import { importDecl } from '../generate/layout.js';
import { tsString } from '../model/naming.js';

/** The Kubernetes version of the committed document the built-ins are generated from. */
export const BUILTIN_KUBERNETES_VERSION = 'v1.37.1';

/** The document, relative to the repository root. */
export const BUILTIN_SOURCE = `schema/kubernetes/${BUILTIN_KUBERNETES_VERSION}/openapi-v3.json`;

/** Where the built-ins go, relative to the repository root. */
export const BUILTIN_DIR = 'src/runtime/builtin';

/** The command that regenerates them. */
export const BUILTIN_COMMAND = 'npm run builtins:update';

/** The kinds an operator commonly owns or reads, as `group/version/Kind` (`v1/Kind` for the core group). */
export const BUILTIN_KINDS: readonly string[] = [
  'v1/ConfigMap',
  'v1/Event',
  'v1/Namespace',
  'v1/PersistentVolumeClaim',
  'v1/Pod',
  'v1/Secret',
  'v1/Service',
  'v1/ServiceAccount',
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'apps/v1/ReplicaSet',
  'apps/v1/StatefulSet',
  'batch/v1/CronJob',
  'batch/v1/Job',
  'coordination.k8s.io/v1/Lease',
  'events.k8s.io/v1/Event',
  'networking.k8s.io/v1/Ingress',
  'policy/v1/PodDisruptionBudget',
];

/**
 * Types the index also exports by name (the others through their version's namespace), from
 * the first group/version that declares them (core/v1 first): the ones controllers build owned
 * objects from.
 */
const NAMED_TYPES = [
  'Container',
  'ContainerPort',
  'EnvVar',
  'EnvVarSource',
  'LabelSelector',
  'LabelSelectorRequirement',
  'ObjectReference',
  'PodSpec',
  'PodTemplateSpec',
  'ResourceRequirements',
  'ServicePort',
  'ServiceSpec',
  'Volume',
  'VolumeMount',
];

/**
 * Where a generated file (`apis/<group>/<version>/…`, four folders below src/runtime) imports the
 * runtime's types from: src/runtime/meta/types.ts (ObjectMeta, ListMeta, TypedResource), not the
 * package's entry point, which imports every folder of the runtime, this one included.
 */
const RUNTIME_INDEX_FROM_APIS = '../../../../meta/types.js';

/** The header of a built-in file: the generated marker, the source with its Kubernetes version, the command. */
export function builtinHeader(): string {
  return `${GENERATED_HEADER}\n// Source: ${BUILTIN_SOURCE} (kube-apiserver ${BUILTIN_KUBERNETES_VERSION})\n// Regenerate: ${BUILTIN_COMMAND}\n\n`;
}

/** The namespace a group/version is exported as: `corev1`, `appsv1`, `networkingv1`, `eventsv1` (client-go's import names). */
export function builtinNamespace(group: string, version: string): string {
  return `${groupFolder(group)
    .split('.')[0]
    .replace(/[^A-Za-z0-9]/g, '')}${version}`;
}

/** The name a kind is exported as: itself, or — when two groups have a kind of that name — `CoreV1Event`, `EventsV1Event`. */
function exportedKindName(model: Model, group: string, version: string, kind: string): string {
  const clash =
    model.groups.flatMap((g) => g.versions.flatMap((v) => v.kinds.filter((k) => k.kind === kind))).length > 1;
  if (!clash) return kind;
  const ns = builtinNamespace(group, version);
  return `${ns[0].toUpperCase()}${ns.slice(1).replace(/v(\d)/, 'V$1')}${kind}`;
}

/** The built-ins' model: the selected kinds of the document. Throws when the document does not read. */
export function builtinModel(documentText: string): Model {
  const r = readOpenApiInputs([{ file: BUILTIN_SOURCE, content: documentText }], { kinds: BUILTIN_KINDS });
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0)
    throw new Error(`${BUILTIN_SOURCE}: ${errors.map((d) => `${d.code} ${d.message}`).join('; ')}`);
  return r.model;
}

/** The index: each kind, its list and its typed descriptor by name, a namespace per group/version, the common core/v1 types. */
function renderIndex(model: Model): string {
  const lines: string[] = [
    '// The typed built-in kinds of crdgen/runtime: each kind, its List and its typed resource',
    '// descriptor (`DeploymentResource: TypedResource<Deployment>`), every type of a group/version',
    '// under its namespace (`corev1.Probe`, `appsv1.DeploymentStrategy`) and the core/v1 types',
    '// controllers build owned objects from.',
  ];
  const namespaces: string[] = [];
  const declaring: Array<{ path: string; names: Set<string> }> = [];
  for (const g of model.groups) {
    for (const v of g.versions) {
      const types = `./${apiFilePath(g.name, v.name, 'types.js')}`;
      declaring.push({ path: types, names: new Set(versionDecls(g.name, v).map((d) => d.name)) });
      const reg = `./${apiFilePath(g.name, v.name, 'register.js')}`;
      const kinds = [...v.kinds].sort((a, b) => compareStrings(a.kind, b.kind));
      const typeNames = kinds.flatMap((k) => {
        const name = exportedKindName(model, g.name, v.name, k.kind);
        return name === k.kind ? [k.kind, k.listKind] : [`${k.kind} as ${name}`, `${k.listKind} as ${name}List`];
      });
      const resources = kinds.map((k) => {
        const name = exportedKindName(model, g.name, v.name, k.kind);
        return name === k.kind ? `${k.kind}Resource` : `${k.kind}Resource as ${name}Resource`;
      });
      lines.push(
        '',
        importDecl(typeNames, tsString(types), true).replace(/^import/, 'export'),
        importDecl(resources, tsString(reg)).replace(/^import/, 'export'),
      );
      namespaces.push(`export * as ${builtinNamespace(g.name, v.name)} from ${tsString(types)};`);
    }
  }
  const named = new Map<string, string[]>();
  for (const t of NAMED_TYPES) {
    const home = declaring.find((d) => d.names.has(t));
    if (!home) throw new Error(`no built-in group/version declares ${t}`);
    named.set(home.path, [...(named.get(home.path) ?? []), t]);
  }
  for (const [path, names] of named)
    lines.push('', importDecl(names.sort(compareStrings), tsString(path), true).replace(/^import/, 'export'));
  lines.push('', ...namespaces, '');
  return `${builtinHeader()}${lines.join('\n')}`;
}

/**
 * The built-in files, paths relative to {@link BUILTIN_DIR}: `apis/<group>/<version>/types.ts`
 * and `register.ts` of each selected kind's group/version, and `index.ts`.
 */
export function builtinFiles(documentText: string): GeneratedFile[] {
  const model = builtinModel(documentText);
  const ctx = createEmitContext({ sources: model.sources, runtimeImport: RUNTIME_INDEX_FROM_APIS });
  const plain = generatedHeader([BUILTIN_SOURCE]);
  const files = [...types(model, ctx), ...register(model, ctx)].map((f) => {
    if (!f.contents.startsWith(plain)) throw new Error(`${f.path}: unexpected header`);
    return { path: f.path, contents: builtinHeader() + f.contents.slice(plain.length) };
  });
  files.push({ path: 'index.ts', contents: renderIndex(model) });
  return files.sort((a, b) => compareStrings(a.path, b.path));
}
