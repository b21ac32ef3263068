// Runs `tsc --strict --noEmit` over generated trees, with `crdgen/runtime`
// resolving to this repository's runtime, in either module mode.
// The runtime is taken from its build (dist/runtime/index.d.ts, which `npm test`
// builds first; declarations are not re-checked, so this stays fast and checks
// only the generated code), or from src/runtime/index.ts when there is no build.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../golden/support.js';

/** The two resolution setups generated code must compile under. */
export type ResolutionMode = 'nodenext' | 'bundler';

/** Where `crdgen/runtime` resolves for the compile tests. */
export function runtimeEntry(): string {
  const built = join(ROOT, 'dist', 'runtime', 'index.d.ts');
  return existsSync(built) ? built : join(ROOT, 'src', 'runtime', 'index.ts');
}

/** Where `crdgen/runtime/validation` (or its `core` entry) resolves for the compile tests (beside {@link runtimeEntry}). */
export function validationEntry(entry: 'index' | 'core' = 'index'): string {
  const built = join(ROOT, 'dist', 'runtime', 'validation', `${entry}.d.ts`);
  return existsSync(built) ? built : join(ROOT, 'src', 'runtime', 'validation', `${entry}.ts`);
}

/** Where `crdgen/testing` resolves for the compile tests (the generated conversion round-trip tests import it). */
export function testingEntry(): string {
  const built = join(ROOT, 'dist', 'testing', 'index.d.ts');
  return existsSync(built) ? built : join(ROOT, 'src', 'testing', 'index.ts');
}

/** Result of one tsc run. */
export interface TscResult {
  status: number | null;
  output: string;
}

/**
 * Type-checks every `*.ts` under `dirs` as one program. With `nodenext` the
 * folders must be ESM (a `package.json` with `"type": "module"` above them).
 */
export async function tscStrict(
  dirs: readonly string[],
  mode: ResolutionMode,
  extra: { include?: string; options?: Record<string, unknown> } = {},
): Promise<TscResult> {
  const tmp = mkdtempSync(join(tmpdir(), 'crdgen-tsc-'));
  try {
    const moduleOpts =
      mode === 'nodenext'
        ? { module: 'nodenext', moduleResolution: 'nodenext' }
        : { module: 'esnext', moduleResolution: 'bundler' };
    const tsconfig = {
      compilerOptions: {
        ...moduleOpts,
        target: 'es2022',
        lib: ['es2022'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
        paths: {
          'crdgen/runtime': [runtimeEntry()],
          'crdgen/runtime/validation': [validationEntry()],
          'crdgen/runtime/validation/core': [validationEntry('core')],
          'crdgen/testing': [testingEntry()],
        },
        ...extra.options,
      },
      include: dirs.map((d) => join(d, extra.include ?? join('**', '*.ts'))),
    };
    writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    return await new Promise<TscResult>((resolvePromise, reject) => {
      const child = spawn(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(tmp, 'tsconfig.json'), '--pretty', 'false'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => void (output += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => void (output += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (status) => {
        clearTimeout(timer);
        resolvePromise({ status, output });
      });
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
