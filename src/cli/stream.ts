// One target of generate or verify, from inputs to an output transaction, in memory bounded by the
// largest group rather than by the inputs. For CRD YAML:
//   1. every input is read, hashed and checked on its own (the cache keeps these checks by hash),
//      keeping only its diagnostics and its served kinds without their schemas;
//   2. the inputs are joined into clusters — the groups they define and the files that define
//      them — and each cluster is read again, built (titles, engine checks), generated and handed
//      to the output transaction file by file, then dropped; a cluster the cache knows, whose
//      files are on disk as the last run left them, is not generated at all. Step 1 keeps the
//      checked CRDs of the first inputs (as objects within a share of the heap, `keptInputBytes`,
//      then packed into buffers, `keptPackedBytes`) and step 2 builds from those instead of
//      parsing them again;
//   3. the files that span groups (clientset.ts, the fake clientset, the informer factory) are
//      generated last from every group's names.
// What the emitters of one group read of the others (group names, kinds for the operators and
// the client options) is the light model of step 1. Diagnostics come out in the order the
// in-memory reader gives them; nothing is generated when any input is invalid. TypeScript and
// OpenAPI inputs take the in-memory pipeline (pipeline.ts) into the same transaction.
//
// Steps 1 and 2 run in worker threads (stream-worker.ts) when the inputs are large enough for
// them to pay (WORKER_MIN_BYTES; CRDGEN_WORKERS sets their number, 0: none): each checks inputs as
// they come, keeping its share of the budgets, and generates the clusters whose inputs it kept
// (an idle thread takes another's, reading its inputs again), staging their files itself; the
// main thread keeps the transaction, the cache and the order of the diagnostics. A worker that
// runs out of heap stops with an error the run reports (CLI004), not a crash. The operators'
// groups are generated in the main thread, which holds them whole (their option checks read
// their schemas).

import { availableParallelism, loadavg } from 'node:os';
import { readFileSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { hasErrors } from '../diagnostics/format.js';
import { lightModel, type RenamedKind } from '../input/crd/index.js';
import type { Model } from '../model/types.js';
import { compareStrings } from '../model/order.js';
import type { EmitContext } from '../generate/emitter.js';
import { ControllerOptionsError, resolveControllerKind } from '../generate/controller-kinds.js';
import { groupNames } from '../generate/client-names.js';
import { FileStager, OutputTransaction } from '../emit/output.js';
import type { PlanAction } from '../emit/writer.js';
import { WriteError } from '../emit/writer.js';
import { unifiedDiff } from '../emit/diff.js';
import { displayPath, listInputs, readInput, type ListedInput } from './inputs.js';
import { CliError, EXIT, type CliIo } from './io.js';
import { removableStale, type ResolvedTarget } from './options.js';
import { join } from 'node:path';
import {
  buildTarget,
  checkProblem,
  emitContext,
  emitFiles,
  finishFiles,
  inputKind,
  readHeaderFile,
} from './pipeline.js';
import type { Reporter } from './report.js';
import { codeIdentity, GenerationCache, sha256, type ScanRecord } from './cache.js';
import { checkHeap, HeapLimitError } from './heap.js';
import {
  errorOf,
  loadCluster,
  runCluster,
  scanKey,
  targetData,
  withGroups,
  type ClusterEnv,
  type ClusterInput,
  type ClusterJob,
  type ClusterResult,
  type JobFailure,
  type LoadedCluster,
  jobHandler,
  Keeper,
  type WorkerReply,
  type WorkerRequest,
} from './stream-jobs.js';

/** Inputs from this size on are checked and generated in worker threads (measured: docs/bench-runs/notes-issue-38.md). */
export const WORKER_MIN_BYTES = 2 * 1024 * 1024;

/**
 * How far past what survived its last full collection a heap may grow before the next: V8's own
 * factor goes up to 4×, and a large run's threads keep little across groups (~30 MB each at 16×
 * the corpus), so most of their peak RSS would be that slack: 16×'s is 390–515 MB with V8's
 * factor, 305–320 MB with 2×, for 0–8 % more time (measured: docs/bench-runs/notes-issue-38.md).
 * Set for the whole process (V8's flags are), before the worker threads start.
 */
const HEAP_GROWING_PERCENT = 100;

/** At most this many worker threads. */
const MAX_WORKERS = 4;

/**
 * Work sent to a worker ahead, in bytes of the inputs its jobs read: about a quarter of a second's
 * (it keeps working while the main thread is busy with a long job of its own, and holds little
 * back from the other threads at the end).
 */
const WORKER_AHEAD_BYTES = 1024 * 1024;

/** At most this many jobs sent to a worker ahead. */
const WORKER_QUEUE = 16;

/** One file's step as a run plans it, with its diff when asked for ({@link StageOptions.diffs}). */
export interface PlannedStep {
  path: string;
  action: PlanAction;
  diff?: string;
}

/** How a target is staged. */
export interface StageOptions {
  /** verify: compare only, nothing staged. */
  dryRun: boolean;
  /** Use and fill the output folder's cache (generate). */
  cache: boolean;
  /** verify: a changed file's unified diff is made where it is found (paths shown relative to `cwd`). */
  diffs?: { cwd: string };
  /** Each file's step as it is planned (no contents are kept). */
  onStep?: (step: PlannedStep) => void;
}

/** A target generated into its output transaction, ready to finish and commit. */
export interface StagedTarget {
  target: ResolvedTarget;
  tx: OutputTransaction;
  /** The model's groups and kinds (for the summary; no schemas). */
  model: Model;
  /** Files the run produces. */
  files: number;
  /** Of those, the files of clusters the cache knew (not generated again). */
  fromCache: number;
  /** Input files read. */
  inputCount: number;
  /** The cache to save after the commit (generate). */
  cache?: GenerationCache;
}

/** An input after the first pass. */
interface InputEntry {
  /** Position among the inputs read (diagnostics are ordered by it). */
  index: number;
  input: ListedInput;
  hash: string;
  /** Its size in bytes. */
  size: number;
  scan: ScanRecord;
}

/** Groups and the inputs that define them: what is built and generated at once. */
interface Cluster {
  groups: string[];
  files: InputEntry[];
}

/** Maps an output-folder error to the CLI's. */
function writeError(e: unknown): never {
  if (e instanceof WriteError) throw new CliError(e.message, EXIT.invalidInput);
  if (e instanceof CliError) throw e;
  throw new CliError(`cannot write output: ${(e as Error).message}`, EXIT.invalidInput);
}

function openTransaction(target: ResolvedTarget, opts: StageOptions, cache?: GenerationCache): OutputTransaction {
  try {
    return new OutputTransaction(target.out!, {
      removeStale: target.clean,
      mayRemove: removableStale(target),
      dryRun: opts.dryRun,
      ...(cache ? { known: cache.stamps } : {}),
    });
  } catch (e) {
    writeError(e);
  }
}

/**
 * Reads, checks and generates `target` into an output transaction (nothing under its output
 * folder changes until the caller commits it). Undefined when an input has errors (reported).
 */
export async function stageTarget(
  target: ResolvedTarget,
  io: CliIo,
  reporter: Reporter,
  opts: StageOptions,
): Promise<StagedTarget | undefined> {
  if (inputKind(target) === 'yaml') {
    const streamed = await streamCrds(target, io, reporter, opts);
    if (streamed !== 'openapi') return streamed;
  }
  const built = await buildTarget(target, io, reporter);
  if (!built) return undefined;
  const onStep = opts.onStep ?? (() => undefined);
  const tx = openTransaction(target, opts);
  try {
    for (const f of built.files) {
      const step = tx.add(f);
      const planned: PlannedStep = { path: f.path, action: step.action };
      if (opts.diffs && step.action === 'update') {
        const shown = displayPath(opts.diffs.cwd, join(target.out!, f.path));
        planned.diff = unifiedDiff(shown, step.existing ?? '', shown, step.contents ?? '');
      }
      onStep(planned);
    }
  } catch (e) {
    tx.abort();
    writeError(e);
  }
  return { target, tx, model: built.model, files: built.files.length, fromCache: 0, inputCount: built.inputCount };
}

/** Clusters: groups joined with every input defining one of them, in the order of their first input. */
function clustersOf(files: readonly InputEntry[]): Cluster[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    let y = x;
    while (y !== r) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  for (const f of files) {
    const gs = f.scan.groups;
    for (const g of gs) if (!parent.has(g)) parent.set(g, g);
    for (const g of gs.slice(1)) parent.set(find(g), find(gs[0]));
  }
  const byRoot = new Map<string, Cluster>();
  for (const f of files) {
    if (f.scan.groups.length === 0) continue;
    const root = find(f.scan.groups[0]);
    let c = byRoot.get(root);
    if (!c) byRoot.set(root, (c = { groups: [], files: [] }));
    c.files.push(f);
    for (const g of f.scan.groups) if (!c.groups.includes(g)) c.groups.push(g);
  }
  for (const c of byRoot.values()) c.groups.sort(compareStrings);
  return [...byRoot.values()];
}

/** The key of what a run's output depends on besides its inputs: crdgen's code, the options. */
function runKey(target: ResolvedTarget, ctx: EmitContext, header: string | undefined): string {
  return sha256(
    JSON.stringify({
      code: codeIdentity(),
      emitters: target.emitters.map((e) => e.name),
      ctx: { ...ctx, sources: undefined },
      header: header ?? null,
    }),
  );
}

/** The renamed kinds' warnings in the model's order of groups and versions (stable within one). */
function byGroupVersion(renamed: RenamedKind[], model: Model): Diagnostic[] {
  const order = new Map<string, number>();
  for (const g of model.groups) for (const v of g.versions) order.set(`${g.name}/${v.name}`, order.size);
  return renamed
    .map((r, i) => ({ r, i, at: order.get(`${r.group}/${r.version}`) ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.r.diagnostic);
}

/** Sorts diagnostics by the position of their input (stable: one input's keep their order). */
function byInput(ds: Diagnostic[], position: ReadonlyMap<string, number>): Diagnostic[] {
  return ds
    .map((d, i) => ({ d, i, at: position.get(d.file ?? '') ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.d);
}

/** What {@link threadsFor} reads of the machine. */
export interface Machine {
  cores: number;
  /** Cores other work keeps busy now. */
  busy: number;
  heapLimit: number;
}

/**
 * How many cores other work keeps busy now: on Linux the tasks runnable at this moment besides
 * this thread (/proc/loadavg's fourth field; the load averages still count processes that have
 * ended, such as the run before this one), elsewhere the 1-minute load average.
 */
function busyCores(): number {
  let busy = loadavg()[0];
  try {
    // the fewest of a few readings a millisecond apart: V8's own helper threads are runnable now
    // and then, and any one reading may catch them
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let running = Infinity;
    for (let i = 0; i < 4; i++) {
      if (i > 0) Atomics.wait(pause, 0, 0, 1);
      running = Math.min(running, Number(/^\S+ \S+ \S+ (\d+)\//.exec(readFileSync('/proc/loadavg', 'utf8'))?.[1]));
    }
    if (Number.isInteger(running)) busy = Math.max(0, running - 1);
  } catch {
    // not Linux: the load average
  }
  return busy;
}

/** This machine; its busy cores are read ({@link busyCores}) only when asked for. */
function thisMachine(): Machine {
  return {
    cores: availableParallelism(),
    get busy() {
      return busyCores();
    },
    heapLimit: getHeapStatistics().heap_size_limit,
  };
}

/**
 * The threads a run of `bytes` of input works in: `threads` worker threads, and the main thread too
 * when `local`. Small inputs, or a machine with fewer than two idle cores: the main thread alone —
 * a worker's start and its second copy of the compiled code cost more than it saves, and on busy
 * cores it saves nothing (measured: docs/bench-runs/notes-issue-38.md); large inputs with idle
 * cores: a worker per idle core but one, the main thread taking jobs as well; a heap the inputs
 * could fill: workers only, whose running out of heap is an error the run reports.
 * CRDGEN_WORKERS sets the number of worker threads (0: none).
 */
export function threadsFor(
  bytes: number,
  env: Readonly<Record<string, string | undefined>>,
  machine: Machine = thisMachine(),
): { threads: number; local: boolean } {
  const tight = bytes * 32 > machine.heapLimit;
  const asked = env['CRDGEN_WORKERS'];
  if (asked !== undefined && /^\d+$/.test(asked)) return { threads: Math.min(Number(asked), 16), local: !tight };
  if (tight) return { threads: Math.max(1, Math.min(machine.cores, MAX_WORKERS)), local: false };
  if (bytes < WORKER_MIN_BYTES) return { threads: 0, local: true };
  const idle = Math.floor(machine.cores - machine.busy);
  if (idle < 2) return { threads: 0, local: true };
  return { threads: Math.min(idle - 1, MAX_WORKERS), local: true };
}

/**
 * A worker thread running stream-worker.js beside this module, keeping `keepShare` of the budgets
 * for kept inputs; from the TypeScript sources (tests run through tsx), one that registers tsx
 * first (Node 20 does not hand `--import` to workers).
 */
function startWorker(keepShare: number): Worker {
  const workerData = { keepShare };
  // a young generation of 16 MB, not V8's default: 15–20 MB less peak RSS a worker, the same time
  // (measured: docs/bench-runs/notes-issue-38.md)
  const resourceLimits = { maxYoungGenerationSizeMb: 16 };
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./stream-worker.js', here), { workerData, resourceLimits });
  const worker = new URL('./stream-worker.ts', here).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => m.register()).then(() => import(${JSON.stringify(worker)}))`,
    { eval: true, workerData, resourceLimits },
  );
}

/** A thread of a pool: a worker's index, or {@link LOCAL} for the main thread. */
type Thread = number;
const LOCAL: Thread = -1;

/**
 * Where in `waiting` the next job for `thread` is: its own first (a job meant for it), then one
 * meant for any thread; when `idle` (it has nothing else to do) and neither is waiting, the newest
 * job meant for another thread (it reads that job's inputs again rather than wait); -1: none.
 */
export function nextJobAt(waiting: readonly { thread: number | undefined }[], thread: number, idle: boolean): number {
  const own = waiting.findIndex((j) => j.thread === thread);
  if (own >= 0) return own;
  const any = waiting.findIndex((j) => j.thread === undefined);
  if (any >= 0) return any;
  return idle ? waiting.length - 1 : -1;
}

interface Job {
  msg: WorkerRequest;
  transfer: ArrayBuffer[];
  /** The thread that should run it (it kept the inputs the job reads); any when undefined. */
  thread: Thread | undefined;
  /** The bytes of input it reads. */
  weight: number;
  done: (reply: WorkerReply, thread: Thread) => void;
  fail: (e: unknown) => void;
}

/**
 * Worker threads (and, when `local`, the main thread) that take {@link WorkerRequest}s one at a
 * time each; see the file comment. A job meant for one thread (a cluster whose inputs that thread
 * kept) waits for it, unless another thread would idle: then that one takes it and reads its
 * inputs again.
 */
class WorkerPool {
  private readonly waiting: Job[] = [];
  /** Each worker's jobs sent and not answered yet, in order (it answers them in order). */
  private readonly sent = new Map<Worker, Job[]>();
  private readonly workers: Worker[] = [];
  private readonly handleHere: ReturnType<typeof jobHandler>;
  private localBusy = false;
  private closing = false;
  private broken: Error | undefined;
  private nextId = 0;

  /**
   * `keeper`: what the main thread keeps of the inputs it checks (when `local`); `keepShare`: each
   * worker's share of the budgets for kept inputs.
   */
  constructor(
    n: number,
    private readonly local: boolean,
    keeper: Keeper,
    keepShare: number,
  ) {
    this.handleHere = jobHandler(keeper);
    for (let i = 0; i < n; i++) {
      const w = startWorker(keepShare);
      w.on('message', (reply: WorkerReply & { failure?: JobFailure }) => {
        const job = this.sent.get(w)!.shift();
        if (reply.failure) job?.fail(errorOf(reply.failure));
        else job?.done(reply, i);
        this.pump();
      });
      w.on('error', (e: Error & { code?: string }) => this.break(e, w));
      w.on('exit', (code) => {
        if (code !== 0 && !this.closing) this.break(new Error(`a worker thread exited with ${code}`), w);
      });
      this.workers.push(w);
      this.sent.set(w, []);
    }
  }

  /** Jobs that can be in the threads at once (with those waiting in each worker). */
  get size(): number {
    return this.workers.length * WORKER_QUEUE + (this.local ? 1 : 0);
  }

  private break(e: Error & { code?: string }, w: Worker): void {
    const limit = Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
    const err =
      e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new HeapLimitError(limit, limit, 'generating in a worker thread') : e;
    this.broken ??= err;
    for (const job of this.sent.get(w)?.splice(0) ?? []) job.fail(err);
    for (const job of this.waiting.splice(0)) job.fail(err);
  }

  /** The next waiting job for `thread` ({@link nextJobAt}), taken out. */
  private take(thread: Thread, idle: boolean): Job | undefined {
    const at = nextJobAt(this.waiting, thread, idle);
    return at < 0 ? undefined : this.waiting.splice(at, 1)[0];
  }

  /**
   * Hands waiting jobs to the workers, one at a time each in turn, until each holds two and
   * {@link WORKER_AHEAD_BYTES}, and one to the main thread when it takes jobs and is free. A
   * worker's replies wait while the main thread runs a job of its own, so before it starts one the
   * workers are sent more than that job's weight (a job meant for another thread if need be): they
   * keep working until it is done.
   */
  private pump(): void {
    // the main thread takes a job meant for any thread only while more are waiting than the workers
    // hold: it has the transaction to keep too, and a long job of its own at the end would leave the
    // workers idle
    let next: Job | undefined;
    if (this.local && !this.localBusy && this.waiting.length > 0)
      next =
        this.waiting.length > this.workers.length
          ? this.take(LOCAL, true)
          : this.waiting.some((j) => j.thread === LOCAL)
            ? this.take(LOCAL, false)
            : undefined;
    const ahead = Math.max(WORKER_AHEAD_BYTES, 1.5 * (next?.weight ?? 0));
    for (let sent = true; sent && this.waiting.length > 0;) {
      sent = false;
      for (const [i, w] of this.workers.entries()) {
        const queue = this.sent.get(w)!;
        if (this.waiting.length === 0 || queue.length >= WORKER_QUEUE) continue;
        const queued = queue.reduce((n, j) => n + j.weight, 0);
        if (queue.length >= 2 && queued >= ahead) continue;
        // a worker that would run dry before the main thread's job is done takes another's job
        const job = this.take(i, queue.length === 0 || queued < (next?.weight ?? 0));
        if (!job) continue;
        queue.push(job);
        w.postMessage(job.msg, job.transfer);
        sent = true;
      }
    }
    if (!next) return;
    const job = next;
    this.localBusy = true;
    setImmediate(() => {
      this.handleHere(job.msg)
        .then((reply) => job.done(reply!, LOCAL), job.fail)
        .finally(() => {
          this.localBusy = false;
          this.pump();
        });
    });
  }

  /**
   * Runs `msg` (its `id` set here; it reads `weight` bytes of input) in the next free thread,
   * `thread` when given and it is not the only one with nothing to do; resolves with the reply and
   * the thread that ran it.
   */
  request<T extends WorkerReply>(
    msg: WorkerRequest,
    weight: number,
    transfer: ArrayBuffer[] = [],
    thread?: Thread,
  ): Promise<{ reply: T; thread: Thread }> {
    if (this.broken) return Promise.reject(this.broken);
    if ('id' in msg) msg.id = this.nextId++;
    return new Promise((done, fail) => {
      this.waiting.push({
        msg,
        transfer,
        thread,
        weight,
        done: (reply, by) => done({ reply: reply as T, thread: by }),
        fail,
      });
      this.pump();
    });
  }

  /** Sends `msg` to every thread, before anything sent after it. */
  broadcast(msg: WorkerRequest): void {
    for (const w of this.workers) w.postMessage(msg);
    if (this.local) void this.handleHere(msg);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Keeps at most `limit` promises of a pool in flight: waits for one when full. */
async function throttle(inflight: Set<Promise<unknown>>, limit: number): Promise<void> {
  while (inflight.size >= limit) await Promise.race(inflight);
}

/** The streaming run of a CRD YAML target; `openapi` when an input is an OpenAPI document (the in-memory path reads those). */
async function streamCrds(
  target: ResolvedTarget,
  io: CliIo,
  reporter: Reporter,
  opts: StageOptions,
): Promise<StagedTarget | undefined | 'openapi'> {
  const entries = await listInputs(target.inputs, { ...io, cwd: target.cwd });
  const header = await readHeaderFile(target);
  // the cache is not used with --format: the project's prettier and its config are inputs too
  const useCache = opts.cache && !opts.dryRun && !target.format;
  const onStep = opts.onStep ?? (() => undefined);
  const inputTotal = entries.filter((e) => 'input' in e).length;
  reporter.startProgress(inputTotal);
  reporter.progress(`checking ${inputTotal} inputs of ${target.name}…`);
  const sources = [...new Set(entries.flatMap((e) => ('input' in e ? [e.input.file.replace(/\\/g, '/')] : [])))].sort(
    compareStrings,
  );
  const ctx = emitContext(target, { groups: [], sources });
  const key = useCache ? runKey(target, ctx, header) : '';
  const cache = useCache ? GenerationCache.open(target.out!, key) : undefined;
  let bytes = 0;
  for (const e of entries)
    if ('input' in e)
      try {
        bytes += e.input.content?.length ?? statSync(e.input.abs!).size;
      } catch {
        // unreadable: reported when read
      }
  if (bytes >= WORKER_MIN_BYTES) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const threads = threadsFor(bytes, io.env ?? {});
  // every thread that checks inputs keeps an equal share of the budgets for kept inputs
  const keepShare = 1 / (threads.threads + (threads.local ? 1 : 0));
  const keeper = new Keeper(threads.local ? keepShare : 0);
  const pool = threads.threads > 0 ? new WorkerPool(threads.threads, threads.local, keeper, keepShare) : undefined;
  try {
    return await stream(target, reporter, opts, {
      entries,
      header,
      useCache,
      onStep,
      sources,
      ctx,
      key,
      cache,
      pool,
      keeper,
    });
  } finally {
    await pool?.close();
  }
}

async function stream(
  target: ResolvedTarget,
  reporter: Reporter,
  opts: StageOptions,
  run: {
    entries: Awaited<ReturnType<typeof listInputs>>;
    header: string | undefined;
    useCache: boolean;
    onStep: (step: PlannedStep) => void;
    sources: string[];
    ctx: EmitContext;
    key: string;
    cache: GenerationCache | undefined;
    pool: WorkerPool | undefined;
    /** What the main thread keeps of the inputs it checks. */
    keeper: Keeper;
  },
): Promise<StagedTarget | undefined | 'openapi'> {
  const { entries, header, onStep, sources, ctx, key, cache, pool, keeper } = run;
  const inflight = new Set<Promise<unknown>>();
  const limit = (pool?.size ?? 0) + 4;

  // 1. every input read, hashed and checked on its own; each thread keeps the checked CRDs of the
  // inputs it checks for step 2 while they fit its budget
  const { kept } = keeper;
  /** The thread that kept an input's checked CRDs, by input. */
  const holder = new Map<string, number>();
  const listing: Diagnostic[] = [];
  const slots: { input: ListedInput; hash: string; size: number; scan?: ScanRecord | 'openapi' }[] = [];
  for (const entry of entries) {
    if ('diagnostic' in entry) {
      listing.push(entry.diagnostic);
      continue;
    }
    const read = readInput(entry.input);
    if ('diagnostic' in read) {
      listing.push(read.diagnostic);
      continue;
    }
    const bytes = read.source.content as Uint8Array;
    const slot: (typeof slots)[number] = { input: entry.input, hash: sha256(bytes), size: bytes.byteLength };
    slots.push(slot);
    const known = cache?.scan(scanKey(entry.input, slot.hash));
    if (known) slot.scan = known;
    else if (pool) {
      await throttle(inflight, limit);
      // an unpooled buffer moves to the worker; a small pooled one is copied
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const p = pool
        .request<{ id: number; scan: ScanRecord | 'openapi'; kept: boolean }>(
          { type: 'scan', id: 0, input: entry.input, hash: slot.hash, bytes },
          bytes.byteLength,
          own ? [bytes.buffer as ArrayBuffer] : [],
        )
        .then(({ reply, thread }) => {
          slot.scan = reply.scan;
          if (reply.kept) holder.set(entry.input.file, thread);
        });
      inflight.add(p);
      void p.finally(() => inflight.delete(p)).catch(() => undefined);
    } else {
      slot.scan = keeper.scan(entry.input, slot.hash, bytes).scan;
      checkHeap('reading the inputs');
    }
  }
  await Promise.all(inflight);
  const files: InputEntry[] = [];
  const position = new Map<string, number>();
  for (const slot of slots) {
    if (slot.scan === 'openapi') return 'openapi';
    if (cache && !cache.scan(scanKey(slot.input, slot.hash))) cache.putScan(scanKey(slot.input, slot.hash), slot.scan!);
    position.set(slot.input.file, files.length);
    files.push({ index: files.length, input: slot.input, hash: slot.hash, scan: slot.scan!, size: slot.size });
  }
  const read = [...listing, ...files.flatMap((f) => f.scan.diagnostics)];
  reporter.report(read);
  if (hasErrors(read) || files.length === 0) return undefined;

  // what the files of one group read of the others: every served kind, without schemas
  const light = lightModel(
    files.flatMap((f) => f.scan.kinds),
    sources,
  );
  // what a group's files read of the other groups is its name in generated code, which depends on
  // the other groups' names (groupNames): the only part of the light model in a cluster's key
  const names = groupNames(light);
  const clusters = clustersOf(files);
  const jobOf = (c: Cluster, checkOnly: boolean, operators: string[]): ClusterJob => ({
    groups: c.groups,
    files: c.files.map((f): ClusterInput => ({
      file: f.input.file,
      hash: f.hash,
      ...(f.input.abs !== undefined ? { abs: f.input.abs } : {}),
      ...(f.input.content !== undefined ? { content: f.input.content } : {}),
    })),
    checkOnly,
    operators,
  });

  // the operators' kinds: their groups are built first and kept (their files and the option
  // checks read their schemas)
  const controllerGroup = new Map<string, string>();
  for (const selector of ctx.controllers ?? []) {
    try {
      controllerGroup.set(selector, resolveControllerKind(light, ctx, selector).group.name);
    } catch (e) {
      if (!(e instanceof ControllerOptionsError)) throw e; // the option check says it below
    }
  }
  // the thread that kept most of a cluster's inputs (it builds the cluster without reading them again)
  const keptBy = (c: Cluster): number | undefined => {
    const bytes = new Map<number, number>();
    for (const f of c.files) {
      const t = holder.get(f.input.file);
      if (t !== undefined) bytes.set(t, (bytes.get(t) ?? 0) + f.size);
    }
    return [...bytes].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0];
  };
  const operatorsOf = (c: Cluster): string[] =>
    [...controllerGroup].filter(([, g]) => c.groups.includes(g)).map(([s]) => s);
  const loaded = new Map<Cluster, LoadedCluster>();
  const engine: Diagnostic[] = [];
  const duplicates: Diagnostic[] = [];
  const renamed: RenamedKind[] = [];
  let inputErrors = false;
  for (const c of clusters)
    if (operatorsOf(c).length > 0) {
      const l = loadCluster(jobOf(c, false, []), sources, kept);
      loaded.set(c, l);
      if (hasErrors(l.engine) || hasErrors(l.duplicates)) inputErrors = true;
      checkHeap('reading the operators’ groups');
    }
  const base = withGroups(
    light,
    [...loaded.values()].flatMap((l) => l.groups),
  );
  let usage: string | undefined;
  if (!inputErrors) usage = checkProblem(target, { model: base, format: 'yaml' }, ctx);
  let failure: Error | undefined;

  // 2. cluster by cluster: built, generated, handed over
  const tx = openTransaction(target, opts, cache);
  let fileCount = 0;
  let fromCache = 0;
  try {
    const stager = new FileStager(tx.stagerState());
    const mainEnv: ClusterEnv = {
      target,
      ctx,
      base,
      header,
      command: reporter.command,
      stager,
      ...(opts.diffs ? { diffs: opts.diffs } : {}),
      kept,
    };
    pool?.broadcast({
      type: 'setup',
      target: targetData(target),
      ctx,
      base: light,
      header,
      command: reporter.command,
      stager: tx.stagerState(),
      ...(opts.diffs ? { diffs: opts.diffs } : {}),
    });
    let done = 0;
    const take = (job: ClusterJob, key: string | undefined, r: ClusterResult): void => {
      reporter.progress(`generating ${target.name}: ${++done} of ${clusters.length} clusters of groups…`);
      engine.push(...r.engine);
      duplicates.push(...r.duplicates);
      renamed.push(...r.renamed);
      if (hasErrors(r.engine) || hasErrors(r.duplicates)) inputErrors = true;
      reporter.report(r.warnings);
      if (r.failure) failure ??= errorOf(r.failure);
      const userOwned = new Set(r.outputs.filter((o) => o.userOwned === true).map((o) => o.path));
      for (const step of r.steps) {
        tx.record(step.path, step.action, userOwned.has(step.path));
        onStep(step);
      }
      fileCount += r.outputs.length;
      const generated = !job.checkOnly && !r.failure && !hasErrors(r.engine) && !hasErrors(r.duplicates);
      if (key !== undefined && generated)
        cache!.putCluster(key, { files: r.outputs, ...(r.renamed.length > 0 ? { renamed: r.renamed } : {}) });
    };
    for (const c of clusters) {
      const blocked = inputErrors || usage !== undefined || failure !== undefined;
      const operators = operatorsOf(c);
      const clusterKey =
        cache !== undefined && operators.length === 0
          ? sha256(
              JSON.stringify([
                key,
                c.groups.map((g) => [g, names.get(g) ?? null]),
                c.files.map((f) => [f.input.file, f.hash]),
              ]),
            )
          : undefined;
      if (!blocked && clusterKey !== undefined) {
        const known = cache!.cluster(clusterKey);
        if (known && known.files.every((f) => tx.isUnchanged(f.path, f.userOwned === true))) {
          for (const f of known.files) tx.markUnchanged(f.path, f.userOwned === true);
          renamed.push(...(known.renamed ?? []));
          fileCount += known.files.length;
          fromCache += known.files.length;
          done++;
          continue;
        }
      }
      const job = jobOf(c, blocked, operators);
      if (pool && operators.length === 0) {
        await throttle(inflight, limit);
        const p = pool
          .request<{ id: number; result: ClusterResult }>(
            { type: 'cluster', id: 0, job },
            c.files.reduce((n, f) => n + f.size, 0),
            [],
            keptBy(c),
          )
          .then(({ reply }) => {
            take(job, clusterKey, reply.result);
          });
        inflight.add(p);
        void p.finally(() => inflight.delete(p)).catch(() => undefined);
      } else {
        const l = loaded.get(c);
        loaded.delete(c);
        take(job, clusterKey, await runCluster(mainEnv, job, l));
      }
    }
    await Promise.all(inflight);
    // the diagnostics of the built models, in the in-memory reader's order
    reporter.report([
      ...byInput(engine, position),
      ...byInput(duplicates, position),
      ...byGroupVersion(renamed, light),
    ]);
    if (inputErrors) {
      tx.abort();
      return undefined;
    }
    if (usage !== undefined) throw new CliError(usage, EXIT.usage);
    if (failure !== undefined) throw failure;

    // 3. the files that span groups
    const shared = await finishFiles(
      target,
      emitFiles(target, base, 'yaml', { ...ctx, part: { shared: true } }, reporter.command),
      header,
      reporter,
    );
    for (const f of shared) {
      const step = tx.add(f);
      const planned: PlannedStep = { path: f.path, action: step.action };
      if (opts.diffs && step.action === 'update') {
        const shown = displayPath(opts.diffs.cwd, join(target.out!, f.path));
        planned.diff = unifiedDiff(shown, step.existing ?? '', shown, step.contents ?? '');
      }
      onStep(planned);
    }
    fileCount += shared.length;
  } catch (e) {
    await Promise.allSettled(inflight);
    tx.abort();
    if (e instanceof CliError || e instanceof HeapLimitError) throw e;
    if (e instanceof WriteError || (e as NodeJS.ErrnoException).code !== undefined) writeError(e);
    throw e;
  }
  return {
    target,
    tx,
    model: light,
    files: fileCount,
    fromCache,
    inputCount: files.length,
    ...(cache ? { cache } : {}),
  };
}
