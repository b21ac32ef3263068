// Shared pieces of the fuzz suites: the seed, case counting, the CRD bases (fixtures and
// ../shared/corpus/crds), text and tree mutations, and one tsc run over a sample of outputs.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import type { GeneratedFile } from '../../src/generate/emitter.js';
import { tscStrict } from '../compile/tsc.js';
import { CORPUS, ROOT, yamlFiles } from '../golden/support.js';

/**
 * The seed of every fuzz property: fixed, so `npm test` is reproducible; CRDGEN_FUZZ_SEED
 * overrides it, and `random` draws one (printed with the case counts) to explore —
 * `npm run fuzz` does that with CRDGEN_FUZZ_SCALE=10.
 */
export const SEED =
  process.env.CRDGEN_FUZZ_SEED === 'random'
    ? (Math.random() * 2 ** 31) | 0
    : Number(process.env.CRDGEN_FUZZ_SEED ?? 20261130);

/** `n` cases, times CRDGEN_FUZZ_SCALE (default 1). */
export function runs(n: number): number {
  const scale = Number(process.env.CRDGEN_FUZZ_SCALE ?? 1);
  return Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** Counts the cases a suite ran, printed at the end (`fuzz: <name>: N cases`). */
export function counter(name: string): { inc(): void; report(log: (s: string) => void): number } {
  let n = 0;
  return {
    inc: () => void n++,
    report: (log) => {
      log(`fuzz: ${name}: ${n} cases (seed ${SEED})`);
      return n;
    },
  };
}

/** CRD documents to mutate: every fixture CRD and the corpus CRDs under `maxBytes`. */
export function crdBases(maxBytes = 60_000): { name: string; doc: unknown }[] {
  const files: string[] = [];
  for (const c of readdirSync(join(ROOT, 'fixtures'))) {
    for (const f of ['crd.yaml', 'crds.yaml'])
      if (existsSync(join(ROOT, 'fixtures', c, f))) files.push(join(ROOT, 'fixtures', c, f));
  }
  files.push(...yamlFiles(CORPUS).filter((p) => p.endsWith('.yaml') && statSync(p).size <= maxBytes));
  const out: { name: string; doc: unknown }[] = [];
  for (const f of files.sort()) {
    for (const d of parseAllDocuments(readFileSync(f, 'utf8'))) {
      const v = d.toJSON() as { kind?: string } | null;
      if (v && v.kind === 'CustomResourceDefinition') out.push({ name: relative(ROOT, f), doc: v });
    }
  }
  return out;
}

type Slot = [Record<string, unknown> | unknown[], string | number];

/** Every [container, key] pair of a JSON tree. */
export function slots(v: unknown, out: Slot[] = []): Slot[] {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push([v, i]);
      slots(x, out);
    });
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out.push([v as Record<string, unknown>, k]);
      slots(x, out);
    }
  return out;
}

/** Values that stress readers: wrong types, hostile strings, edge numbers. */
export const junk = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    'strin',
    '../x',
    '',
    'object',
    'array',
    'integer',
    '__proto__',
    'constructor',
    '*/',
    '${x}',
    '`',
    '\n',
    null,
    -1,
    0,
    2 ** 53,
    1e308,
    true,
    [],
    {},
  ),
);

/** A tree mutation: [which slot, new value, delete instead]. */
export const treeMutations = fc.array(fc.tuple(fc.nat(), junk, fc.boolean()), { minLength: 1, maxLength: 4 });

/** Applies tree mutations to a copy of `doc`. */
export function mutateTree(doc: unknown, mutations: [number, unknown, boolean][]): unknown {
  const copy = structuredClone(doc);
  for (const [pick, value, remove] of mutations) {
    const all = slots(copy);
    if (!all.length) break;
    const [container, key] = all[pick % all.length];
    if (remove && !Array.isArray(container)) delete container[key as string];
    else (container as Record<string | number, unknown>)[key] = value;
  }
  return copy;
}

/** Text mutations: [kind, where, what] — delete, duplicate or indent a line, or insert text. */
export const textMutations = fc.array(
  fc.tuple(
    fc.constantFrom('delete', 'duplicate', 'indent', 'insert'),
    fc.nat(),
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom(
        ':',
        '- ',
        '\t',
        '&a ',
        '*a',
        '!!binary ',
        '{',
        '[',
        '"',
        "'",
        '#',
        '---\n',
        '? ',
        '|\n',
        '\u0000',
        '\uFEFF',
      ),
    ),
  ),
  { minLength: 1, maxLength: 3 },
);

/** Applies text mutations to `text`. */
export function mutateText(text: string, mutations: [string, number, string][]): string {
  const lines = text.split('\n');
  for (const [kind, where, what] of mutations) {
    const i = where % Math.max(1, lines.length);
    if (kind === 'delete') lines.splice(i, 1);
    else if (kind === 'duplicate') lines.splice(i, 0, lines[i] ?? '');
    else if (kind === 'indent') lines[i] = ` ${lines[i] ?? ''}`;
    else {
      const l = lines[i] ?? '';
      const at = where % (l.length + 1);
      lines[i] = l.slice(0, at) + what + l.slice(at);
    }
  }
  return lines.join('\n');
}

/**
 * Asserts that every error diagnostic says where: a file, and a 1-based line and column.
 * Whole-input problems (IO codes: empty input, binary input, unreadable file) name the file only.
 */
export function assertPositioned(diags: readonly Diagnostic[], context: string): void {
  for (const d of diags) {
    assert.ok(d.code && d.message, `${context}: a diagnostic without code or message: ${JSON.stringify(d)}`);
    assert.doesNotMatch(d.message, /\n\s+at .+:\d+:\d+/, `${context}: a stack trace in a diagnostic`);
    if (d.severity !== 'error') continue;
    assert.ok(d.file, `${context}: ${d.code} has no file: ${d.message}`);
    if (d.code.startsWith('IO')) continue;
    assert.ok(Number.isInteger(d.line) && d.line! >= 1, `${context}: ${d.code} has no line: ${d.message}`);
    assert.ok(Number.isInteger(d.col) && d.col! >= 1, `${context}: ${d.code} has no column: ${d.message}`);
  }
}

/** Collects generated trees and type-checks them all in one tsc program. */
export class CompileSample {
  private readonly dir = mkdtempSync(join(tmpdir(), 'crdgen-fuzz-'));
  private n = 0;
  constructor(private readonly max: number) {
    writeFileSync(join(this.dir, 'package.json'), '{"type":"module"}\n');
  }
  /** Whether the sample wants more trees. */
  get full(): boolean {
    return this.n >= this.max;
  }
  /** Adds one generated tree (ignored when the sample is full). */
  add(files: readonly GeneratedFile[]): void {
    if (this.full) return;
    const root = join(this.dir, `case${this.n++}`);
    for (const f of files) {
      if (!f.path.endsWith('.ts')) continue;
      const p = join(root, f.path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.contents);
    }
  }
  /** How many trees were added. */
  get size(): number {
    return this.n;
  }
  /** Runs tsc --strict over every tree; asserts no error. Removes the folder. */
  async check(): Promise<void> {
    try {
      if (this.n === 0) return;
      const r = await tscStrict([this.dir], 'nodenext');
      assert.equal(r.output.slice(0, 4000), '');
      assert.equal(r.status, 0);
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
