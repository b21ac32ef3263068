// The recording of Go's regexp answers (test/support/re2-go.json, which the fast suite checks
// crdgen's RE2 engine against) is what Go's regexp package answers now: test/re2go, built with the
// Go toolchain that builds the control plane (scripts/re2-go.sh), run on the same case list.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RE2_CASES } from '../support/re2-cases.js';
import { readRecording, runGoRegexp } from '../support/re2-go.js';

describe('RE2 recording against Go', () => {
  it('Go’s regexp gives the recorded verdicts and matches', () => {
    const live = runGoRegexp(RE2_CASES);
    const recorded = readRecording();
    assert.equal(live.length, recorded.length, 'case count: npm run re2:record');
    const differ = live
      .map((g, i) => ({ g, r: recorded[i] }))
      .filter(({ g, r }) => JSON.stringify(g) !== JSON.stringify(r))
      .map(({ g }) => g.pattern);
    assert.deepEqual(differ, [], 'Go answers otherwise now: npm run re2:record, and review the diff');
  });
});
