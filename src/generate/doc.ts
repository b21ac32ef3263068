// A small Wadler-style document printer with prettier's line-fitting rules (groups break
// outermost first; a group stays flat when it and the rest of its line fit in 80 columns).
// The layout helpers (layout.ts) build documents the way prettier does for the few
// constructs whose width depends on input names, so generated code needs no formatter.

/** A document: text, a sequence, or one of the layout nodes. */
export type Doc = string | readonly Doc[] | Group | Indent | Align | Line | IfBreak;

interface Group {
  readonly kind: 'group';
  readonly contents: Doc;
  readonly shouldBreak: boolean;
}
interface Indent {
  readonly kind: 'indent';
  readonly contents: Doc;
}
interface Align {
  readonly kind: 'align';
  readonly n: number;
  readonly contents: Doc;
}
interface Line {
  readonly kind: 'line';
  /** A space when flat (`line`) or nothing (`softline`). */
  readonly soft: boolean;
}
interface IfBreak {
  readonly kind: 'ifBreak';
  readonly breakContents: Doc;
  readonly flatContents: Doc;
}

/** prettier's default printWidth. */
export const PRINT_WIDTH = 80;

/** A group: printed flat when it fits on the rest of the line, else its lines break. */
export const group = (contents: Doc, shouldBreak = false): Doc => ({ kind: 'group', contents, shouldBreak });
/** Contents indented by two more spaces after a broken line. */
export const indent = (contents: Doc): Doc => ({ kind: 'indent', contents });
/** Contents indented by `n` more spaces after a broken line. */
export const align = (n: number, contents: Doc): Doc => ({ kind: 'align', n, contents });
/** A space, or a line break in a broken group. */
export const line: Doc = { kind: 'line', soft: false };
/** Nothing, or a line break in a broken group. */
export const softline: Doc = { kind: 'line', soft: true };
/** `breakContents` in a broken group, `flatContents` in a flat one. */
export const ifBreak = (breakContents: Doc, flatContents: Doc = ''): Doc => ({
  kind: 'ifBreak',
  breakContents,
  flatContents,
});
/** `docs` separated by `sep`. */
export function join(sep: Doc, docs: readonly Doc[]): Doc[] {
  const out: Doc[] = [];
  docs.forEach((d, i) => {
    if (i > 0) out.push(sep);
    out.push(d);
  });
  return out;
}

/** `Array.isArray` that keeps the element type of a readonly array (it narrows to `any[]`). */
function isSequence(d: Doc): d is readonly Doc[] {
  return Array.isArray(d);
}

/** Display width of `s` as prettier counts it: wide East Asian characters 2, combining marks 0. */
export function textWidth(s: string): number {
  if (/^[\u0000-\u007f]*$/.test(s)) return s.length;
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (/\p{Mn}|\p{Me}/u.test(ch) || (c >= 0xfe00 && c <= 0xfe0f)) continue;
    w += isWide(c) ? 2 : 1;
  }
  return w;
}

function isWide(c: number): boolean {
  return (
    (c >= 0x1100 && c <= 0x115f) ||
    (c >= 0x2e80 && c <= 0xa4cf && c !== 0x303f) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfe30 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1f64f) ||
    (c >= 0x1f900 && c <= 0x1f9ff) ||
    (c >= 0x20000 && c <= 0x3fffd)
  );
}

/**
 * The printer's stacks of commands, one array per field (a command is the `doc` to print, the
 * indent of its broken lines and whether its lines break), so that pushing one allocates nothing.
 */
interface Cmds {
  docs: Doc[];
  inds: number[];
  breaks: boolean[];
}

/**
 * Whether `doc` printed flat, then the commands of `rest` below it up to the next line break,
 * fits in `width` columns. `own` is its stack (emptied first; one per printer, reused).
 */
function fits(doc: Doc, rest: Cmds, restLength: number, width: number, own: Pick<Cmds, 'docs' | 'breaks'>): boolean {
  const { docs, breaks } = own;
  docs.length = 0;
  breaks.length = 0;
  docs.push(doc);
  breaks.push(false);
  let restIdx = restLength;
  while (width >= 0) {
    let d: Doc;
    let brk: boolean;
    if (docs.length === 0) {
      if (restIdx === 0) return true;
      restIdx--;
      d = rest.docs[restIdx];
      brk = rest.breaks[restIdx];
    } else {
      d = docs.pop()!;
      brk = breaks.pop()!;
    }
    if (typeof d === 'string') width -= textWidth(d);
    else if (isSequence(d))
      for (let i = d.length - 1; i >= 0; i--) {
        docs.push(d[i]);
        breaks.push(brk);
      }
    else {
      switch (d.kind) {
        case 'group':
          docs.push(d.contents);
          breaks.push(d.shouldBreak ? true : brk);
          break;
        case 'indent':
        case 'align':
          docs.push(d.contents);
          breaks.push(brk);
          break;
        case 'ifBreak':
          docs.push(brk ? d.breakContents : d.flatContents);
          breaks.push(brk);
          break;
        case 'line':
          if (brk) return true;
          if (!d.soft) width -= 1;
          break;
      }
    }
  }
  return false;
}

/** How many spaces and tabs `s` ends with. */
function trailingBlanks(s: string): number {
  let n = 0;
  while (n < s.length) {
    const c = s.charCodeAt(s.length - 1 - n);
    if (c !== 32 && c !== 9) break;
    n++;
  }
  return n;
}

/**
 * Prints `doc` starting at column `startColumn` of a line indented by `startIndent` spaces
 * (broken lines indent relative to it). Trailing spaces are trimmed from broken lines.
 */
export function printDoc(doc: Doc, startIndent = 0, startColumn = startIndent, width = PRINT_WIDTH): string {
  // Blanks at the end of what is printed so far are held in `pending` until text follows them,
  // so a line break drops them without reading `out` back (`out` is a rope; scanning or
  // slicing its end would flatten it on every line: quadratic on large files).
  let out = '';
  let pending = '';
  const put = (s: string): void => {
    const t = trailingBlanks(s);
    if (t === s.length) {
      pending += s;
      return;
    }
    out += pending + (t === 0 ? s : s.slice(0, s.length - t));
    pending = t === 0 ? '' : s.slice(s.length - t);
  };
  let pos = startColumn;
  const cmds: Cmds = { docs: [doc], inds: [startIndent], breaks: [true] };
  const scratch: Pick<Cmds, 'docs' | 'breaks'> = { docs: [], breaks: [] };
  const push = (d: Doc, ind: number, brk: boolean): void => {
    cmds.docs.push(d);
    cmds.inds.push(ind);
    cmds.breaks.push(brk);
  };
  while (cmds.docs.length > 0) {
    const n = cmds.docs.pop()!;
    const ind = cmds.inds.pop()!;
    const brk = cmds.breaks.pop()!;
    if (typeof n === 'string') {
      put(n);
      pos += textWidth(n);
    } else if (isSequence(n)) {
      for (let i = n.length - 1; i >= 0; i--) push(n[i], ind, brk);
    } else {
      switch (n.kind) {
        case 'group':
          push(
            n.contents,
            ind,
            brk && (n.shouldBreak || !fits(n.contents, cmds, cmds.docs.length, width - pos, scratch)),
          );
          break;
        case 'indent':
          push(n.contents, ind + 2, brk);
          break;
        case 'align':
          push(n.contents, ind + n.n, brk);
          break;
        case 'ifBreak':
          push(brk ? n.breakContents : n.flatContents, ind, brk);
          break;
        case 'line':
          if (!brk) {
            if (!n.soft) {
              pending += ' ';
              pos += 1;
            }
          } else {
            out += '\n';
            pending = ' '.repeat(ind);
            pos = ind;
          }
          break;
      }
    }
  }
  return out + pending;
}
