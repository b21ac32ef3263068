// Runs the CLI in-process with captured streams.

import { runCli } from '../../../src/cli/main.js';
import { ROOT } from '../../golden/support.js';

/** Captured outcome of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `crdgen <argv…>` in-process (cwd = repo root unless given). */
export async function cli(argv: string[], opts: { cwd?: string; stdin?: string | Uint8Array } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    readStdin: async () =>
      typeof opts.stdin === 'string' ? new TextEncoder().encode(opts.stdin) : (opts.stdin ?? new Uint8Array()),
    cwd: opts.cwd ?? ROOT,
  });
  return { code, stdout, stderr };
}
