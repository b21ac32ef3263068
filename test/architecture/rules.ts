// The dependency rules of src/: which layer may import which (ARCHITECTURE.md explains them).
// imports.test.ts checks every import of src/ against them, in the spirit of Kubernetes'
// import-boss: a wrong import fails with the rule it breaks. Every file of src/ belongs to a
// layer (the longest matching prefix); a file in none fails too, so a new folder gets a rule.
// An import inside one layer is always allowed. Type-only and dynamic imports count. Inside the
// runtime, its folders form no cycle (ACYCLIC_FOLDERS).

export interface Layer {
  /** Short name used in `may` and in messages. */
  name: string;
  /** Path prefixes (a folder ends with `/`) or exact files, relative to the repository root. */
  paths: readonly string[];
  /** The layers this one may import, besides itself. */
  may: readonly string[];
  /** Single files of other layers this one may import, with the reason (kept to a minimum). */
  files?: readonly { path: string; why: string }[];
  /** npm packages this layer must not import (the runtime ships without the generator's). */
  forbiddenPackages?: readonly string[];
  /** What the layer is, for messages. */
  role: string;
}

/** Packages only the generator uses; the runtime and the test server must not load them. */
export const GENERATOR_PACKAGES = [
  'typescript',
  'ts-morph',
  'handlebars',
  'prettier',
  'commander',
  'esbuild',
  'jsonc-parser',
];

export const LAYERS: readonly Layer[] = [
  {
    name: 'cli',
    paths: ['src/cli/'],
    role: 'the command line: runs readers, emitters and the writer',
    may: [
      'api',
      'config',
      'readers',
      'emitters',
      'emit',
      'model',
      'diagnostics',
      'runtime',
      'runtime/validation',
      'testing',
    ],
  },
  {
    name: 'api',
    paths: ['src/index.ts'],
    role: "the package's library entry (`crdgen`)",
    may: ['config', 'readers', 'emitters', 'emit', 'model', 'diagnostics'],
  },
  {
    name: 'config',
    paths: ['src/config/'],
    role: 'crdgen.config.* files',
    may: ['model', 'diagnostics'],
  },
  {
    name: 'readers',
    paths: ['src/input/'],
    role: 'readers: inputs → model',
    may: ['model', 'diagnostics', 'runtime/validation'],
    // The CRD checker judges x-kubernetes-validations rules as kube-apiserver does on CRD create: it
    // compiles them with the runtime's CEL engine, through this one door. The door is CEL's, in
    // src/runtime/cel: validation does not import CEL (test/architecture: no cycle between runtime folders).
    files: [
      {
        path: 'src/runtime/cel/crd-rules.ts',
        why: "the CRD checker's door to the CEL engine (type-check, program and cost of each rule)",
      },
    ],
  },
  {
    name: 'emitters',
    paths: ['src/generate/'],
    role: 'emitters: model → files',
    // The runtime is what generated code stands on: emitters may use its types and its schema
    // compiler (validators are precompiled at generation time), never a reader or the test server.
    may: ['model', 'emit', 'diagnostics', 'runtime', 'runtime/validation'],
  },
  {
    name: 'emit',
    paths: ['src/emit/'],
    role: 'emit helpers and the writer (templates, formatting, header, files on disk)',
    may: ['model', 'diagnostics'],
  },
  {
    name: 'model',
    paths: ['src/model/'],
    role: 'the model every reader builds and every emitter reads, and its one JSON writer',
    may: [],
  },
  {
    name: 'diagnostics',
    paths: ['src/diagnostics/'],
    role: 'the diagnostic type and its one code catalogue',
    may: [],
  },
  {
    name: 'runtime/validation',
    paths: ['src/runtime/validation/'],
    role: "the runtime's schema and CEL validation (crdgen/runtime/validation)",
    may: ['runtime'],
    forbiddenPackages: GENERATOR_PACKAGES,
  },
  {
    name: 'runtime',
    paths: ['src/runtime/'],
    role: 'what generated code imports (crdgen/runtime)',
    may: ['runtime/validation'],
    forbiddenPackages: GENERATOR_PACKAGES,
  },
  {
    name: 'types',
    paths: ['src/types/'],
    role: 'crdgen/types, the types annotated TypeScript input imports',
    may: ['runtime'],
    forbiddenPackages: GENERATOR_PACKAGES,
  },
  {
    name: 'testing',
    paths: ['src/testing/'],
    role: 'the in-process API server (crdgen/testing)',
    may: ['runtime', 'runtime/validation'],
    // The test server validates a CRD as kube-apiserver does; so does the CRD reader (crdgen generate
    // refuses what the apiserver refuses). That check is written once, the CRD checker, and its entry
    // is loaded lazily by the test server. Nothing else of the generator.
    files: [
      {
        path: 'src/input/crd/check.ts',
        why: "the one CRD checker (kube-apiserver's verdict on a CRD), shared with the CRD reader",
      },
      { path: 'src/input/crd/yaml-fast.ts', why: 'the fast YAML loader of the CRD reader' },
    ],
    forbiddenPackages: GENERATOR_PACKAGES,
  },
];

/**
 * Folders whose subfolders are rooms that depend on one another in one direction only: no two of
 * them import each other, directly or through others (a file directly in the folder counts as a
 * room of its own). The package's entry points under it (package.json "exports") assemble the rooms
 * and belong to none; no room imports one. imports.test.ts checks it.
 */
export const ACYCLIC_FOLDERS: readonly string[] = ['src/runtime/'];

/** Extra advice for a broken rule, by `from→to` layer names. */
export const HINTS: Readonly<Record<string, string>> = {
  'readers→emit':
    'what readers and emitters share belongs in src/model (order.ts: compareStrings, generated.ts: the generated-file marker)',
  'readers→emitters':
    'what readers and emitters share belongs in src/model (the schema and CRD JSON writers: schema-json.ts, crd-json.ts)',
  'emitters→readers': 'reading inputs and running emitters is a pipeline: it belongs in src/cli (as pipeline.ts does)',
  'emit→emitters':
    "what the writer needs of an emitter's output is in src/emit/file.ts (GeneratedFile, isSafeOutputPath)",
  'diagnostics→readers': 'every diagnostic code is listed in src/diagnostics/codes.ts itself',
  'diagnostics→config': 'every diagnostic code is listed in src/diagnostics/codes.ts itself',
  'runtime→testing': 'the runtime is imported by generated code and must not need the test server',
  'testing→readers':
    'the test server may import the runtime (and the few shared CRD checks listed in test/architecture/rules.ts)',
};

/**
 * Rooms inside the runtime whose edges are held too: who may import the room (`importedBy`,
 * path prefixes or files), and which runtime folders the room itself must not import.
 */
export interface RuntimeRoom {
  name: string;
  path: string;
  importedBy: readonly string[];
  mustNotImport: readonly string[];
  why: string;
}

export const RUNTIME_ROOMS: readonly RuntimeRoom[] = [
  {
    name: 'sharding',
    path: 'src/runtime/sharding/',
    // the manager runs a shard and its sharder; the controller asks the shard before each
    // reconcile; the operator's flags and metrics configure it; the entry point exports it
    importedBy: [
      'src/runtime/sharding/',
      'src/runtime/manager/manager.ts',
      'src/runtime/controller/controller.ts',
      'src/runtime/operator/',
      'src/runtime/index.ts',
    ],
    // below the manager: it stands on leases, informers, the client and the workqueue, not on controllers
    mustNotImport: ['src/runtime/manager/', 'src/runtime/builder/', 'src/runtime/reconcile/'],
    why: 'sharding is a room below the manager: Leases, labels and label-selected caches',
  },
];
