// The crdgen CLI: builds the commander program, registers every command (one
// factory per file), runs it, and maps outcomes to exit codes (0 success,
// 1 invalid input, 2 usage error). Imported by bin/crdgen.js, it runs itself;
// imported by tests, it only exports `runCli`/`buildProgram`.

import { Command, CommanderError } from 'commander';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGenerateCommand } from './generate.js';
import { CliError, EXIT, processIo, type CliContext, type CliIo } from './io.js';
import { createTestenvCommand } from './testenv.js';
import { createDemoCommand } from './demo.js';
import { createVerifyCommand } from './verify.js';
import { createValidateCommand } from './validate.js';
import { createInitCommand } from './init.js';
import { createManifestsCommand } from './manifests.js';

/** Command factories in help order. To add a command: write `src/cli/<name>.ts` exporting a factory, append it here. */
export const COMMAND_FACTORIES: ReadonlyArray<(ctx: CliContext) => Command> = [
  createGenerateCommand,
  createVerifyCommand,
  createValidateCommand,
  createInitCommand,
  createManifestsCommand,
  createTestenvCommand,
  createDemoCommand,
];

const here = dirname(fileURLToPath(import.meta.url));

/** The package version (from package.json at the package root). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(here, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function applySettings(cmd: Command, io: CliIo): void {
  cmd.exitOverride();
  cmd.configureOutput({
    writeOut: (s) => io.stdout(s),
    writeErr: (s) => io.stderr(s),
    outputError: (s, write) => write(s),
  });
  for (const sub of cmd.commands) applySettings(sub, io);
}

/** Builds the program with every registered command, writing through `ctx.io`. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('crdgen')
    .description(
      'Kubernetes code generator for TypeScript: typed models, deepcopy, clients, informers, listers and controllers from CRDs',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)');
  for (const factory of COMMAND_FACTORIES) program.addCommand(factory(ctx));
  applySettings(program, ctx.io);
  return program;
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code: number = EXIT.ok;
  const ctx: CliContext = { io, setExitCode: (c) => void (code = c) };
  try {
    const program = buildProgram(ctx);
    if (argv.length === 0) {
      io.stderr(program.helpInformation());
      return EXIT.usage;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof CliError) {
      io.stderr(`crdgen: ${e.message}\n`);
      return e.exitCode;
    }
    io.stderr(
      `crdgen: internal error: ${(e as Error)?.message ?? String(e)}\n(this is a bug in crdgen; please report it with the input that caused it)\n`,
    );
    return EXIT.invalidInput;
  }
}

function isEntryPoint(): boolean {
  const arg = process.argv[1];
  if (!arg) return false;
  try {
    const entry = realpathSync(arg);
    return (
      entry === realpathSync(fileURLToPath(import.meta.url)) ||
      entry === realpathSync(join(here, '..', '..', 'bin', 'crdgen.js'))
    );
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const code = await runCli(process.argv.slice(2), processIo());
  process.exitCode = code;
}
