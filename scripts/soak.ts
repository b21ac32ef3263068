// `npm run soak -- --objects N --minutes M --seed S`: the chaos soak of the generated operator
// (test/soak/driver.ts). Prints the one-line summary (and each violation); exit 0 clean,
// 1 on any violation or a failed setup, 2 for a bad command line.
import { parseSoakArgs, SOAK_USAGE, SoakUsageError } from '../test/soak/options.js';
import { runSoak } from '../test/soak/driver.js';

async function main(): Promise<number> {
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
