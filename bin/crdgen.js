#!/usr/bin/env node
// The CLI as one bundle (scripts/build-cli-bundle.mjs, part of `npm run build`): it starts in
// about half the time of dist/cli/main.js's separate modules.
//
// The batch commands (generate, verify, validate, init) run each function of the pipeline over
// a few thousand schema nodes and exit: at V8's default tier-up budget much of their CPU went
// to optimizing code that had little left to run. An 8x budget cut `generate` on the whole CRD
// corpus from ~2.4 to ~1.6 s of user CPU (issue #26; docs/bench-runs/notes-issue-26.md).
// The long-running commands (testenv, demo) keep V8's default.
import { setFlagsFromString } from 'node:v8';

if (['generate', 'verify', 'validate', 'init'].includes(process.argv[2] ?? ''))
  setFlagsFromString('--interrupt-budget=1048576');
try {
  await import('../dist/cli-bundle/main.js');
} catch (e) {
  // a checkout of crdgen before `npm run build` (the published package carries dist/)
  if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('cli-bundle')) {
    process.stderr.write('crdgen: dist/ is not built: run `npm run build` in this checkout of crdgen\n');
    process.exit(1);
  }
  throw e;
}
