// `crdgen generate [inputs…] [--out <dir>]`: read CRDs (or annotated TypeScript),
// check them, run the emitters, write the files. With no inputs the config file
// (crdgen.config.yaml, found walking up) gives the targets; flags override it.
// Nothing is written when any input of any target is invalid.

// This file only declares the command: the reader, emitters and writer are loaded when it runs
// (`crdgen --version` or `--help` load none of them).

import { Command, Option } from 'commander';
import type { Model } from '../model/types.js';
import { DEFAULT_RUNTIME_IMPORT } from '../generate/emitter.js';
import { GENERATORS } from '../generate/generators.js';
import { displayPath } from './inputs.js';
import { CliError, EXIT, type CliContext } from './io.js';
import type { FlagGiven, GenerateFlags } from './options.js';
import { addOutputOptions, Reporter, runReported } from './report.js';
import { commandOf } from './invocation.js';
import { CACHE_DIR } from './cache-dir.js';

/** Options of the generate command, as commander parses them. */
export interface GenerateOptions extends GenerateFlags {
  /** `--no-cache` sets it false: no use of the output folder's cache. */
  cache?: boolean;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `n word(s)`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What a run did with its files, for the summary. */
export interface SummaryCounts {
  /** Created or changed. */
  written: number;
  /** Left as they were (the user's own included). */
  unchanged: number;
  /** Of the files, those of groups the cache knew (not generated again). */
  cached?: number;
}

/**
 * The one-line summary printed to stdout, e.g. `generated 21 files for 1 kind in 1 group: 3 written,
 * 18 unchanged` (written: created or changed; unchanged: left as they were, yours included; then
 * how many of the files came from the cache, when any did).
 */
export function summary(files: number, model: Model, counts?: SummaryCounts): string {
  const kinds = new Set<string>();
  for (const g of model.groups) for (const v of g.versions) for (const k of v.kinds) kinds.add(`${g.name}/${k.kind}`);
  const what = `generated ${plural(files, 'file')} for ${plural(kinds.size, 'kind')} in ${plural(model.groups.length, 'group')}`;
  if (counts === undefined) return what;
  const parts = [
    counts.written > 0 || counts.unchanged === 0 ? `${counts.written} written` : '',
    counts.unchanged > 0 ? `${counts.unchanged} unchanged` : '',
  ].filter((p) => p !== '');
  const cached = (counts.cached ?? 0) > 0 ? ` (${counts.cached} from the cache)` : '';
  return `${what}: ${parts.join(', ')}${cached}`;
}

/** Runs generate; returns the exit code. Diagnostics go to stderr, the summary to stdout. */
export async function runGenerate(
  inputs: readonly string[],
  flags: GenerateOptions,
  given: FlagGiven,
  ctx: CliContext,
  reporter: Reporter,
): Promise<number> {
  const { stageAll } = await import('./build.js');
  const staged = await stageAll(inputs, flags, given, ctx, reporter, { dryRun: false, cache: flags.cache !== false });
  if (!staged) {
    reporter.finish(EXIT.invalidInput);
    return EXIT.invalidInput;
  }
  const { WriteError } = await import('../emit/writer.js');
  const { removalWarnings } = await import('./removals.js');
  for (const s of staged) {
    const out = s.target.out!;
    reporter.progress(`writing ${s.target.name}…`);
    let plan;
    try {
      s.tx.finish();
      plan = s.tx.steps();
      // said before anything is removed: an operator that goes, and the user's files it leaves
      reporter.report(
        removalWarnings(plan, {
          out,
          show: (abs) => displayPath(ctx.io.cwd, abs),
          ...(s.target.controllersFrom !== undefined
            ? { config: displayPath(ctx.io.cwd, s.target.controllersFrom) }
            : {}),
        }),
      );
      s.tx.commit();
    } catch (e) {
      for (const other of staged) other.tx.abort();
      if (e instanceof WriteError) throw new CliError(e.message, EXIT.invalidInput);
      throw new CliError(`cannot write output: ${(e as Error).message}`, EXIT.invalidInput);
    }
    s.cache?.save(s.tx.generatedPaths(), out);
    for (const step of plan) reporter.file(displayPath(ctx.io.cwd, `${out}/${step.path}`), step.action);
    const count = (...actions: string[]) => plan.filter((p) => actions.includes(p.action)).length;
    const removed = count('remove');
    const line =
      summary(s.files, s.model, {
        written: count('create', 'update'),
        unchanged: count('unchanged', 'keep'),
        cached: s.fromCache,
      }) + (removed > 0 ? `; removed ${plural(removed, 'stale generated file')}` : '');
    reporter.info(staged.length > 1 ? `${s.target.name}: ${line}` : line);
  }
  await warnAboutProjects(
    staged.map((s) => s.target.out!),
    ctx,
    reporter,
  );
  reporter.finish(EXIT.ok);
  return EXIT.ok;
}

/** Warns, once per project, when the project the output went into cannot compile or run the generated code (project.ts). */
async function warnAboutProjects(outs: readonly string[], ctx: CliContext, reporter: Reporter): Promise<void> {
  const { findProject, checkProject } = await import('./project.js');
  const seen = new Set<string>();
  for (const out of outs) {
    const project = findProject(out);
    if (!project || seen.has(project.packageJson)) continue;
    seen.add(project.packageJson);
    for (const f of checkProject(project, commandOf(ctx.io)))
      reporter.report([{ ...f.diagnostic, file: displayPath(ctx.io.cwd, f.diagnostic.file) }]);
  }
}

/** The options generate, verify and validate share (inputs, config, generator options, output). */
export function addGeneratorOptions(cmd: Command): Command {
  cmd
    .option(
      '-c, --config <file>',
      'config file (default: crdgen.config.yaml/.yml/.json or package.json "crdgen", found walking up). Without inputs every target of it runs; inputs on the command line are added to the inputs of the target writing to --out (or of the only one), whose settings apply; elsewhere only the command line does',
    )
    .addOption(
      new Option(
        '--runtime-import <specifier>',
        `module generated code imports the runtime from (default: ${DEFAULT_RUNTIME_IMPORT})`,
      ),
    )
    .addOption(
      new Option(
        '--generators <list>',
        `comma-separated generators to run, or changes to the default set: +${GENERATORS.find((e) => e.optIn)?.name ?? 'name'} adds, -fake leaves out, all is every one (default: all but opt-in ${GENERATORS.filter(
          (e) => e.optIn,
        )
          .map((e) => e.name)
          .join(
            ', ',
          )}; known: ${GENERATORS.map((e) => e.name).join(', ')}). A run removes stale files only of the generators it runs`,
      ),
    )
    .addOption(
      new Option('--tsconfig <file>', 'tsconfig.json whose paths/baseUrl resolve imports of TypeScript inputs'),
    )
    .option(
      '--header-file <file>',
      'boilerplate (comments, e.g. a licence) placed above the generated header of every TypeScript file',
    )
    .option('--format', "format generated TypeScript with the project's own prettier (must be installed)")
    .option('--no-clean', 'keep generated files that are no longer produced')
    .option(
      '--verbs <Kind=verbs>',
      'client verbs of a kind, like +genclient:onlyVerbs (repeatable), e.g. DatabaseManager=get,list,watch',
      collect,
    )
    .option(
      '--skip-verbs <Kind=verbs>',
      'client verbs a kind does not get, like +genclient:skipVerbs (repeatable)',
      collect,
    )
    .option('--readonly <Kind>', 'get/list/watch only, like +genclient:readonly (repeatable)', collect)
    .option('--skip-status <Kind>', 'no updateStatus/applyStatus, like +genclient:noStatus (repeatable)', collect)
    .option(
      '--plural-exceptions <Kind:Plural,…>',
      'plurals for generated names, as code-generator takes them (repeatable)',
      collect,
    )
    .option(
      '--controller <Kind>',
      'also generate an operator for this kind: controllers/<kind>/ (repeatable; group/Kind when ambiguous)',
      collect,
    )
    .option(
      '--webhooks',
      'the operators also serve admission and conversion webhooks: controllers/<kind>/webhooks.ts, admission.ts, conversion*.ts, config/webhook/ and config/certmanager/ (needs --controller)',
    )
    .option(
      '--starter <name>',
      "what writes the operator's reconcile.ts: a starter crdgen ships (databasemanager), or generic for the hooks to fill in (default: the starter made for the kind's group and kind, else generic)",
    )
    .option(
      '--owns <kinds>',
      "kinds the operator owns, comma-separated group/version/Kind (version/Kind for the core group), e.g. apps/v1/Deployment,v1/Service: watched, listed into its reconciler's context.owned, granted in RBAC (repeatable)",
      collect,
    );
  return addOutputOptions(cmd);
}

/** Which options of `cmd` were given on the command line. */
export function givenOn(cmd: Command): FlagGiven {
  return (name) => cmd.getOptionValueSource(name) === 'cli';
}

/** Factory for the `generate` command. */
export function createGenerateCommand(ctx: CliContext): Command {
  const cmd = new Command('generate')
    .description(
      'generate typed models, deepcopy, clients, informers, listers (and controllers) from CRD YAML, annotated TypeScript or Kubernetes OpenAPI v3 documents',
    )
    .argument(
      '[inputs...]',
      'CRD files, directories (searched for *.yaml/*.yml), globs, or - for stdin; or annotated TypeScript (.ts files, folders, globs); or OpenAPI v3 documents as kube-apiserver serves them (/openapi/v3/apis/<group>/<version>, JSON or YAML). None: the inputs of crdgen.config.yaml',
    )
    .option('-o, --out <dir>', 'output folder (created if missing; required without a config)')
    .option(
      '--no-cache',
      `regenerate everything: do not use (or update) the cache in <out>/${CACHE_DIR}/ (safe to delete), with which a run generates again only what depends on the inputs that changed`,
    );
  addGeneratorOptions(cmd)
    .addHelpText('after', () => {
      const c = commandOf(ctx.io);
      return `\nExit codes: 0 success, 1 invalid input (nothing written), 2 usage error.\n\nExamples:\n  ${c} generate crds/databasemanager.yaml --out src/generated\n  kubectl get --raw /openapi/v3/apis/metrics.k8s.io/v1beta1 > metrics.json && ${c} generate metrics.json --out src/metrics\n  ${c} generate --generators +crd       # the defaults and the CRD YAML\n  ${c} generate                         # every target of crdgen.config.yaml\n`;
    })
    .action(async (inputs: string[], opts: GenerateOptions, command: Command) => {
      const reporter = new Reporter(ctx.io, 'generate', opts);
      await runReported(ctx, reporter, () => runGenerate(inputs, opts, givenOn(command), ctx, reporter));
    });
  return cmd;
}
