// Builds every target of generate, verify and validate in memory: resolves the targets
// (flags, config), then reads, checks and generates each (pipeline.ts). Loaded by those
// commands when they run, not when the CLI starts.

import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { countDiagnostics } from '../diagnostics/format.js';
import type { CliContext } from './io.js';
import { resolveTargets, type FlagGiven, type GenerateFlags, type ResolvedTarget } from './options.js';
import { buildTarget, type TargetOutput } from './pipeline.js';
import type { Reporter } from './report.js';
import { plural } from './generate.js';
import { HeapLimitError } from './heap.js';
import { commandOf } from './invocation.js';
import type { PlannedStep, StageOptions, StagedTarget } from './stream.js';
import { displayPath } from './inputs.js';

/**
 * The targets of a run (flags, config), their notes and problems reported; for generate, every
 * --out checked before any input is read. Undefined when there is none to run (the closing line said).
 */
async function resolveAll(
  inputs: readonly string[],
  flags: GenerateFlags,
  given: FlagGiven,
  ctx: CliContext,
  reporter: Reporter,
  needOut: boolean,
): Promise<ResolvedTarget[] | undefined> {
  const resolution = await resolveTargets(inputs, flags, given, ctx.io, needOut);
  reporter.report(resolution.diagnostics);
  for (const note of resolution.notes) reporter.info(note);
  if (resolution.targets.length === 0) return failed(reporter);
  if (reporter.command === 'generate') {
    // a --out that cannot be written is said at once, before any input is read
    const { outDirProblem } = await import('../emit/out-dir.js');
    const problems = resolution.targets.flatMap((t) => {
      const p = outDirProblem(t.out!, (abs) => displayPath(ctx.io.cwd, abs));
      if (!p) return [];
      // an out from the config is named as the config names it
      const named = (text: string): string => (given('out') ? text : text.replace(/--out\b/g, 'out'));
      return [
        {
          severity: 'error' as const,
          code: 'OUT001' as const,
          file: displayPath(ctx.io.cwd, t.out!),
          message: named(p.message),
          hint: named(p.hint),
        },
      ];
    });
    if (problems.length > 0) {
      reporter.report(problems);
      return failed(reporter);
    }
  }
  return resolution.targets;
}

/** Builds every target in memory; undefined when any has input errors (reported, with the closing line). */
export async function buildAll(
  inputs: readonly string[],
  flags: GenerateFlags,
  given: FlagGiven,
  ctx: CliContext,
  reporter: Reporter,
  needOut: boolean,
): Promise<TargetOutput[] | undefined> {
  const targets = await resolveAll(inputs, flags, given, ctx, reporter, needOut);
  if (!targets) return undefined;
  const outputs: TargetOutput[] = [];
  let ok = true;
  for (const t of targets) {
    const built = await buildTarget(t, ctx.io, reporter);
    if (built) outputs.push(built);
    else ok = false;
  }
  return ok ? outputs : failed(reporter);
}

/** The closing line of a failed run; only generate writes, so only generate says nothing was written. */
function failed(reporter: Reporter): undefined {
  const errors = plural(countDiagnostics(reporter.diagnostics).errors, 'error');
  reporter.errorLine(`crdgen: ${errors}${reporter.command === 'generate' ? '; nothing was written' : ''}`);
  return undefined;
}

/**
 * Generates every target into its output transaction (stream.ts): nothing under any output folder
 * changes until the caller commits them. Undefined when any target has input errors or the heap
 * runs out (reported, with the closing line; every transaction dropped).
 */
export async function stageAll(
  inputs: readonly string[],
  flags: GenerateFlags,
  given: FlagGiven,
  ctx: CliContext,
  reporter: Reporter,
  opts: Omit<StageOptions, 'onStep'> & { onStep?: (target: ResolvedTarget, step: PlannedStep) => void },
): Promise<StagedTarget[] | undefined> {
  const targets = await resolveAll(inputs, flags, given, ctx, reporter, true);
  if (!targets) return undefined;
  const { stageTarget } = await import('./stream.js');
  const staged: StagedTarget[] = [];
  let ok = true;
  try {
    for (const t of targets) {
      const onStep = opts.onStep;
      const s = await stageTarget(t, ctx.io, reporter, {
        dryRun: opts.dryRun,
        cache: opts.cache,
        ...(opts.diffs ? { diffs: opts.diffs } : {}),
        ...(onStep ? { onStep: (step: PlannedStep) => onStep(t, step) } : {}),
      });
      if (s) staged.push(s);
      else ok = false;
    }
  } catch (e) {
    for (const s of staged) s.tx.abort();
    if (!(e instanceof HeapLimitError)) throw e;
    reporter.report([outOfMemory(e, ctx)]);
    return failed(reporter);
  }
  if (ok) return staged;
  for (const s of staged) s.tx.abort();
  return failed(reporter);
}

/** CLI004: the heap ran out; how much was used, and how to give the run more. */
function outOfMemory(e: HeapLimitError, ctx: CliContext): Diagnostic {
  const more = Math.max(1024, 2 ** Math.ceil(Math.log2(e.limitMb * 2)));
  return {
    severity: 'error',
    code: 'CLI004',
    message: `out of memory while ${e.during}: ${e.usedMb} MB of the heap in use, its limit is ${e.limitMb} MB`,
    hint: `give node a larger heap, e.g. NODE_OPTIONS=--max-old-space-size=${more} ${commandOf(ctx.io)} …`,
  };
}
