// Fuzzing the readers (fast-check, fixed seed): mutated CRDs from the fixtures and
// ../shared/corpus/crds, random YAML, and mutated annotated TypeScript. Never an exception;
// every error diagnostic has a file, line and column; when there is no error the emitters
// run, and a bounded sample of the outputs compiles in one tsc --strict program.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { readTypeScript } from '../../src/input/ts/reader.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import type { Model } from '../../src/model/types.js';
import { ROOT } from '../golden/support.js';
import {
  CompileSample,
  SEED,
  assertPositioned,
  runs,
  counter,
  crdBases,
  mutateText,
  mutateTree,
  textMutations,
  treeMutations,
} from './support.js';

const sample = new CompileSample(8);
const hasErrors = (ds: readonly { severity: string }[]): boolean => ds.some((d) => d.severity === 'error');

function emit(model: Model, source: string, diagnostics: readonly { code: string }[]): void {
  const files = runEmitters(model, createEmitContext({ sources: [source] }));
  // a CRD may serve no version (the apiserver allows it): then a GEN004 warning says why nothing came out
  if (files.length === 0)
    assert.ok(
      diagnostics.some((d) => d.code === 'GEN004'),
      'a model without errors generates files, or a warning says why not',
    );
  for (const f of files) assert.doesNotMatch(f.path, /(^|\/)\.\.(\/|$)|^\/|\\/, `generated path ${f.path} escapes`);
  sample.add(files);
}

describe('fuzz: readers', () => {
  const bases = crdBases();
  after(async () => {
    // One tsc program over every sampled output (as many cases as compiling each would cost).
    await sample.check();
    process.stdout.write(`fuzz: compiled ${sample.size} generated trees in one tsc --strict run\n`);
  });

  it('mutated CRDs (tree mutations) from the fixtures and the corpus', (t) => {
    assert.ok(bases.length >= 15, `only ${bases.length} CRD bases`);
    const count = counter('mutated CRD trees');
    fc.assert(
      fc.property(fc.nat(), treeMutations, (pick, mutations) => {
        count.inc();
        const base = bases[pick % bases.length];
        const content = stringify(mutateTree(base.doc, mutations));
        const r = readCrdInputs([{ file: 'mutated.yaml', content }]);
        assertPositioned(r.diagnostics, base.name);
        if (!hasErrors(r.diagnostics)) emit(r.model, 'mutated.yaml', r.diagnostics);
      }),
      { numRuns: runs(60), seed: SEED },
    );
    assert.ok(count.report((s) => t.diagnostic(s)) >= runs(60));
  });

  it('mutated CRD text (lines deleted, duplicated, indented, junk inserted)', (t) => {
    const texts = bases
      .filter((b) => JSON.stringify(b.doc).length < 30_000)
      .map((b) => ({ name: b.name, text: stringify(b.doc) }));
    const count = counter('mutated CRD text');
    fc.assert(
      fc.property(fc.nat(), textMutations, (pick, mutations) => {
        count.inc();
        const base = texts[pick % texts.length];
        const r = readCrdInputs([{ file: 'text.yaml', content: mutateText(base.text, mutations) }]);
        assertPositioned(r.diagnostics, base.name);
        if (!hasErrors(r.diagnostics)) emit(r.model, 'text.yaml', r.diagnostics);
      }),
      { numRuns: runs(60), seed: SEED },
    );
    assert.ok(count.report((s) => t.diagnostic(s)) >= runs(60));
  });

  it('random YAML documents and streams', (t) => {
    const count = counter('random YAML');
    const doc = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((v) => stringify(v)),
      fc
        .record({
          apiVersion: fc.constantFrom('apiextensions.k8s.io/v1', 'v1', 'x'),
          kind: fc.constantFrom('CustomResourceDefinition', 'List', 'Foo'),
          spec: fc.jsonValue({ maxDepth: 3 }),
        })
        .map((v) => stringify(v)),
      fc
        .array(
          fc.constantFrom(
            'a: &x 1\n',
            'b: *x\n',
            'c: *missing\n',
            '- item\n',
            'd: !!str 1\n',
            'e: !custom x\n',
            '? complex\n: key\n',
            'f: |\n  block\n',
            '---\n',
            '...\n',
            '%YAML 1.2\n',
            'g: [1, {h: i}]\n',
            '\tj: tab\n',
            'k: "unterminated\n',
            "l: 'x\n",
            'm:\n  - n: 1\n    o: 2\n',
          ),
          { maxLength: 12 },
        )
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(doc, (content) => {
        count.inc();
        const r = readCrdInputs([{ file: 'random.yaml', content }]);
        assertPositioned(r.diagnostics, JSON.stringify(content).slice(0, 200));
      }),
      { numRuns: runs(150), seed: SEED },
    );
    assert.ok(count.report((s) => t.diagnostic(s)) >= runs(150));
  });

  it('mutated annotated TypeScript', (t) => {
    const bases = [
      readFileSync(join(ROOT, 'fixtures/databasemanager-ts/types.ts'), 'utf8'),
      `// +groupName=example.com
// +versionName=v1
import type { ObjectMeta, int32, IntOrString } from 'crdgen/types';
/** A widget. */
// +genclient
// +kubebuilder:subresource:status
export interface Widget { apiVersion: 'example.com/v1'; kind: 'Widget'; metadata: ObjectMeta; spec: WidgetSpec; status?: WidgetStatus }
export interface WidgetSpec {
  /** Size of the widget. */
  // +kubebuilder:validation:Minimum=1
  size: int32;
  // +kubebuilder:validation:Enum=a;b
  mode?: string;
  port?: IntOrString;
  tags?: string[];
  labels?: Record<string, string>;
}
export interface WidgetStatus { ready?: boolean }
`,
    ];
    const fragment = fc.constantFrom(
      '// +kubebuilder:validation:Minimum=x',
      '// +kubebuilder:default=',
      '// +listType=map',
      '/** */',
      '/*',
      '*/',
      '}',
      '{',
      ': ;',
      '?: string;',
      'extends',
      '`${x}`',
      '__proto__: string;',
      'constructor?: int32;',
      "kind: '../../x';",
      '// +groupName=../evil',
      '// +versionName=v1/../x',
      '\u2028',
    );
    const count = counter('mutated TypeScript');
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-fuzz-ts-'));
    try {
      fc.assert(
        fc.property(
          fc.nat(),
          textMutations,
          fc.array(fc.tuple(fc.nat(), fragment), { maxLength: 2 }),
          (pick, mutations, inserts) => {
            const i = count.inc() ?? 0;
            let text = mutateText(bases[pick % bases.length], mutations);
            const lines = text.split('\n');
            for (const [at, f] of inserts) lines.splice(at % (lines.length + 1), 0, f);
            text = lines.join('\n');
            const caseDir = join(dir, `c${pick}-${i}-${Math.random().toString(36).slice(2)}`);
            mkdirSync(caseDir);
            writeFileSync(join(caseDir, 'types.ts'), text);
            const r = readTypeScript(['types.ts'], { cwd: caseDir });
            assertPositioned(r.diagnostics, text.slice(0, 300));
            if (!hasErrors(r.diagnostics) && r.model.groups.length) emit(r.model, 'types.ts', r.diagnostics);
          },
        ),
        { numRuns: runs(30), seed: SEED },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(count.report((s) => t.diagnostic(s)) >= runs(30));
  });
});
