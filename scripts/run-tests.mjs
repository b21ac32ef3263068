#!/usr/bin/env node
// Runs the test suite with node's built-in runner, TypeScript loaded through tsx.
// Node 20's `--test` takes no globs, so the test files are found here:
// every `*.test.ts` under the given folders (default: test/), in sorted order.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = [];
function walk(p) {
  const st = statSync(p);
  if (st.isDirectory()) {
    for (const e of readdirSync(p).sort()) {
      if (e === 'node_modules' || e.startsWith('.')) continue;
      walk(join(p, e));
    }
  } else if (p.endsWith('.test.ts')) {
    files.push(relative(process.cwd(), p));
  }
}
for (const r of roots.length ? roots : ['test']) walk(r);
if (files.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
