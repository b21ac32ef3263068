// The CLI's output layer, shared by generate, verify and validate: diagnostics in
// colour on a terminal (never with NO_COLOR or --no-color), `--json` (one JSON
// document on stdout: every diagnostic, every file touched, the outcome),
// `--quiet` (errors only), `-v` (each file), and a progress line on a terminal
// when the input is large.

import { Command, Option } from 'commander';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatDiagnostic } from '../diagnostics/format.js';
import { CliError, EXIT, type CliContext, type CliIo } from './io.js';

/** The output flags every reporting command takes. */
export interface OutputFlags {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** `--no-color` sets it false. */
  color?: boolean;
}

/** Adds `--json`, `-q/--quiet`, `-v/--verbose`, `--no-color` to `cmd`. */
export function addOutputOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--json', 'machine-readable output: one JSON document on stdout (diagnostics, files, result)'),
    )
    .addOption(new Option('-q, --quiet', 'print errors only').conflicts('verbose'))
    .addOption(new Option('-v, --verbose', 'also print every file and step'))
    .addOption(new Option('--no-color', 'no colours (also when NO_COLOR is set)'));
}

/** One file in the report: what the command did (or would do) with it. */
export interface ReportedFile {
  path: string;
  action: string;
}

/** Inputs at or past this count get a progress line on a terminal. */
export const PROGRESS_THRESHOLD = 100;

const STYLE = {
  red: '\u001b[31m',
  yellow: '\u001b[33m',
  green: '\u001b[32m',
  bold: '\u001b[1m',
  dim: '\u001b[2m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
} as const;

/** Collects and prints a command's output in the mode the flags ask for. */
export class Reporter {
  /** Colours are on. */
  readonly color: boolean;
  private readonly diagnosticsSeen: Diagnostic[] = [];
  private readonly files: ReportedFile[] = [];
  private progressShown = false;
  private progressEnabled = false;

  constructor(
    private readonly io: CliIo,
    readonly command: string,
    readonly flags: OutputFlags,
  ) {
    const env = io.env ?? {};
    this.color =
      io.stderrIsTTY === true &&
      flags.color !== false &&
      !flags.json &&
      (env['NO_COLOR'] ?? '') === '' &&
      env['TERM'] !== 'dumb';
  }

  /** Every diagnostic reported so far. */
  get diagnostics(): readonly Diagnostic[] {
    return this.diagnosticsSeen;
  }

  /** Paints `text` when colours are on. */
  paint(style: keyof typeof STYLE, text: string): string {
    return this.color ? `${STYLE[style]}${text}${STYLE.reset}` : text;
  }

  /** Reports diagnostics: printed to stderr (warnings not with --quiet), collected for --json. */
  report(ds: readonly Diagnostic[]): void {
    for (const d of ds) {
      this.diagnosticsSeen.push(d);
      if (this.flags.json || (this.flags.quiet && d.severity !== 'error')) continue;
      this.clearProgress();
      this.io.stderr(`${this.formatDiagnostic(d)}\n`);
    }
  }

  /** One diagnostic as text, coloured when colours are on. */
  formatDiagnostic(d: Diagnostic): string {
    const text = formatDiagnostic(d);
    if (!this.color) return text;
    const nl = text.indexOf('\n');
    const head = nl < 0 ? text : text.slice(0, nl);
    const rest = nl < 0 ? '' : text.slice(nl);
    const marker = `${d.severity} ${d.code} `;
    const at = head.startsWith(marker) ? 0 : head.indexOf(` ${marker}`) + 1;
    if (at < 0) return text;
    const where = head.slice(0, at);
    const msg = head.slice(at + marker.length);
    const sev = this.paint(d.severity === 'error' ? 'red' : 'yellow', d.severity);
    return `${where === '' ? '' : this.paint('bold', where)}${sev} ${this.paint('dim', d.code)} ${msg}${this.paint('dim', rest)}`;
  }

  /** Records a file; with -v it is printed (stderr) as `<action> <path>`. */
  file(path: string, action: string): void {
    this.files.push({ path, action });
    if (this.flags.verbose && !this.flags.json) {
      this.clearProgress();
      this.io.stderr(`${this.paint('dim', action.padEnd(9))} ${path}\n`);
    }
  }

  /** A line for people on stdout (not with --quiet or --json). */
  info(line: string): void {
    if (this.flags.quiet || this.flags.json) return;
    this.clearProgress();
    this.io.stdout(`${line}\n`);
  }

  /** A closing error line on stderr (also with --quiet; not with --json, whose document says it). */
  errorLine(line: string): void {
    if (this.flags.json) return;
    this.clearProgress();
    this.io.stderr(`${line}\n`);
  }

  /** A detail line on stderr, only with -v. */
  detail(line: string): void {
    if (!this.flags.verbose || this.flags.json) return;
    this.clearProgress();
    this.io.stderr(`${line}\n`);
  }

  /** Raw text on stdout for people (a diff), not with --json. */
  raw(text: string): void {
    if (this.flags.json) return;
    this.clearProgress();
    this.io.stdout(text);
  }

  /** Turns the progress line on when stderr is a terminal, the input is large and no --json/--quiet. */
  startProgress(inputCount: number): void {
    this.progressEnabled =
      this.io.stderrIsTTY === true && inputCount >= PROGRESS_THRESHOLD && !this.flags.json && !this.flags.quiet;
  }

  /** Rewrites the progress line (`crdgen: reading 300 inputs…`). */
  progress(text: string): void {
    if (!this.progressEnabled) return;
    this.io.stderr(`\r\u001b[2K${this.paint('cyan', 'crdgen')}: ${text}`);
    this.progressShown = true;
  }

  /** Erases the progress line if one is shown. */
  clearProgress(): void {
    if (!this.progressShown) return;
    this.io.stderr('\r\u001b[2K');
    this.progressShown = false;
  }

  /** With --json, prints the one JSON document: `{command, ok, exitCode, diagnostics, files, ...extra}`. */
  finish(exitCode: number, extra: Record<string, unknown> = {}): void {
    this.clearProgress();
    if (!this.flags.json) return;
    const doc = {
      command: this.command,
      ok: exitCode === EXIT.ok,
      exitCode,
      diagnostics: this.diagnosticsSeen,
      files: this.files,
      ...extra,
    };
    this.io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
  }
}

/**
 * Runs a reporting command body: sets the exit code it returns; a {@link CliError}
 * (usage or input problem) is, with --json, also reported as `{ok: false, error}`
 * before it propagates to the CLI's own `crdgen: <message>` line on stderr.
 */
export async function runReported(ctx: CliContext, reporter: Reporter, body: () => Promise<number>): Promise<void> {
  try {
    ctx.setExitCode(await body());
  } catch (e) {
    if (e instanceof CliError) reporter.finish(e.exitCode, { error: e.message });
    throw e;
  }
}
