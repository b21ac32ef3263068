// The dependency directions of src/ (test/architecture/rules.ts, ARCHITECTURE.md) hold for every
// import, and the checker catches a forbidden one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkImports, folderCycles, importsOf, layerOf, type ImportEdge } from './import-graph.js';
import { ACYCLIC_FOLDERS, HINTS, LAYERS } from './rules.js';

const repo = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(repo, dir)).sort()) {
    const p = `${dir}/${e}`;
    if (statSync(join(repo, p)).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|tsx|mts)$/.test(e)) out.push(p);
  }
  return out;
}

const files = sources('src');
const texts = new Map(files.map((f) => [f, readFileSync(join(repo, f), 'utf8')]));
const onDisk = (p: string) => {
  try {
    return statSync(join(repo, ...p.split('/'))).isFile();
  } catch {
    return false;
  }
};
/** The imports of `sources` (path → text), resolved against src/ and `added` (files that exist only in memory). */
const graph = (sources: Iterable<[string, string]>, added: Record<string, string> = {}): ImportEdge[] => {
  const exists = (p: string) => texts.has(p) || Object.hasOwn(added, p) || onDisk(p);
  return [...sources].flatMap(([f, text]) => importsOf(f, text, exists));
};
const edges = graph(texts);

test('every import of src/ follows the dependency rules (test/architecture/rules.ts)', () => {
  const violations = checkImports(edges, LAYERS, HINTS);
  assert.deepEqual(
    violations.map((v) => v.message),
    [],
  );
});

/** The package's entry points (package.json "exports"), as the source files they are built from. */
const entryPoints = (() => {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { default?: string }>;
  };
  return Object.values(pkg.exports)
    .map((e) => (typeof e === 'string' ? e : e.default))
    .filter((p): p is string => typeof p === 'string' && p.startsWith('./dist/'))
    .map((p) => p.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
})();

test('the runtime is rooms in one direction: no two folders of src/runtime import each other, directly or through others', () => {
  assert.ok(entryPoints.includes('src/runtime/index.ts') && entryPoints.includes('src/runtime/validation/index.ts'));
  for (const e of entryPoints) assert.ok(texts.has(e), `the entry point ${e} is a source file`);
  assert.deepEqual(
    ACYCLIC_FOLDERS.flatMap((root) => folderCycles(edges, root, entryPoints)),
    [],
  );
});

test('a cycle between runtime folders fails, naming the imports that close it; so does a folder importing the entry point', () => {
  const extra = {
    'src/runtime/log/bad.ts':
      "import type { OperatorSpec } from '../operator/run.js';\nexport type S = OperatorSpec;\n",
    'src/runtime/cache/bad-entry.ts': "export { Manager } from '../index.js';\n",
  };
  const found = folderCycles([...edges, ...graph(Object.entries(extra), extra)], 'src/runtime/', entryPoints);
  assert.equal(found.length, 2, found.join('\n'));
  assert.equal(
    found[0],
    "src/runtime/cache/bad-entry.ts:1:25: imports the package's entry point src/runtime/index.ts, which imports every folder of src/runtime/; import the module that defines what it needs",
  );
  assert.match(
    found[1],
    /^folders of src\/runtime\/ import each other: log → operator \(src\/runtime\/log\/bad\.ts:1:35\), operator → log \(src\/runtime\/operator\/[a-z-]+\.ts:\d+:\d+\); the cycle takes in .*manager/,
  );
});

test('the graph is the real one: imports of every kind are found', () => {
  assert.ok(files.length > 100, `${files.length} files`);
  assert.ok(edges.length > 1000, `${edges.length} imports`);
  const has = (from: string, target: string) => edges.some((e) => e.from === from && e.target === target);
  assert.ok(has('src/cli/pipeline.ts', 'src/generate/registry.ts'), 'a static import');
  assert.ok(has('src/testing/crd.ts', 'src/input/crd/check.ts'), 'an import() call and an import() type');
  assert.ok(
    edges.some((e) => e.from === 'src/emit/handlebars.ts' && e.pkg === 'handlebars'),
    'a package',
  );
  for (const f of files) assert.ok(layerOf(f, LAYERS), `${f} has a layer`);
});

test('a forbidden import fails, naming the rule it breaks', () => {
  const extra = {
    // The cycle to keep out: the writer's side importing an emitter's module.
    'src/emit/bad-writer.ts':
      "import { isSafeOutputPath } from '../generate/generators.js';\nexport const ok = isSafeOutputPath;\n",
    // Dynamic and type-only imports count; `node:` built-ins and strings that only look like imports do not.
    'src/runtime/bad-runtime.ts': [
      "import { readFileSync } from 'node:fs';",
      "export type Model = import('../model/types.js').Model;",
      "export const load = () => import('../cli/main.js');",
      "export const text = `import { x } from '../generate/registry.js';`;",
      "import ts from 'typescript';",
      'export const r = readFileSync; export const t = ts;',
    ].join('\n'),
    // The test server may use the shared CRD checks, nothing else of the reader.
    'src/testing/bad-testing.ts':
      "import { checkCrdObject } from '../input/crd/check.js';\nimport { readCrdInputs } from '../input/crd/read.js';\nexport { checkCrdObject, readCrdInputs };\n",
    'src/newfolder/thing.ts': "import { compareStrings } from '../model/order.js';\nexport { compareStrings };\n",
    'src/model/typo.ts': "export * from './no-such-file.js';\n",
  };
  const found = checkImports([...edges, ...graph(Object.entries(extra), extra)], LAYERS, HINTS).map((v) => v.message);
  assert.deepEqual(found, [
    'src/emit/bad-writer.ts:1:34: imports src/generate/generators.ts (emitters), which breaks the rule "emit (src/emit/: emit helpers and the writer (templates, formatting, header, files on disk)) may import model, diagnostics"; what the writer needs of an emitter\'s output is in src/emit/file.ts (GeneratedFile, isSafeOutputPath)',
    'src/runtime/bad-runtime.ts:2:28: imports src/model/types.ts (model), which breaks the rule "runtime (src/runtime/: what generated code imports (crdgen/runtime)) may import runtime/validation"',
    'src/runtime/bad-runtime.ts:3:34: imports src/cli/main.ts (cli), which breaks the rule "runtime (src/runtime/: what generated code imports (crdgen/runtime)) may import runtime/validation"',
    'src/runtime/bad-runtime.ts:5:16: imports typescript, a package only the generator uses; runtime (what generated code imports (crdgen/runtime)) must not load typescript, ts-morph, handlebars, prettier, commander, esbuild, jsonc-parser',
    'src/testing/bad-testing.ts:2:31: imports src/input/crd/read.ts (readers), which breaks the rule "testing (src/testing/: the in-process API server (crdgen/testing)) may import runtime, runtime/validation"; the test server may import the runtime (and the few shared CRD checks listed in test/architecture/rules.ts)',
    'src/newfolder/thing.ts: belongs to no layer of test/architecture/rules.ts; give its folder a rule',
    'src/model/typo.ts:1:15: "./no-such-file.js" resolves to no file',
  ]);
});

test('the layers form no cycle (the runtime and its validation entry count as one)', () => {
  const merged = (n: string) => (n === 'runtime/validation' ? 'runtime' : n);
  const next = new Map<string, Set<string>>();
  for (const l of LAYERS) {
    const set = next.get(merged(l.name)) ?? new Set<string>();
    for (const m of l.may) if (merged(m) !== merged(l.name)) set.add(merged(m));
    next.set(merged(l.name), set);
  }
  const state = new Map<string, 'open' | 'done'>();
  const visit = (n: string, path: string[]): void => {
    if (state.get(n) === 'done') return;
    assert.notEqual(state.get(n), 'open', `cycle: ${[...path, n].join(' → ')}`);
    state.set(n, 'open');
    for (const m of next.get(n) ?? []) visit(m, [...path, n]);
    state.set(n, 'done');
  };
  for (const n of next.keys()) visit(n, []);
  for (const l of LAYERS)
    for (const m of l.may)
      assert.ok(
        LAYERS.some((x) => x.name === m),
        `${l.name} names an unknown layer ${m}`,
      );
});
