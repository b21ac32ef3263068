// `crdgen verify [inputs…] [--out <dir>]`: generates in memory and compares with
// what is on disk, writing nothing. Exit 0 when equal; exit 1 with a unified diff
// per changed file, the lists of missing and stale files, and the command that
// fixes it. Files without crdgen's header in the output folder are ignored (unless
// a generated file would go where one is: that is an error too).

import { Command } from 'commander';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayPath } from './inputs.js';
import { CliError, EXIT, type CliContext } from './io.js';
import { addGeneratorOptions, givenOn, plural } from './generate.js';
import type { GenerateFlags } from './options.js';
import { Reporter, runReported } from './report.js';
import { commandOf } from './invocation.js';

/** One difference `verify` found. */
export interface VerifyFinding {
  /** Shown path (relative to the current folder). */
  path: string;
  kind: 'changed' | 'missing' | 'stale' | 'conflict';
  /** Unified diff, on disk (a/) → generated (b/), for `changed`. */
  diff?: string;
}

const SAFE_ARG = /^[\w@%+=:,./-]+$/;

/** `arg` quoted for a POSIX shell when it needs it. */
export function shellQuote(arg: string): string {
  return SAFE_ARG.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The generate command that fixes what verify found: the same arguments, `generate` for `verify`, no output flags, run as the user runs crdgen (`command`). */
export function fixCommand(rawArgs: readonly string[], command = 'crdgen'): string {
  const args = [...rawArgs];
  const i = args.indexOf('verify');
  if (i >= 0) args[i] = 'generate';
  const shown = args.filter((a) => !['--json', '-q', '--quiet', '-v', '--verbose', '--no-color'].includes(a));
  return [command, ...shown.map(shellQuote)].join(' ');
}

/** Runs verify; returns 0 when the output on disk is what generate would write, else 1. */
export async function runVerify(
  inputs: readonly string[],
  flags: GenerateFlags,
  command: Command,
  ctx: CliContext,
  reporter: Reporter,
): Promise<number> {
  const { stageAll } = await import('./build.js');
  const diffs = new DiffStore();
  // compared as generated: a changed file's diff is made where it is found; no file is kept
  const staged = await stageAll(inputs, flags, givenOn(command), ctx, reporter, {
    dryRun: true,
    cache: false,
    diffs: { cwd: ctx.io.cwd },
    onStep: (target, step) => {
      if (step.diff !== undefined) diffs.put(displayPath(ctx.io.cwd, join(target.out!, step.path)), step.diff);
    },
  });
  if (!staged) {
    diffs.close();
    reporter.finish(EXIT.invalidInput);
    return EXIT.invalidInput;
  }
  const findings: VerifyFinding[] = [];
  let checked = 0;
  try {
    for (const s of staged) {
      const out = s.target.out!;
      s.tx.finish();
      for (const step of s.tx.steps()) {
        const shown = displayPath(ctx.io.cwd, join(out, step.path));
        if (step.action !== 'remove') checked++;
        // the diffs stay in the store until printed (with --json they go into the document)
        if (step.action === 'update')
          findings.push({ path: shown, kind: 'changed', ...(reporter.flags.json ? { diff: diffs.take(shown) } : {}) });
        else if (step.action === 'create') findings.push({ path: shown, kind: 'missing' });
        else if (step.action === 'remove') findings.push({ path: shown, kind: 'stale' });
        else if (step.action === 'conflict') findings.push({ path: shown, kind: 'conflict' });
        reporter.file(
          shown,
          {
            update: 'changed',
            create: 'missing',
            remove: 'stale',
            conflict: 'conflict',
            unchanged: 'ok',
            keep: 'user-owned',
          }[step.action],
        );
      }
    }
  } catch (e) {
    diffs.close();
    throw new CliError(`cannot read output: ${(e as Error).message}`, EXIT.invalidInput);
  }
  try {
    return report(findings, checked, diffs, inputs, command, ctx, reporter);
  } finally {
    diffs.close();
  }
}

/** Prints what verify found; returns the exit code. */
function report(
  findings: VerifyFinding[],
  checked: number,
  diffs: DiffStore,
  inputs: readonly string[],
  command: Command,
  ctx: CliContext,
  reporter: Reporter,
): number {
  // commander keeps the arguments it parsed as rawArgs (untyped)
  const raw = (command.parent as unknown as { rawArgs?: string[] } | null)?.rawArgs;
  const fix = fixCommand(raw && raw.length > 0 ? raw : ['verify', ...inputs], commandOf(ctx.io));
  if (findings.length === 0) {
    reporter.info(`verified ${plural(checked, 'generated file')}: up to date`);
    reporter.finish(EXIT.ok, { findings });
    return EXIT.ok;
  }
  const by = (k: VerifyFinding['kind']) => findings.filter((f) => f.kind === k);
  for (const f of by('changed')) reporter.raw(colourDiff(f.diff ?? diffs.take(f.path), reporter));
  const list = (title: string, fs: VerifyFinding[], note: string) => {
    if (fs.length === 0) return;
    reporter.raw(`\n${reporter.paint('bold', title)} (${note}):\n${fs.map((f) => `  ${f.path}\n`).join('')}`);
  };
  list('missing', by('missing'), 'generate would create them');
  list('stale', by('stale'), 'generated earlier, no longer produced; generate would remove them');
  list('conflict', by('conflict'), 'files without the generated header where generated files go; move them away');
  const changed = by('changed').length;
  const parts = [
    changed > 0 ? `${plural(changed, 'file')} changed` : '',
    by('missing').length > 0 ? `${by('missing').length} missing` : '',
    by('stale').length > 0 ? `${by('stale').length} stale` : '',
    by('conflict').length > 0 ? `${by('conflict').length} in conflict` : '',
  ].filter((s) => s !== '');
  reporter.errorLine(`crdgen verify: generated code is out of date (${parts.join(', ')}).\nTo fix it, run:\n  ${fix}`);
  reporter.finish(EXIT.invalidInput, { findings, fix });
  return EXIT.invalidInput;
}

function colourDiff(diff: string, reporter: Reporter): string {
  if (!reporter.color) return diff;
  return diff
    .split('\n')
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? reporter.paint('bold', l)
        : l.startsWith('@@')
          ? reporter.paint('cyan', l)
          : l.startsWith('+')
            ? reporter.paint('green', l)
            : l.startsWith('-')
              ? reporter.paint('red', l)
              : l,
    )
    .join('\n');
}

/** Factory for the `verify` command. */
export function createVerifyCommand(ctx: CliContext): Command {
  const cmd = new Command('verify')
    .description('check that generated code on disk is what generate would write (for CI); writes nothing')
    .argument('[inputs...]', 'as for generate; none: use crdgen.config.yaml')
    .option('-o, --out <dir>', 'output folder to compare (required without a config)');
  addGeneratorOptions(cmd)
    .addHelpText(
      'after',
      () =>
        `\nExit codes: 0 up to date, 1 out of date or invalid input, 2 usage error.\n\nExample (CI):\n  ${commandOf(ctx.io)} verify || exit 1\n`,
    )
    .action(async (inputs: string[], opts: GenerateFlags, command: Command) => {
      const reporter = new Reporter(ctx.io, 'verify', opts);
      await runReported(ctx, reporter, () => runVerify(inputs, opts, command, ctx, reporter));
    });
  return cmd;
}

/**
 * The diffs of a verify run by path, held in memory up to a budget and in a temporary file past
 * it (a run where every file changed would otherwise hold the whole output twice).
 */
class DiffStore {
  private readonly held = new Map<string, string>();
  private readonly spilled = new Map<string, { at: number; length: number }>();
  private heldBytes = 0;
  private file: { fd: number; path: string; size: number } | undefined;

  constructor(private readonly budget = 32 * 1024 * 1024) {}

  put(path: string, diff: string): void {
    if (this.heldBytes + diff.length <= this.budget) {
      this.held.set(path, diff);
      this.heldBytes += diff.length;
      return;
    }
    if (!this.file) {
      const dir = mkdtempSync(join(tmpdir(), 'crdgen-verify-'));
      const p = join(dir, 'diffs');
      this.file = { fd: openSync(p, 'w+'), path: dir, size: 0 };
    }
    const bytes = Buffer.from(diff, 'utf8');
    writeSync(this.file.fd, bytes, 0, bytes.length, this.file.size);
    this.spilled.set(path, { at: this.file.size, length: bytes.length });
    this.file.size += bytes.length;
  }

  take(path: string): string {
    const held = this.held.get(path);
    if (held !== undefined) return held;
    const s = this.spilled.get(path);
    if (!s || !this.file) return '';
    const bytes = Buffer.alloc(s.length);
    readSync(this.file.fd, bytes, 0, s.length, s.at);
    return bytes.toString('utf8');
  }

  close(): void {
    if (!this.file) return;
    closeSync(this.file.fd);
    rmSync(this.file.path, { recursive: true, force: true });
    this.file = undefined;
  }
}
