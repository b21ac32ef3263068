// Which .ts files an input names: a file, a folder (every .ts below it), or a glob
// (`*`, `?`, `**`). Declaration files, tests, node_modules, dot-folders and files that
// crdgen generated (they start with the generated header) are never inputs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { isGeneratedContents } from '../../model/generated.js';
import { tsDiag } from './diagnostics.js';

/** One input file: absolute path, and the path shown to the user. */
export interface InputFile {
  abs: string;
  display: string;
}

/** Expands inputs to files, sorted by display name and de-duplicated. */
export function expandTsInputs(
  inputs: readonly string[],
  cwd: string,
): { files: InputFile[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const byAbs = new Map<string, InputFile>();
  const add = (display: string): void => {
    const abs = resolve(cwd, display);
    if (!byAbs.has(abs)) byAbs.set(abs, { abs, display: toPosix(display) });
  };
  for (const input of inputs) {
    if (/[*?]/.test(input)) {
      const found = glob(input, cwd);
      if (found.length === 0) diagnostics.push(tsDiag('TS013', `no .ts file matches "${input}"`, undefined));
      found.forEach(add);
      continue;
    }
    let st;
    try {
      st = statSync(resolve(cwd, input));
    } catch {
      diagnostics.push(inFile(tsDiag('TS001', `cannot read "${input}": no such file or folder`, undefined), input));
      continue;
    }
    if (st.isDirectory()) {
      let found: string[];
      try {
        found = walk(resolve(cwd, input), input);
      } catch (e) {
        diagnostics.push(
          inFile(
            tsDiag(
              'TS001',
              `cannot read folder "${input}": ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
              undefined,
            ),
            input,
          ),
        );
        continue;
      }
      if (found.length === 0)
        diagnostics.push(inFile(tsDiag('TS013', `no .ts file in folder "${input}"`, undefined), input));
      found.forEach(add);
    } else if (isTsSource(input)) {
      add(input);
    } else {
      diagnostics.push(inFile(tsDiag('TS001', `"${input}" is not a .ts file`, undefined), input));
    }
  }
  const files = [...byAbs.values()].sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
  return { files, diagnostics };
}

function inFile(d: Diagnostic, file: string): Diagnostic {
  d.file = toPosix(file);
  return d;
}

function toPosix(p: string): string {
  return p.replace(/\\/g, '/').replace(/^\.\//, '');
}

function isTsSource(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts');
}

function isGenerated(abs: string): boolean {
  try {
    return isGeneratedContents(readFileSync(abs, 'utf8'));
  } catch {
    return false;
  }
}

/** Every input-worthy .ts file under `abs`, displayed under `display`. */
function walk(abs: string, display: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const childAbs = join(abs, e.name);
    const childDisplay = toPosix(join(display, e.name));
    if (e.isDirectory()) out.push(...walk(childAbs, childDisplay));
    else if (e.isFile() && isTsSource(e.name) && !isGenerated(childAbs)) out.push(childDisplay);
  }
  return out;
}

/** Files matching a glob pattern (relative to cwd, or absolute). */
function glob(pattern: string, cwd: string): string[] {
  const parts = toPosix(pattern).split('/');
  const firstGlob = parts.findIndex((p) => /[*?]/.test(p));
  const base = parts.slice(0, firstGlob).join('/');
  const re = globToRegExp(parts.slice(firstGlob).join('/'));
  const baseAbs = resolve(cwd, base === '' && pattern.startsWith('/') ? '/' : base || '.');
  let candidates: string[];
  try {
    candidates = walk(baseAbs, '');
  } catch {
    return [];
  }
  return candidates.filter((rel) => re.test(rel)).map((rel) => (base ? `${base}/${rel}` : rel));
}

/** `**` matches any number of folders, `*` and `?` stay within one path segment. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      i++;
      if (glob[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Which reader the inputs are for, by extension: `ts` for `.ts` files and globs, and for
 * folders that hold .ts API files and no YAML; `yaml` otherwise; `mixed` when both appear.
 * Loads nothing but `node:fs`, so the CLI can decide before importing a reader.
 */
export function classifyInputs(inputs: readonly string[], cwd: string): 'ts' | 'yaml' | 'mixed' {
  let ts = 0;
  for (const input of inputs) {
    if (isTsSource(input.replace(/[*?]+$/, ''))) {
      ts++;
      continue;
    }
    try {
      const abs = resolve(cwd, input);
      if (statSync(abs).isDirectory() && walk(abs, '').length > 0 && !hasYaml(abs)) ts++;
    } catch {
      // a missing input is the reader's to report
    }
  }
  return ts === 0 ? 'yaml' : ts === inputs.length ? 'ts' : 'mixed';
}

function hasYaml(abs: string): boolean {
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    if (e.isFile() && /\.ya?ml$/i.test(e.name)) return true;
    if (e.isDirectory() && hasYaml(join(abs, e.name))) return true;
  }
  return false;
}
