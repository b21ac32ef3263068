// Input expansion for commands that read API definitions: files, directories
// (recursively, *.yaml / *.yml), globs, and `-` for standard input.

import { readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { CrdSource } from '../input/crd/index.js';
import { compareStrings } from '../model/order.js';
import type { CliIo } from './io.js';

/** Display name of the `-` input. */
export const STDIN_NAME = '<stdin>';

const GLOB_CHARS = /[*?[\]{}]/;
const YAML_FILE = /\.ya?ml$/i;

/** A path as shown to the user: relative to cwd when inside it, POSIX separators. */
export function displayPath(cwd: string, abs: string): string {
  const rel = relative(cwd, abs);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
  return shown.split(sep).join('/');
}

/** Converts one glob segment (`*`, `?`, `[abc]`, `{a,b}`) to a RegExp. */
export function globSegmentRegExp(seg: string): RegExp {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = seg.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        let body = seg.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = seg.indexOf('}', i + 1);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${seg
          .slice(i + 1, end)
          .split(',')
          .map((a) =>
            a
              .replace(/[.+^$()|\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
          )
          .join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Expands a glob pattern (with `**` for any depth) against the file system, sorted. Dot entries are skipped. */
export async function expandGlob(pattern: string, cwd: string): Promise<string[]> {
  const abs = isAbsolute(pattern) ? pattern : join(cwd, pattern);
  const parts = abs.split(/[\\/]+/);
  let base = parts[0] === '' ? '/' : parts[0];
  let i = 1;
  while (i < parts.length && !GLOB_CHARS.test(parts[i])) {
    base = join(base, parts[i]);
    i++;
  }
  const rest = parts.slice(i);
  const out = new Set<string>();
  const walk = async (dir: string, segs: string[]): Promise<void> => {
    if (segs.length === 0) {
      out.add(dir);
      return;
    }
    const [seg, ...tail] = segs as [string, ...string[]];
    if (seg === '**') {
      await walk(dir, tail);
      for (const e of await safeReaddir(dir))
        if (e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
          await walk(join(dir, e.name), segs);
      return;
    }
    const re = globSegmentRegExp(seg);
    for (const e of await safeReaddir(dir)) {
      if (e.name.startsWith('.') && !seg.startsWith('.')) continue;
      if (!re.test(e.name)) continue;
      const p = join(dir, e.name);
      if (tail.length === 0) {
        if (e.isFile()) out.add(p);
      } else if (e.isDirectory()) await walk(p, tail);
    }
  };
  await walk(base, rest);
  return [...out].sort(compareStrings);
}

async function safeReaddir(dir: string) {
  try {
    return (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareStrings(a.name, b.name));
  } catch {
    return [];
  }
}

async function walkYaml(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await safeReaddir(dir)) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walkYaml(p)));
    else if (e.isFile() && YAML_FILE.test(e.name)) out.push(p);
  }
  return out;
}

/** Result of {@link collectInputs}: the sources read, and problems (missing files, empty globs). */
export interface CollectedInputs {
  sources: CrdSource[];
  diagnostics: Diagnostic[];
}

/** One input file found by {@link listInputs}, not read yet (stdin: read). */
export interface ListedInput {
  /** As shown to the user (and in `// Source:` lines). */
  file: string;
  /** Absolute path; absent for stdin. */
  abs?: string;
  /** Stdin's bytes. */
  content?: Uint8Array;
  fromDirectory?: boolean;
}

/** The inputs in order, each a file or a problem found while listing (a missing file, an empty glob). */
export type ListedEntry = { input: ListedInput } | { diagnostic: Diagnostic };

/**
 * Reads every input: `-` (stdin, once), a file, a directory (every *.yaml/*.yml
 * below it, marked `fromDirectory`), or a glob (when the path does not exist
 * and contains glob characters). Each file is read once even when named twice.
 */
export async function collectInputs(inputs: readonly string[], io: CliIo): Promise<CollectedInputs> {
  const sources: CrdSource[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const entry of await listInputs(inputs, io)) {
    if ('diagnostic' in entry) {
      diagnostics.push(entry.diagnostic);
      continue;
    }
    const read = readInput(entry.input);
    if ('diagnostic' in read) diagnostics.push(read.diagnostic);
    else sources.push(read.source);
  }
  return { sources, diagnostics };
}

/** Reads one listed input (synchronously: the rest of a run is synchronous, and a corpus read one await at a time left the thread idle between thread-pool round trips). */
export function readInput(input: ListedInput): { source: CrdSource } | { diagnostic: Diagnostic } {
  try {
    const source: CrdSource = { file: input.file, content: input.content ?? readFileSync(input.abs!) };
    if (input.fromDirectory) source.fromDirectory = true;
    return { source };
  } catch (e) {
    return {
      diagnostic: {
        severity: 'error',
        code: 'IO001',
        file: input.file,
        message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      },
    };
  }
}

/** The inputs as {@link collectInputs} finds them, without reading the files (stdin is read). */
export async function listInputs(inputs: readonly string[], io: CliIo): Promise<ListedEntry[]> {
  const entries: ListedEntry[] = [];
  const seen = new Set<string>();
  const addFile = (abs: string, fromDirectory: boolean): void => {
    if (seen.has(abs)) return;
    seen.add(abs);
    const input: ListedInput = { file: displayPath(io.cwd, abs), abs };
    if (fromDirectory) input.fromDirectory = true;
    entries.push({ input });
  };
  const problem = (file: string, message: string, hint?: string): void =>
    void entries.push({
      diagnostic: { severity: 'error', code: 'IO001', file, message, ...(hint !== undefined ? { hint } : {}) },
    });
  for (const input of inputs) {
    if (input === '-') {
      if (seen.has(STDIN_NAME)) continue;
      seen.add(STDIN_NAME);
      entries.push({ input: { file: STDIN_NAME, content: await io.readStdin() } });
      continue;
    }
    const abs = resolve(io.cwd, input);
    let st;
    try {
      st = statSync(abs);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      const files = await walkYaml(abs);
      if (files.length === 0)
        problem(
          input,
          'directory contains no *.yaml or *.yml files',
          'put your CRD YAML files into it (kubectl get crd <name> -o yaml writes one from a cluster)',
        );
      for (const f of files) addFile(f, true);
    } else if (st) {
      addFile(abs, false);
    } else if (GLOB_CHARS.test(input)) {
      const files = await expandGlob(input, io.cwd);
      if (files.length === 0) problem(input, 'no files match this pattern');
      for (const f of files) addFile(f, true);
    } else {
      problem(input, 'no such file or directory');
    }
  }
  return entries;
}
