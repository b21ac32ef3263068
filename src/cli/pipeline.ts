// The in-memory half of generate/verify/validate for one target: read the inputs,
// check them, check the options against the model, run the emitters, apply the
// header file and --format. Nothing here writes; diagnostics go to the reporter.

import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { hasErrors } from '../diagnostics/format.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readApiInputs } from '../input/read-inputs.js';
import type { Model } from '../model/types.js';
import { createEmitContext, type GeneratedFile } from '../generate/emitter.js';
import { emittersForInput, runEmitters } from '../generate/registry.js';
import type { InputKind } from '../generate/generators.js';
import { classifyInputs } from '../input/ts/files.js';
import { clientOptionsErrors } from '../generate/client-options.js';
import { NameCollisionError } from '../generate/client-kinds.js';
import { ValidatorGenerationError } from '../generate/validators.js';
import { applyTypeScriptPlurals } from '../generate/client-names.js';
import { controllerErrors, stubHookWarnings } from '../generate/controller.js';
import { webhookErrors } from '../generate/webhooks.js';
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
function inputKind(target: ResolvedTarget): 'ts' | 'yaml' {
  const kind = classifyInputs(target.inputs, target.cwd);
  if (kind === 'mixed') throw new CliError('TypeScript and CRD YAML inputs cannot be mixed in one run', EXIT.usage);
  if (target.tsconfig !== undefined && kind !== 'ts')
    throw new CliError('--tsconfig applies to TypeScript inputs only', EXIT.usage);
  return kind;
}

/**
 * Reads and checks `target`'s inputs and, unless `checkOnly` stops after the
 * checks, generates its files in memory. Returns undefined when an input has
 * errors (they are reported); options that do not fit the model are usage errors.
 */
export async function buildTarget(
  target: ResolvedTarget,
  io: CliIo,
  reporter: Reporter,
): Promise<TargetOutput | undefined> {
  const tio: CliIo = { ...io, cwd: target.cwd };
  const kind = inputKind(target);
  let model: Model;
  let diagnostics: Diagnostic[];
  let noSources: boolean;
  let inputCount: number;
  let format: InputKind = kind;
  if (kind === 'ts') {
    // loaded only for TypeScript inputs: ts-morph is big, YAML runs never pay for it
    const { readTypeScript } = await import('../input/ts/reader.js');
    reporter.progress(`reading TypeScript inputs of ${target.name}…`);
    const read = readTypeScript(target.inputs, {
      cwd: target.cwd,
      ...(target.tsconfig !== undefined ? { tsconfig: target.tsconfig } : {}),
    });
    model = applyTypeScriptPlurals(read.model, target.client); // irregular plurals, --plural-exceptions
    diagnostics = read.diagnostics;
    noSources = read.model.sources.length === 0;
    inputCount = read.model.sources.length;
  } else {
    const collected = await collectInputs(target.inputs, tio);
    reporter.startProgress(collected.sources.length);
    reporter.progress(`checking ${collected.sources.length} inputs of ${target.name}…`);
    const read = readApiInputs(collected.sources);
    if (read.format === 'openapi') format = 'openapi';
    model = read.model;
    diagnostics = [...collected.diagnostics, ...read.diagnostics];
    noSources = collected.sources.length === 0;
    inputCount = collected.sources.length;
  }
  reporter.report(diagnostics);
  if (hasErrors(diagnostics) || noSources) return undefined;
  if (format === 'openapi' && target.emitters.some((e) => e.name === 'crd')) {
    throw new CliError(
      'the crd generator writes CustomResourceDefinitions from CRD or TypeScript input; an OpenAPI document describes served APIs (leave crd out)',
      EXIT.usage,
    );
  }
  const clientErrors = clientOptionsErrors(model, target.client);
  if (clientErrors.length > 0) throw new CliError(clientErrors.join('\n'), EXIT.usage);
  const outDir = target.out !== undefined ? relative(target.cwd, target.out).split(sep).join('/') : undefined;
  const ctxEmit = createEmitContext({
    sources: model.sources,
    runtimeImport: target.runtimeImport,
    client: target.client,
    controllers: target.controllers,
    owns: target.owns,
    webhooks: target.webhooks,
    ...(outDir ? { outDir } : {}),
  });
  const controllerProblems = controllerErrors(model, ctxEmit);
  if (controllerProblems.length === 0) controllerProblems.push(...webhookErrors(model, ctxEmit));
  if (controllerProblems.length > 0) throw new CliError(controllerProblems.join('\n'), EXIT.usage);
  reporter.progress(`generating ${target.name}…`);
  let files: GeneratedFile[];
  try {
    files = runEmitters(model, ctxEmit, emittersForInput(target.emitters, format)); // TypeScript input: its CRD too; OpenAPI: no CRD
  } catch (e) {
    const written = reporter.command === 'generate' ? 'nothing was written' : ''; // verify and validate never write
    if (e instanceof NameCollisionError)
      throw new CliError(`${e.message}${written && `; ${written}`}`, EXIT.invalidInput);
    if (e instanceof ValidatorGenerationError)
      throw new CliError(`${e.message}${written && `\n${written}`}`, EXIT.invalidInput);
    throw e;
  }
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
  if (target.headerFile !== undefined) {
    let text: string;
    try {
      text = await readFile(target.headerFile, 'utf8');
    } catch (e) {
      throw new CliError(
        `cannot read header file ${target.headerFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        EXIT.usage,
      );
    }
    try {
      files = applyBoilerplate(files, text);
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
  return { target, model, files, inputCount };
}
