// The in-memory half of generate/verify/validate for one target, a straight line: read the
// inputs into the finished model, check the options against it, run the emitters (then the
// header file and --format). Nothing here writes; diagnostics go to the reporter.

import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { hasErrors } from '../diagnostics/format.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readApiInputs } from '../input/read-inputs.js';
import type { Model } from '../model/types.js';
import { createEmitContext, type EmitContext, type GeneratedFile } from '../generate/emitter.js';
import { emittersForInput, runEmitters } from '../generate/registry.js';
import type { InputKind } from '../generate/generators.js';
import { classifyInputs } from '../input/ts/files.js';
import { optionErrors } from '../generate/check.js';
import { NameCollisionError } from '../generate/client-kinds.js';
import { ValidatorGenerationError } from '../generate/validators.js';
import { stubHookWarnings } from '../generate/controller.js';
import { applyBoilerplate, BoilerplateError } from '../emit/boilerplate.js';
import { formatFiles, FormatterMissingError } from '../emit/format.js';
import { collectInputs, displayPath } from './inputs.js';
import { CliError, EXIT, type CliIo } from './io.js';
import type { ResolvedTarget } from './options.js';
import type { Reporter } from './report.js';

/** What one target produced in memory. */
export interface TargetOutput {
  target: ResolvedTarget;
  model: Model;
  files: GeneratedFile[];
  /** Input files read (YAML: each file; TypeScript: the model's sources). */
  inputCount: number;
}

/** Picks the reader by the inputs' extension; mixing TypeScript and YAML is a usage error. */
export function inputKind(target: ResolvedTarget): 'ts' | 'yaml' {
  const kind = classifyInputs(target.inputs, target.cwd);
  if (kind === 'mixed') throw new CliError('TypeScript and CRD YAML inputs cannot be mixed in one run', EXIT.usage);
  if (target.tsconfig !== undefined && kind !== 'ts')
    throw new CliError('--tsconfig applies to TypeScript inputs only', EXIT.usage);
  return kind;
}

/** What the readers handed over: the finished model, and what it was read from. */
export interface ReadTarget {
  model: Model;
  format: InputKind;
  /** Input files read (YAML: each file; TypeScript: the model's sources). */
  inputCount: number;
}

/** Reads `target`'s inputs into the model; undefined when an input has errors (reported) or there are none. */
async function read(target: ResolvedTarget, io: CliIo, reporter: Reporter): Promise<ReadTarget | undefined> {
  const kind = inputKind(target);
  let result: { model: Model; diagnostics: Diagnostic[] };
  let format: InputKind = kind;
  let inputCount: number;
  if (kind === 'ts') {
    // loaded only for TypeScript inputs: ts-morph is big, YAML runs never pay for it
    const { readTypeScript } = await import('../input/ts/reader.js');
    reporter.progress(`reading TypeScript inputs of ${target.name}…`);
    result = readTypeScript(target.inputs, {
      cwd: target.cwd,
      ...(target.tsconfig !== undefined ? { tsconfig: target.tsconfig } : {}),
      ...(target.client.pluralExceptions ? { pluralExceptions: target.client.pluralExceptions } : {}),
    });
    inputCount = result.model.sources.length;
  } else {
    const collected = await collectInputs(target.inputs, { ...io, cwd: target.cwd });
    reporter.startProgress(collected.sources.length);
    reporter.progress(`checking ${collected.sources.length} inputs of ${target.name}…`);
    const api = readApiInputs(collected.sources);
    if (api.format === 'openapi') format = 'openapi';
    result = { model: api.model, diagnostics: [...collected.diagnostics, ...api.diagnostics] };
    inputCount = collected.sources.length;
  }
  reporter.report(result.diagnostics);
  if (hasErrors(result.diagnostics) || inputCount === 0) return undefined;
  return { model: result.model, format, inputCount };
}

/** The emitters' context of `target`. */
export function emitContext(target: ResolvedTarget, model: Model): EmitContext {
  const outDir = target.out !== undefined ? relative(target.cwd, target.out).split(sep).join('/') : undefined;
  return createEmitContext({
    sources: model.sources,
    runtimeImport: target.runtimeImport,
    client: target.client,
    controllers: target.controllers,
    owns: target.owns,
    webhooks: target.webhooks,
    sharding: target.sharding,
    ...(target.starter !== undefined ? { starter: target.starter } : {}),
    ...(target.imageBase !== undefined ? { imageBase: target.imageBase } : {}),
    ...(outDir ? { outDir } : {}),
  });
}

/** Options that do not fit the model are usage errors, before any emitter runs. */
export function check(target: ResolvedTarget, read: Pick<ReadTarget, 'model' | 'format'>, ctx: EmitContext): void {
  const problem = checkProblem(target, read, ctx);
  if (problem !== undefined) throw new CliError(problem, EXIT.usage);
}

/** What {@link check} would say, if anything. */
export function checkProblem(
  target: ResolvedTarget,
  read: Pick<ReadTarget, 'model' | 'format'>,
  ctx: EmitContext,
): string | undefined {
  if (read.format === 'openapi' && target.emitters.some((e) => e.name === 'crd'))
    return 'the crd generator writes CustomResourceDefinitions from CRD or TypeScript input; an OpenAPI document describes served APIs (leave crd out)';
  const problems = optionErrors(read.model, ctx);
  return problems.length > 0 ? problems.join('\n') : undefined;
}

/** The emitters' files, then the header file and --format over them. */
async function emit(
  target: ResolvedTarget,
  read: ReadTarget,
  ctx: EmitContext,
  reporter: Reporter,
): Promise<GeneratedFile[]> {
  reporter.progress(`generating ${target.name}…`);
  const files = emitFiles(target, read.model, read.format, ctx, reporter.command);
  return finishFiles(target, files, await readHeaderFile(target), reporter);
}

/**
 * The emitters' files of `model` (the part `ctx` asks for); their input errors as CLI errors
 * (`command`: the command running, whose message says so when nothing was written).
 */
export function emitFiles(
  target: ResolvedTarget,
  model: Model,
  format: InputKind,
  ctx: EmitContext,
  command: string,
): GeneratedFile[] {
  try {
    return runEmitters(model, ctx, emittersForInput(target.emitters, format)); // TypeScript input: its CRD too; OpenAPI: no CRD
  } catch (e) {
    const written = command === 'generate' ? 'nothing was written' : ''; // verify and validate never write
    if (e instanceof NameCollisionError)
      throw new CliError(`${e.message}${written && `; ${written}`}`, EXIT.invalidInput);
    if (e instanceof ValidatorGenerationError)
      throw new CliError(`${e.message}${written && `\n${written}`}`, EXIT.invalidInput);
    throw e;
  }
}

/** The text of `--header-file`, if given (a usage error when it cannot be read). */
export async function readHeaderFile(target: ResolvedTarget): Promise<string | undefined> {
  if (target.headerFile === undefined) return undefined;
  try {
    return await readFile(target.headerFile, 'utf8');
  } catch (e) {
    throw new CliError(
      `cannot read header file ${target.headerFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      EXIT.usage,
    );
  }
}

/** What follows the emitters: the stub-hook warnings, the header file (`header`, its text) and --format. */
export async function finishFiles(
  target: ResolvedTarget,
  emitted: GeneratedFile[],
  header: string | undefined,
  reporter: Pick<Reporter, 'command' | 'report'>,
): Promise<GeneratedFile[]> {
  let files = emitted;
  // an operator whose reconcile.ts still has the stub hooks does nothing: generate says so, once
  if (reporter.command === 'generate' && target.out !== undefined) {
    const out = target.out;
    const existing = (p: string): string | undefined => {
      try {
        return readFileSync(join(out, p), 'utf8');
      } catch {
        return undefined;
      }
    };
    reporter.report(stubHookWarnings(files, existing, (p) => displayPath(target.cwd, join(out, p))));
  }
  if (header !== undefined) {
    try {
      files = applyBoilerplate(files, header);
    } catch (e) {
      if (e instanceof BoilerplateError) throw new CliError(`${target.headerFile}: ${e.message}`, EXIT.usage);
      throw e;
    }
  }
  if (target.format && target.out !== undefined) {
    try {
      files = await formatFiles(files, target.cwd, target.out);
    } catch (e) {
      if (e instanceof FormatterMissingError) throw new CliError(e.message, EXIT.usage);
      throw new CliError(`prettier failed: ${(e as Error).message}`, EXIT.invalidInput);
    }
  }
  return files;
}

/**
 * Reads `target`'s inputs, checks the options against the model and generates its files in
 * memory: read → check → emit. Returns undefined when an input has errors (they are
 * reported); options that do not fit the model are usage errors.
 */
export async function buildTarget(
  target: ResolvedTarget,
  io: CliIo,
  reporter: Reporter,
): Promise<TargetOutput | undefined> {
  const input = await read(target, io, reporter);
  if (!input) return undefined;
  const ctx = emitContext(target, input.model);
  check(target, input, ctx);
  const files = await emit(target, input, ctx, reporter);
  return { target, model: input.model, files, inputCount: input.inputCount };
}
