// Multi-document YAML with source positions: parse, convert to plain JSON values
// with a bounded alias expansion, and map a path back to file:line:col.
// Two paths give the same values: the fast one (yaml-fast.ts, no syntax tree) for
// plain documents, whose positions come from a position-keeping parse of the file
// run only when the first position is read; and that full parse (`yaml`'s documents
// and LineCounter) for everything else, which also words every syntax diagnostic.

import { createRequire } from 'node:module';
import type { Document, LineCounter, Node } from 'yaml';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { segValue, type Path } from './field-path.js';
import { fastLoadAll } from './yaml-fast.js';

/**
 * Upper bound for alias expansion while converting YAML to values (the yaml
 * package's resource-exhaustion guard): a "billion laughs" document fails with
 * YAML002 instead of exhausting memory.
 */
export const MAX_ALIAS_COUNT = 100;

/** A 1-based line/column. */
export interface LineCol {
  line: number;
  col: number;
}

/** One parsed YAML document. */
export interface YamlDoc {
  /** 0-based index of the document in its file. */
  index: number;
  /** The document as plain JSON-like data. */
  value: unknown;
  /** Where the document starts (computed on first read for the fast path). */
  readonly start: LineCol;
  /** True when positions are already known (reading them costs nothing). */
  readonly positioned: boolean;
  /**
   * Position of the node at `path`: a scalar value's own position, a
   * collection's key; for a path that does not exist, the deepest existing
   * ancestor (so a missing field points at its parent). `key`: the last step's key itself (a
   * field that should not be there), not its value.
   */
  locate(path: Path, key?: boolean): LineCol;
}

let yamlLib: typeof import('yaml') | undefined;

/** The `yaml` package, loaded on first use (a run whose inputs all take the fast path never loads it). */
function yaml(): typeof import('yaml') {
  return (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
}

/** Parses `text` into documents; syntax errors and alias bombs become diagnostics (file positions included). */
export function loadYaml(text: string, file: string): { docs: YamlDoc[]; diagnostics: Diagnostic[] } {
  const values = fastLoadAll(text);
  if (values) {
    const at = positionsOf(text); // one full parse per text, shared by its documents
    return { docs: values.map((value, index) => lazyDoc(at, index, value)), diagnostics: [] };
  }
  return loadPositioned(text, file);
}

/**
 * The position-keeping parse of one text (or of the text `text()` gives, read when first needed),
 * run at most once (on the first position read).
 */
function positionsOf(text: string | (() => string)): () => { parsed: Document.Parsed[]; lineCounter: LineCounter } {
  let done: { parsed: Document.Parsed[]; lineCounter: LineCounter } | undefined;
  return () => {
    if (!done) {
      const lineCounter = new (yaml().LineCounter)();
      const source = typeof text === 'string' ? text : text();
      const parsed = yaml().parseAllDocuments(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
      done = {
        parsed: Array.isArray(parsed) ? (parsed as Document.Parsed[]) : [parsed as Document.Parsed],
        lineCounter,
      };
    }
    return done;
  };
}

/**
 * Fast-path documents of `text` without their values, positions parsed when first asked: what a
 * reader keeps of a text whose values it holds in another form (a position-keeping parse the
 * checks made is let go with the old documents). `text` may be a function giving the text, called
 * only when a position is first asked (a reader that does not keep the text reads it again then).
 */
export function positionsOnly(text: string | (() => string)): (index: number) => YamlDoc {
  const at = positionsOf(text);
  return (index) => lazyDoc(at, index, undefined);
}

/** A fast-path document: the value now, positions from the full parse (`at`) when first asked. */
function lazyDoc(at: ReturnType<typeof positionsOf>, index: number, value: unknown): YamlDoc {
  const locate = (path: Path, key?: boolean): LineCol => {
    const { parsed, lineCounter } = at();
    const doc = parsed[index];
    if (!doc) return { line: 1, col: 1 };
    const lp = lineCounter.linePos(locateOffset(doc, path, key));
    return { line: lp.line, col: lp.col };
  };
  return {
    index,
    value,
    positioned: false,
    get start() {
      return locate([]);
    },
    locate,
  };
}

/** The full parse: `yaml`'s documents with a LineCounter; every syntax problem becomes a diagnostic. */
function loadPositioned(text: string, file: string): { docs: YamlDoc[]; diagnostics: Diagnostic[] } {
  const lineCounter = new (yaml().LineCounter)();
  const diagnostics: Diagnostic[] = [];
  const docs: YamlDoc[] = [];
  let parsed: Document.Parsed[];
  try {
    parsed = yaml().parseAllDocuments(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
    }) as Document.Parsed[];
  } catch (e) {
    diagnostics.push({
      severity: 'error',
      code: 'YAML001',
      file,
      line: 1,
      col: 1,
      message: `cannot parse YAML: ${(e as Error).message}`,
    });
    return { docs, diagnostics };
  }
  if (!Array.isArray(parsed)) parsed = [parsed];
  const pos = (offset: number): LineCol => {
    const lp = lineCounter.linePos(offset);
    return { line: lp.line, col: lp.col };
  };
  parsed.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      diagnostics.push(syntaxError(text, doc, file, pos));
      return;
    }
    if (doc.contents === null) return; // empty document (e.g. a trailing `---`)
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      const at = pos(doc.contents.range?.[0] ?? 0);
      const msg = (e as Error).message;
      if (/alias/i.test(msg)) {
        diagnostics.push({
          severity: 'error',
          code: 'YAML002',
          file,
          ...at,
          message: `YAML aliases expand too far (more than ${MAX_ALIAS_COUNT} expansions)`,
          hint: 'this looks like an alias bomb; expand the aliases by hand',
        });
      } else {
        diagnostics.push({ severity: 'error', code: 'YAML001', file, ...at, message: firstLine(msg) });
      }
      return;
    }
    const start = pos(doc.contents.range?.[0] ?? 0);
    docs.push({ index, value, start, positioned: true, locate: (path, key) => pos(locateOffset(doc, path, key)) });
  });
  return { docs, diagnostics };
}

/** What opens a flow collection or a quoted scalar that is never closed. */
interface Unclosed {
  offset: number;
  opener: '[' | '{' | '"' | "'";
}

const CLOSER = { '[': ']', '{': '}', '"': '"', "'": "'" } as const;
const WHAT = {
  '[': 'flow sequence',
  '{': 'flow mapping',
  '"': 'double-quoted string',
  "'": 'single-quoted string',
} as const;
const INSTEAD = {
  '[': ', or write one "- item" per line',
  '{': ', or write one "key: value" per line',
  '"': ' where the string ends',
  "'": ' where the string ends',
} as const;

/** A character in quotes for a message: `"["`, but `'"'`. */
function shown(c: string): string {
  return c === '"' ? `'"'` : `"${c}"`;
}

/**
 * The one diagnostic for a document with syntax errors. The parser's later errors follow from its
 * first (one unclosed `[` makes every line after it wrong), so only the cause is reported: an
 * unclosed `[`, `{` or quote before the first error, at that character, else the first error by
 * position.
 */
function syntaxError(text: string, doc: Document.Parsed, file: string, pos: (offset: number) => LineCol): Diagnostic {
  const first = [...doc.errors].sort((a, b) => a.pos[0] - b.pos[0])[0];
  const firstAt = pos(first.pos[0]);
  const open = firstUnclosed(text, doc.range[0], doc.range[2]);
  if (open !== undefined && open.offset <= first.pos[0]) {
    const close = CLOSER[open.opener];
    const gaveUp =
      open.offset === first.pos[0]
        ? ''
        : `the parser gave up at ${firstAt.line}:${firstAt.col} (${firstLine(first.message)}); `;
    return {
      severity: 'error',
      code: 'YAML001',
      file,
      ...pos(open.offset),
      message: `unclosed ${shown(open.opener)}: a ${WHAT[open.opener]} must end with ${shown(close)}`,
      hint: `${gaveUp}add the ${shown(close)}${INSTEAD[open.opener]}`,
    };
  }
  const d: Diagnostic = { severity: 'error', code: 'YAML001', file, ...firstAt, message: firstLine(first.message) };
  if (/tab/i.test(first.message)) d.hint = 'YAML indentation must use spaces, not tabs';
  else if (first.code === 'BAD_INDENT') Object.assign(d, badIndent(text, first.pos[0], pos));
  else if (first.code === 'MULTILINE_IMPLICIT_KEY') {
    const hint = missingColon(lineAt(text, first.pos[0]).text.slice(firstAt.col - 1));
    if (hint !== undefined) d.hint = hint;
  }
  return d;
}

/** The line of `text` holding `offset`: its text and where it starts. */
function lineAt(text: string, offset: number): { text: string; start: number } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return { text: text.slice(start, end < 0 ? text.length : end).replace(/\r$/, ''), start };
}

/** What a line starts with, for a message: `replicas:`, `- name:`. */
function lineHead(line: string): string {
  const t = line.trim();
  const colon = t.search(/:(\s|$)/);
  return colon >= 0 ? t.slice(0, colon + 1) : (t.split(/\s/)[0] ?? t);
}

/**
 * A line indented unlike the keys around it (`yaml` reports it at the line's start): the position
 * of the line's first character, and a hint naming the nearest key above that starts one or two
 * columns away.
 */
function badIndent(text: string, offset: number, pos: (offset: number) => LineCol): Partial<Diagnostic> {
  const line = lineAt(text, offset);
  const indent = line.text.length - line.text.trimStart().length;
  const out: Partial<Diagnostic> = { ...pos(line.start + indent) };
  // the line's own block (the next line, when deeper) is deeper than its siblings: they start left of it
  const next = lineAt(text, line.start + line.text.length + 1);
  const nextIndent = next.text.length - next.text.trimStart().length;
  const below = next.start > line.start && next.text.trim() !== '' && nextIndent > indent ? nextIndent : Infinity;
  // the lines above, nearest first, up to the document's start
  let end = line.start - 1;
  while (end > 0) {
    const above = lineAt(text, end - 1);
    end = above.start - 1;
    if (/^(---|\.\.\.)(\s|$)/.test(above.text)) break;
    const t = above.text.trim();
    if (t === '' || t.startsWith('#')) continue;
    const i = above.text.length - above.text.trimStart().length;
    if (i !== indent && i < below && Math.abs(i - indent) <= 2 && /^(- )?[^\s#][^:]*:(\s|$)/.test(t)) {
      out.hint = `${lineHead(line.text)} starts at column ${indent + 1}, ${lineHead(above.text)} above it at column ${i + 1}: the keys of one mapping start in the same column (YAML nests by indentation)`;
      break;
    }
  }
  return out;
}

/** For a line the parser took for a key running into the next line: the colon it probably lacks. */
function missingColon(line: string): string | undefined {
  const t = line.trim();
  if (/:\s/.test(t) || t.endsWith(':')) return undefined;
  const m = /^(-\s+)?([A-Za-z_$][\w.$/-]*)(?::(?=\S)|\s+)(\S.*)$/.exec(t);
  if (!m) return undefined;
  return `a key is followed by ": " (a colon and a space): did you mean "${m[1] ?? ''}${m[2]}: ${m[3]}"?`;
}

/** True when a quoted scalar's source (opening quote included) has its closing quote. */
function quoteClosed(source: string, quote: '"' | "'"): boolean {
  const body = quote === '"' ? source.slice(1).replace(/\\[^]/g, '') : source.slice(1).replace(/''/g, '');
  return body.endsWith(quote);
}

/** The first `[`, `{` or quote between `start` and `end` of `text` that is never closed (from `yaml`'s CST). */
function firstUnclosed(text: string, start: number, end: number): Unclosed | undefined {
  const { CST, Parser } = yaml();
  let found: Unclosed | undefined;
  const note = (u: Unclosed): void => {
    if (found === undefined || u.offset < found.offset) found = u;
  };
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document' || token.offset < start || token.offset > end) continue;
    CST.visit(token, (item) => {
      for (const node of [item.key, item.value]) {
        if (!node) continue;
        if (node.type === 'flow-collection') {
          const opener = node.start.source === '{' ? '{' : '[';
          if (!node.end.some((t) => t.type === (opener === '[' ? 'flow-seq-end' : 'flow-map-end')))
            note({ offset: node.start.offset, opener });
        } else if (node.type === 'double-quoted-scalar' || node.type === 'single-quoted-scalar') {
          const opener = node.type === 'double-quoted-scalar' ? '"' : "'";
          if (!quoteClosed(node.source, opener)) note({ offset: node.offset, opener });
        }
      }
    });
  }
  return found;
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}

function locateOffset(doc: Document.Parsed, path: Path, key = false): number {
  const { isAlias, isMap, isScalar, isSeq } = yaml();
  let node: unknown = doc.contents;
  let best = (doc.contents as Node | null)?.range?.[0] ?? 0;
  for (const [i, seg] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    const want = segValue(seg);
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(want));
      if (!pair) return best;
      const keyNode = pair.key as Node | null;
      const value = pair.value as Node | null;
      best = keyNode?.range?.[0] ?? best;
      if (key && i === path.length - 1) return best;
      if (value && isScalar(value)) best = value.range?.[0] ?? best;
      node = value;
    } else if (isSeq(node) && typeof want === 'number') {
      const item = node.items[want] as Node | undefined;
      if (!item) return best;
      best = item.range?.[0] ?? best;
      node = item;
    } else {
      return best;
    }
  }
  return best;
}
