// Builds the DatabaseManager operator once for a soak: a snapshot of crdgen/runtime and the
// generated tree, each file transpiled to JavaScript (TypeScript's transpileModule), under
// test/e2e/out/ (git-ignored). Replicas then run `node main.js`: every restart during the soak runs the same
// code (edits to src/ meanwhile do not leak in) and starts without a TypeScript loader.
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import { ROOT, writeTree } from '../golden/support.js';

/** A built operator: `main` is the JavaScript entry point. */
export interface BuiltOperator {
  dir: string;
  main: string;
  /** The generated reconcile.js (exports DATABASES). */
  reconcile: string;
  cleanup(): void;
}

function walkTs(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walkTs(p, out);
    else if (e.endsWith('.ts') && !e.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Transpiles every .ts under `from` to .js under `to` (same relative paths); throws on a syntax error. */
function transpileTree(from: string, to: string): void {
  for (const file of walkTs(from)) {
    const r = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        isolatedModules: true,
        sourceMap: false,
      },
    });
    const errors = (r.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length)
      throw new Error(`${relative(ROOT, file)}: ${ts.flattenDiagnosticMessageText(errors[0].messageText, '\n')}`);
    const out = join(to, relative(from, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, r.outputText);
  }
}

/** Generates the DatabaseManager operator against a transpiled snapshot of the runtime. */
export function buildOperator(): BuiltOperator {
  const base = join(ROOT, 'test', 'e2e', 'out');
  const dir = join(base, `soak-build-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  const cleanup = (): void => {
    rmSync(dir, { recursive: true, force: true });
    try {
      rmdirSync(base);
    } catch {
      /* other runs' folders remain */
    }
  };
  try {
    transpileTree(join(ROOT, 'src', 'runtime'), join(dir, 'runtime'));
    const file = 'fixtures/databasemanager/crd.yaml';
    const r = readCrdInputs([{ file, content: readFileSync(join(ROOT, file)) }]);
    if (r.diagnostics.some((d) => d.severity === 'error'))
      throw new Error(`fixture has errors: ${JSON.stringify(r.diagnostics)}`);
    const src = join(dir, 'src');
    writeTree(
      src,
      runEmitters(
        r.model,
        createEmitContext({
          sources: r.model.sources,
          runtimeImport: join(dir, 'runtime', 'index.js'),
          controllers: ['DatabaseManager'],
        }),
      ),
    );
    const gen = join(dir, 'gen');
    transpileTree(src, gen);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    return {
      dir,
      main: join(gen, 'controllers', 'databasemanager', 'main.js'),
      reconcile: join(gen, 'controllers', 'databasemanager', 'reconcile.js'),
      cleanup,
    };
  } catch (e) {
    cleanup();
    throw e;
  }
}
