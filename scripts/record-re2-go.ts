// `npm run re2:record`: runs Go's regexp (test/re2go) on the RE2 corner cases of
// test/support/re2-cases.ts and records its answers in test/support/re2-go.json, which the fast
// suite compares crdgen with (test/unit/runtime/validation/re2-go.test.ts). Review the diff.
import { RE2_CASES } from '../test/support/re2-cases.js';
import { RE2_RECORDING, runGoRegexp, writeRecording } from '../test/support/re2-go.js';

const results = runGoRegexp(RE2_CASES);
writeRecording(results);
const refused = results.filter((r) => r.error !== null).length;
console.log(
  `recorded ${results.length} patterns (${refused} refused, ${results.length - refused} accepted; ${results.reduce((n, r) => n + r.results.length, 0)} matched inputs) in ${RE2_RECORDING}`,
);
