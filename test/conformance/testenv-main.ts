// Runs the crdgen CLI (src/cli/main.ts, as bin/crdgen.js does) from source, for the
// conformance tests: node --import tsx test/conformance/testenv-main.ts testenv [options]
import { runCli } from '../../src/cli/main.js';
import { processIo } from '../../src/cli/io.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
