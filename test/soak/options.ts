// The soak's command line: `--objects N --minutes M --seed S` (+ a few tuning flags), parsed
// into SoakOptions with clear errors (exit 2 from the CLI wrapper, never a stack trace).
import { parseArgs } from 'node:util';

/** What one soak run does. */
export interface SoakOptions {
  /** DatabaseManagers kept alive by the driver (it creates up to this many, deletes and re-creates). */
  objects: number;
  /** How long the driver and the faults run, in minutes (fractions allowed). */
  minutes: number;
  /** Seed of the one PRNG that makes every choice. */
  seed: number;
  /** Pause between driver steps in ms (default 100: up to 10 operations per second). */
  stepMs: number;
  /** Mean seconds between two injected faults (default 6). */
  faultEverySeconds: number;
  /** How long, after faults stop, the system may take to converge (default 60 s + 150 ms per object). */
  convergeTimeoutMs: number;
  /** Print progress lines on stderr. */
  verbose: boolean;
}

/** The usage text of `npm run soak`. */
export const SOAK_USAGE = `Usage: npm run soak -- --objects N --minutes M --seed S [options]

Chaos soak of the generated DatabaseManager operator (2 replicas, leader election) against
crdgen's test API server on etcd. Prints one summary line; exits 1 on any violation.

  --objects <n>           DatabaseManagers the driver keeps alive (default 100)
  --minutes <m>           minutes of load and faults (default 2)
  --seed <s>              seed of the PRNG that makes every choice (default 1)
  --step-ms <ms>          pause between driver operations (default 100)
  --fault-every <s>       mean seconds between faults (default 6)
  --converge-timeout <s>  bound on convergence after faults stop (default 60 + 0.15 per object)
  --verbose               progress on stderr
  --help                  this text
`;

/** Thrown for a bad command line (the wrapper prints it with the usage). */
export class SoakUsageError extends Error {}

function num(name: string, raw: string | undefined, dflt: number, check: (n: number) => boolean): number {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new SoakUsageError(`--${name}: ${JSON.stringify(raw)} is not valid`);
  return n;
}

/** Parses the soak's arguments; 'help' for --help. */
export function parseSoakArgs(argv: string[]): SoakOptions | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        objects: { type: 'string' },
        minutes: { type: 'string' },
        seed: { type: 'string' },
        'step-ms': { type: 'string' },
        'fault-every': { type: 'string' },
        'converge-timeout': { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new SoakUsageError((e as Error).message);
  }
  if (values.help) return 'help';
  const get = (k: string): string | undefined => values[k] as string | undefined;
  const objects = num('objects', get('objects'), 100, (n) => Number.isInteger(n) && n >= 1 && n <= 100_000);
  return {
    objects,
    minutes: num('minutes', get('minutes'), 2, (n) => n > 0 && n <= 24 * 60),
    seed: num('seed', get('seed'), 1, (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff),
    stepMs: num('step-ms', get('step-ms'), 100, (n) => n >= 0 && n <= 60_000),
    faultEverySeconds: num('fault-every', get('fault-every'), 6, (n) => n > 0 && n <= 3600),
    convergeTimeoutMs: num('converge-timeout', get('converge-timeout'), 60 + 0.15 * objects, (n) => n > 0) * 1000,
    verbose: values.verbose === true,
  };
}
