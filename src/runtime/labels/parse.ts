// The label selector grammar the apiserver accepts (apimachinery labels.Parse):
//   selector    := '' | requirement ( ',' requirement )*
//   requirement := '!' KEY | KEY [ ( '=' | '==' | '!=' ) VALUE | ( 'in' | 'notin' ) '(' VALUES ')' | ( '>' | '<' ) INTEGER ]
// Whitespace may surround any token. A bare KEY means "exists".
import { newRequirement, Selector, SelectorError, type Operator, type Requirement } from './selector.js';

type TokenKind = 'ident' | 'in' | 'notin' | ',' | '(' | ')' | '=' | '==' | '!=' | '!' | '>' | '<' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  /** 0-based offset in the input. */
  pos: number;
}

const SPECIAL = new Set(['!', '=', ',', '(', ')', '<', '>']);

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';
}

function lex(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (SPECIAL.has(c)) {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        out.push({ kind: two, text: two, pos: i });
        i += 2;
      } else {
        out.push({ kind: c as TokenKind, text: c, pos: i });
        i++;
      }
      continue;
    }
    const start = i;
    while (i < input.length && !isSpace(input[i]!) && !SPECIAL.has(input[i]!)) i++;
    const text = input.slice(start, i);
    out.push({ kind: text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'ident', text, pos: start });
  }
  out.push({ kind: 'end', text: '', pos: input.length });
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly input: string, private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    const t = this.tokens[this.i]!;
    if (t.kind !== 'end') this.i++;
    return t;
  }

  /** The next token read as a value: `in` and `notin` are plain words there (apimachinery's Values context). */
  private nextValue(): Token {
    const t = this.next();
    return t.kind === 'in' || t.kind === 'notin' ? { ...t, kind: 'ident' } : t;
  }

  private peekValue(): Token {
    const t = this.peek();
    return t.kind === 'in' || t.kind === 'notin' ? { ...t, kind: 'ident' } : t;
  }

  private fail(t: Token, what: string): never {
    const found = t.kind === 'end' ? 'end of string' : JSON.stringify(t.text);
    throw new SelectorError(`unable to parse label selector ${JSON.stringify(this.input)}: ${what}, found ${found} at position ${t.pos}`);
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    if (this.peek().kind === 'end') return reqs;
    for (;;) {
      reqs.push(this.requirement());
      const t = this.next();
      if (t.kind === 'end') return reqs;
      if (t.kind !== ',') this.fail(t, "expected ',' or end of string");
      if (this.peek().kind === 'end') this.fail(this.peek(), 'expected a requirement after \',\'');
    }
  }

  private requirement(): Requirement {
    let t = this.next();
    if (t.kind === '!') {
      t = this.next();
      if (t.kind !== 'ident') this.fail(t, "expected a label key after '!'");
      const after = this.peek();
      if (after.kind !== ',' && after.kind !== 'end') this.fail(after, "expected ',' or end of string after '!key'");
      return this.build(t, '!', []);
    }
    if (t.kind !== 'ident') this.fail(t, 'expected a label key');
    const key = t;
    const op = this.peek();
    switch (op.kind) {
      case ',':
      case 'end':
        return this.build(key, 'exists', []);
      case '=':
      case '==':
      case '!=': {
        this.next();
        const v = this.peekValue();
        if (v.kind === ',' || v.kind === 'end') return this.build(key, op.kind, ['']);
        this.nextValue();
        if (v.kind !== 'ident') this.fail(v, `expected a value after '${op.text}'`);
        return this.build(key, op.kind, [v.text]);
      }
      case '>':
      case '<': {
        this.next();
        const v = this.nextValue();
        if (v.kind !== 'ident') this.fail(v, `expected an integer after '${op.text}'`);
        return this.build(key, op.kind === '>' ? 'gt' : 'lt', [v.text]);
      }
      case 'in':
      case 'notin': {
        this.next();
        return this.build(key, op.kind, this.valueSet());
      }
      default:
        return this.fail(op, "expected an operator ('=', '==', '!=', 'in', 'notin', '>', '<'), ',' or end of string");
    }
  }

  /** `( v1, v2, … )`; an empty slot (and `()`) is the empty value. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(open, "expected '('");
    const values: string[] = [];
    if (this.peek().kind === ')') {
      this.next();
      return ['']; // `()` is the set of the empty value, as apimachinery reads it
    }
    for (;;) {
      const t = this.peekValue();
      if (t.kind === 'ident') {
        this.nextValue();
        values.push(t.text);
      } else if (t.kind === ',' || t.kind === ')') {
        values.push('');
      } else {
        this.fail(t, 'expected a value, \',\' or \')\'');
      }
      const sep = this.next();
      if (sep.kind === ')') return values;
      if (sep.kind !== ',') this.fail(sep, "expected ',' or ')'");
    }
  }

  private build(key: Token, op: Operator, values: string[]): Requirement {
    try {
      return newRequirement(key.text, op, values);
    } catch (e) {
      if (e instanceof SelectorError) {
        throw new SelectorError(`unable to parse label selector ${JSON.stringify(this.input)}: ${e.message}`);
      }
      throw e;
    }
  }
}

/**
 * Parses selector text (`app=db,tier in (a,b),!legacy`) into a {@link Selector}.
 * `''` (or only whitespace) selects everything. Throws {@link SelectorError} with the
 * offending position on malformed input.
 */
export function parseSelector(text: string): Selector {
  if (typeof text !== 'string') throw new SelectorError(`a label selector must be a string, got ${typeof text}`);
  return new Selector(new Parser(text, lex(text)).parse());
}

/** A selector from text, an existing selector, or undefined (everything). */
export function toSelector(selector: Selector | string | undefined): Selector {
  if (selector === undefined) return new Selector([]);
  return typeof selector === 'string' ? parseSelector(selector) : selector;
}
