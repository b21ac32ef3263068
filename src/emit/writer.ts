// The writer: the only code that touches the output folder. It plans first
// (what to create, update, keep, remove, and what it refuses to touch), then
// applies the plan atomically per file (temp file + rename), only under --out.

import { mkdir, readdir, readFile, realpath, rename, rm, writeFile, lstat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { GeneratedFile } from '../generate/emitter.js';
import { isSafeOutputPath } from '../generate/registry.js';
import { isGeneratedContents } from './header.js';
import { compareStrings } from './sorted.js';

/** What the writer will do with one path. */
export type PlanAction =
  /** New file. */
  | 'create'
  /** Existing generated file with different contents. */
  | 'update'
  /** Existing file with identical contents (left untouched). */
  | 'unchanged'
  /** User-owned file that already exists (never overwritten). */
  | 'keep'
  /** Stale generated file no emitter produced this time. */
  | 'remove'
  /** Existing file without the generated header where a generated file should go: refused. */
  | 'conflict';

/** One planned step. `path` is relative to the output folder (POSIX). */
export interface PlanEntry {
  path: string;
  action: PlanAction;
  contents?: string;
}

/** Options for {@link planWrite}. */
export interface PlanOptions {
  /** Remove generated files (with our header) that no emitter produced. Default true. */
  removeStale?: boolean;
}

/** Thrown for unsafe paths or conflicts; the message is meant for the user. */
export class WriteError extends Error {
  override name = 'WriteError';
}

async function readIfFile(p: string): Promise<string | undefined> {
  try {
    const st = await lstat(p);
    if (st.isSymbolicLink()) throw new WriteError(`refusing to write through symbolic link ${p}`);
    if (!st.isFile()) throw new WriteError(`${p} exists and is not a regular file`);
    return await readFile(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Resolves `rel` under `outDir`, refusing anything that would land outside it. */
export function resolveUnder(outDir: string, rel: string): string {
  if (!isSafeOutputPath(rel)) throw new WriteError(`unsafe output path ${JSON.stringify(rel)}`);
  const root = resolve(outDir);
  const target = resolve(root, ...rel.split('/'));
  if (!target.startsWith(root + sep)) throw new WriteError(`output path ${JSON.stringify(rel)} escapes ${root}`);
  return target;
}

async function listGenerated(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && /\.(ts|js|json|ya?ml|md)$/.test(e.name)) {
        const text = await readFile(p, 'utf8');
        if (isGeneratedContents(text)) out.push(relative(root, p).split(sep).join('/'));
      }
    }
  };
  await walk(root);
  return out;
}

/** Computes what writing `files` to `outDir` would do, without changing anything. */
export async function planWrite(outDir: string, files: readonly GeneratedFile[], opts: PlanOptions = {}): Promise<PlanEntry[]> {
  const plan: PlanEntry[] = [];
  const wanted = new Set<string>();
  for (const f of files) {
    const target = resolveUnder(outDir, f.path);
    wanted.add(f.path);
    const existing = await readIfFile(target);
    let action: PlanAction;
    if (existing === undefined) action = 'create';
    else if (f.userOwned) action = 'keep';
    else if (existing === f.contents) action = 'unchanged';
    else if (isGeneratedContents(existing)) action = 'update';
    else action = 'conflict';
    plan.push({ path: f.path, action, contents: f.contents });
  }
  if (opts.removeStale ?? true) {
    for (const p of await listGenerated(resolve(outDir))) if (!wanted.has(p)) plan.push({ path: p, action: 'remove' });
  }
  return plan.sort((a, b) => compareStrings(a.path, b.path));
}

/** Result of {@link writeFiles}: paths per action. */
export interface WriteResult {
  plan: PlanEntry[];
}

/**
 * Writes `files` under `outDir`: plans, refuses the whole write when any path
 * conflicts with a file crdgen did not generate, then creates/updates each file
 * atomically (temp file in the same folder, then rename) and removes stale
 * generated files. Unchanged files are not touched.
 */
export async function writeFiles(outDir: string, files: readonly GeneratedFile[], opts: PlanOptions = {}): Promise<WriteResult> {
  const plan = await planWrite(outDir, files, opts);
  const conflicts = plan.filter((p) => p.action === 'conflict');
  if (conflicts.length > 0) {
    throw new WriteError(`refusing to overwrite files crdgen did not generate: ${conflicts.map((c) => c.path).join(', ')}`);
  }
  const root = resolve(outDir);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  for (const step of plan) {
    const target = resolveUnder(root, step.path);
    if (step.action === 'create' || step.action === 'update') {
      await mkdir(dirname(target), { recursive: true });
      const realDir = await realpath(dirname(target));
      if (realDir !== realRoot && !realDir.startsWith(realRoot + sep)) throw new WriteError(`output folder for ${step.path} resolves outside ${root}`);
      const tmp = join(dirname(target), `.${randomBytes(6).toString('hex')}.crdgen.tmp`);
      try {
        await writeFile(tmp, step.contents ?? '', { flag: 'wx' });
        await rename(tmp, target);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    } else if (step.action === 'remove') {
      await rm(target, { force: true });
    }
  }
  return { plan };
}
