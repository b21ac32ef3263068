// The writer: the only code that touches the output folder. It plans first
// (what to create, update, keep, remove, and what it refuses to touch), then
// applies the plan as one transaction: every new content is staged in a temp
// file next to its target, then renamed into place (atomic per file); stale
// generated files go last. Any failure rolls back what was already applied, so
// a failed run leaves the previous output exactly as it was. Only under --out.

// The file-system calls are synchronous on purpose: a run writes hundreds of files one after
// the other (each step must finish before the next for the rollback to be exact), and an
// awaited fs/promises call per step spent most of its time waiting for the thread pool
// (the corpus, 454 files, 14 MB: 300–500 ms async, 35–250 ms sync depending on the disk).
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { GeneratedFile } from './file.js';
import { isSafeOutputPath } from './file.js';
import { isGeneratedContents } from './header.js';
import { compareStrings } from '../model/order.js';
import { outDirProblem } from './out-dir.js';

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
  /** The new contents (every action but `remove`). */
  contents?: string;
  /** What is on disk now (`update`, `unchanged`, `keep`, `remove`, `conflict`). */
  existing?: string;
  /** The generated file is meant for the user to edit (written once, never overwritten). */
  userOwned?: boolean;
}

/** Options for {@link planWrite}. */
export interface PlanOptions {
  /** Remove generated files (with our header) that no emitter produced. Default true. */
  removeStale?: boolean;
  /**
   * Which of those stale files this run may remove (default: all). A run of some generators
   * passes its generators' share (generate/ownership.ts), so it never removes another's files.
   */
  mayRemove?: (path: string) => boolean;
}

/** Options for {@link writeFiles}. */
export interface WriteOptions extends PlanOptions {
  /**
   * Called before each file-system step (`stage`: writing a temp file, `commit`:
   * renaming it into place, `remove`: deleting a stale file). A throw is handled as
   * a failure at that point (rollback, then the error is rethrown); tests use it to
   * inject failures mid-write.
   */
  beforeStep?: (step: 'stage' | 'commit' | 'remove', path: string) => void | Promise<void>;
  /** Called with the plan before anything changes (to say what the run is about to remove). */
  onPlan?: (plan: readonly PlanEntry[]) => void;
}

/** Thrown for unsafe paths or conflicts; the message is meant for the user. */
export class WriteError extends Error {
  override name = 'WriteError';
}

function readIfFile(p: string): string | undefined {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) throw new WriteError(`refusing to write through symbolic link ${p}`);
    if (!st.isFile()) throw new WriteError(`${p} exists and is not a regular file`);
    return readFileSync(p, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
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

/** Names of files the stale scan reads (text formats crdgen emits). */
const SCANNED_FILE = /\.(ts|mts|cts|js|mjs|cjs|json|ya?ml|md)$|^Dockerfile$/;

/** Every file under `root` that carries our header, as relative POSIX path → contents. Symlinks are not followed. */
function listGenerated(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw e;
    }
    entries.sort((a, b) => compareStrings(a.name, b.name));
    for (const e of entries) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && SCANNED_FILE.test(e.name)) {
        const text = readFileSync(p, 'utf8');
        if (isGeneratedContents(text)) out.set(relative(root, p).split(sep).join('/'), text);
      }
    }
  };
  walk(root);
  return out;
}

/** Computes what writing `files` to `outDir` would do, without changing anything. Sorted by path. */
// eslint-disable-next-line @typescript-eslint/require-await -- synchronous inside (see above); `async` keeps the public API's contract that a refusal (WriteError) is a rejection
export async function planWrite(
  outDir: string,
  files: readonly GeneratedFile[],
  opts: PlanOptions = {},
): Promise<PlanEntry[]> {
  const plan: PlanEntry[] = [];
  const wanted = new Set<string>();
  // a first run into a new folder: nothing to read back, file by file
  let fresh = false;
  try {
    lstatSync(resolve(outDir));
  } catch (e) {
    fresh = (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
  for (const f of files) {
    const target = resolveUnder(outDir, f.path);
    wanted.add(f.path);
    const existing = fresh ? undefined : readIfFile(target);
    let action: PlanAction;
    if (existing === undefined) action = 'create';
    else if (f.userOwned) action = 'keep';
    else if (existing === f.contents) action = 'unchanged';
    else if (isGeneratedContents(existing)) action = 'update';
    else action = 'conflict';
    const entry: PlanEntry = { path: f.path, action, contents: f.contents };
    if (existing !== undefined) entry.existing = existing;
    if (f.userOwned) entry.userOwned = true;
    plan.push(entry);
  }
  if (opts.removeStale ?? true) {
    const may = opts.mayRemove ?? (() => true);
    for (const [p, text] of listGenerated(resolve(outDir)))
      if (!wanted.has(p) && may(p)) plan.push({ path: p, action: 'remove', existing: text });
  }
  return plan.sort((a, b) => compareStrings(a.path, b.path));
}

/** Result of {@link writeFiles}: the plan that was applied. */
export interface WriteResult {
  plan: PlanEntry[];
}

function tempNameFor(target: string): string {
  return join(dirname(target), `.${randomBytes(6).toString('hex')}.crdgen.tmp`);
}

/** Writes `text` to `target` atomically (temp file in the same folder, then rename). */
function atomicWrite(target: string, text: string): void {
  const tmp = tempNameFor(target);
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Removes `dir` and its parents up to (not including) `root` while they are empty. */
function pruneEmptyDirs(dir: string, root: string): void {
  let d = dir;
  while (d !== root && d.startsWith(root + sep)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
    d = dirname(d);
  }
}

/**
 * Writes `files` under `outDir`: plans, refuses the whole write when any path
 * conflicts with a file crdgen did not generate, stages every new content in a
 * temp file beside its target, renames them into place, then removes stale
 * generated files (and folders that became empty). Unchanged and user-owned
 * files are not touched. When any step fails, everything already done is undone
 * (old contents restored, new files and folders removed, temp files deleted) and
 * the error is rethrown: the folder is left exactly as it was.
 */
export async function writeFiles(
  outDir: string,
  files: readonly GeneratedFile[],
  opts: WriteOptions = {},
): Promise<WriteResult> {
  const plan = await planWrite(outDir, files, opts);
  const conflicts = plan.filter((p) => p.action === 'conflict');
  if (conflicts.length > 0) {
    throw new WriteError(
      `refusing to overwrite files crdgen did not generate: ${conflicts.map((c) => c.path).join(', ')}`,
    );
  }
  opts.onPlan?.(plan);
  const root = resolve(outDir);
  const writes = plan.filter((p) => p.action === 'create' || p.action === 'update');
  const removes = plan.filter((p) => p.action === 'remove');
  if (writes.length === 0 && removes.length === 0) return { plan };
  const problem = outDirProblem(root);
  if (problem) throw new WriteError(`${problem.message.replace(/^--out/, root)} (${problem.hint})`);
  const hook = opts.beforeStep ?? (() => undefined);
  const createdDirs: string[] = [];
  const staged = new Map<string, string>(); // path → temp file
  const committed: PlanEntry[] = [];
  const removed: PlanEntry[] = [];
  const mkdirTracked = (dir: string): void => {
    const first = mkdirSync(dir, { recursive: true });
    if (first !== undefined) createdDirs.push(first);
  };
  // each output folder is created and checked once (not once per file)
  const checkedDirs = new Set<string>();
  try {
    mkdirTracked(root);
    const realRoot = realpathSync(root);
    for (const step of writes) {
      const target = resolveUnder(root, step.path);
      const dir = dirname(target);
      if (!checkedDirs.has(dir)) {
        mkdirTracked(dir);
        const realDir = realpathSync(dir);
        if (realDir !== realRoot && !realDir.startsWith(realRoot + sep))
          throw new WriteError(`output folder for ${step.path} resolves outside ${root}`);
        checkedDirs.add(dir);
      }
      await hook('stage', step.path);
      const tmp = tempNameFor(target);
      staged.set(step.path, tmp);
      writeFileSync(tmp, step.contents ?? '', { flag: 'wx' });
    }
    for (const step of writes) {
      await hook('commit', step.path);
      renameSync(staged.get(step.path)!, resolveUnder(root, step.path));
      staged.delete(step.path);
      committed.push(step);
    }
    for (const step of removes) {
      await hook('remove', step.path);
      rmSync(resolveUnder(root, step.path));
      removed.push(step);
    }
  } catch (e) {
    rollback(root, staged, committed, removed, createdDirs);
    throw e;
  }
  for (const step of removes) pruneEmptyDirs(dirname(resolveUnder(root, step.path)), root);
  return { plan };
}

/** Undoes a partly applied plan; best effort, in reverse order. */
function rollback(
  root: string,
  staged: Map<string, string>,
  committed: PlanEntry[],
  removed: PlanEntry[],
  createdDirs: string[],
): void {
  const attempt = (f: () => void): void => {
    try {
      f();
    } catch {
      // best effort: go on undoing the rest
    }
  };
  for (const tmp of staged.values()) attempt(() => rmSync(tmp, { force: true }));
  for (const step of [...removed].reverse())
    attempt(() => atomicWrite(resolveUnder(root, step.path), step.existing ?? ''));
  for (const step of [...committed].reverse()) {
    const target = resolveUnder(root, step.path);
    if (step.action === 'update') attempt(() => atomicWrite(target, step.existing ?? ''));
    else attempt(() => rmSync(target, { force: true }));
  }
  for (const dir of [...createdDirs].reverse()) attempt(() => rmSync(dir, { recursive: true, force: true }));
}
