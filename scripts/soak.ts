// `npm run soak -- --objects N --minutes M --seed S`: the chaos soak of the generated operator
// (test/soak/driver.ts); `npm run soak -- --sharded [--objects N] [--seconds S] [--seed X]`: the
// sharded operator's chaos run on the real control plane (test/e2e/sharding-chaos.ts). Prints the one-line summary (and each violation); exit 0 clean,
// 1 on any violation or a failed setup, 2 for a bad command line.
import { parseSoakArgs, SOAK_USAGE, SoakUsageError } from '../test/soak/options.js';
import { runSoak } from '../test/soak/driver.js';

/** `--sharded [--objects N] [--seconds S] [--seed X]`: the sharded operator's chaos run (test/e2e/sharding-chaos.ts). */
async function sharded(args: string[]): Promise<number> {
  const value = (name: string, dflt: number): number => {
    const i = args.indexOf(`--${name}`);
    const n = i >= 0 ? Number(args[i + 1]) : dflt;
    if (!Number.isInteger(n) || n < 1) {
      process.stderr.write(`soak --sharded: --${name}: ${JSON.stringify(args[i + 1])} is not a positive integer\n`);
      process.exit(2);
    }
    return n;
  };
  const { runShardingChaos } = await import('../test/e2e/sharding-chaos.js');
  const t0 = Date.now();
  const r = await runShardingChaos({
    objects: value('objects', 3000),
    seconds: value('seconds', 600),
    seed: value('seed', 33033),
    progress: (line) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`),
  });
  for (const v of r.violations) process.stdout.write(`violation: ${v}\n`);
  process.stdout.write(`${r.summary}\n`);
  return r.violations.length === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  if (process.argv.includes('--sharded')) return sharded(process.argv.slice(2));
  let opts;
  try {
    opts = parseSoakArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof SoakUsageError) {
      process.stderr.write(`soak: ${e.message}\n\n${SOAK_USAGE}`);
      return 2;
    }
    throw e;
  }
  if (opts === 'help') {
    process.stdout.write(SOAK_USAGE);
    return 0;
  }
  const verbose = opts.verbose;
  const t0 = Date.now();
  const progress = (line: string): void => {
    if (verbose) process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${line}\n`);
  };
  try {
    const r = await runSoak(opts, progress);
    for (const v of r.violations) process.stdout.write(`violation: ${v}\n`);
    process.stdout.write(`${r.summary}\n`);
    return r.violations.length === 0 ? 0 : 1;
  } catch (e) {
    process.stderr.write(`soak: setup failed: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

process.exitCode = await main();
