// Comments around declarations: the JSDoc that becomes a description, and the `// +marker`
// line comments. A comment block belongs to a declaration when no blank line separates
// them (Go's doc-comment rule); blocks further up are detached. A marker written inside a JSDoc
// comment is not read (markers are `//` comments, as in Go): it is left out of the description
// and reported with the fix.
import { ts } from 'ts-morph';
import type { SourcePos } from '../../model/types.js';
import { markerDef, type RawMarker } from './markers.js';

/** One comment in the source. */
export interface Comment {
  /** Offset of the comment's first character in the file. */
  start: number;
  end: number;
  kind: 'line' | 'block' | 'jsdoc';
  text: string;
}

/** What a declaration's attached comments say. */
export interface CommentInfo {
  /** Text of the last JSDoc block, marker-free, or undefined when there is none. */
  description?: string;
  markers: RawMarker[];
  /** Marker lines written inside a JSDoc comment: not read, reported (left out of the description). */
  jsdocMarkers: RawMarker[];
}

/** Position helper bound to one file. */
export interface FileCtx {
  sf: ts.SourceFile;
  /** The file name as reported in diagnostics. */
  display: string;
}

/** 1-based line/col of an offset in the file. */
export function posOf(ctx: FileCtx, offset: number): SourcePos {
  const lc = ctx.sf.getLineAndCharacterOfPosition(offset);
  return { file: ctx.display, line: lc.line + 1, col: lc.character + 1 };
}

/** All comments directly before `fullStart`, grouped into blocks separated by blank lines. */
export function leadingBlocks(ctx: FileCtx, fullStart: number): Comment[][] {
  const text = ctx.sf.text;
  const ranges = ts.getLeadingCommentRanges(text, fullStart) ?? [];
  const blocks: Comment[][] = [];
  let prevEnd = -1;
  for (const r of ranges) {
    const raw = text.slice(r.pos, r.end);
    const kind: Comment['kind'] =
      r.kind === ts.SyntaxKind.SingleLineCommentTrivia
        ? 'line'
        : raw.startsWith('/**') && raw !== '/**/'
          ? 'jsdoc'
          : 'block';
    const c: Comment = { start: r.pos, end: r.end, kind, text: raw };
    if (prevEnd < 0 || hasBlankLine(text, prevEnd, r.pos)) blocks.push([c]);
    else blocks[blocks.length - 1].push(c);
    prevEnd = r.end;
  }
  return blocks;
}

/** True when two or more line breaks separate `from` and `to`. */
export function hasBlankLine(text: string, from: number, to: number): boolean {
  let n = 0;
  for (let i = from; i < to; i++) {
    if (text.charCodeAt(i) === 10) n++;
  }
  return n >= 2;
}

/**
 * Splits a declaration's leading comments into the attached block (no blank line before the
 * declaration's first token) and the detached ones.
 */
export function attachedAndDetached(ctx: FileCtx, node: ts.Node): { attached: Comment[]; detached: Comment[][] } {
  const blocks = leadingBlocks(ctx, node.getFullStart());
  const last = blocks[blocks.length - 1];
  if (last && !hasBlankLine(ctx.sf.text, last[last.length - 1].end, node.getStart(ctx.sf))) {
    return { attached: last, detached: blocks.slice(0, -1) };
  }
  return { attached: [], detached: blocks };
}

/** The marker in a `// +name…` line comment, or undefined for an ordinary comment. */
export function markerOf(ctx: FileCtx, c: Comment): RawMarker | undefined {
  if (c.kind !== 'line') return undefined;
  const m = /^\/\/\s*\+(?=[A-Za-z])/.exec(c.text);
  if (!m) return undefined;
  return { text: c.text.slice(m[0].length).trim(), pos: posOf(ctx, c.start + m[0].length - 1) };
}

/** Description and markers of a block of comments. */
export function readComments(ctx: FileCtx, comments: Comment[]): CommentInfo {
  const info: CommentInfo = { markers: [], jsdocMarkers: [] };
  for (const c of comments) {
    const marker = markerOf(ctx, c);
    if (marker) info.markers.push(marker);
    else if (c.kind === 'jsdoc') {
      const markers: RawMarker[] = [];
      const d = jsdocText(c.text, (line, at) => {
        const m = jsdocMarker(line);
        if (m !== undefined) markers.push({ text: m, pos: posOf(ctx, c.start + at) });
        return m === undefined;
      });
      info.jsdocMarkers.push(...markers);
      if (d === undefined) delete info.description;
      else info.description = d;
    }
  }
  return info;
}

/**
 * The marker a line of a JSDoc comment holds (`+kubebuilder:validation:Maximum=10` →
 * `kubebuilder:validation:Maximum=10`), or undefined for text: a `+name` whose name has a `:`
 * (kubebuilder:…, genclient:…) or is a marker of the catalogue (`+optional`, `+genclient`).
 */
export function jsdocMarker(line: string): string | undefined {
  const m = /^\s*\+([A-Za-z][\w.-]*(?::[\w.-]+)*)(.*)$/.exec(line);
  if (!m) return undefined;
  const [, name, rest] = m;
  if (!name.includes(':') && markerDef(name) === undefined) return undefined;
  if (rest !== '' && !/^[:=]/.test(rest) && rest.trim() !== '') return undefined; // `+optional field` is prose
  return `${name}${rest}`.trim();
}

/**
 * The text of a JSDoc comment: `/**` and `*\/` removed, a leading `*` and one space removed
 * from each line, an empty first and last line dropped, lines joined with `\n`. `*\/` written
 * as `*\\/` inside the text reads back as `*\/`. Undefined when nothing is left. `keep` sees each
 * line (and its offset in `raw`) and may leave it out.
 */
export function jsdocText(
  raw: string,
  keep: (line: string, offset: number) => boolean = () => true,
): string | undefined {
  const body = raw.slice(3, -2);
  let offset = 3;
  let lines = body.split(/\r?\n/).map((text) => {
    const at = offset;
    offset += text.length + (raw.charAt(offset + text.length) === '\r' ? 2 : 1);
    return { text, at };
  });
  const single = lines.length === 1;
  if (lines.length > 1 && lines[0].text.trim() === '') lines.shift();
  if (lines.length > 1 && lines[lines.length - 1].text.trim() === '') lines.pop();
  const stripped = lines.map(({ text, at }) => {
    if (single) {
      const lead = text.startsWith(' ') ? 1 : 0;
      return { text: text.slice(lead).replace(/ $/, ''), at: at + lead };
    }
    const m = /^[ \t]*\* ?/.exec(text);
    if (m) return { text: text.slice(m[0].length), at: at + m[0].length };
    const lead = text.length - text.trimStart().length;
    return { text: text.trimStart(), at: at + lead };
  });
  lines = stripped.filter((l) => keep(l.text, l.at + (l.text.length - l.text.trimStart().length)));
  // lines left out at either end take the blank lines around them along
  while (lines.length < stripped.length && lines.length > 0 && lines[0].text.trim() === '') lines.shift();
  while (lines.length < stripped.length && lines.length > 0 && lines[lines.length - 1].text.trim() === '') lines.pop();
  const text = lines
    .map((l) => l.text)
    .join('\n')
    .replaceAll('*\\/', '*/');
  return text === '' ? undefined : text;
}

/** Every `// +marker` comment in the file, by start offset (to find ones nothing consumed). */
export function allMarkerComments(ctx: FileCtx): Map<number, RawMarker> {
  const out = new Map<number, RawMarker>();
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, ctx.sf.text);
  for (let tok = scanner.scan(); tok !== ts.SyntaxKind.EndOfFileToken; tok = scanner.scan()) {
    if (tok !== ts.SyntaxKind.SingleLineCommentTrivia) continue;
    const start = scanner.getTokenStart();
    const c: Comment = { start, end: scanner.getTokenEnd(), kind: 'line', text: scanner.getTokenText() };
    const m = markerOf(ctx, c);
    if (m) out.set(start, m);
  }
  return out;
}
