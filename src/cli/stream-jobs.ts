// The two kinds of work of a streaming run (stream.ts), as functions of plain data so that the
// main thread and the worker threads (stream-worker.ts) run the same code: the checks of one
// input (`scanKeeping`, through the thread's `Keeper`), and one cluster of groups read again,
// built, generated and staged (`runCluster`). Errors leave a job as data (`JobFailure`) and
// become the same errors again in the main thread.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { hasErrors } from '../diagnostics/format.js';
import {
  buildModel,
  checkText,
  checkedCrds,
  decodeChecked,
  decodeText,
  keepChecked,
  lightKinds,
  packChecked,
  unpackChecked,
  type CheckedCrd,
  type PackedCrds,
  type RenamedKind,
} from '../input/crd/index.js';
import { isOpenApiText } from '../input/openapi/index.js';
import type { Group, Model } from '../model/types.js';
import type { EmitContext, GeneratedFile } from '../generate/emitter.js';
import { EMITTERS } from '../generate/registry.js';
import { FileStager, type StagerState } from '../emit/output.js';
import type { PlanAction } from '../emit/writer.js';
import { unifiedDiff } from '../emit/diff.js';
import { displayPath, type ListedInput } from './inputs.js';
import { CliError, EXIT } from './io.js';
import type { ResolvedTarget } from './options.js';
import { emitFiles, finishFiles } from './pipeline.js';
import { GenerationCache, sha256, type ScanRecord } from './cache.js';
import { checkHeap, HeapLimitError } from './heap.js';

/** A target as plain data (its generators by name). */
export type TargetData = Omit<ResolvedTarget, 'emitters'> & { emitters: string[] };

/** `target` as plain data. */
export function targetData(target: ResolvedTarget): TargetData {
  return { ...target, emitters: target.emitters.map((e) => e.name) };
}

/** The target again, from {@link targetData}. */
export function fromTargetData(data: TargetData): ResolvedTarget {
  return { ...data, emitters: EMITTERS.filter((e) => data.emitters.includes(e.name)) };
}

/** What a job failed with, as data. */
export type JobFailure =
  | { kind: 'cli'; message: string; exitCode: number }
  | { kind: 'heap'; usedMb: number; limitMb: number; during: string }
  | { kind: 'other'; message: string; stack?: string };

/** `e` as data. */
export function failureOf(e: unknown): JobFailure {
  if (e instanceof CliError) return { kind: 'cli', message: e.message, exitCode: e.exitCode };
  if (e instanceof HeapLimitError) return { kind: 'heap', usedMb: e.usedMb, limitMb: e.limitMb, during: e.during };
  const err = e instanceof Error ? e : new Error(String(e));
  return { kind: 'other', message: err.message, ...(err.stack !== undefined ? { stack: err.stack } : {}) };
}

/** The error a {@link JobFailure} was. */
export function errorOf(f: JobFailure): Error {
  if (f.kind === 'cli') return new CliError(f.message, f.exitCode);
  if (f.kind === 'heap') return new HeapLimitError(f.usedMb, f.limitMb, f.during);
  const e = new Error(f.message);
  if (f.stack !== undefined) e.stack = f.stack;
  return e;
}

/** Heap a kept input's checked CRDs take per byte of its YAML (measured on the corpus: 3.6). */
const KEPT_HEAP_PER_BYTE = 4;

/**
 * The heap kept checked CRDs may take: an eighth of the heap limit, at most 24 MB (the corpus
 * once over; each MB kept adds about as much to the peak RSS of a run of any size).
 */
const KEPT_HEAP_MAX = 24 * 1024 * 1024;

/**
 * The bytes of input whose checked CRDs the first pass keeps for the second (which parses and
 * decodes the others again): what fits {@link KEPT_HEAP_MAX} in a heap of `heapLimit` bytes.
 */
export function keptInputBytes(heapLimit: number): number {
  return Math.min(heapLimit / 8, KEPT_HEAP_MAX) / KEPT_HEAP_PER_BYTE;
}

/**
 * The bytes the first pass may keep packed ({@link scanKeeping}'s `packed`: about 0.6 bytes per
 * byte of YAML, outside the heap) once the inputs kept as objects fill their share: a sixteenth of
 * the heap limit, at most 24 MB (about 40 MB of YAML more that step 2 does not parse again; the
 * cap is set by the peak RSS at 16×, which 32 MB raised by 14–48 MB).
 */
export function keptPackedBytes(heapLimit: number): number {
  return Math.min(heapLimit / 16, 24 * 1024 * 1024);
}

/**
 * What one thread keeps of the first pass for the second: the checked CRDs of the inputs it
 * checks, as objects while {@link keptInputBytes} allows, then packed while
 * {@link keptPackedBytes} does; `share` of each budget when several threads keep (the run's peak
 * memory stays that of one).
 */
export class Keeper {
  readonly kept: KeptCrds = new Map();
  private readonly objectBudget: number;
  private readonly packBudget: number;
  private objectBytes = 0;
  private packedBytes = 0;

  constructor(share: number) {
    const heapLimit = getHeapStatistics().heap_size_limit;
    this.objectBudget = keptInputBytes(heapLimit) * share;
    this.packBudget = keptPackedBytes(heapLimit) * share;
  }

  /** Checks `input` ({@link scanKeeping}), keeping its checked CRDs when they fit; whether it kept them. */
  scan(input: ListedInput, hash: string, bytes: Uint8Array): { scan: ScanRecord | 'openapi'; kept: boolean } {
    const keep =
      this.objectBytes + bytes.byteLength <= this.objectBudget
        ? 'objects'
        : this.packedBytes < this.packBudget
          ? 'packed'
          : false;
    const scanned = scanKeeping(input, bytes, keep);
    if (scanned === 'openapi') return { scan: scanned, kept: false };
    if (scanned.crds) {
      this.kept.set(input.file, { hash, crds: scanned.crds });
      this.objectBytes += bytes.byteLength;
    } else if (scanned.packed) {
      this.kept.set(input.file, { hash, packed: scanned.packed });
      this.packedBytes += scanned.packed.data.byteLength;
    }
    return { scan: scanned.scan, kept: this.kept.has(input.file) };
  }
}

/**
 * The checks of one input on its own — its diagnostics, the groups of its CRDs and its served
 * kinds without schemas (`openapi` when it is an OpenAPI document: the in-memory pipeline reads
 * those) — and with `keep` the input's checked CRDs as {@link loadCluster} builds from
 * them: as objects (`objects`: `crds`) or packed into a buffer (`packed`: `packed`, a sixth of the
 * heap, unpacked in a fraction of a parse); absent when the input has errors or cannot be kept
 * (see {@link keepChecked}).
 */
export function scanKeeping(
  input: ListedInput,
  bytes: Uint8Array,
  keep: false | 'objects' | 'packed',
): { scan: ScanRecord; crds?: CheckedCrd[]; packed?: PackedCrds } | 'openapi' {
  const decoded = decodeText(input.file, bytes);
  if ('diagnostic' in decoded) return { scan: { diagnostics: [decoded.diagnostic], groups: [], kinds: [] } };
  if (isOpenApiText(decoded.text)) return 'openapi';
  const checked = checkText(input.file, decoded.text, input.fromDirectory === true);
  // copied through JSON: the strings V8 sliced out of the input text would keep all of it (and a
  // record read back from the cache is the same JSON)
  const scan = JSON.parse(
    JSON.stringify({
      diagnostics: checked.diagnostics,
      groups: [...new Set(checked.crds.map((c) => (c.crd.spec as { group: string }).group))],
      kinds: checked.crds.flatMap(lightKinds),
    }),
  ) as ScanRecord;
  if (keep === false || hasErrors(checked.diagnostics)) return { scan };
  if (keep === 'packed') {
    const packed = packChecked(checked.crds);
    return packed ? { scan, packed } : { scan };
  }
  const crds = keepChecked(decoded.text, checked.crds);
  return crds ? { scan, crds } : { scan };
}

/** The cache key of an input's scan. */
export function scanKey(input: ListedInput, hash: string): string {
  return GenerationCache.scanKey(input.file, input.fromDirectory === true, hash);
}

/** One input of a cluster: what the first pass read (its hash), to read it again. */
export interface ClusterInput {
  file: string;
  abs?: string;
  /** Stdin's bytes. */
  content?: Uint8Array;
  hash: string;
}

/** A cluster to generate: its groups and the inputs defining them, in input order. */
export interface ClusterJob {
  groups: string[];
  files: ClusterInput[];
  /** Only check: read and build for the diagnostics, generate nothing. */
  checkOnly: boolean;
  /** The `--controller` selectors whose kinds are in these groups (their operators are generated with them). */
  operators: string[];
}

/** What a cluster gave: its steps, its output paths (for the cache), the diagnostics of building it. */
export interface ClusterResult {
  steps: { path: string; action: PlanAction; diff?: string }[];
  outputs: { path: string; userOwned?: boolean }[];
  /** The engine's findings, the kinds defined twice, the kinds renamed (reader order within the cluster). */
  engine: Diagnostic[];
  duplicates: Diagnostic[];
  renamed: RenamedKind[];
  /** Diagnostics of the generation (the operators' stub hooks). */
  warnings: Diagnostic[];
  /** Why it could not be generated (a name collision…); the main thread decides what it means. */
  failure?: JobFailure;
}

/** What every cluster of one target shares. */
export interface ClusterEnv {
  target: ResolvedTarget;
  /** The context of the run (every source); each cluster emits its part. */
  ctx: EmitContext;
  /** Every group of the run, light (operators' groups full where they are loaded). */
  base: Model;
  header: string | undefined;
  command: string;
  stager: FileStager;
  /** verify: a changed file's diff, made where it is found (paths shown relative to `cwd`). */
  diffs?: { cwd: string };
  /** The checked CRDs the first pass kept in this thread. */
  kept?: KeptCrds;
}

/** The bytes of an input as the first pass read them; a file changed since is an error. */
function readAgain(f: ClusterInput): Uint8Array {
  const bytes = f.content ?? readFileSync(f.abs!);
  if (sha256(bytes) !== f.hash)
    throw new CliError(`${f.file} changed while crdgen was reading it; run again`, EXIT.invalidInput);
  return bytes;
}

/** A cluster's groups built (titles, frozen schemas, engine checks), and what the checks found. */
export interface LoadedCluster {
  groups: Group[];
  engine: Diagnostic[];
  duplicates: Diagnostic[];
  renamed: RenamedKind[];
}

/**
 * Checked CRDs the first pass kept, by input (its display name), with the hash of the bytes they
 * came from, as objects (`crds`) or packed (`packed`); {@link loadCluster} takes each out when it
 * builds from it.
 */
export type KeptCrds = Map<string, { hash: string; crds?: CheckedCrd[]; packed?: PackedCrds }>;

/** The checked CRDs of one input of a cluster: kept by the first pass, else read again. */
function crdsOf(f: ClusterInput, kept: KeptCrds | undefined): CheckedCrd[] {
  const k = kept?.get(f.file);
  if (k !== undefined && k.hash === f.hash) {
    kept!.delete(f.file);
    if (k.crds) return k.crds;
    // the text is read again (and its hash checked) only when a diagnostic asks for a position
    if (k.packed) return unpackChecked(f.file, k.packed, () => decodeChecked(readAgain(f)));
  }
  return checkedCrds(f.file, decodeChecked(readAgain(f)));
}

/** Reads the inputs of a cluster again (those not `kept`) and builds its groups. */
export function loadCluster(
  job: Pick<ClusterJob, 'groups' | 'files'>,
  sources: string[],
  kept?: KeptCrds,
): LoadedCluster {
  const crds = job.files.flatMap((f) => crdsOf(f, kept));
  const groups = new Set(job.groups);
  const built = buildModel(
    crds.filter((x) => groups.has((x.crd.spec as { group: string }).group)),
    sources,
  );
  return { groups: built.model.groups, engine: built.engine, duplicates: built.duplicates, renamed: built.renamed };
}

/** `base` with the groups of `full` in place of its own. */
export function withGroups(base: Model, full: readonly Group[]): Model {
  if (full.length === 0) return base;
  const byName = new Map(full.map((g) => [g.name, g]));
  return { groups: base.groups.map((g) => byName.get(g.name) ?? g), sources: base.sources };
}

/**
 * Generates one cluster (`loaded`: already built, else read and built now) and stages its files:
 * the emitters' part of these groups, the header file and --format over it, each file compared
 * with the disk and dropped. A cluster with input errors, or `checkOnly`, is only built.
 */
export async function runCluster(env: ClusterEnv, job: ClusterJob, loaded?: LoadedCluster): Promise<ClusterResult> {
  const l = loaded ?? loadCluster(job, env.base.sources, env.kept);
  const result: ClusterResult = {
    steps: [],
    outputs: [],
    engine: l.engine,
    duplicates: l.duplicates,
    renamed: l.renamed,
    warnings: [],
  };
  if (job.checkOnly || hasErrors(l.engine) || hasErrors(l.duplicates)) return result;
  let files: GeneratedFile[];
  try {
    const ctx: EmitContext = { ...env.ctx, part: { groups: new Set(job.groups) } };
    if (env.ctx.controllers !== undefined) {
      if (job.operators.length > 0) ctx.controllers = job.operators;
      else delete ctx.controllers;
    }
    const emitted = emitFiles(env.target, withGroups(env.base, l.groups), 'yaml', ctx, env.command);
    files = await finishFiles(env.target, emitted, env.header, {
      command: env.command,
      report: (ds) => void result.warnings.push(...ds),
    });
  } catch (e) {
    if (e instanceof HeapLimitError) throw e;
    result.failure = failureOf(e);
    return result;
  }
  for (const f of files) {
    const step = env.stager.add(f);
    const entry: ClusterResult['steps'][number] = { path: f.path, action: step.action };
    if (env.diffs && step.action === 'update') {
      const shown = displayPath(env.diffs.cwd, join(env.target.out!, f.path));
      entry.diff = unifiedDiff(shown, step.existing ?? '', shown, step.contents ?? '');
    }
    result.steps.push(entry);
    result.outputs.push(f.userOwned ? { path: f.path, userOwned: true } : { path: f.path });
  }
  checkHeap('generating');
  return result;
}

/** The messages a job handler takes (a worker thread's, or the main thread's own). */
export type WorkerRequest =
  | { type: 'scan'; id: number; input: ListedInput; hash: string; bytes: Uint8Array }
  | {
      type: 'setup';
      target: TargetData;
      ctx: EmitContext;
      base: Model;
      header: string | undefined;
      command: string;
      stager: StagerState;
      diffs?: { cwd: string };
    }
  | { type: 'cluster'; id: number; job: ClusterJob };

/**
 * A reply: `{ id, scan, kept }` (whether this thread kept the input's checked CRDs for a cluster
 * it runs later), `{ id, result }`; none for `setup`.
 */
export type WorkerReply =
  { id: number; scan: ScanRecord | 'openapi'; kept: boolean } | { id: number; result: ClusterResult };

/**
 * Runs {@link WorkerRequest}s; holds what `setup` gave for the clusters after it, and what
 * `keeper` kept of the inputs it checked for the clusters it builds.
 */
export function jobHandler(keeper: Keeper): (msg: WorkerRequest) => Promise<WorkerReply | undefined> {
  let env: ClusterEnv | undefined;
  return async (msg) => {
    switch (msg.type) {
      case 'scan': {
        const { scan, kept } = keeper.scan(msg.input, msg.hash, msg.bytes);
        checkHeap('reading the inputs');
        return { id: msg.id, scan, kept };
      }
      case 'setup':
        env = {
          target: fromTargetData(msg.target),
          ctx: msg.ctx,
          base: msg.base,
          header: msg.header,
          command: msg.command,
          stager: new FileStager(msg.stager),
          ...(msg.diffs ? { diffs: msg.diffs } : {}),
          kept: keeper.kept,
        };
        return undefined;
      case 'cluster':
        return { id: msg.id, result: await runCluster(env!, msg.job) };
    }
  };
}
