// `crdgen generate <inputs…> --out <dir>`: read CRDs, check them, run the
// emitters, write the files. Nothing is written when any input is invalid.

import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { formatDiagnostics, hasErrors } from '../diagnostics/format.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readCrdInputs } from '../input/crd/index.js';
import type { Model } from '../model/types.js';
import { createEmitContext, DEFAULT_RUNTIME_IMPORT } from '../generate/emitter.js';
import { DEFAULT_EMITTERS, EMITTERS, runEmitters, selectEmitters } from '../generate/registry.js';
import { classifyInputs } from '../input/ts/files.js';
import { writeFiles, WriteError } from '../emit/writer.js';
import { collectInputs } from './inputs.js';
import { clientOptionsErrors, parseClientOptionFlags, ClientOptionsError, type ClientGenOptions } from '../generate/client-options.js';
import { NameCollisionError } from '../generate/client-kinds.js';
import { applyTypeScriptPlurals } from '../generate/client-names.js';
import { controllerErrors } from '../generate/controller.js';
import { CliError, EXIT, type CliContext } from './io.js';

/** Options of the generate command, as commander parses them. */
export interface GenerateOptions {
  out: string;
  runtimeImport: string;
  generators?: string;
  clean: boolean;
  tsconfig?: string;
  /** Client generator flags (issue #5): `--verbs Kind=get,list`, `--skip-verbs`, `--readonly`, `--skip-status`, `--plural-exceptions`. */
  verbs?: string[];
  skipVerbs?: string[];
  readonly?: string[];
  skipStatus?: string[];
  pluralExceptions?: string[];
  /** Kinds that get an operator (issue #6): `--controller DatabaseManager` (repeatable; `group/Kind` when ambiguous). */
  controller?: string[];
}

/** The client generators' options from the flags; malformed ones are usage errors. */
function clientOptionsOrUsage(opts: GenerateOptions): ClientGenOptions {
  try {
    return parseClientOptionFlags({ verbs: opts.verbs ?? [], skipVerbs: opts.skipVerbs ?? [], readonly: opts.readonly ?? [], noStatus: opts.skipStatus ?? [], pluralExceptions: opts.pluralExceptions ?? [] });
  } catch (e) {
    if (e instanceof ClientOptionsError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The one-line summary printed to stdout, e.g. `generated 14 files for 2 kinds in 1 group`. */
export function summary(files: number, model: Model): string {
  const kinds = new Set<string>();
  for (const g of model.groups) for (const v of g.versions) for (const k of v.kinds) kinds.add(`${g.name}/${k.kind}`);
  return `generated ${plural(files, 'file')} for ${plural(kinds.size, 'kind')} in ${plural(model.groups.length, 'group')}`;
}

/** Picks the reader by the inputs' extension; mixing TypeScript and YAML is a usage error. */
function inputKind(inputs: readonly string[], opts: GenerateOptions, cwd: string): 'ts' | 'yaml' {
  const kind = classifyInputs(inputs, cwd);
  if (kind === 'mixed') throw new CliError('TypeScript and CRD YAML inputs cannot be mixed in one run', EXIT.usage);
  if (opts.tsconfig !== undefined && kind !== 'ts') throw new CliError('--tsconfig applies to TypeScript inputs only', EXIT.usage);
  return kind;
}

/** Runs generate; returns the exit code. Diagnostics go to stderr, the summary to stdout. */
export async function runGenerate(inputs: readonly string[], opts: GenerateOptions, ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const kind = inputKind(inputs, opts, io.cwd);
  const entries = opts.generators ? selectEmittersOrUsage(opts.generators) : DEFAULT_EMITTERS;
  const client = clientOptionsOrUsage(opts);
  let read: { model: Model; diagnostics: Diagnostic[] };
  let diagnostics: Diagnostic[];
  let noSources: boolean;
  if (kind === 'ts') {
    // loaded only for TypeScript inputs: ts-morph is big, YAML runs never pay for it
    const { readTypeScript } = await import('../input/ts/reader.js');
    read = readTypeScript(inputs, { cwd: io.cwd, ...(opts.tsconfig !== undefined ? { tsconfig: opts.tsconfig } : {}) });
    read = { ...read, model: applyTypeScriptPlurals(read.model, client) }; // irregular plurals, --plural-exceptions (issue #5)
    diagnostics = read.diagnostics;
    noSources = read.model.sources.length === 0;
  } else {
    const collected = await collectInputs(inputs, io);
    read = readCrdInputs(collected.sources);
    diagnostics = [...collected.diagnostics, ...read.diagnostics];
    noSources = collected.sources.length === 0;
  }
  io.stderr(formatDiagnostics(diagnostics));
  if (hasErrors(diagnostics) || noSources) {
    const n = diagnostics.filter((d) => d.severity === 'error').length;
    io.stderr(`crdgen: ${plural(n, 'error')}; nothing was written\n`);
    return EXIT.invalidInput;
  }
  const clientErrors = clientOptionsErrors(read.model, client);
  if (clientErrors.length > 0) throw new CliError(clientErrors.join('\n'), EXIT.usage);
  const ctxEmit = createEmitContext({ sources: read.model.sources, runtimeImport: opts.runtimeImport, client, controllers: opts.controller ?? [] });
  const controllerProblems = controllerErrors(read.model, ctxEmit);
  if (controllerProblems.length > 0) throw new CliError(controllerProblems.join('\n'), EXIT.usage);
  let files: ReturnType<typeof runEmitters>;
  try {
    files = runEmitters(read.model, ctxEmit, entries);
  } catch (e) {
    if (e instanceof NameCollisionError) throw new CliError(`${e.message}; nothing was written`, EXIT.invalidInput);
    throw e;
  }
  try {
    await writeFiles(resolve(io.cwd, opts.out), files, { removeStale: opts.clean });
  } catch (e) {
    if (e instanceof WriteError) throw new CliError(e.message, EXIT.invalidInput);
    throw new CliError(`cannot write output: ${(e as Error).message}`, EXIT.invalidInput);
  }
  io.stdout(`${summary(files.length, read.model)}\n`);
  return EXIT.ok;
}

function selectEmittersOrUsage(list: string) {
  try {
    return selectEmitters(list.split(',').map((s) => s.trim()).filter((s) => s !== ''));
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
}

/** Factory for the `generate` command. */
export function createGenerateCommand(ctx: CliContext): Command {
  return new Command('generate')
    .description('generate typed models, deepcopy and registration code from CRD YAML')
    .argument('<inputs...>', 'CRD files, directories (searched for *.yaml/*.yml), globs, or - for stdin; or annotated TypeScript (.ts files, folders, globs)')
    .requiredOption('-o, --out <dir>', 'output folder (created if missing)')
    .addOption(new Option('--runtime-import <specifier>', 'module generated code imports the runtime from').default(DEFAULT_RUNTIME_IMPORT))
    .addOption(new Option('--generators <list>', `comma-separated generators to run (default: all but opt-in ${EMITTERS.filter((e) => e.optIn).map((e) => e.name).join(', ')}; known: ${EMITTERS.map((e) => e.name).join(', ')})`))
    .addOption(new Option('--tsconfig <file>', 'tsconfig.json whose paths/baseUrl resolve imports of TypeScript inputs'))
    .option('--no-clean', 'keep generated files that are no longer produced')
    .option('--verbs <Kind=verbs>', 'client verbs of a kind, like +genclient:onlyVerbs (repeatable), e.g. DatabaseManager=get,list,watch', collect)
    .option('--skip-verbs <Kind=verbs>', 'client verbs a kind does not get, like +genclient:skipVerbs (repeatable)', collect)
    .option('--readonly <Kind>', 'get/list/watch only, like +genclient:readonly (repeatable)', collect)
    .option('--skip-status <Kind>', 'no updateStatus/applyStatus, like +genclient:noStatus (repeatable)', collect)
    .option('--plural-exceptions <Kind:Plural,…>', 'plurals for generated names, as code-generator takes them (repeatable)', collect)
    .option('--controller <Kind>', 'also generate an operator for this kind: controllers/<kind>/ (repeatable; group/Kind when ambiguous)', collect)
    .addHelpText('after', '\nExit codes: 0 success, 1 invalid input (nothing written), 2 usage error.\n\nExample:\n  crdgen generate fixtures/databasemanager/crd.yaml --out generated\n')
    .action(async (inputs: string[], opts: GenerateOptions) => {
      ctx.setExitCode(await runGenerate(inputs, opts, ctx));
    });
}
