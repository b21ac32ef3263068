// Unified diffs for `crdgen verify`: what is on disk (a/) against what crdgen
// would generate (b/), in the format `diff -u` and `git diff` print, so the output
// can be read in a CI log or applied with `git apply`.

/** Options of {@link unifiedDiff}. */
export interface DiffOptions {
  /** Lines of context around each change (default 3, like `diff -u`). */
  context?: number;
  /** Largest (changed region of old × new) line count compared line by line; past it the region is shown replaced whole. */
  maxCells?: number;
}

type Op = { kind: ' ' | '-' | '+'; text: string; oldNo: number; newNo: number };

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

/** The edit script between two line arrays: common prefix/suffix trimmed, LCS over the middle. */
function diffLines(a: readonly string[], b: readonly string[], maxCells: number): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const ops: Op[] = [];
  for (let i = 0; i < pre; i++) ops.push({ kind: ' ', text: a[i], oldNo: i, newNo: i });
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);
  const n = am.length;
  const m = bm.length;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= maxCells) {
    // lcs[i][j] = LCS length of am[i..] and bm[j..]
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] =
          am[i] === bm[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        ops.push({ kind: ' ', text: am[i], oldNo: pre + i, newNo: pre + j });
        i++;
        j++;
      } else if (i < n && (j >= m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) {
        ops.push({ kind: '-', text: am[i], oldNo: pre + i, newNo: pre + j });
        i++;
      } else {
        ops.push({ kind: '+', text: bm[j], oldNo: pre + i, newNo: pre + j });
        j++;
      }
    }
  } else {
    for (let i = 0; i < n; i++) ops.push({ kind: '-', text: am[i], oldNo: pre + i, newNo: pre });
    for (let j = 0; j < m; j++) ops.push({ kind: '+', text: bm[j], oldNo: pre + n, newNo: pre + j });
  }
  for (let k = 0; k < suf; k++)
    ops.push({ kind: ' ', text: a[a.length - suf + k], oldNo: a.length - suf + k, newNo: b.length - suf + k });
  return ops;
}

function range(start: number, count: number): string {
  // diff -u: a zero-length range names the line before it
  if (count === 0) return `${start},0`;
  return count === 1 ? `${start + 1}` : `${start + 1},${count}`;
}

/**
 * A unified diff from `oldText` to `newText`, with `--- a/<oldName>` and
 * `+++ b/<newName>` headers (`/dev/null` for a missing side), `@@` hunks with
 * `context` lines around changes, and `\ No newline at end of file` where a side
 * lacks its final newline. Empty string when the texts are equal.
 */
export function unifiedDiff(
  oldName: string | null,
  oldText: string,
  newName: string | null,
  newText: string,
  opts: DiffOptions = {},
): string {
  if (oldText === newText) return '';
  const context = opts.context ?? 3;
  const A = splitLines(oldText);
  const B = splitLines(newText);
  // a missing final newline makes the last line differ, as diff shows it
  const a = A.lines.map((l, i) => (i === A.lines.length - 1 && !A.finalNewline ? `${l}\u0000` : l));
  const b = B.lines.map((l, i) => (i === B.lines.length - 1 && !B.finalNewline ? `${l}\u0000` : l));
  const ops = diffLines(a, b, opts.maxCells ?? 4_000_000);
  const out: string[] = [
    `--- ${oldName === null ? '/dev/null' : `a/${oldName}`}`,
    `+++ ${newName === null ? '/dev/null' : `b/${newName}`}`,
  ];
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && ops[k].kind === ' ') k++;
    if (k >= ops.length) break;
    const start = Math.max(0, k - context);
    // extend the hunk while the next change is within 2×context lines
    let end = k;
    for (;;) {
      while (end < ops.length && ops[end].kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next].kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const oldCount = hunk.filter((o) => o.kind !== '+').length;
    const newCount = hunk.filter((o) => o.kind !== '-').length;
    const first = hunk[0];
    out.push(`@@ -${range(first.oldNo, oldCount)} +${range(first.newNo, newCount)} @@`);
    for (const o of hunk) {
      if (o.text.endsWith('\u0000')) out.push(`${o.kind}${o.text.slice(0, -1)}`, '\\ No newline at end of file');
      else out.push(`${o.kind}${o.text}`);
    }
    k = end;
  }
  return `${out.join('\n')}\n`;
}
