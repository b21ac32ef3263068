// The benchmarks' statistics (bench/lib/stats.ts): every ratio in BENCHMARKS.md is a
// pairedRatio of per-round figures, every figure a median.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { bytes, fmt, median, pairedRatio, range, table, times } from '../../../bench/lib/stats.js';

describe('bench stats', () => {
  it('median takes the middle value, or the mean of the two middle ones, without sorting its input', () => {
    const xs = [5, 1, 3];
    assert.equal(median(xs), 3);
    assert.deepEqual(xs, [5, 1, 3]);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.ok(Number.isNaN(median([])));
  });

  it('pairedRatio is the median of per-round ratios, not the ratio of medians', () => {
    // Per-round ratios 2, 0.2, 2: the load moved both tools together except in round 2.
    const a = [10, 10, 100];
    const b = [5, 50, 50];
    assert.equal(pairedRatio(a, b), 2);
    assert.equal(median(a) / median(b), 0.2);
    assert.equal(pairedRatio([3, 3, 9], [1, 3, 3]), 3);
    assert.throws(() => pairedRatio([1, 2], [1]), /2 and 1 rounds/);
  });

  it('formats numbers, ratios, bytes and ranges as the tables print them', () => {
    assert.equal(fmt(1234567), '1,234,567');
    assert.equal(fmt(2.5), '2.50');
    assert.equal(fmt(12.0), '12');
    assert.equal(fmt(Number.NaN), '—');
    assert.equal(times(1.2049), '1.20×');
    assert.equal(times(Number.POSITIVE_INFINITY), '—');
    assert.equal(bytes(512), '512 B');
    assert.equal(bytes(1.65 * 1024), '1.65 KB');
    assert.equal(bytes(209 * 1024 * 1024), '209 MB');
    assert.deepEqual(range([3, 1, 2]), { min: 1, max: 3 });
  });

  it('table pads columns to the widest cell', () => {
    assert.equal(table(['a', 'bb'], [['xyz', '1']]), ['| a   | bb |', '| --- | -- |', '| xyz | 1  |'].join('\n'));
  });

  it('settledGc does not count what a callback already queued releases; gc alone does', () => {
    // 16 MB (an array of 2M doubles) held until a setImmediate queued before the measurement
    // runs, as a response's last callbacks hold its body text (the informer benchmark's heap figures).
    const script = `
      const { gc, settledGc } = await import(${JSON.stringify(new URL('../../../bench/lib/stats.ts', import.meta.url).href)});
      let held = Array.from({ length: 2 * 1024 * 1024 }, (_, i) => i * 1.5);
      setImmediate(() => { held = undefined; });
      gc();
      const before = process.memoryUsage().heapUsed;
      await settledGc();
      const after = process.memoryUsage().heapUsed;
      process.stdout.write(JSON.stringify({ freedMB: (before - after) / 2 ** 20, held: held === undefined ? 'released' : 'kept' }));`;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    const r = JSON.parse(out) as { freedMB: number; held: string };
    assert.equal(r.held, 'released');
    assert.ok(r.freedMB > 15, `settledGc freed ${r.freedMB.toFixed(1)} MB that gc() alone had counted`);
  });
});
