#!/usr/bin/env node
// The CLI as one bundle (scripts/build-cli-bundle.mjs, part of `npm run build`): it starts in
// about half the time of dist/cli/main.js's separate modules.
import '../dist/cli-bundle/main.js';
