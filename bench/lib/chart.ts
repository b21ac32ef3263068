// SVG line charts for the benchmarks' scaling curves (sync time vs objects, convergence time vs
// objects, one line per client), written by the benchmarks next to their tables. No
// dependencies: a fixed layout, x on a log scale at the measured sizes, y linear from 0 with
// round ticks, one colour and marker per series, a legend. The same input gives the same bytes.

/** One line of a chart. */
export interface Series {
  label: string;
  points: readonly { x: number; y: number }[];
}

/** What to draw. */
export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** How an x value is written under its tick (default: with thousands separators). */
  xFormat?: (x: number) => string;
  width?: number;
  height?: number;
}

const COLOURS = ['#1b6ac9', '#d9480f', '#2b8a3e', '#862e9c', '#c92a2a', '#495057', '#e67700', '#0b7285'];

/** `s` with the five XML special characters escaped. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Round tick values from 0 to at least `max`: steps of 1, 2 or 5 × 10^k, about five of them. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

const num = (x: number): string => String(Math.round(x * 10) / 10);

/** The chart as an SVG document. Points with a non-finite or non-positive x, or a non-finite y, are left out. */
export function lineChart(spec: ChartSpec): string {
  const width = spec.width ?? 720;
  const height = spec.height ?? 420;
  const left = 70;
  const right = 220;
  const top = 40;
  const bottom = 60;
  const series = spec.series.map((s) => ({
    ...s,
    points: s.points.filter((p) => Number.isFinite(p.x) && p.x > 0 && Number.isFinite(p.y)),
  }));
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const yMax = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.y)));
  const yTicks = niceTicks(yMax);
  const yTop = yTicks[yTicks.length - 1];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const lo = Math.log(xs[0] ?? 1);
  const hi = Math.log(xs[xs.length - 1] ?? 10);
  const px = (x: number): number => left + (hi === lo ? plotW / 2 : ((Math.log(x) - lo) / (hi - lo)) * plotW);
  const py = (y: number): number => top + plotH - (y / yTop) * plotH;
  const xFormat = spec.xFormat ?? ((x: number) => x.toLocaleString('en-US'));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${num(left)}" y="22" font-size="15" font-weight="bold">${escapeXml(spec.title)}</text>`,
  ];
  for (const t of yTicks) {
    const y = num(py(t));
    out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#e0e0e0"/>`);
    out.push(
      `<text x="${left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(String(t))}</text>`,
    );
  }
  for (const x of xs) {
    const X = num(px(x));
    out.push(`<line x1="${X}" y1="${top + plotH}" x2="${X}" y2="${top + plotH + 5}" stroke="#333333"/>`);
    out.push(`<text x="${X}" y="${top + plotH + 18}" text-anchor="middle">${escapeXml(xFormat(x))}</text>`);
  }
  out.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#333333"/>`);
  out.push(`<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#333333"/>`);
  out.push(
    `<text x="${num(left + plotW / 2)}" y="${height - 14}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(18 ${num(top + plotH / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    if (pts.length > 1)
      out.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts.map((p) => `${num(px(p.x))},${num(py(p.y))}`).join(' ')}"/>`,
      );
    for (const p of pts)
      out.push(
        `<circle cx="${num(px(p.x))}" cy="${num(py(p.y))}" r="3.5" fill="${colour}"><title>${escapeXml(`${s.label}: ${xFormat(p.x)} → ${p.y}`)}</title></circle>`,
      );
    const ly = top + 10 + i * 20;
    out.push(
      `<line x1="${width - right + 16}" y1="${ly}" x2="${width - right + 40}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
    );
    out.push(`<text x="${width - right + 46}" y="${ly}" dominant-baseline="middle">${escapeXml(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
