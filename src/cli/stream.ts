// One target of generate or verify, from inputs to an output transaction, in memory bounded by the
// largest group rather than by the inputs. For CRD YAML:
//   1. every input is read, hashed and checked on its own (the cache keeps these checks by hash),
//      keeping only its diagnostics and its served kinds without their schemas;
//   2. the inputs are joined into clusters — the groups they define and the files that define
//      them — and each cluster is read again, built (titles, engine checks), generated and handed
//      to the output transaction file by file, then dropped; a cluster the cache knows, whose
//      files are on disk as the last run left them, is not generated at all;
//   3. the files that span groups (clientset.ts, the fake clientset, the informer factory) are
//      generated last from every group's names.
// What the emitters of one group read of the others (group names, kinds for the operators and
// the client options) is the light model of step 1. Diagnostics come out in the order the
// in-memory reader gives them; nothing is generated when any input is invalid. TypeScript and
// OpenAPI inputs take the in-memory pipeline (pipeline.ts) into the same transaction.

import { readFileSync } from 'node:fs';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { hasErrors } from '../diagnostics/format.js';
import {
  buildModel,
  checkText,
  checkedCrds,
  decodeChecked,
  decodeText,
  lightKinds,
  lightModel,
} from '../input/crd/index.js';
import { isOpenApiText } from '../input/openapi/index.js';
import type { Group, Model } from '../model/types.js';
import { compareStrings } from '../model/order.js';
import type { EmitContext, GeneratedFile } from '../generate/emitter.js';
import { ControllerOptionsError, resolveControllerKind } from '../generate/controller-kinds.js';
import { OutputTransaction, type OutputStep } from '../emit/output.js';
import { WriteError } from '../emit/writer.js';
import { listInputs, readInput, type ListedInput } from './inputs.js';
import { CliError, EXIT, type CliIo } from './io.js';
import { removableStale, type ResolvedTarget } from './options.js';
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
import { checkHeap } from './heap.js';

/** How a target is staged. */
export interface StageOptions {
  /** verify: compare only, nothing staged. */
  dryRun: boolean;
  /** Use and fill the output folder's cache (generate). */
  cache: boolean;
  /** Each file's step as it is planned (verify makes its diffs here; the step is not kept). */
  onStep?: (step: OutputStep) => void;
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
    for (const f of built.files) onStep(tx.add(f));
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
    const gs = f.scan.groups.map((g) => `g ${g}`);
    if (gs.length === 0) continue;
    for (const g of gs) if (!parent.has(g)) parent.set(g, g);
    for (const g of gs.slice(1)) parent.set(find(g), find(gs[0]));
  }
  const byRoot = new Map<string, Cluster>();
  for (const f of files) {
    if (f.scan.groups.length === 0) continue;
    const root = find(`g ${f.scan.groups[0]}`);
    let c = byRoot.get(root);
    if (!c) byRoot.set(root, (c = { groups: [], files: [] }));
    c.files.push(f);
    for (const g of f.scan.groups) if (!c.groups.includes(g)) c.groups.push(g);
  }
  for (const c of byRoot.values()) c.groups.sort(compareStrings);
  return [...byRoot.values()];
}

/** The bytes of an input as the first pass read them; a file changed since is an error. */
function readAgain(f: InputEntry): Uint8Array {
  const bytes = f.input.content ?? readFileSync(f.input.abs!);
  if (sha256(bytes) !== f.hash)
    throw new CliError(`${f.input.file} changed while crdgen was reading it; run again`, EXIT.invalidInput);
  return bytes;
}

/** A cluster read again and built: its groups (full), and what the engine and the duplicate check found. */
interface LoadedCluster {
  groups: Group[];
  engine: Diagnostic[];
  duplicates: Diagnostic[];
}

function loadCluster(c: Cluster, sources: string[]): LoadedCluster {
  const crds = c.files.flatMap((f) => checkedCrds(f.input.file, decodeChecked(readAgain(f))));
  const groups = new Set(c.groups);
  const built = buildModel(
    crds.filter((x) => groups.has((x.crd.spec as { group: string }).group)),
    sources,
  );
  return { groups: built.model.groups, engine: built.engine, duplicates: built.duplicates };
}

/** `base` with the groups of `full` in place of its own. */
function withGroups(base: Model, full: readonly Group[]): Model {
  if (full.length === 0) return base;
  const byName = new Map(full.map((g) => [g.name, g]));
  return { groups: base.groups.map((g) => byName.get(g.name) ?? g), sources: base.sources };
}

/** The first pass over one input: its checks (from the cache when its bytes are known). */
function scanInput(
  input: ListedInput,
  bytes: Uint8Array,
  hash: string,
  cache: GenerationCache | undefined,
): ScanRecord | 'openapi' {
  const key = GenerationCache.scanKey(input.file, input.fromDirectory === true, hash);
  const known = cache?.scan(key);
  if (known) return known;
  const decoded = decodeText(input.file, bytes);
  let record: ScanRecord;
  if ('diagnostic' in decoded) record = { diagnostics: [decoded.diagnostic], groups: [], kinds: [] };
  else {
    if (isOpenApiText(decoded.text)) return 'openapi';
    const checked = checkText(input.file, decoded.text, input.fromDirectory === true);
    // copied through JSON: the strings V8 sliced out of the input text would keep all of it
    record = JSON.parse(
      JSON.stringify({
        diagnostics: checked.diagnostics,
        groups: [...new Set(checked.crds.map((c) => (c.crd.spec as { group: string }).group))],
        kinds: checked.crds.flatMap(lightKinds),
      }),
    ) as ScanRecord;
  }
  cache?.putScan(key, record);
  return record;
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

/** Sorts diagnostics by the position of their input (stable: one input's keep their order). */
function byInput(ds: Diagnostic[], position: ReadonlyMap<string, number>): Diagnostic[] {
  return ds
    .map((d, i) => ({ d, i, at: position.get(d.file ?? '') ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.d);
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

  // 1. every input read, hashed and checked on its own
  const sources = [...new Set(entries.flatMap((e) => ('input' in e ? [e.input.file.replace(/\\/g, '/')] : [])))].sort(
    compareStrings,
  );
  const ctx = emitContext(target, { groups: [], sources });
  const key = useCache ? runKey(target, ctx, header) : '';
  const cache = useCache ? GenerationCache.open(target.out!, key) : undefined;
  const listing: Diagnostic[] = [];
  const files: InputEntry[] = [];
  const position = new Map<string, number>();
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
    const hash = sha256(bytes);
    const scan = scanInput(entry.input, bytes, hash, cache);
    if (scan === 'openapi') return 'openapi';
    position.set(entry.input.file, files.length);
    files.push({ index: files.length, input: entry.input, hash, scan });
    checkHeap('reading the inputs');
  }
  const read = [...listing, ...files.flatMap((f) => f.scan.diagnostics)];
  reporter.report(read);
  if (hasErrors(read) || files.length === 0) return undefined;

  // what the files of one group read of the others: every served kind, without schemas
  const light = lightModel(
    files.flatMap((f) => f.scan.kinds),
    sources,
  );
  const lightDigest = sha256(JSON.stringify(light.groups));
  const clusters = clustersOf(files);

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
  const operatorGroups = new Set(controllerGroup.values());
  const loaded = new Map<Cluster, LoadedCluster>();
  const engine: Diagnostic[] = [];
  const duplicates: Diagnostic[] = [];
  let inputErrors = false;
  const load = (c: Cluster): LoadedCluster => {
    const l = loadCluster(c, sources);
    engine.push(...l.engine);
    duplicates.push(...l.duplicates);
    if (hasErrors(l.engine) || hasErrors(l.duplicates)) inputErrors = true;
    return l;
  };
  for (const c of clusters)
    if (c.groups.some((g) => operatorGroups.has(g))) {
      loaded.set(c, load(c));
      checkHeap('reading the operators’ groups');
    }
  const base = withGroups(
    light,
    [...loaded.values()].flatMap((l) => l.groups),
  );
  let usage: string | undefined;
  if (!inputErrors) usage = checkProblem(target, { model: base, format: 'yaml' }, ctx);
  let failure: unknown;

  // 2. cluster by cluster: built, generated, handed over
  const tx = openTransaction(target, opts, cache);
  let fileCount = 0;
  let fromCache = 0;
  try {
    for (const [n, c] of clusters.entries()) {
      const blocked = inputErrors || usage !== undefined || failure !== undefined;
      const operators = [...controllerGroup].filter(([, g]) => c.groups.includes(g)).map(([s]) => s);
      const clusterKey =
        cache !== undefined && operators.length === 0
          ? sha256(JSON.stringify([key, lightDigest, c.groups, c.files.map((f) => [f.input.file, f.hash])]))
          : undefined;
      if (!blocked && clusterKey !== undefined) {
        const known = cache!.cluster(clusterKey);
        if (known && known.files.every((f) => tx.isUnchanged(f.path, f.userOwned === true))) {
          for (const f of known.files) tx.markUnchanged(f.path, f.userOwned === true);
          fileCount += known.files.length;
          fromCache += known.files.length;
          continue;
        }
      }
      reporter.progress(`generating ${target.name}: ${n + 1} of ${clusters.length} groups…`);
      const l = loaded.get(c) ?? load(c);
      loaded.delete(c);
      if (blocked || inputErrors) continue;
      let out: GeneratedFile[];
      try {
        const model = withGroups(base, l.groups);
        const partCtx: EmitContext = { ...ctx, part: { groups: new Set(c.groups) } };
        if (ctx.controllers !== undefined) {
          if (operators.length > 0) partCtx.controllers = operators;
          else delete partCtx.controllers;
        }
        out = await finishFiles(target, emitFiles(target, model, 'yaml', partCtx), header, reporter);
      } catch (e) {
        failure = e;
        continue;
      }
      for (const f of out) onStep(tx.add(f));
      fileCount += out.length;
      if (clusterKey !== undefined)
        cache!.putCluster(clusterKey, {
          files: out.map((f) => (f.userOwned ? { path: f.path, userOwned: true } : { path: f.path })),
        });
      checkHeap('generating');
    }
    // the diagnostics of the built models, in the in-memory reader's order
    reporter.report([...byInput(engine, position), ...byInput(duplicates, position)]);
    if (inputErrors) {
      tx.abort();
      return undefined;
    }
    if (usage !== undefined) throw new CliError(usage, EXIT.usage);
    if (failure !== undefined) throw failure as Error;

    // 3. the files that span groups
    const shared = await finishFiles(
      target,
      emitFiles(target, base, 'yaml', { ...ctx, part: { shared: true } }),
      header,
      reporter,
    );
    for (const f of shared) onStep(tx.add(f));
    fileCount += shared.length;
  } catch (e) {
    tx.abort();
    if (e instanceof CliError) throw e;
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
