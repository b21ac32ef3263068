// `--format`: runs the project's own prettier (resolved from the project, never
// bundled with crdgen) over generated TypeScript files, with the project's
// prettier config for each file's path.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GeneratedFile } from './file.js';

/** Thrown when --format is asked for but the project has no prettier. */
export class FormatterMissingError extends Error {
  override name = 'FormatterMissingError';
}

interface Prettier {
  format(source: string, options: Record<string, unknown>): Promise<string> | string;
  resolveConfig(file: string): Promise<Record<string, unknown> | null>;
}

/** Loads prettier as installed for the project at `projectDir`. */
async function loadPrettier(projectDir: string): Promise<Prettier> {
  let entry: string;
  try {
    entry = createRequire(join(projectDir, 'noop.js')).resolve('prettier');
  } catch {
    throw new FormatterMissingError(
      `--format needs prettier installed in the project (${projectDir}): npm install --save-dev prettier`,
    );
  }
  const mod = (await import(pathToFileURL(entry).href)) as Prettier & { default?: Prettier };
  return typeof mod.format === 'function' ? mod : mod.default!;
}

/**
 * `files` with every `.ts` file formatted by the project's prettier (found from
 * `projectDir`) and its config for `<outDir>/<path>`; other files unchanged.
 */
export async function formatFiles(
  files: readonly GeneratedFile[],
  projectDir: string,
  outDir: string,
): Promise<GeneratedFile[]> {
  const prettier = await loadPrettier(projectDir);
  const out: GeneratedFile[] = [];
  for (const f of files) {
    if (!f.path.endsWith('.ts')) {
      out.push(f);
      continue;
    }
    const filepath = join(outDir, ...f.path.split('/'));
    const config = (await prettier.resolveConfig(filepath)) ?? {};
    out.push({ ...f, contents: await prettier.format(f.contents, { ...config, filepath }) });
  }
  return out;
}
