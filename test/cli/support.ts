// Runs the CLI in-process with captured streams, a chosen cwd, environment and TTY-ness.
import { runCli } from '../../src/cli/main.js';

/** Captured outcome of one CLI run. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `crdgen <argv…>` in `cwd`; `tty` makes stderr a terminal; `env` is the whole environment. */
export async function run(
  argv: string[],
  cwd: string,
  opts: { tty?: boolean; env?: Record<string, string>; stdin?: string } = {},
): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: async () => new TextEncoder().encode(opts.stdin ?? ''),
    cwd,
    stderrIsTTY: opts.tty ?? false,
    env: opts.env ?? {},
  });
  return { code, stdout, stderr };
}
