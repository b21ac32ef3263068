// What a command needs from the outside world, injectable for in-process tests.

/** Streams and working directory of one CLI run. */
export interface CliIo {
  /** Writes to standard output (summaries, help). */
  stdout(text: string): void;
  /** Writes to standard error (diagnostics, errors). */
  stderr(text: string): void;
  /** Reads all of standard input (for the `-` input). */
  readStdin(): Promise<Uint8Array>;
  /** Folder relative inputs and outputs resolve against. */
  cwd: string;
  /** Standard error is a terminal (colour, progress line). Default false. */
  stderrIsTTY?: boolean;
  /** Environment (`NO_COLOR`, `PATH` for {@link CliIo.command}); default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** How the user runs crdgen (`crdgen`, `npx crdgen`), for messages; default: detected from `env` (invocation.ts). */
  command?: string;
  /** Asks the user a yes/no question (default yes); absent when there is no terminal to ask on. */
  confirm?: (question: string) => Promise<boolean>;
}

/** Shared state a command factory receives. */
export interface CliContext {
  io: CliIo;
  /** Sets the process exit code for this run (0 success, 1 invalid input, 2 usage error). */
  setExitCode(code: number): void;
}

/** Exit codes of every command. */
export const EXIT = { ok: 0, invalidInput: 1, usage: 2 } as const;

/** The process's real streams. */
export function processIo(): CliIo {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    ...(process.stdin.isTTY === true && process.stdout.isTTY === true ? { confirm: askOnTerminal } : {}),
  };
}

async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(question)).trim();
    return answer === '' || /^y(es)?$/i.test(answer);
  } finally {
    rl.close();
  }
}

/** An error meant for the user: printed as `crdgen: <message>` with the given exit code, no stack. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
