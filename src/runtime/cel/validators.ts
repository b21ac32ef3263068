// The AST validators Kubernetes' environment runs after the type check (cel-go's
// ValidateHomogeneousAggregateLiterals, ValidateDurationLiterals, ValidateTimestampLiterals,
// ValidateRegexLiterals, and the strings extension's format() check): list and map literals must
// be homogeneous (except inside format()), duration()/timestamp() of a literal and matches() with a
// literal pattern must be valid, a literal format string must fit its literal argument list.
import type { Checked } from './checker.js';
import { compileRegex } from './regex-cache.js';
import { compileAst } from './interp.js';
import { kubernetesLibrary } from './env.js';
import { typeValues } from './compile.js';
import type { CelIssue, Expr } from './syntax.js';
import { stdlib } from './stdlib.js';
import { sameType, substitute, typeString, type CelType } from './types.js';

function children(e: Expr): Expr[] {
  switch (e.k) {
    case 'select':
      return [e.operand];
    case 'call':
      return e.target ? [e.target, ...e.args] : e.args;
    case 'list':
      return e.elems;
    case 'map':
      return e.entries.flatMap((x) => [x.key, x.value]);
    case 'struct':
      return e.fields.map((f) => f.value);
    case 'comp':
      return [e.range, e.init, e.cond, e.step, e.result];
  }
  return [];
}

function unopt(t: CelType): CelType {
  return t.k === 'opaque' && t.name === 'optional_type' ? t.params[0] : t;
}

/** The type conversions cel-go evaluates when it builds a program, if their argument is a constant. */
const CONVERSIONS = new Set([
  'bool',
  'bytes',
  'double',
  'duration',
  'dyn',
  'int',
  'string',
  'timestamp',
  'type',
  'uint',
]);

/**
 * What fails when cel-go builds the program of a checked expression with the optimizer Kubernetes
 * turns on: a type conversion of a constant (`int("x")`) is evaluated then, and Kubernetes' regex
 * library compiles the literal patterns of find/findAll. Returns the error (without the
 * `program instantiation failed: ` prefix), or undefined.
 */
export function programErrors(root: Expr, checked?: Checked): string | undefined {
  let out: string | undefined;
  const constant = new Set<number>();
  const visit = (e: Expr): void => {
    for (const c of children(e)) {
      visit(c);
      if (out) return;
    }
    if (e.k === 'lit') constant.add(e.id);
    else if (e.k === 'list' && e.elems.every((x, i) => constant.has(x.id) && !e.optional[i])) constant.add(e.id);
    else if (e.k === 'map' && e.entries.every((x) => constant.has(x.key.id) && constant.has(x.value.id) && !x.optional))
      constant.add(e.id);
    else if (
      e.k === 'call' &&
      !e.target &&
      CONVERSIONS.has(e.fn) &&
      e.args.length === 1 &&
      constant.has(e.args[0].id)
    ) {
      try {
        compileAst(e, kubernetesLibrary, typeValues).eval([null, null]);
        constant.add(e.id);
      } catch (err) {
        const from = checked?.types.get(e.args[0].id);
        out =
          from?.k === 'string' && e.fn !== 'string' && e.fn !== 'bytes' && e.fn !== 'dyn' && e.fn !== 'type'
            ? `type conversion error from 'string' to '${e.fn}'`
            : (err as Error).message;
      }
    }
    if (
      e.k === 'call' &&
      (e.fn === 'find' || e.fn === 'findAll') &&
      e.target &&
      e.args[0]?.k === 'lit' &&
      typeof e.args[0].v === 'string'
    ) {
      try {
        compileRegex(e.args[0].v);
      } catch (err) {
        out = (err as Error).message;
      }
    }
  };
  visit(root);
  return out;
}

/** Runs the validators; returns their issues. */
export function validateAst(root: Expr, checked: Checked): CelIssue[] {
  const issues: CelIssue[] = [];
  const typeOf = (e: Expr): CelType => substitute(checked.types.get(e.id) ?? { k: 'dyn' }, new Map(), true);
  const visit = (e: Expr, inFormat: boolean): void => {
    if (e.k === 'list' && !inFormat) {
      let first: CelType | undefined;
      for (let i = 0; i < e.elems.length; i++) {
        let t = typeOf(e.elems[i]);
        if (e.optional[i]) t = unopt(t);
        if (!first) first = t;
        else if (!sameType(first, t)) {
          issues.push({
            pos: e.elems[i].pos,
            message: `expected type '${typeString(first)}' but found '${typeString(t)}'`,
          });
          break;
        }
      }
    }
    if (e.k === 'map' && !inFormat) {
      let kt: CelType | undefined;
      let vt: CelType | undefined;
      for (const en of e.entries) {
        const k = typeOf(en.key);
        let v = typeOf(en.value);
        if (en.optional) v = unopt(v);
        if (!kt || !vt) {
          kt = k;
          vt = v;
          continue;
        }
        if (!sameType(kt, k))
          issues.push({ pos: en.key.pos, message: `expected type '${typeString(kt)}' but found '${typeString(k)}'` });
        if (!sameType(vt, v))
          issues.push({ pos: en.value.pos, message: `expected type '${typeString(vt)}' but found '${typeString(v)}'` });
      }
    }
    if (e.k === 'call') {
      const a0 = e.args[0];
      if (a0?.k === 'lit') {
        const check = (fn: () => unknown, name: string) => {
          try {
            fn();
          } catch {
            issues.push({ pos: a0.pos, message: `invalid ${name} argument` });
          }
        };
        // cel-go evaluates the conversion of the literal
        if ((e.fn === 'duration' || e.fn === 'timestamp') && !e.target && e.args.length === 1)
          check(() => stdlib.functions[e.fn](undefined, [a0.v]), e.fn);
        if (e.fn === 'matches' && typeof a0.v === 'string') check(() => compileRegex(a0.v as string), 'matches');
      }
      if (e.fn === 'format' && e.target?.k === 'lit' && typeof e.target.v === 'string' && a0?.k === 'list')
        formatCheck(e.target.v, a0, typeOf, e.pos, issues);
    }
    const fmt = inFormat || (e.k === 'call' && e.fn === 'format');
    for (const c of children(e)) visit(c, fmt);
  };
  visit(root, false);
  return issues;
}

const CLAUSE: Record<string, { ok: string[]; msg: string }> = {
  s: {
    ok: [
      'string',
      'bool',
      'bytes',
      'int',
      'uint',
      'double',
      'map',
      'list',
      'type',
      'duration',
      'timestamp',
      'null_type',
      'dyn',
    ],
    msg: 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps',
  },
  d: { ok: ['int', 'uint', 'dyn'], msg: 'decimal clause can only be used on integers' },
  f: { ok: ['double', 'string', 'dyn'], msg: 'fixed-point clause can only be used on doubles' },
  e: { ok: ['double', 'string', 'dyn'], msg: 'scientific clause can only be used on doubles' },
  b: { ok: ['int', 'uint', 'bool', 'dyn'], msg: 'only integers and bools can be formatted as binary' },
  x: {
    ok: ['int', 'uint', 'string', 'bytes', 'dyn'],
    msg: 'only integers, byte buffers, and strings can be formatted as hex',
  },
  X: {
    ok: ['int', 'uint', 'string', 'bytes', 'dyn'],
    msg: 'only integers, byte buffers, and strings can be formatted as hex',
  },
  o: { ok: ['int', 'uint', 'dyn'], msg: 'octal clause can only be used on integers' },
};

function formatCheck(
  fmt: string,
  list: Extract<Expr, { k: 'list' }>,
  typeOf: (e: Expr) => CelType,
  pos: number,
  issues: CelIssue[],
): void {
  let n = 0;
  for (let i = 0; i < fmt.length; i++) {
    if (fmt[i] !== '%') continue;
    if (fmt[i + 1] === '%') {
      i++;
      continue;
    }
    let j = i + 1;
    if (fmt[j] === '.') {
      j++;
      while (j < fmt.length && /[0-9]/.test(fmt[j])) j++;
    }
    const verb = fmt[j];
    const arg = list.elems[n];
    if (arg === undefined) {
      issues.push({ pos, message: `index ${n} out of range` });
      return;
    }
    const c = verb === undefined ? undefined : CLAUSE[verb];
    if (!c) {
      issues.push({
        pos,
        message: `could not parse formatting clause: unrecognized formatting clause "${verb ?? ''}"`,
      });
      return;
    }
    const t = typeOf(arg);
    const k = t.k === 'opaque' || t.k === 'object' ? 'other' : t.k;
    if (!c.ok.includes(k)) {
      issues.push({ pos: arg.pos, message: `error during formatting: ${c.msg}, was given ${typeString(t)}` });
      return;
    }
    n++;
    i = j;
  }
  if (list.elems.length > n)
    issues.push({
      pos,
      message: `too many arguments supplied to string.format (expected ${n}, got ${list.elems.length})`,
    });
}
