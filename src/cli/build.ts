// Builds every target of generate, verify and validate in memory: resolves the targets
// (flags, config), then reads, checks and generates each (pipeline.ts). Loaded by those
// commands when they run, not when the CLI starts.

import { countDiagnostics } from '../diagnostics/format.js';
import type { CliContext } from './io.js';
import { resolveTargets, type FlagGiven, type GenerateFlags } from './options.js';
import { buildTarget, type TargetOutput } from './pipeline.js';
import type { Reporter } from './report.js';
import { plural } from './generate.js';
import { displayPath } from './inputs.js';

/** Builds every target in memory; undefined when any has input errors (reported, with the closing line). */
export async function buildAll(
  inputs: readonly string[],
  flags: GenerateFlags,
  given: FlagGiven,
  ctx: CliContext,
  reporter: Reporter,
  needOut: boolean,
): Promise<TargetOutput[] | undefined> {
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
  const outputs: TargetOutput[] = [];
  let ok = true;
  for (const t of resolution.targets) {
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
