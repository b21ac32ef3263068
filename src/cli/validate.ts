// `crdgen validate [inputs…]`: only the checks (CRD rules, options against the
// model, name collisions), no output — for pre-commit hooks. With no inputs the
// config's targets are checked.

import { Command } from 'commander';
import { countDiagnostics } from '../diagnostics/format.js';
import { EXIT, type CliContext } from './io.js';
import { addGeneratorOptions, givenOn, plural } from './generate.js';
import type { GenerateFlags } from './options.js';
import { Reporter, runReported } from './report.js';

/** Runs validate; 0 when every input is valid (warnings allowed), 1 otherwise. */
export async function runValidate(
  inputs: readonly string[],
  flags: GenerateFlags,
  command: Command,
  ctx: CliContext,
  reporter: Reporter,
): Promise<number> {
  const { buildAll } = await import('./build.js');
  const outputs = await buildAll(inputs, flags, givenOn(command), ctx, reporter, false);
  if (!outputs) {
    reporter.finish(EXIT.invalidInput);
    return EXIT.invalidInput;
  }
  const files = outputs.reduce((n, o) => n + o.inputCount, 0);
  const kinds = outputs.reduce(
    (n, o) => n + o.model.groups.reduce((m, g) => m + g.versions.reduce((k, v) => k + v.kinds.length, 0), 0),
    0,
  );
  const { warnings } = countDiagnostics(reporter.diagnostics);
  reporter.info(
    `checked ${plural(files, 'input')} (${plural(kinds, 'kind version')}): no errors${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`,
  );
  reporter.finish(EXIT.ok, { inputs: files });
  return EXIT.ok;
}

/** Factory for the `validate` command. */
export function createValidateCommand(ctx: CliContext): Command {
  const cmd = new Command('validate')
    .description(
      'check CRDs (or annotated TypeScript) and the generator options without writing anything (for pre-commit hooks)',
    )
    .argument('[inputs...]', 'as for generate; none: use crdgen.config.yaml');
  addGeneratorOptions(cmd)
    .addHelpText('after', '\nExit codes: 0 valid, 1 invalid input, 2 usage error.\n')
    .action(async (inputs: string[], opts: GenerateFlags, command: Command) => {
      const reporter = new Reporter(ctx.io, 'validate', opts);
      await runReported(ctx, reporter, () => runValidate(inputs, opts, command, ctx, reporter));
    });
  return cmd;
}
