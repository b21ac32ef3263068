// The output folder as one transaction, fed file by file: a run that generates group by group
// hands each file over as soon as it exists and keeps none of them. Each file is compared with
// what is on disk at once; a new or changed one is written into a staging folder (beside the
// output folder when both are on one file system, else a hidden folder inside it) and dropped.
// `commit` then moves the staged files into place and the stale generated files out; a failure at
// any step moves everything back, so the output folder is either the old one or the new one.
// Nothing under the output folder is touched before `commit`; `abort` only removes the staging
// folder. The same rules as writer.ts: only paths under the output folder, never through a
// symbolic link, never over a file crdgen did not generate, user-owned files written once.

import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { GeneratedFile } from './file.js';
import { isGeneratedContents } from './header.js';
import { resolveUnder, WriteError, type PlanAction, type PlanOptions } from './writer.js';
import { compareStrings } from '../model/order.js';

/** What identifies a file's contents on disk without reading it: written by crdgen and not changed since when equal. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** The stamp of `st`. */
export function stampOf(st: Stats): FileStamp {
  return { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** Options of {@link OutputTransaction}. */
export interface OutputOptions extends PlanOptions {
  /** Compare only (verify): nothing is staged, written or removed. */
  dryRun?: boolean;
  /**
   * Generated files of an earlier run with their stamps then (the cache's record): one whose stamp
   * still matches is known to be crdgen's and unchanged, and is not read to find that out.
   */
  known?: ReadonlyMap<string, FileStamp>;
  /**
   * Called before each file-system step that changes something (`stage`: writing a file into the
   * staging folder, `commit`: moving it into place, `remove`: moving a stale file out). A throw
   * is handled as a failure at that point; tests use it to inject failures.
   */
  beforeStep?: (step: 'stage' | 'commit' | 'remove', path: string) => void;
}

/** One planned step. `existing` and `contents` are handed to the caller only, never kept. */
export interface OutputStep {
  path: string;
  action: PlanAction;
  /** What is on disk now, when it was read (`update`, `conflict`, `remove`; `unchanged` and `keep` when read). */
  existing?: string;
  /** The new contents (every action but `remove`). */
  contents?: string;
}

/** Names of files the stale scan reads (text formats crdgen emits). */
const SCANNED_FILE = /\.(ts|mts|cts|js|mjs|cjs|json|ya?ml|md)$|^Dockerfile$/;

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

/** lstat, or undefined when nothing is there; a symbolic link or a folder where a file goes is an error. */
function fileStat(p: string): Stats | undefined {
  let st: Stats;
  try {
    st = lstatSync(p);
  } catch (e) {
    if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return undefined;
    throw e;
  }
  if (st.isSymbolicLink()) throw new WriteError(`refusing to write through symbolic link ${p}`);
  if (!st.isFile()) throw new WriteError(`${p} exists and is not a regular file`);
  return st;
}

/**
 * What a {@link FileStager} needs, as plain data: a transaction hands it to other threads
 * ({@link OutputTransaction.stagerState}), which plan and stage their files themselves.
 */
export interface StagerState {
  root: string;
  fresh: boolean;
  dryRun: boolean;
  known: ReadonlyMap<string, FileStamp>;
  /** The staging folder (absent for a dry run). */
  stageRoot?: string;
}

/**
 * The per-file half of a transaction: compares a file with the disk and, when it is new or
 * changed, writes it into the staging folder. Records nothing; the transaction does.
 */
export class FileStager {
  private readonly stagedDirs = new Set<string>();

  constructor(
    private readonly state: StagerState,
    private readonly hook: NonNullable<OutputOptions['beforeStep']> = () => undefined,
    private readonly stageDir: () => string = () => state.stageRoot!,
  ) {}

  /** Plans `file` and stages it when it is new or changed (not in a dry run). */
  add(file: GeneratedFile): OutputStep {
    const target = resolveUnder(this.state.root, file.path);
    const step = this.plan(file, target);
    if ((step.action === 'create' || step.action === 'update') && !this.state.dryRun) this.stage(file);
    return step;
  }

  private plan(file: GeneratedFile, target: string): OutputStep {
    const step: OutputStep = { path: file.path, action: 'create', contents: file.contents };
    if (this.state.fresh) return step;
    const st = fileStat(target);
    if (!st) return step;
    if (file.userOwned) {
      step.action = 'keep';
      return step;
    }
    const stamp = this.state.known.get(file.path);
    const ours = stamp !== undefined && sameStamp(stampOf(st), stamp);
    // a file of ours whose length differs has changed: no need to read it
    if (ours && st.size !== Buffer.byteLength(file.contents) && !this.state.dryRun) {
      step.action = 'update';
      return step;
    }
    const existing = readFileSync(target, 'utf8');
    step.existing = existing;
    if (existing === file.contents) step.action = 'unchanged';
    else if (ours || isGeneratedContents(existing)) step.action = 'update';
    else step.action = 'conflict';
    return step;
  }

  private stage(file: GeneratedFile): void {
    this.hook('stage', file.path);
    const staged = join(this.stageDir(), 'new', ...file.path.split('/'));
    this.ensureDir(dirname(staged));
    writeFileSync(staged, file.contents, { flag: 'wx' });
  }

  /** Makes `dir` (and its parents) in the staging folder, once each. */
  private ensureDir(dir: string): void {
    if (this.stagedDirs.has(dir)) return;
    const parent = dirname(dir);
    if (parent !== dir && !this.stagedDirs.has(parent) && parent.startsWith(this.stageDir())) this.ensureDir(parent);
    try {
      mkdirSync(dir);
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e;
    }
    this.stagedDirs.add(dir);
  }
}

/** The output folder's changes as one transaction; see the file comment. */
export class OutputTransaction {
  private readonly root: string;
  private readonly fresh: boolean;
  private readonly known: ReadonlyMap<string, FileStamp>;
  private readonly hook: NonNullable<OutputOptions['beforeStep']>;
  /** Every path of the run with its action, in the order handed over. */
  private readonly planned = new Map<string, PlanAction>();
  /** Planned paths that are the user's once written (never stamped: a stale scan must read them). */
  private readonly userOwned = new Set<string>();
  private readonly conflicts: string[] = [];
  private readonly removals: string[] = [];
  private stageRoot: string | undefined;
  /** The staging folder is beside the output folder (not inside it). */
  private besideRoot = false;
  /** The first missing parent of a new output folder, created for the staging folder. */
  private createdParent: string | undefined;
  private readonly stager: FileStager;
  private finished = false;
  private done = false;

  constructor(
    outDir: string,
    private readonly opts: OutputOptions = {},
  ) {
    this.root = resolve(outDir);
    this.known = opts.known ?? new Map();
    this.hook = opts.beforeStep ?? (() => undefined);
    let st: Stats | undefined;
    try {
      st = statSync(this.root);
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
    }
    if (st && !st.isDirectory()) throw new WriteError(`${this.root} exists and is not a folder`);
    this.fresh = st === undefined;
    this.stager = new FileStager(
      { root: this.root, fresh: this.fresh, dryRun: opts.dryRun === true, known: this.known },
      this.hook,
      () => this.stageDir(),
    );
  }

  /**
   * The state a {@link FileStager} in another thread needs to plan and stage this transaction's
   * files (the staging folder is made now); record their steps with {@link record}.
   */
  stagerState(): StagerState {
    return {
      root: this.root,
      fresh: this.fresh,
      dryRun: this.opts.dryRun === true,
      known: this.known,
      ...(this.opts.dryRun ? {} : { stageRoot: this.stageDir() }),
    };
  }

  /** Records a step a {@link FileStager} planned (and staged) for this transaction; `userOwned`: the file is the user's once written. */
  record(path: string, action: PlanAction, userOwned = false): void {
    if (this.finished) throw new Error('OutputTransaction.record after finish');
    if (this.planned.has(path)) throw new Error(`${path} handed over twice`);
    this.planned.set(path, action);
    if (userOwned) this.userOwned.add(path);
    if (action === 'conflict') this.conflicts.push(path);
  }

  /** The output folder (absolute). */
  get outDir(): string {
    return this.root;
  }

  /**
   * Plans `file` and, when it is new or changed, stages it. Returns the step, with what is on disk
   * when it was read (for a diff); the transaction keeps only the path and the action. A failure
   * aborts the transaction (see {@link abort}) before it is rethrown.
   */
  add(file: GeneratedFile): OutputStep {
    if (this.finished) throw new Error('OutputTransaction.add after finish');
    if (this.planned.has(file.path)) throw new Error(`${file.path} handed over twice`);
    let step: OutputStep;
    try {
      step = this.stager.add(file);
    } catch (e) {
      // a file that cannot be staged ends the transaction: nothing is left behind
      this.abort();
      throw e;
    }
    this.record(file.path, step.action, file.userOwned === true);
    return step;
  }

  /**
   * The files of this run that stay crdgen's (not removed, not the user's once written): the ones
   * whose stamps a later run may take as proof that a file is crdgen's and unchanged.
   */
  generatedPaths(): string[] {
    return this.steps()
      .filter((s) => s.action !== 'remove' && !this.userOwned.has(s.path))
      .map((s) => s.path);
  }

  /**
   * A file this run produces that an earlier run wrote with the contents it would have now (the
   * cache's word): true when it is on disk as that run left it ({@link OutputOptions.known}), or
   * for a user-owned file, when it is there at all. Plans nothing; see {@link markUnchanged}.
   */
  isUnchanged(path: string, userOwned: boolean): boolean {
    const target = resolveUnder(this.root, path);
    if (this.fresh || this.planned.has(path)) return false;
    const st = fileStat(target);
    if (!st) return false;
    if (userOwned) return true;
    const stamp = this.known.get(path);
    return stamp !== undefined && sameStamp(stampOf(st), stamp);
  }

  /** Plans a file {@link isUnchanged} found unchanged: `unchanged` (`keep` when user-owned). */
  markUnchanged(path: string, userOwned: boolean): void {
    if (this.finished) throw new Error('OutputTransaction.markUnchanged after finish');
    if (this.planned.has(path)) throw new Error(`${path} handed over twice`);
    this.planned.set(path, userOwned ? 'keep' : 'unchanged');
    if (userOwned) this.userOwned.add(path);
  }

  /**
   * Creates the staging folder: beside the output folder when both are on one file system (a new
   * output folder: beside where it goes, its missing parents created), else inside it.
   */
  private stageDir(): string {
    if (this.stageRoot !== undefined) return this.stageRoot;
    const id = randomBytes(6).toString('hex');
    let dir: string;
    try {
      if (this.fresh) {
        const made = mkdirSync(dirname(this.root), { recursive: true });
        if (made !== undefined) this.createdParent = made;
        dir = join(dirname(this.root), `.${basename(this.root)}.crdgen-${id}`);
      } else {
        const real = realpathSync(this.root);
        if (statSync(dirname(real)).dev !== statSync(real).dev) throw new Error('another file system');
        dir = join(dirname(real), `.${basename(real)}.crdgen-${id}`);
      }
      mkdirSync(dir);
      this.besideRoot = true;
    } catch {
      mkdirSync(this.root, { recursive: true });
      dir = join(this.root, `.crdgen-stage-${id}`);
      mkdirSync(dir);
    }
    this.stageRoot = dir;
    return dir;
  }

  /**
   * Ends the planning: the stale scan (generated files under the output folder that this run did
   * not produce and may remove). Returns the removals, with what is on disk.
   */
  finish(): OutputStep[] {
    if (this.finished) throw new Error('OutputTransaction.finish twice');
    this.finished = true;
    const out: OutputStep[] = [];
    if (this.fresh || this.opts.removeStale === false) return out;
    const may = this.opts.mayRemove ?? (() => true);
    const walk = (dir: string): void => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (e) {
        if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return;
        throw e;
      }
      entries.sort((a, b) => compareStrings(a.name, b.name));
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name === 'node_modules') continue;
        const p = join(dir, e.name);
        if (e.isDirectory()) {
          walk(p);
          continue;
        }
        if (!e.isFile() || !SCANNED_FILE.test(e.name)) continue;
        const rel = relative(this.root, p).split(sep).join('/');
        if (this.planned.has(rel) || !may(rel)) continue;
        const stamp = this.known.get(rel);
        if (stamp !== undefined && sameStamp(stampOf(lstatSync(p)), stamp)) {
          out.push({ path: rel, action: 'remove' });
          continue;
        }
        const text = readFileSync(p, 'utf8');
        if (isGeneratedContents(text)) out.push({ path: rel, action: 'remove', existing: text });
      }
    };
    walk(this.root);
    for (const r of out) {
      this.planned.set(r.path, 'remove');
      this.removals.push(r.path);
    }
    return out;
  }

  /** Every path of the run and its action, sorted by path. */
  steps(): { path: string; action: PlanAction }[] {
    return [...this.planned].map(([path, action]) => ({ path, action })).sort((a, b) => compareStrings(a.path, b.path));
  }

  /**
   * Applies the plan: refuses it whole when a generated file would go where a file crdgen did
   * not generate is; moves every staged file into place (the old one into the staging folder
   * first), then every stale file out; removes folders the stale files left empty and the
   * staging folder. Any failure moves everything back and rethrows: the output folder is as it was.
   */
  commit(): void {
    if (!this.finished) this.finish();
    if (this.done) throw new Error('OutputTransaction.commit twice');
    this.done = true;
    if (this.conflicts.length > 0) {
      this.abort();
      throw new WriteError(
        `refusing to overwrite files crdgen did not generate: ${[...this.conflicts].sort(compareStrings).join(', ')}`,
      );
    }
    if (this.opts.dryRun) return;
    const writes = this.steps().filter((s) => s.action === 'create' || s.action === 'update');
    const removes = this.removals.sort(compareStrings);
    if (writes.length === 0 && removes.length === 0) {
      this.abort();
      return;
    }
    const stage = this.stageDir();
    if (this.fresh && this.besideRoot && removes.length === 0) {
      // a new output folder: the staged tree becomes it in one rename
      try {
        for (const w of writes) this.hook('commit', w.path);
        if (fileStat(this.root) !== undefined || existsSync(this.root))
          throw new WriteError(`${this.root} appeared during the run`);
        renameSync(join(stage, 'new'), this.root);
      } catch (e) {
        this.abort();
        throw e;
      }
      this.abort(true);
      return;
    }
    const undo: (() => void)[] = [];
    const createdDirs: string[] = [];
    const checkedDirs = new Set<string>();
    try {
      const first = mkdirSync(this.root, { recursive: true });
      if (first !== undefined) createdDirs.push(first);
      const realRoot = realpathSync(this.root);
      for (const w of writes) {
        this.hook('commit', w.path);
        const target = resolveUnder(this.root, w.path);
        const dir = dirname(target);
        if (!checkedDirs.has(dir)) {
          const made = mkdirSync(dir, { recursive: true });
          if (made !== undefined) createdDirs.push(made);
          const realDir = realpathSync(dir);
          if (realDir !== realRoot && !realDir.startsWith(realRoot + sep))
            throw new WriteError(`output folder for ${w.path} resolves outside ${this.root}`);
          checkedDirs.add(dir);
        }
        const staged = join(stage, 'new', ...w.path.split('/'));
        if (w.action === 'update') {
          const old = this.backup(stage, w.path, target);
          renameSync(staged, target);
          undo.push(() => renameSync(old, target));
        } else {
          if (fileStat(target) !== undefined) throw new WriteError(`${target} appeared during the run`);
          renameSync(staged, target);
          undo.push(() => rmSync(target, { force: true }));
        }
      }
      for (const path of removes) {
        this.hook('remove', path);
        const target = resolveUnder(this.root, path);
        const old = this.backup(stage, path, target);
        undo.push(() => renameSync(old, target));
      }
    } catch (e) {
      for (const u of undo.reverse()) attempt(u);
      for (const dir of createdDirs.reverse()) attempt(() => rmSync(dir, { recursive: true, force: true }));
      this.abort();
      throw e;
    }
    for (const path of removes) pruneEmptyDirs(dirname(resolveUnder(this.root, path)), this.root);
    this.abort(true);
  }

  /** Moves `target` (an existing output file) into the staging folder's `old/`; returns where it went. */
  private backup(stage: string, path: string, target: string): string {
    const old = join(stage, 'old', ...path.split('/'));
    mkdirSync(dirname(old), { recursive: true });
    renameSync(target, old);
    return old;
  }

  /** Drops the staging folder (and the parents made for it, unless `committed`); the output folder is not touched. */
  abort(committed = false): void {
    if (this.stageRoot !== undefined) attempt(() => rmSync(this.stageRoot!, { recursive: true, force: true }));
    if (!committed && this.createdParent !== undefined && !existsSync(this.root))
      attempt(() => rmSync(this.createdParent!, { recursive: true, force: true }));
    this.stageRoot = undefined;
  }
}

function attempt(f: () => void): void {
  try {
    f();
  } catch {
    // best effort: go on undoing the rest
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
