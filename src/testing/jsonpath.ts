// Kubernetes' JSONPath (k8s.io/client-go/util/jsonpath), as the apiserver evaluates a CRD's
// additionalPrinterColumns: fields (`.a`, `['a.b']`), indexes and slices (`[0]`, `[-1]`,
// `[1:3]`), wildcards (`[*]`, `.*`), recursive descent (`..a`), unions (`[0,2]`, `['a','b']`)
// and filters (`[?(@.type=="Ready")]`, with ==, !=, <, <=, >, >= or a bare `@.x`).
// Written here rather than taken from an npm JSONPath package: those implement Goessner's
// dialect (filters are JavaScript expressions, `$` roots), not Kubernetes'.

type Step =
  | { t: 'field'; names: string[] }
  | { t: 'recursive' }
  | { t: 'wildcard' }
  | { t: 'index'; start?: number; end?: number; step?: number; single: boolean }
  | { t: 'union'; indexes: number[] }
  | { t: 'filter'; left: Step[]; op?: string; right?: { path: Step[] } | { value: unknown } };

/** A JSONPath that does not parse, worded as client-go's parser words it. */
export class JsonPathError extends Error {}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): Step[] {
    const steps: Step[] = [];
    while (this.i < this.s.length) steps.push(this.step());
    return steps;
  }

  private peek(n = 0): string {
    return this.s[this.i + n] ?? '';
  }

  private step(): Step {
    const c = this.peek();
    if (c === '.') {
      this.i++;
      if (this.peek() === '.') {
        // `..name` is a recursive descent followed by the field
        return { t: 'recursive' };
      }
      if (this.peek() === '*') {
        this.i++;
        return { t: 'wildcard' };
      }
      return { t: 'field', names: [this.name()] };
    }
    if (c === '[') return this.bracket();
    if (c === '@' && this.i === 0) {
      this.i++;
      return this.step();
    }
    // a leading field without the dot (`metadata.name`)
    if (this.i === 0 && /[A-Za-z_$]/.test(c)) return { t: 'field', names: [this.name()] };
    throw new JsonPathError(
      `unrecognized character in action: U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} '${c}'`,
    );
  }

  private name(): string {
    let out = '';
    while (this.i < this.s.length) {
      const c = this.peek();
      if (c === '\\' && this.i + 1 < this.s.length) {
        out += this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (c === '.' || c === '[' || c === ' ' || c === ')' || c === '=' || c === '!' || c === '<' || c === '>') break;
      out += c;
      this.i++;
    }
    if (!out) throw new JsonPathError('missing field name');
    return out;
  }

  private bracket(): Step {
    const close = this.findClose();
    const body = this.s.slice(this.i + 1, close).trim();
    this.i = close + 1;
    if (body === '*') return { t: 'wildcard' };
    if (body.startsWith('?(') && body.endsWith(')')) return this.filter(body.slice(2, -1).trim());
    if (/^['"]/.test(body)) {
      const names = body
        .split(',')
        .map((x) => x.trim())
        .map((x) => {
          if (!/^(['"]).*\1$/.test(x)) throw new JsonPathError(`invalid array index ${x}`);
          return x.slice(1, -1);
        });
      return { t: 'field', names };
    }
    if (body.includes(',')) {
      const indexes = body.split(',').map((x) => {
        const n = Number(x.trim());
        if (!Number.isInteger(n)) throw new JsonPathError(`invalid array index ${x.trim()}`);
        return n;
      });
      return { t: 'union', indexes };
    }
    const parts = body.split(':');
    if (parts.length > 3) throw new JsonPathError(`invalid array index ${body}`);
    const num = (x: string | undefined): number | undefined => {
      if (x === undefined || x.trim() === '') return undefined;
      const n = Number(x.trim());
      if (!Number.isInteger(n)) throw new JsonPathError(`invalid array index ${body}`);
      return n;
    };
    if (parts.length === 1) {
      const n = num(parts[0]);
      if (n === undefined) throw new JsonPathError(`invalid array index ${body}`);
      return { t: 'index', start: n, end: n + 1, single: true };
    }
    return { t: 'index', start: num(parts[0]), end: num(parts[1]), step: num(parts[2]), single: false };
  }

  private findClose(): number {
    let depth = 0;
    let quote = '';
    for (let j = this.i; j < this.s.length; j++) {
      const c = this.s[j];
      if (quote) {
        if (c === quote) quote = '';
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return j;
    }
    throw new JsonPathError('unterminated array');
  }

  private filter(expr: string): Step {
    const m = /^(@[^=!<>\s]*)\s*(==|!=|<=|>=|<|>)?\s*(.*)$/.exec(expr);
    if (!m) throw new JsonPathError(`unrecognized filter: ${expr}`);
    const left = new Parser(m[1]).parse();
    if (!m[2]) return { t: 'filter', left };
    const rhs = m[3].trim();
    let right: { path: Step[] } | { value: unknown };
    if (rhs.startsWith('@')) right = { path: new Parser(rhs).parse() };
    else if (/^(['"]).*\1$/.test(rhs)) right = { value: rhs.slice(1, -1) };
    else if (rhs === 'true' || rhs === 'false') right = { value: rhs === 'true' };
    else if (rhs !== '' && !Number.isNaN(Number(rhs))) right = { value: Number(rhs) };
    else throw new JsonPathError(`unrecognized filter value: ${rhs}`);
    return { t: 'filter', left, op: m[2], right };
  }
}

/** Parses a JSONPath (without the `{}` of a template); throws {@link JsonPathError}. */
export function parseJsonPath(path: string): Step[] {
  return new Parser(path.trim()).parse();
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === 'object')
    return Object.keys(v)
      .sort()
      .map((k) => (v as Record<string, unknown>)[k]);
  return [];
}

function descendants(v: unknown, out: unknown[]): void {
  out.push(v);
  for (const c of children(v)) descendants(c, out);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  if (op === '==') return a === b || (typeof a === 'number' && typeof b === 'number' && a === b);
  if (op === '!=') return a !== b;
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a;
  const y = b as number | string;
  return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
}

function evalSteps(steps: Step[], input: unknown[]): unknown[] {
  let cur = input;
  for (let k = 0; k < steps.length; k++) {
    const s = steps[k];
    const next: unknown[] = [];
    for (const v of cur) {
      switch (s.t) {
        case 'field':
          if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
            for (const n of s.names)
              if (Object.prototype.hasOwnProperty.call(v, n)) next.push((v as Record<string, unknown>)[n]);
          }
          break;
        case 'recursive':
          descendants(v, next);
          break;
        case 'wildcard':
          next.push(...children(v));
          break;
        case 'index': {
          if (!Array.isArray(v)) break;
          const len = v.length;
          const norm = (n: number | undefined, dflt: number): number =>
            n === undefined ? dflt : n < 0 ? Math.max(0, len + n) : Math.min(n, len);
          const start = norm(s.start, 0);
          const end = s.single ? start + 1 : norm(s.end, len);
          const step = s.step && s.step > 0 ? s.step : 1;
          for (let j = start; j < end && j < len; j += step) next.push(v[j]);
          break;
        }
        case 'union':
          if (Array.isArray(v))
            for (const n of s.indexes)
              if (v[n < 0 ? v.length + n : n] !== undefined) next.push(v[n < 0 ? v.length + n : n]);
          break;
        case 'filter':
          for (const item of Array.isArray(v) ? v : children(v)) {
            const lefts = evalSteps(s.left, [item]);
            if (!s.op) {
              if (lefts.length) next.push(item);
              continue;
            }
            const rights = 'path' in s.right! ? evalSteps(s.right.path, [item]) : [s.right!.value];
            if (lefts.length && rights.length && compare(lefts[0], s.op, rights[0])) next.push(item);
          }
          break;
      }
    }
    cur = next;
  }
  return cur;
}

/** The values a JSONPath finds in `obj`, in document order. */
export function findJsonPath(obj: unknown, path: string | Step[]): unknown[] {
  return evalSteps(typeof path === 'string' ? parseJsonPath(path) : path, [obj]);
}
