// The run's verdict table (bench/lib/verdicts.ts): every benchmark appends its verdicts to the
// file npm run bench names; the summary that BENCHMARKS.md leads with is built from it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metLabel, readVerdicts, recordVerdict, verdictTable, type Verdict } from '../../../bench/lib/verdicts.js';

const v = (target: string, met: boolean | null): Verdict => ({
  target,
  crdgen: '1 s',
  peers: 'x 2 s',
  judged: '2.00× (≥ 1.0×)',
  met,
  command: 'npm run bench -- x',
});

describe('bench verdicts', () => {
  it('records verdicts to CRDGEN_BENCH_VERDICTS in order and reads them back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'crdgen-verdicts-test-'));
    const file = join(dir, 'v.jsonl');
    const before = process.env.CRDGEN_BENCH_VERDICTS;
    process.env.CRDGEN_BENCH_VERDICTS = file;
    try {
      assert.equal(recordVerdict(v('a', true)), 'a: 2.00× (≥ 1.0×) — MET');
      recordVerdict(v('b', false));
      recordVerdict(v('c', null));
      assert.deepEqual(
        readVerdicts(file).map((x) => [x.target, x.met]),
        [
          ['a', true],
          ['b', false],
          ['c', null],
        ],
      );
    } finally {
      if (before === undefined) delete process.env.CRDGEN_BENCH_VERDICTS;
      else process.env.CRDGEN_BENCH_VERDICTS = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records nothing without CRDGEN_BENCH_VERDICTS, and reads no file as no verdicts', () => {
    const before = process.env.CRDGEN_BENCH_VERDICTS;
    delete process.env.CRDGEN_BENCH_VERDICTS;
    try {
      assert.equal(recordVerdict(v('a', false)), 'a: 2.00× (≥ 1.0×) — MISSED');
    } finally {
      if (before !== undefined) process.env.CRDGEN_BENCH_VERDICTS = before;
    }
    assert.deepEqual(readVerdicts(join(tmpdir(), 'no-such-crdgen-verdicts.jsonl')), []);
  });

  it('the table has one row per verdict, its label, the command in code, and escaped pipes', () => {
    const t = verdictTable([v('a | b', true), v('c', null)]).split('\n');
    assert.equal(t.length, 4);
    assert.match(t[2], /^\| a \\\| b .*\| MET .*\| `npm run bench -- x` \|$/);
    assert.match(t[3], /\| recorded /);
    assert.equal(metLabel(false), 'MISSED');
  });
});
