// The generators' names and facts, without their code: what `--help`, `--generators` and the
// config check need, so that those load no emitter, template or schema compiler. The emitters
// themselves are joined to these entries in registry.ts (same order).

/** What the inputs of a run are: CRD YAML, annotated TypeScript, or Kubernetes OpenAPI v3 documents. */
export type InputKind = 'yaml' | 'ts' | 'openapi';

/** A generator as the CLI lists and selects it. `name` is what `--generators` style selections use. */
export interface GeneratorInfo {
  name: string;
  /** One line for `--help` listings. */
  description: string;
  /** Not run by default; only when selected by name (`--generators …,crd`) or default for the input ({@link GeneratorInfo.defaultFor}). */
  optIn?: boolean;
  /**
   * Input kinds for which an opt-in generator runs by default all the same: `crd` for
   * TypeScript input, whose CRD is what the user must install (CRD YAML input has its CRD).
   */
  defaultFor?: readonly InputKind[];
  /** Generators whose files this one's output imports; selecting it selects them too. */
  requires?: readonly string[];
}

/** All generators in their fixed run order. */
export const GENERATORS: readonly GeneratorInfo[] = [
  { name: 'types', description: 'typed interfaces per group/version (apis/<group>/<version>/types.ts)' },
  {
    name: 'deepcopy',
    description: 'lossless deepCopy<Type> functions (apis/<group>/<version>/deepcopy.ts)',
    requires: ['types'],
  },
  {
    name: 'register',
    description: 'group/version/kind constants and type guards (apis/<group>/<version>/register.ts)',
    requires: ['types'],
  },
  {
    name: 'validators',
    description:
      'validate<Kind>/default<Kind> from the embedded schema, as the apiserver checks (apis/<group>/<version>/validation.ts)',
    requires: ['types'],
  },
  {
    name: 'clientset',
    description: 'typed clientset: Clientset → coolopsV1alpha1() → databaseManagers(ns) (clientset/)',
    requires: ['types', 'register', 'validators'],
  },
  {
    name: 'fake',
    description: 'fake clientset over an in-memory tracker, with actions and reactors (clientset/fake/)',
    requires: ['clientset'],
  },
  { name: 'listers', description: 'listers over informer caches (listers/<group>/<version>/)', requires: ['types'] },
  {
    name: 'informers',
    description: 'SharedInformerFactory and typed informers (informers/)',
    requires: ['clientset', 'listers', 'register'],
  },
  {
    name: 'applyconfig',
    description: 'server-side apply configurations per kind (applyconfigurations/<group>/<version>/)',
    requires: ['types'],
  },
  {
    name: 'controller',
    description: 'operator for the kinds named by --controller: reconcile loop, main, manifests (controllers/<kind>/)',
    requires: ['clientset', 'informers', 'listers', 'deepcopy', 'register'],
  },
  {
    name: 'webhooks',
    description:
      "with --webhooks: the operators' admission and conversion webhooks, their tests and manifests (controllers/<kind>/webhooks.ts, admission.ts, conversion*.ts, config/webhook/, config/certmanager/; runs with controller)",
    requires: ['types', 'validators'],
  },
  {
    name: 'crd',
    description:
      'CustomResourceDefinition YAML per kind (config/crd/<plural>.<group>.yaml; by default for TypeScript input)',
    optIn: true,
    defaultFor: ['ts'],
  },
];

/** The writer's rule for an output path (src/emit/file.ts); the registry checks every emitter's paths with it. */
export { isSafeOutputPath } from '../emit/file.js';
