// The label selector grammar the apiserver accepts (apimachinery labels.Parse):
//   selector    := '' | requirement ( ',' requirement )*
//   requirement := '!' KEY | KEY [ ( '=' | '==' | '!=' ) VALUE | ( 'in' | 'notin' ) '(' VALUES ')' | ( '>' | '<' ) INTEGER ]
// Whitespace may surround any token. A bare KEY means "exists".
import {
  labelKeyErrors,
  labelValueErrors,
  newRequirement,
  Selector,
  SelectorError,
  type Operator,
  type Requirement,
} from './selector.js';

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
    const c = input[i];
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
    while (i < input.length && !isSpace(input[i]) && !SPECIAL.has(input[i])) i++;
    const text = input.slice(start, i);
    out.push({ kind: text === 'in' ? 'in' : text === 'notin' ? 'notin' : 'ident', text, pos: start });
  }
  out.push({ kind: 'end', text: '', pos: input.length });
  return out;
}

class Parser {
  private i = 0;
  constructor(
    private readonly input: string,
    private readonly tokens: Token[],
  ) {}

  private peek(): Token {
    return this.tokens[this.i];
  }

  private next(): Token {
    const t = this.tokens[this.i];
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

  /**
   * Throws a {@link SelectorError}: `what` for the message (with the position), `go` as
   * apimachinery's parser words it, wrapped in `unable to parse requirement: ` when the error is
   * inside a requirement (as Go's parser wraps those).
   */
  private fail(t: Token, what: string, go: string, inRequirement = true): never {
    const found = t.kind === 'end' ? 'end of string' : JSON.stringify(t.text);
    throw new SelectorError(
      `unable to parse label selector ${JSON.stringify(this.input)}: ${what}, found ${found} at position ${t.pos}`,
      inRequirement ? `unable to parse requirement: ${go}` : go,
    );
  }

  /** A requirement may start here: a key (`in`/`notin` are keys here too) or `!`. */
  private startsRequirement(t: Token): boolean {
    return t.kind === 'ident' || t.kind === '!';
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    const first = this.peekValue();
    if (first.kind === 'end') return reqs;
    if (!this.startsRequirement(first))
      this.fail(
        first,
        "expected a label key or '!'",
        `found '${first.text}', expected: !, identifier, or 'end of string'`,
        false,
      );
    for (;;) {
      reqs.push(this.requirement());
      const t = this.next();
      if (t.kind === 'end') return reqs;
      if (t.kind !== ',')
        this.fail(t, "expected ',' or end of string", `found '${t.text}', expected: ',' or 'end of string'`, false);
      const n = this.peekValue();
      if (!this.startsRequirement(n))
        this.fail(n, "expected a requirement after ','", `found '${n.text}', expected: identifier after ','`, false);
    }
  }

  private requirement(): Requirement {
    let t = this.nextValue();
    const not = t.kind === '!';
    if (not) t = this.nextValue();
    if (t.kind !== 'ident')
      this.fail(
        t,
        not ? "expected a label key after '!'" : 'expected a label key',
        `found '${t.text}', expected: identifier`,
      );
    const key = t;
    this.checkKey(key);
    if (not) return this.build(key, '!', []);
    const op = this.peek();
    switch (op.kind) {
      case ',':
      case 'end':
        return this.build(key, 'exists', []);
      case '=':
      case '==':
      case '!=':
      case '>':
      case '<': {
        this.next();
        const operator: Operator = op.kind === '>' ? 'gt' : op.kind === '<' ? 'lt' : op.kind;
        const v = this.peekValue();
        if (v.kind === ',' || v.kind === 'end') return this.build(key, operator, ['']);
        this.nextValue();
        if (v.kind !== 'ident')
          this.fail(v, `expected a value after '${op.text}'`, `found '${v.text}', expected: identifier`);
        return this.build(key, operator, [v.text]);
      }
      case 'in':
      case 'notin': {
        this.next();
        return this.build(key, op.kind, this.valueSet());
      }
      default:
        return this.fail(
          op,
          "expected an operator ('=', '==', '!=', 'in', 'notin', '>', '<'), ',' or end of string",
          `found '${op.text}', expected: in, notin, =, ==, !=, gt, lt`,
        );
    }
  }

  /** `( v1, v2, … )`; an empty slot (and `()`) is the empty value. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') this.fail(open, "expected '('", `found '${open.text}' expected: '('`);
    const values: string[] = [];
    if (this.peekValue().kind === ')') {
      this.next();
      return ['']; // `()` is the set of the empty value, as apimachinery reads it
    }
    for (let first = true; ; first = false) {
      const t = this.peekValue();
      if (t.kind === 'ident') {
        this.nextValue();
        values.push(t.text);
      } else if (t.kind === ',' || t.kind === ')') {
        values.push('');
      } else {
        this.fail(
          t,
          "expected a value, ',' or ')'",
          first
            ? `found '${t.text}', expected: ',', ')' or identifier`
            : `found '${t.text}', expected: ',', or identifier`,
        );
      }
      const sep = this.next();
      if (sep.kind === ')') return values;
      if (sep.kind !== ',') this.fail(sep, "expected ',' or ')'", `found '${sep.text}', expected: ',' or ')'`);
    }
  }

  /** The key is checked as soon as it is read, as apimachinery's parser does. */
  private checkKey(key: Token): void {
    const errs = labelKeyErrors(key.text);
    if (errs.length === 0) return;
    const go = labelKeyErrors(key.text);
    throw new SelectorError(
      `unable to parse label selector ${JSON.stringify(this.input)}: invalid label key ${JSON.stringify(key.text)}: ${errs.join('; ')}`,
      `unable to parse requirement: <nil>: Invalid value: ${JSON.stringify(key.text)}: ${(go.length ? go : errs).join('; ')}`,
    );
  }

  private build(key: Token, op: Operator, values: string[]): Requirement {
    try {
      return newRequirement(key.text, op, values);
    } catch (e) {
      if (e instanceof SelectorError) {
        const go = goRequirementErrors(key.text, op, values);
        throw new SelectorError(
          `unable to parse label selector ${JSON.stringify(this.input)}: ${e.message}`,
          `unable to parse requirement: ${go.length === 0 ? e.message : go.length === 1 ? go[0] : `[${go.join(', ')}]`}`,
        );
      }
      throw e;
    }
  }
}

/** NewRequirement's field errors for values the parser read (sorted and de-duplicated, as Go's set gives them). */
function goRequirementErrors(key: string, op: Operator, values: readonly string[]): string[] {
  const sorted = [...new Set(values)].sort();
  const errs: string[] = [];
  if (op === 'gt' || op === 'lt') {
    sorted.forEach((v, i) => {
      if (!/^[-+]?[0-9]+$/.test(v))
        errs.push(
          `values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
    });
  }
  sorted.forEach((v, i) => {
    const e = labelValueErrors(v);
    if (e.length) errs.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${e.join('; ')}`);
  });
  return errs;
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
