// Runs `crdgen testenv` from its command factory (what bin/crdgen.js runs once main.ts
// registers it), for the conformance tests: node --import tsx test/conformance/testenv-main.ts [testenv options]
import { testenvCommand } from '../../src/cli/testenv.js';

await testenvCommand().parseAsync(process.argv, { from: 'node' });
