// The benchmarks' SVG charts (bench/lib/chart.ts): the scaling curves in BENCHMARKS.md are these
// files, so their axes must put each point where its value says, and labels from the benchmark
// must not break the document.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapeXml, lineChart, niceTicks } from '../../../bench/lib/chart.js';

/** The (cx, cy) of every marker, in document order. */
function markers(svg: string): { x: number; y: number }[] {
  return [...svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
}

describe('bench charts', () => {
  it('niceTicks runs from 0 past the maximum in steps of 1, 2 or 5 × 10^k', () => {
    assert.deepEqual(niceTicks(9.3), [0, 2, 4, 6, 8, 10]);
    assert.deepEqual(niceTicks(0.42), [0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    assert.deepEqual(niceTicks(2500), [0, 500, 1000, 1500, 2000, 2500]);
    assert.deepEqual(niceTicks(0), [0, 1]);
    assert.deepEqual(niceTicks(Number.NaN), [0, 1]);
  });

  it('escapeXml escapes the five XML specials', () => {
    assert.equal(escapeXml(`a<b>&"c"'d'`), 'a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;');
  });

  it('places points on a log x axis and a linear y axis from 0', () => {
    const svg = lineChart({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          label: 'a',
          points: [
            { x: 1000, y: 1 },
            { x: 10000, y: 2 },
            { x: 100000, y: 4 },
          ],
        },
      ],
    });
    const [p1, p2, p3] = markers(svg);
    // equal steps in log10(x) are equal steps on the page
    assert.ok(Math.abs(p2.x - p1.x - (p3.x - p2.x)) < 0.2);
    // y = 2 sits at half the height of y = 4 above the axis (ticks run to exactly 4)
    const axis = p1.y + (p1.y - p2.y); // y = 0
    assert.ok(Math.abs(axis - p2.y - (axis - p3.y) / 2) < 0.2);
    assert.ok(p3.y < p2.y && p2.y < p1.y, 'larger values are higher on the page');
  });

  it('draws every series with its own colour and a legend entry, and escapes labels', () => {
    const svg = lineChart({
      title: 'A & B',
      xLabel: '<x>',
      yLabel: 'y',
      series: [
        {
          label: 'c<1>',
          points: [
            { x: 1, y: 1 },
            { x: 2, y: 2 },
          ],
        },
        {
          label: 'd',
          points: [
            { x: 1, y: 3 },
            { x: 2, y: 1 },
          ],
        },
      ],
    });
    assert.equal((svg.match(/<polyline /g) ?? []).length, 2);
    const colours = [...svg.matchAll(/<polyline fill="none" stroke="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
    assert.notEqual(colours[0], colours[1]);
    assert.ok(svg.includes('>c&lt;1&gt;</text>'));
    assert.ok(svg.includes('>A &amp; B</text>'));
    assert.ok(!svg.includes('<x>'));
    assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"') && svg.trimEnd().endsWith('</svg>'));
  });

  it('leaves out points that cannot be drawn and is deterministic', () => {
    const spec = {
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          label: 'a',
          points: [
            { x: 10, y: 1 },
            { x: 100, y: Number.NaN },
            { x: 0, y: 2 },
            { x: 1000, y: 3 },
          ],
        },
      ],
    };
    const svg = lineChart(spec);
    assert.equal(markers(svg).length, 2);
    assert.equal(lineChart(spec), svg);
  });
});
