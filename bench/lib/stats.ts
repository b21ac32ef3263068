// Statistics and table printing shared by the benchmarks: medians, ratios, and the
// machine line every table is recorded with.
import { cpus, loadavg, totalmem } from 'node:os';

/** The median of `xs` (mean of the two middle values for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The smallest and largest of `xs`. */
export function range(xs: readonly number[]): { min: number; max: number } {
  return { min: Math.min(...xs), max: Math.max(...xs) };
}

/** Median of the per-round ratios `a[i] / b[i]` (rounds paired, so load swings cancel). */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`paired ratio over ${a.length} and ${b.length} rounds`);
  return median(a.map((x, i) => x / b[i]));
}

/** A number formatted with a few significant digits and a thousands separator. */
export function fmt(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return '—';
  const abs = Math.abs(x);
  if (abs >= 1000) return Math.round(x).toLocaleString('en-US');
  return x.toPrecision(digits).replace(/\.?0+$/, (m) => (m.includes('.') ? '' : m));
}

/** A ratio such as `1.23×`. */
export function times(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : '—';
}

/** Bytes as KB/MB with three significant digits. */
export function bytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (Math.abs(n) >= 1024 * 1024) return `${fmt(n / 1024 / 1024)} MB`;
  if (Math.abs(n) >= 1024) return `${fmt(n / 1024)} KB`;
  return `${Math.round(n)} B`;
}

/** A Markdown table: a header row and data rows, columns padded for reading in a terminal. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The one-minute load average, to one decimal. */
export function load1(): string {
  return loadavg()[0].toFixed(1);
}

/** The machine line recorded with every run: cores, CPU model, memory, node version, load. */
export function machine(): string {
  const cpu = cpus();
  const la = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  return `${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, load average ${la}`;
}

/** Calls `gc()` when node runs with --expose-gc; throws otherwise (heap figures need it). */
export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error('run with node --expose-gc (npm run bench does)');
  g();
  g();
}

/**
 * Lets the event loop turn once, then collects: what a response or a stream still holds while
 * its last callbacks are queued (a whole list's text, say) is garbage by then, and is not
 * counted as what the caller keeps.
 */
export async function settledGc(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  gc();
}
