// crdgen's RE2 engine against Go's regexp package on the corner cases of test/support/re2-cases.ts:
// the same verdict (accepted, or refused with Go's error text) and, for accepted patterns, the same
// MatchString, FindString and FindAllString on every input. Go's answers are recorded in
// test/support/re2-go.json (`npm run re2:record`); test/conformance/re2-go.test.ts checks that
// recording against Go itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compileRe2, Re2SyntaxError, type Re2 } from '../../../../src/runtime/validation/re2.js';
import { RE2_CASES } from '../../../support/re2-cases.js';
import { readRecording } from '../../../support/re2-go.js';

const recording = readRecording();

describe('RE2 as Go has it', () => {
  it('the recording answers for exactly the case list', () => {
    assert.deepEqual(
      recording.map((r) => [r.pattern, r.results.map((x) => x.input)]),
      RE2_CASES.map((c) => [c.pattern, recording.find((r) => r.pattern === c.pattern)?.error === null ? c.inputs : []]),
      'the case list changed since the recording: npm run re2:record',
    );
  });

  it('accepts and refuses what Go accepts and refuses, with Go’s error text', () => {
    const wrong: string[] = [];
    for (const r of recording) {
      let got: string | null = null;
      try {
        compileRe2(r.pattern);
      } catch (e) {
        assert.ok(e instanceof Re2SyntaxError, `${r.pattern}: ${String(e)}`);
        got = e.message;
      }
      if (got !== r.error)
        wrong.push(`${JSON.stringify(r.pattern)}: Go ${r.error ?? 'accepts'}; crdgen ${got ?? 'accepts'}`);
    }
    const refused = recording.filter((r) => r.error !== null).length;
    assert.ok(refused >= 200 && recording.length - refused >= 300, `${refused} refused of ${recording.length}`);
    assert.deepEqual(wrong, []);
  });

  it('matches, finds and finds all as Go does', () => {
    const wrong: string[] = [];
    let inputs = 0;
    for (const r of recording) {
      if (r.error !== null) continue;
      const re: Re2 = compileRe2(r.pattern);
      for (const x of r.results) {
        inputs++;
        const got = { match: re.test(x.input), find: re.find(x.input), findAll: re.findAll(x.input, -1) };
        const want = { match: x.match, find: x.find, findAll: x.findAll };
        if (JSON.stringify(got) !== JSON.stringify(want))
          wrong.push(
            `${JSON.stringify(r.pattern)} on ${JSON.stringify(x.input.slice(0, 40))}: Go ${JSON.stringify(want).slice(0, 200)}; crdgen ${JSON.stringify(got).slice(0, 200)}`,
          );
      }
    }
    assert.ok(inputs >= 3000, `${inputs} inputs`);
    assert.deepEqual(wrong, []);
  });
});
