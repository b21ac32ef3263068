// Go's regexp package as the reference for crdgen's RE2 engine: runs test/re2go (built by
// scripts/re2-go.sh) on pattern cases, and reads or writes the recording of its answers for
// test/support/re2-cases.ts (test/support/re2-go.json).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Re2Case } from './re2-cases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RE2_RECORDING = join(ROOT, 'test', 'support', 're2-go.json');

/** What Go's regexp gives on one input: MatchString, FindString (null: no match), FindAllString(-1). */
export interface GoInputResult {
  input: string;
  match: boolean;
  find: string | null;
  findAll: string[];
}

/** Go's verdict on one pattern: regexp.Compile's error text (null: accepted) and its results. */
export interface GoCaseResult {
  pattern: string;
  error: string | null;
  results: GoInputResult[];
}

/** Runs Go's regexp on the cases (builds test/re2go first when it is not cached). */
export function runGoRegexp(cases: readonly Re2Case[]): GoCaseResult[] {
  const build = spawnSync('bash', [join(ROOT, 'scripts', 're2-go.sh')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`scripts/re2-go.sh failed (${build.status}): ${build.stderr}`);
  const bin = build.stdout.trim().split('\n').pop()!;
  const run = spawnSync(bin, [], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 256 << 20 });
  if (run.status !== 0) throw new Error(`${bin} failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as GoCaseResult[];
}

/** The recorded answers. */
export function readRecording(): GoCaseResult[] {
  return JSON.parse(readFileSync(RE2_RECORDING, 'utf8')) as GoCaseResult[];
}

/** Writes the recording (one case a line, so its diff reads case by case). */
export function writeRecording(results: readonly GoCaseResult[]): void {
  writeFileSync(RE2_RECORDING, `[\n${results.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`);
}
