// Our CEL parser: CEL's grammar (cel-spec langdef) with the syntax Kubernetes' environment enables —
// optional selection and indexing (`a.?b`, `a[?k]`), optional list elements and map entries
// (`[?x]`, `{?k: v}`) — and the macros of Kubernetes' environment, expanded at parse time as cel-go
// does: has, all, exists, exists_one, map, filter; the two-variable forms all/exists/existsOne,
// transformList, transformMap, transformMapEntry; optMap, optFlatMap. Errors are reported as cel-go
// prints them (`ERROR: <input>:1:6: … \n | src \n | .....^`). Written here because @bufbuild/cel's
// parser has no optional syntax and reports neither cel-go's messages nor its positions.
import { CelEvalError, Uint, type Value } from './value.js';

/** A parsed expression. `id` is unique in one parse; `pos` is the UTF-16 offset in the source. */
export type Expr =
  | { k: 'lit'; id: number; pos: number; v: Value }
  | { k: 'ident'; id: number; pos: number; name: string }
  | { k: 'select'; id: number; pos: number; operand: Expr; field: string; test: boolean }
  | { k: 'call'; id: number; pos: number; fn: string; target?: Expr; args: Expr[] }
  | { k: 'list'; id: number; pos: number; elems: Expr[]; optional: boolean[] }
  | { k: 'map'; id: number; pos: number; entries: { key: Expr; value: Expr; optional: boolean }[] }
  | { k: 'struct'; id: number; pos: number; name: string; fields: { name: string; value: Expr; optional: boolean }[] }
  | {
      k: 'comp';
      id: number;
      pos: number;
      iterVar: string;
      iterVar2?: string;
      range: Expr;
      accuVar: string;
      init: Expr;
      cond: Expr;
      step: Expr;
      result: Expr;
      macro: string;
    };

/** The accumulator variable of expanded macros (cel-go's hidden name). */
export const ACCU = '@result';

/** One problem found in an expression, at a source offset. */
export interface CelIssue {
  pos: number;
  message: string;
}

/** A failed parse or check: the issues, printed as cel-go prints them. */
export class CelCompileError extends Error {
  /** @param source the expression; @param issues what is wrong where */
  constructor(
    readonly source: string,
    readonly issues: CelIssue[],
  ) {
    super(formatIssues(source, issues));
  }
}

/** Line (1-based) and column (0-based, in code points) of a UTF-16 offset. */
export function lineCol(src: string, pos: number): { line: number; col: number; text: string } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < pos && i < src.length; i++) {
    if (src[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  let end = src.indexOf('\n', start);
  if (end < 0) end = src.length;
  const col = Array.from(src.slice(start, Math.min(pos, end))).length;
  return { line, col, text: src.slice(start, end) };
}

/** cel-go's display of issues: `ERROR: <input>:L:C: msg`, the line, and a caret under the column. */
export function formatIssues(src: string, issues: readonly CelIssue[]): string {
  const sorted = [...issues].sort((a, b) => a.pos - b.pos);
  return sorted
    .map((i) => {
      const { line, col, text } = lineCol(src, i.pos);
      let out = `ERROR: <input>:${line}:${col + 1}: ${i.message}`;
      const snippet = text.replace(/\t/g, ' ');
      if (snippet.length <= 16384) {
        const cps = Array.from(snippet);
        let ind = '';
        for (let c = 0; c < col && c < cps.length; c++)
          ind += cps[c].length > 1 || cps[c].charCodeAt(0) > 0x7f ? '\uFF0E' : '.';
        const at = cps[col];
        ind += at !== undefined && (at.length > 1 || at.charCodeAt(0) > 0x7f) ? '\uFF3E' : '^';
        out += `\n | ${snippet}\n | ${ind}`;
      }
      return out;
    })
    .join('\n');
}

type Tok =
  | { t: 'int'; pos: number; text: string; v: bigint }
  | { t: 'uint'; pos: number; text: string; v: bigint }
  | { t: 'double'; pos: number; text: string; v: number }
  | { t: 'string'; pos: number; text: string; v: string }
  | { t: 'bytes'; pos: number; text: string; v: Uint8Array }
  | { t: 'ident'; pos: number; text: string }
  | { t: 'escident'; pos: number; text: string }
  | { t: 'kw'; pos: number; text: string }
  | { t: 'op'; pos: number; text: string }
  | { t: 'eof'; pos: number; text: string };

const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
/** Reserved words: not usable as identifiers, but usable as field and function names (cel-go). */
export const RESERVED = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const OPS = [
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '!',
  '?',
  ':',
  '.',
  ',',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
];

class SyntaxErr extends Error {
  /** @param pos offset; @param msg the message */
  constructor(
    readonly pos: number,
    msg: string,
  ) {
    super(msg);
  }
}

function hexVal(c: string): number {
  const n = parseInt(c, 16);
  return /^[0-9a-fA-F]$/.test(c) ? n : -1;
}

/** Decodes a (non-raw) CEL string/bytes body; returns code points (string) or byte values (bytes). */
function unescape(body: string, isBytes: boolean, pos: number): number[] {
  const out: number[] = [];
  const enc = new TextEncoder();
  const pushCp = (cp: number) => {
    if (isBytes) out.push(...enc.encode(String.fromCodePoint(cp)));
    else out.push(cp);
  };
  const cps = Array.from(body);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i];
    if (c !== '\\') {
      pushCp(c.codePointAt(0)!);
      continue;
    }
    const e = cps[++i];
    const bad = (m = 'unable to unescape string') => new SyntaxErr(pos, m);
    if (e === undefined) throw bad("unable to unescape string, found '\\' as last character");
    const simple: Record<string, number> = {
      a: 7,
      b: 8,
      f: 12,
      n: 10,
      r: 13,
      t: 9,
      v: 11,
      '\\': 92,
      "'": 39,
      '"': 34,
      '`': 96,
      '?': 63,
    };
    if (e in simple) {
      pushCp(simple[e]);
      continue;
    }
    if (e === 'x' || e === 'X' || e === 'u' || e === 'U') {
      const n = e === 'x' || e === 'X' ? 2 : e === 'u' ? 4 : 8;
      if (isBytes && n > 2) throw bad();
      let v = 0;
      for (let j = 0; j < n; j++) {
        const h = cps[i + 1 + j];
        const x = h === undefined ? -1 : hexVal(h);
        if (x < 0) throw bad();
        v = v * 16 + x;
      }
      i += n;
      if (isBytes) out.push(v);
      else {
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw bad('invalid unicode code point');
        out.push(v);
      }
      continue;
    }
    if (e >= '0' && e <= '3') {
      let v = e.charCodeAt(0) - 48;
      for (let j = 0; j < 2; j++) {
        const o = cps[i + 1 + j];
        if (o === undefined || o < '0' || o > '7') throw bad('unable to unescape octal sequence in string');
        v = v * 8 + (o.charCodeAt(0) - 48);
      }
      i += 2;
      if (isBytes) out.push(v);
      else {
        if (v >= 0xd800 && v <= 0xdfff) throw bad('invalid unicode code point');
        out.push(v);
      }
      continue;
    }
    throw bad();
  }
  return out;
}

function lex(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // string and bytes literals, with r/b prefixes
    const pm = /^([rR][bB]?|[bB][rR]?)?('''|"""|'|")/.exec(src.slice(i, i + 5));
    if (pm && (pm[1] !== undefined || c === '"' || c === "'")) {
      const prefix = (pm[1] ?? '').toLowerCase();
      const q = pm[2];
      i += pm[0].length;
      const bodyStart = i;
      let closed = false;
      while (i < n) {
        if (src.startsWith(q, i)) {
          closed = true;
          break;
        }
        if (q.length === 1 && (src[i] === '\n' || src[i] === '\r')) break;
        if (src[i] === '\\' && !prefix.includes('r')) i += 2;
        else if (src[i] === '\\') i += src[i + 1] === q[0] || src[i + 1] === '\\' ? 2 : 1;
        else i++;
      }
      if (!closed)
        throw new SyntaxErr(
          start,
          `Syntax error: token recognition error at: '${src.slice(start, Math.min(i + 1, n))}'`,
        );
      const body = src.slice(bodyStart, i);
      i += q.length;
      const text = src.slice(start, i);
      const raw = prefix.includes('r');
      const isBytes = prefix.includes('b');
      if (isBytes) {
        const vals = raw ? Array.from(new TextEncoder().encode(body)) : unescape(body, true, start);
        toks.push({ t: 'bytes', pos: start, text, v: Uint8Array.from(vals) });
      } else {
        const s = raw ? body : String.fromCodePoint(...unescape(body, false, start));
        toks.push({ t: 'string', pos: start, text, v: s });
      }
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const hex = /^0[xX][0-9a-fA-F]+([uU])?/.exec(src.slice(i));
      if (hex) {
        i += hex[0].length;
        const digits = hex[0].replace(/[uU]$/, '');
        toks.push(
          hex[1]
            ? { t: 'uint', pos: start, text: hex[0], v: BigInt(digits) }
            : { t: 'int', pos: start, text: hex[0], v: BigInt(digits) },
        );
        continue;
      }
      const fl = /^(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?)/.exec(
        src.slice(i),
      );
      if (fl) {
        i += fl[0].length;
        toks.push({ t: 'double', pos: start, text: fl[0], v: Number(fl[0]) });
        continue;
      }
      const int = /^[0-9]+([uU])?/.exec(src.slice(i))!;
      i += int[0].length;
      const digits = int[0].replace(/[uU]$/, '');
      toks.push(
        int[1]
          ? { t: 'uint', pos: start, text: int[0], v: BigInt(digits) }
          : { t: 'int', pos: start, text: int[0], v: BigInt(digits) },
      );
      continue;
    }
    if (/[_a-zA-Z]/.test(c)) {
      while (i < n && /[_a-zA-Z0-9]/.test(src[i])) i++;
      const text = src.slice(start, i);
      toks.push({ t: KEYWORDS.has(text) ? 'kw' : 'ident', pos: start, text });
      continue;
    }
    if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end < 0) throw new SyntaxErr(start, "Syntax error: token recognition error at: '`'");
      i = end + 1;
      toks.push({ t: 'escident', pos: start, text: src.slice(start, i) });
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) {
      const ch = String.fromCodePoint(src.codePointAt(i)!);
      throw new SyntaxErr(start, `Syntax error: token recognition error at: '${ch}'`);
    }
    i += op.length;
    toks.push({ t: 'op', pos: start, text: op });
  }
  toks.push({ t: 'eof', pos: n, text: '<EOF>' });
  return toks;
}

/** Options of {@link parseCel}. */
export interface ParseOptions {
  /** Expand macros (default true). */
  macros?: boolean;
  /** Nesting limit (cel-go: 250). */
  maxDepth?: number;
}

/** Parses a CEL expression; throws {@link CelCompileError} with cel-go's message and position. */
export function parseCel(src: string, opts: ParseOptions = {}): Expr {
  const issues: CelIssue[] = [];
  let toks: Tok[];
  try {
    toks = lex(src);
  } catch (e) {
    if (e instanceof SyntaxErr) throw new CelCompileError(src, [{ pos: e.pos, message: e.message }]);
    throw e;
  }
  const p = new Parser(toks, opts.macros ?? true, opts.maxDepth ?? 250, issues);
  let root: Expr;
  try {
    root = p.expr();
    const t = p.peek();
    // ANTLR: `extraneous` when dropping the token would reach the end, else `mismatched`
    if (t.t !== 'eof')
      throw new SyntaxErr(
        t.pos,
        `Syntax error: ${p.peek(1).t === 'eof' ? 'extraneous' : 'mismatched'} input '${t.text}' expecting <EOF>`,
      );
  } catch (e) {
    if (e instanceof SyntaxErr) throw new CelCompileError(src, [...issues, { pos: e.pos, message: e.message }]);
    if (e instanceof RangeError)
      throw new CelCompileError(src, [{ pos: 0, message: 'expression recursion limit exceeded' }]);
    throw e;
  }
  if (issues.length) throw new CelCompileError(src, issues);
  return root;
}

/** Operators an expression can start with. */
const EXPR_START_OPS = new Set(['[', '{', '(', '.', '-', '!']);

/** ANTLR's set of tokens an expression can start with, in the CEL grammar's token order, with `also` (a closing token) in its place. */
function expressionStart(also?: string): string {
  const order = ["'['", "']'", "'{'", "'}'", "'('", "')'", "'.'", "'-'", "'!'"];
  const ops = order.filter(
    (o) => ["'['", "'{'", "'('", "'.'", "'-'", "'!'"].includes(o) || (also !== undefined && o === `'${also}'`),
  );
  return `{${[...ops, "'true'", "'false'", "'null'", 'NUM_FLOAT', 'NUM_INT', 'NUM_UINT', 'STRING', 'BYTES', 'IDENTIFIER'].join(', ')}}`;
}

class Parser {
  private i = 0;
  private nextId = 1;
  private depth = 0;

  constructor(
    private readonly toks: Tok[],
    private readonly macros: boolean,
    private readonly maxDepth: number,
    private readonly issues: CelIssue[],
  ) {}

  peek(o = 0): Tok {
    return this.toks[Math.min(this.i + o, this.toks.length - 1)];
  }

  private next(): Tok {
    return this.toks[this.i++];
  }

  private isOp(text: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'op' && t.text === text;
  }

  private expect(text: string): Tok {
    const t = this.peek();
    if (t.t === 'op' && t.text === text) return this.next();
    if (t.t === 'eof') throw new SyntaxErr(t.pos, `Syntax error: missing '${text}' at '<EOF>'`);
    throw new SyntaxErr(t.pos, `Syntax error: mismatched input '${t.text}' expecting '${text}'`);
  }

  private id(): number {
    return this.nextId++;
  }

  private enter(pos: number): void {
    if (++this.depth > this.maxDepth) throw new SyntaxErr(pos, `expression recursion limit exceeded: ${this.maxDepth}`);
  }

  private call(pos: number, fn: string, args: Expr[], target?: Expr): Expr {
    return target ? { k: 'call', id: this.id(), pos, fn, target, args } : { k: 'call', id: this.id(), pos, fn, args };
  }

  expr(): Expr {
    const start = this.peek();
    this.enter(start.pos);
    const cond = this.or();
    let out = cond;
    if (this.isOp('?')) {
      const q = this.next();
      const a = this.or();
      this.expect(':');
      const b = this.expr();
      out = this.call(q.pos, '_?_:_', [cond, a, b]);
    }
    this.depth--;
    return out;
  }

  private or(): Expr {
    let l = this.and();
    while (this.isOp('||')) {
      const op = this.next();
      const r = this.and();
      l = this.call(op.pos, '_||_', [l, r]);
    }
    return l;
  }

  private and(): Expr {
    let l = this.relation();
    while (this.isOp('&&')) {
      const op = this.next();
      const r = this.relation();
      l = this.call(op.pos, '_&&_', [l, r]);
    }
    return l;
  }

  private relation(): Expr {
    let l = this.addition();
    for (;;) {
      const t = this.peek();
      let fn: string | undefined;
      if (t.t === 'op' && ['<', '<=', '>', '>=', '==', '!='].includes(t.text)) fn = `_${t.text}_`;
      else if (t.t === 'kw' && t.text === 'in') fn = '@in';
      if (!fn) return l;
      this.next();
      const r = this.addition();
      l = this.call(t.pos, fn, [l, r]);
    }
  }

  private addition(): Expr {
    let l = this.multiplication();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next();
      const r = this.multiplication();
      l = this.call(op.pos, `_${op.text}_`, [l, r]);
    }
    return l;
  }

  private multiplication(): Expr {
    let l = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next();
      const r = this.unary();
      l = this.call(op.pos, `_${op.text}_`, [l, r]);
    }
    return l;
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.t === 'op' && (t.text === '!' || t.text === '-')) {
      const ops: Tok[] = [];
      while (this.isOp(t.text)) ops.push(this.next());
      // a negative numeric literal folds into the constant, as cel-go does
      if (t.text === '-' && ops.length % 2 === 1) {
        const lit = this.peek();
        if ((lit.t === 'int' || lit.t === 'double') && !this.isPostfix(1)) {
          this.next();
          let v: Expr;
          if (lit.t === 'int') {
            const neg = -lit.v;
            if (neg < -(1n << 63n)) throw new SyntaxErr(lit.pos, `invalid int literal`);
            v = { k: 'lit', id: this.id(), pos: ops[ops.length - 1].pos, v: neg };
          } else v = { k: 'lit', id: this.id(), pos: ops[ops.length - 1].pos, v: -lit.v };
          ops.pop();
          return ops.reduceRight<Expr>((acc, op) => this.call(op.pos, '-_', [acc]), this.postfix(v));
        }
      }
      const e = this.member();
      // as cel-go: an even run of `!` or `-` cancels out; an odd run is one operator at its first sign
      if (ops.length % 2 === 0) return e;
      return this.call(ops[0].pos, t.text === '!' ? '!_' : '-_', [e]);
    }
    return this.member();
  }

  /** True when the token after the literal at offset `o` makes it an operand of a postfix (`.`, `[`). */
  private isPostfix(o: number): boolean {
    return this.isOp('.', o) || this.isOp('[', o);
  }

  private member(): Expr {
    return this.postfix(this.primary());
  }

  private fieldName(): { name: string; pos: number } {
    const t = this.next();
    if (t.t === 'ident') return { name: t.text, pos: t.pos };
    if (t.t === 'escident') {
      this.issues.push({ pos: t.pos, message: "unsupported syntax: '`'" });
      return { name: t.text.slice(1, -1), pos: t.pos };
    }
    if (t.t === 'eof') throw new SyntaxErr(t.pos, `Syntax error: mismatched input '<EOF>' expecting IDENTIFIER`);
    throw new SyntaxErr(t.pos, `Syntax error: mismatched input '${t.text}' expecting IDENTIFIER`);
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      if (this.isOp('.')) {
        const dot = this.next();
        const opt = this.isOp('?');
        if (opt) this.next();
        const f = this.fieldName();
        if (!opt && this.isOp('(')) {
          // cel-go places a call at its opening parenthesis
          const open = this.next();
          const args = this.args(')');
          e = this.receiverCall(open.pos, f.name, e, args);
          continue;
        }
        e = opt
          ? this.call(dot.pos, '_?._', [e, { k: 'lit', id: this.id(), pos: f.pos, v: f.name }])
          : { k: 'select', id: this.id(), pos: dot.pos, operand: e, field: f.name, test: false };
        continue;
      }
      if (this.isOp('[')) {
        const br = this.next();
        const opt = this.isOp('?');
        if (opt) this.next();
        const idx = this.expr();
        this.expect(']');
        e = this.call(br.pos, opt ? '_[?_]' : '_[_]', [e, idx]);
        continue;
      }
      return e;
    }
  }

  private args(close: string): Expr[] {
    const out: Expr[] = [];
    if (this.isOp(close)) {
      this.next();
      return out;
    }
    // The first argument is optional: ANTLR's expected set then holds the closing token too.
    const t = this.peek();
    if (t.t === 'eof' || (t.t === 'op' && !EXPR_START_OPS.has(t.text))) {
      throw new SyntaxErr(
        t.pos,
        `Syntax error: mismatched input '${t.t === 'eof' ? '<EOF>' : t.text}' expecting ${expressionStart(close)}`,
      );
    }
    for (;;) {
      out.push(this.expr());
      if (this.isOp(',')) {
        this.next();
        continue;
      }
      this.expect(close);
      return out;
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.t) {
      case 'int': {
        this.next();
        if (t.v > (1n << 63n) - 1n) {
          // only valid as the operand of unary minus, which is folded above
          throw new SyntaxErr(t.pos, `invalid int literal`);
        }
        return { k: 'lit', id: this.id(), pos: t.pos, v: t.v };
      }
      case 'uint':
        this.next();
        if (t.v >= 1n << 64n) throw new SyntaxErr(t.pos, `invalid uint literal`);
        return { k: 'lit', id: this.id(), pos: t.pos, v: new Uint(t.v) };
      case 'double':
        this.next();
        return { k: 'lit', id: this.id(), pos: t.pos, v: t.v };
      case 'string':
      case 'bytes':
        this.next();
        return { k: 'lit', id: this.id(), pos: t.pos, v: t.v };
      case 'kw':
        this.next();
        if (t.text === 'true' || t.text === 'false')
          return { k: 'lit', id: this.id(), pos: t.pos, v: t.text === 'true' };
        if (t.text === 'null') return { k: 'lit', id: this.id(), pos: t.pos, v: null };
        throw new SyntaxErr(
          t.pos,
          `Syntax error: mismatched input '${t.text}' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
        );
      case 'ident':
        return this.identOrCall();
      case 'escident':
        this.next();
        throw new SyntaxErr(
          t.pos,
          `Syntax error: mismatched input '${t.text}' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
        );
      case 'op':
        if (t.text === '.') {
          // a leading dot: an absolute name
          if (this.peek(1).t === 'ident') return this.identOrCall();
          break;
        }
        if (t.text === '(') {
          this.next();
          const e = this.expr();
          this.expect(')');
          return e;
        }
        if (t.text === '[') return this.listLit();
        if (t.text === '{') return this.mapLit();
        break;
      case 'eof':
        throw new SyntaxErr(
          t.pos,
          `Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
        );
    }
    throw new SyntaxErr(
      t.pos,
      `Syntax error: mismatched input '${t.text}' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`,
    );
  }

  private identOrCall(): Expr {
    let lead = '';
    if (this.isOp('.')) {
      this.next();
      lead = '.';
    }
    const t = this.next();
    const name = lead + t.text;
    if (this.isOp('(')) {
      const open = this.next();
      const args = this.args(')');
      if (RESERVED.has(t.text)) this.issues.push({ pos: t.pos, message: `reserved identifier: ${t.text}` });
      return this.globalCall(open.pos, name, args);
    }
    // message construction: `a.b.C{f: v}` — read the dotted name ahead
    let j = 0;
    let qualified = name;
    while (this.isOp('.', j) && this.peek(j + 1).t === 'ident') {
      qualified += `.${this.peek(j + 1).text}`;
      j += 2;
    }
    if (this.isOp('{', j)) {
      this.i += j;
      return this.structLit(t.pos, qualified);
    }
    if (RESERVED.has(t.text)) this.issues.push({ pos: t.pos, message: `reserved identifier: ${t.text}` });
    return { k: 'ident', id: this.id(), pos: t.pos, name };
  }

  private listLit(): Expr {
    const open = this.next();
    const elems: Expr[] = [];
    const optional: boolean[] = [];
    while (!this.isOp(']')) {
      const opt = this.isOp('?');
      if (opt) this.next();
      elems.push(this.expr());
      optional.push(opt);
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expect(']');
    return { k: 'list', id: this.id(), pos: open.pos, elems, optional };
  }

  private mapLit(): Expr {
    const open = this.next();
    const entries: { key: Expr; value: Expr; optional: boolean }[] = [];
    while (!this.isOp('}')) {
      const opt = this.isOp('?');
      if (opt) this.next();
      const key = this.expr();
      this.expect(':');
      const value = this.expr();
      entries.push({ key, value, optional: opt });
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expect('}');
    return { k: 'map', id: this.id(), pos: open.pos, entries };
  }

  private structLit(pos: number, name: string): Expr {
    this.expect('{');
    const fields: { name: string; value: Expr; optional: boolean }[] = [];
    while (!this.isOp('}')) {
      const opt = this.isOp('?');
      if (opt) this.next();
      const f = this.fieldName();
      this.expect(':');
      fields.push({ name: f.name, value: this.expr(), optional: opt });
      if (!this.isOp(',')) break;
      this.next();
    }
    this.expect('}');
    return { k: 'struct', id: this.id(), pos, name, fields };
  }

  // ---- macros ----

  private globalCall(pos: number, fn: string, args: Expr[]): Expr {
    if (this.macros && fn === 'has' && args.length === 1) {
      const a = args[0];
      if (a.k !== 'select') {
        this.issues.push({ pos: a.pos, message: 'invalid argument to has() macro' });
        return this.call(pos, fn, args);
      }
      // the presence test is the call: it sits at the call's parenthesis
      return { ...a, test: true, id: this.id(), pos };
    }
    return this.call(pos, fn, args);
  }

  private iterName(e: Expr): string | undefined {
    if (e.k === 'ident' && !e.name.startsWith('.')) return e.name;
    this.issues.push({ pos: e.pos, message: 'argument must be a simple name' });
    return undefined;
  }

  private lit(pos: number, v: Value): Expr {
    return { k: 'lit', id: this.id(), pos, v };
  }

  private accu(pos: number): Expr {
    return { k: 'ident', id: this.id(), pos, name: ACCU };
  }

  private comp(
    pos: number,
    macro: string,
    iterVar: string,
    iterVar2: string | undefined,
    range: Expr,
    init: Expr,
    cond: Expr,
    step: Expr,
    result: Expr,
  ): Expr {
    const c: Expr = { k: 'comp', id: this.id(), pos, iterVar, range, accuVar: ACCU, init, cond, step, result, macro };
    if (iterVar2 !== undefined) c.iterVar2 = iterVar2;
    return c;
  }

  private receiverCall(pos: number, fn: string, target: Expr, args: Expr[]): Expr {
    if (!this.macros) return this.call(pos, fn, args, target);
    const n = args.length;
    const one = ['all', 'exists', 'exists_one', 'map', 'filter'];
    if (one.includes(fn) && (n === 2 || (fn === 'map' && n === 3))) {
      const v = this.iterName(args[0]);
      if (v === undefined) return this.call(pos, fn, args, target);
      if (v === ACCU)
        this.issues.push({ pos: args[0].pos, message: 'iteration variable overwrites accumulator variable' });
      return this.expandOne(pos, fn, v, target, args.slice(1));
    }
    const two = ['all', 'exists', 'existsOne', 'exists_one', 'transformList', 'transformMap', 'transformMapEntry'];
    if (two.includes(fn) && (n === 3 || (n === 4 && fn.startsWith('transform')))) {
      const k = this.iterName(args[0]);
      const v = this.iterName(args[1]);
      if (k === undefined || v === undefined) return this.call(pos, fn, args, target);
      if (k === v) {
        this.issues.push({ pos: args[1].pos, message: `duplicate variable name: ${k}` });
        return this.call(pos, fn, args, target);
      }
      if (k === ACCU || v === ACCU)
        this.issues.push({ pos: args[0].pos, message: 'iteration variable overwrites accumulator variable' });
      return this.expandTwo(pos, fn, k, v, target, args.slice(2));
    }
    if (fn === 'sortBy' && n === 2) {
      if (!['list', 'select', 'ident', 'comp', 'call'].includes(target.k)) {
        this.issues.push({
          pos: target.pos,
          message: 'sortBy can only be applied to a list, identifier, comprehension, call or select expression',
        });
        return this.call(pos, fn, args, target);
      }
      const v = this.iterName(args[0]);
      if (v === undefined) return this.call(pos, fn, args, target);
      const input = (): Expr => ({ k: 'ident', id: this.id(), pos, name: '@__sortBy_input__' });
      const keys = this.expandOne(pos, 'map', v, input(), [args[1]]);
      const sorted = this.call(pos, '@sortByAssociatedKeys', [keys], input());
      return {
        k: 'comp',
        id: this.id(),
        pos,
        iterVar: '#unused',
        range: { k: 'list', id: this.id(), pos, elems: [], optional: [] },
        accuVar: '@__sortBy_input__',
        init: target,
        cond: this.lit(pos, false),
        step: input(),
        result: sorted,
        macro: fn,
      };
    }
    if ((fn === 'optMap' || fn === 'optFlatMap') && n === 2) {
      const v = this.iterName(args[0]);
      if (v === undefined) return this.call(pos, fn, args, target);
      const hasValue = this.call(pos, 'hasValue', [], target);
      const value = this.call(pos, 'value', [], target);
      // bind v = target.value() in expr: a comprehension over [] whose accumulator is v
      const bound: Expr = {
        k: 'comp',
        id: this.id(),
        pos,
        iterVar: '#unused',
        range: { k: 'list', id: this.id(), pos, elems: [], optional: [] },
        accuVar: v,
        init: value,
        cond: this.lit(pos, false),
        step: { k: 'ident', id: this.id(), pos, name: v },
        result: args[1],
        macro: fn,
      };
      const then = fn === 'optMap' ? this.call(pos, 'optional.of', [bound]) : bound;
      return this.call(pos, '_?_:_', [hasValue, then, this.call(pos, 'optional.none', [])]);
    }
    return this.call(pos, fn, args, target);
  }

  private expandOne(pos: number, fn: string, v: string, range: Expr, rest: Expr[]): Expr {
    const ident = (): Expr => ({ k: 'ident', id: this.id(), pos, name: v });
    switch (fn) {
      case 'all':
        return this.comp(
          pos,
          fn,
          v,
          undefined,
          range,
          this.lit(pos, true),
          this.call(pos, '@not_strictly_false', [this.accu(pos)]),
          this.call(pos, '_&&_', [this.accu(pos), rest[0]]),
          this.accu(pos),
        );
      case 'exists':
        return this.comp(
          pos,
          fn,
          v,
          undefined,
          range,
          this.lit(pos, false),
          this.call(pos, '@not_strictly_false', [this.call(pos, '!_', [this.accu(pos)])]),
          this.call(pos, '_||_', [this.accu(pos), rest[0]]),
          this.accu(pos),
        );
      case 'exists_one':
        return this.comp(
          pos,
          fn,
          v,
          undefined,
          range,
          this.lit(pos, 0n),
          this.lit(pos, true),
          this.call(pos, '_?_:_', [
            rest[0],
            this.call(pos, '_+_', [this.accu(pos), this.lit(pos, 1n)]),
            this.accu(pos),
          ]),
          this.call(pos, '_==_', [this.accu(pos), this.lit(pos, 1n)]),
        );
      case 'map': {
        const t = rest[rest.length - 1];
        const add = this.call(pos, '_+_', [
          this.accu(pos),
          { k: 'list', id: this.id(), pos, elems: [t], optional: [false] },
        ]);
        const step = rest.length === 2 ? this.call(pos, '_?_:_', [rest[0], add, this.accu(pos)]) : add;
        return this.comp(
          pos,
          fn,
          v,
          undefined,
          range,
          { k: 'list', id: this.id(), pos, elems: [], optional: [] },
          this.lit(pos, true),
          step,
          this.accu(pos),
        );
      }
      default: {
        const add = this.call(pos, '_+_', [
          this.accu(pos),
          { k: 'list', id: this.id(), pos, elems: [ident()], optional: [false] },
        ]);
        return this.comp(
          pos,
          fn,
          v,
          undefined,
          range,
          { k: 'list', id: this.id(), pos, elems: [], optional: [] },
          this.lit(pos, true),
          this.call(pos, '_?_:_', [rest[0], add, this.accu(pos)]),
          this.accu(pos),
        );
      }
    }
  }

  private expandTwo(pos: number, fn: string, k: string, v: string, range: Expr, rest: Expr[]): Expr {
    switch (fn) {
      case 'all':
        return this.comp(
          pos,
          fn,
          k,
          v,
          range,
          this.lit(pos, true),
          this.call(pos, '@not_strictly_false', [this.accu(pos)]),
          this.call(pos, '_&&_', [this.accu(pos), rest[0]]),
          this.accu(pos),
        );
      case 'exists':
        return this.comp(
          pos,
          fn,
          k,
          v,
          range,
          this.lit(pos, false),
          this.call(pos, '@not_strictly_false', [this.call(pos, '!_', [this.accu(pos)])]),
          this.call(pos, '_||_', [this.accu(pos), rest[0]]),
          this.accu(pos),
        );
      case 'existsOne':
      case 'exists_one':
        return this.comp(
          pos,
          fn,
          k,
          v,
          range,
          this.lit(pos, 0n),
          this.lit(pos, true),
          this.call(pos, '_?_:_', [
            rest[0],
            this.call(pos, '_+_', [this.accu(pos), this.lit(pos, 1n)]),
            this.accu(pos),
          ]),
          this.call(pos, '_==_', [this.accu(pos), this.lit(pos, 1n)]),
        );
      case 'transformList': {
        const t = rest[rest.length - 1];
        const add = this.call(pos, '_+_', [
          this.accu(pos),
          { k: 'list', id: this.id(), pos, elems: [t], optional: [false] },
        ]);
        const step = rest.length === 2 ? this.call(pos, '_?_:_', [rest[0], add, this.accu(pos)]) : add;
        return this.comp(
          pos,
          fn,
          k,
          v,
          range,
          { k: 'list', id: this.id(), pos, elems: [], optional: [] },
          this.lit(pos, true),
          step,
          this.accu(pos),
        );
      }
      default: {
        const t = rest[rest.length - 1];
        const insert =
          fn === 'transformMap'
            ? this.call(pos, 'cel.@mapInsert', [this.accu(pos), { k: 'ident', id: this.id(), pos, name: k }, t])
            : this.call(pos, 'cel.@mapInsert', [this.accu(pos), t]);
        const step = rest.length === 2 ? this.call(pos, '_?_:_', [rest[0], insert, this.accu(pos)]) : insert;
        return this.comp(
          pos,
          fn,
          k,
          v,
          range,
          { k: 'map', id: this.id(), pos, entries: [] },
          this.lit(pos, true),
          step,
          this.accu(pos),
        );
      }
    }
  }
}

/** Parses, rethrowing the problem as an evaluation error (for tools that only evaluate). */
export function parseOrThrow(src: string): Expr {
  try {
    return parseCel(src);
  } catch (e) {
    if (e instanceof CelCompileError) throw new CelEvalError(e.message);
    throw e;
  }
}
