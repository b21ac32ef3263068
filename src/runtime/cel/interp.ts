// Our CEL evaluator: compiles the AST from @bufbuild/cel's parser into JS closures over a slot frame
// (self, oldSelf, then comprehension variables). Errors are exceptions, except where CEL absorbs
// them (`&&`, `||`, the macros' loop condition), where they travel as ErrVal.
import type { CelLibrary, CelFn, Value } from './value.js';
import {
  CelEvalError,
  Duration,
  LiteralMap,
  Timestamp,
  Uint,
  celCompare,
  celEquals,
  checkInt,
  checkUint,
  isMap,
  noOverload,
} from './value.js';
import { typeIdents } from './stdlib.js';

/** A compiled expression: evaluates against a frame whose slot 0 is `self` and 1 is `oldSelf`. */
export type Eval = (frame: Value[]) => Value;

/** An error carried as a value through a comprehension accumulator. */
class ErrVal {
  /** @param err the evaluation error */
  constructor(readonly err: unknown) {}
}

interface Expr {
  exprKind: { case?: string; value?: unknown };
}

interface Scope {
  names: Map<string, number>;
  size: { n: number };
}

/** What compiling produced: the closure and the frame size it needs, or the unknown names. */
export interface Compiled {
  eval: Eval;
  frameSize: number;
  usesOldSelf: boolean;
  unknown: string[];
}

const OPERATORS = new Set([
  '_&&_', '_||_', '_?_:_', '!_', '-_', '_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_',
  '_+_', '_-_', '_*_', '_/_', '_%_', '@in', '_[_]', '@not_strictly_false',
]);

function tryEval(e: Eval, f: Value[]): Value | ErrVal {
  try {
    return e(f);
  } catch (err) {
    return new ErrVal(err);
  }
}

function add(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a + b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return a.concat(b);
  if (a instanceof Uint && b instanceof Uint) return checkUint(a.v + b.v);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }
  if (a instanceof Duration && b instanceof Duration) return new Duration(checkInt(a.ns + b.ns));
  if (a instanceof Timestamp && b instanceof Duration) return new Timestamp(a.ns + b.ns);
  if (a instanceof Duration && b instanceof Timestamp) return new Timestamp(a.ns + b.ns);
  return noOverload('_+_', a, b);
}

function sub(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a - b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof Uint && b instanceof Uint) return checkUint(a.v - b.v);
  if (a instanceof Duration && b instanceof Duration) return new Duration(checkInt(a.ns - b.ns));
  if (a instanceof Timestamp && b instanceof Duration) return new Timestamp(a.ns - b.ns);
  if (a instanceof Timestamp && b instanceof Timestamp) return new Duration(checkInt(a.ns - b.ns));
  return noOverload('_-_', a, b);
}

function mul(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a * b);
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (a instanceof Uint && b instanceof Uint) return checkUint(a.v * b.v);
  return noOverload('_*_', a, b);
}

function div(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) throw new CelEvalError('division by zero');
    return checkInt(a / b);
  }
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  if (a instanceof Uint && b instanceof Uint) {
    if (b.v === 0n) throw new CelEvalError('division by zero');
    return new Uint(a.v / b.v);
  }
  return noOverload('_/_', a, b);
}

function mod(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) throw new CelEvalError('modulus by zero');
    return a % b;
  }
  if (a instanceof Uint && b instanceof Uint) {
    if (b.v === 0n) throw new CelEvalError('modulus by zero');
    return new Uint(a.v % b.v);
  }
  return noOverload('_%_', a, b);
}

function index(c: Value, i: Value): Value {
  if (Array.isArray(c)) {
    let n: bigint;
    if (typeof i === 'bigint') n = i;
    else if (i instanceof Uint) n = i.v;
    else if (typeof i === 'number' && Number.isInteger(i)) n = BigInt(i);
    else return noOverload('_[_]', c, i);
    if (n < 0n || n >= BigInt(c.length)) throw new CelEvalError(`index out of bounds: ${n}`);
    return c[Number(n)]!;
  }
  if (isMap(c)) {
    const v = c.get(i);
    if (v === undefined) throw new CelEvalError(`no such key: ${typeof i === 'string' ? i : String(i)}`);
    return v;
  }
  return noOverload('_[_]', c, i);
}

function inOp(x: Value, c: Value): boolean {
  if (Array.isArray(c)) return c.some((v) => celEquals(v, x));
  if (isMap(c)) return c.has(x);
  return noOverload('@in', x, c);
}

/** The operands of a chain of the same logical operator: `a && (b && c)` → [a, b, c]. */
function flatten(call: { function: string; args: Expr[] }, fn: string): Expr[] {
  const out: Expr[] = [];
  for (const a of call.args) {
    const k = a.exprKind;
    if (k.case === 'callExpr' && (k.value as { function: string }).function === fn) out.push(...flatten(k.value as { function: string; args: Expr[] }, fn));
    else out.push(a);
  }
  return out;
}

function asBool(v: Value, op: string): boolean {
  return typeof v === 'boolean' ? v : noOverload(op, v);
}

/** Compiles a parsed expression against a library (name → implementation). */
export function compileAst(root: unknown, lib: CelLibrary): Compiled {
  const unknown = new Set<string>();
  let usesOldSelf = false;
  const size = { n: 2 };

  const compile = (expr: Expr, scope: Scope): Eval => {
    const k = expr.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = (k.value as { constantKind: { case: string; value: unknown } }).constantKind;
        let v: Value;
        switch (c.case) {
          case 'int64Value': v = c.value as bigint; break;
          case 'uint64Value': v = new Uint(c.value as bigint); break;
          case 'doubleValue': v = c.value as number; break;
          case 'stringValue': v = c.value as string; break;
          case 'boolValue': v = c.value as boolean; break;
          case 'bytesValue': v = c.value as Uint8Array; break;
          case 'nullValue': v = null; break;
          default: throw new CelEvalError(`unsupported constant ${c.case}`);
        }
        return () => v;
      }
      case 'identExpr': {
        const name = (k.value as { name: string }).name;
        const slot = scope.names.get(name);
        if (slot !== undefined) {
          if (slot === 1) usesOldSelf = true;
          return (f) => {
            const v = f[slot] as Value | ErrVal;
            if (v instanceof ErrVal) throw v.err;
            return v;
          };
        }
        const t = typeIdents.get(name);
        if (t) return () => t;
        unknown.add(name);
        return () => {
          throw new CelEvalError(`undeclared reference to '${name}'`);
        };
      }
      case 'selectExpr': {
        const s = k.value as { operand: Expr; field: string; testOnly: boolean };
        const operand = compile(s.operand, scope);
        const field = s.field;
        if (s.testOnly) {
          return (f) => {
            const v = operand(f);
            if (isMap(v)) return v.has(field);
            return noOverload('has', v);
          };
        }
        return (f) => {
          const v = operand(f);
          if (isMap(v)) {
            const r = v.get(field);
            if (r === undefined) throw new CelEvalError(`no such key: ${field}`);
            return r;
          }
          return noOverload(`.${field}`, v);
        };
      }
      case 'listExpr': {
        const els = (k.value as { elements: Expr[] }).elements.map((e) => compile(e, scope));
        return (f) => els.map((e) => e(f));
      }
      case 'structExpr': {
        const s = k.value as { messageName: string; entries: { keyKind: { case: string; value: unknown }; value: Expr }[] };
        if (s.messageName) {
          unknown.add(s.messageName);
          return () => {
            throw new CelEvalError(`message construction is not supported: ${s.messageName}`);
          };
        }
        const entries = s.entries.map((e) => [compile(e.keyKind.value as Expr, scope), compile(e.value, scope)] as const);
        return (f) => new LiteralMap(entries.map(([kk, vv]) => [kk(f), vv(f)]));
      }
      case 'comprehensionExpr':
        return compileComprehension(k.value as Record<string, unknown>, scope);
      case 'callExpr':
        return compileCall(k.value as { function: string; target?: Expr; args: Expr[] }, scope);
    }
    throw new CelEvalError(`unsupported expression ${k.case ?? '(empty)'}`);
  };

  /** n-ary `&&` / `||` over the flattened chain: the deciding value wins, else the first error. */
  const compileLogic = (call: { function: string; args: Expr[] }, scope: Scope): Eval => {
    const fn = call.function;
    const decide = fn === '_||_';
    const ops = flatten(call, fn).map((e) => compile(e, scope));
    return (f) => {
      let err: unknown;
      for (const op of ops) {
        let v: Value;
        try {
          v = op(f);
        } catch (e) {
          err ??= e;
          continue;
        }
        if (v === decide) return decide;
        if (v !== !decide) err ??= new CelEvalError(`no such overload: ${fn}`);
      }
      if (err !== undefined) throw err;
      return !decide;
    };
  };

  const compileComprehension = (c: Record<string, unknown>, scope: Scope): Eval => {
    const range = compile(c.iterRange as Expr, scope);
    const init = compile(c.accuInit as Expr, scope);
    const inner: Scope = { names: new Map(scope.names), size: scope.size };
    const iterSlot = size.n++;
    inner.names.set(c.iterVar as string, iterSlot);
    const iter2 = c.iterVar2 as string;
    const iter2Slot = iter2 ? size.n++ : -1;
    if (iter2) inner.names.set(iter2, iter2Slot);
    const accuSlot = size.n++;
    inner.names.set(c.accuVar as string, accuSlot);
    const cond = compile(c.loopCondition as Expr, inner);
    const step = compile(c.loopStep as Expr, inner);
    const result = compile(c.result as Expr, inner);
    return (f) => {
      const r = range(f);
      let items: Value[];
      let values: Value[] | undefined;
      if (Array.isArray(r)) {
        items = r;
      } else if (isMap(r)) {
        items = r.keys();
        if (iter2) values = items.map((key) => r.get(key)!);
      } else return noOverload('comprehension', r);
      let accu: Value | ErrVal = init(f);
      for (let i = 0; i < items.length; i++) {
        f[accuSlot] = accu as Value;
        if (iter2) {
          if (values) {
            f[iterSlot] = items[i]!;
            f[iter2Slot] = values[i]!;
          } else {
            f[iterSlot] = BigInt(i);
            f[iter2Slot] = items[i]!;
          }
        } else f[iterSlot] = items[i]!;
        const go = cond(f);
        if (go === false) break;
        if (go !== true) return noOverload('loop condition', go);
        accu = tryEval(step, f);
      }
      f[accuSlot] = accu as Value;
      return result(f);
    };
  };

  const compileCall = (call: { function: string; target?: Expr; args: Expr[] }, scope: Scope): Eval => {
    const fn = call.function;
    if (fn === '_&&_' || fn === '_||_') return compileLogic(call, scope);
    const args = call.args.map((a) => compile(a, scope));
    const [a0, a1, a2] = args as [Eval, Eval, Eval];
    if (OPERATORS.has(fn)) {
      switch (fn) {
        case '@not_strictly_false':
          return (f) => tryEval(a0, f) !== false;
        case '_?_:_':
          return (f) => (asBool(a0(f), '_?_:_') ? a1(f) : a2(f));
        case '!_':
          return (f) => !asBool(a0(f), '!_');
        case '-_':
          return (f) => {
            const v = a0(f);
            if (typeof v === 'bigint') return checkInt(-v);
            if (typeof v === 'number') return -v;
            if (v instanceof Duration) return new Duration(-v.ns);
            return noOverload('-_', v);
          };
        case '_==_': return (f) => celEquals(a0(f), a1(f));
        case '_!=_': return (f) => !celEquals(a0(f), a1(f));
        case '_<_': return (f) => celCompare(a0(f), a1(f), fn) < 0;
        case '_<=_': return (f) => celCompare(a0(f), a1(f), fn) <= 0;
        case '_>_': return (f) => celCompare(a0(f), a1(f), fn) > 0;
        case '_>=_': return (f) => celCompare(a0(f), a1(f), fn) >= 0;
        case '_+_': return (f) => add(a0(f), a1(f));
        case '_-_': return (f) => sub(a0(f), a1(f));
        case '_*_': return (f) => mul(a0(f), a1(f));
        case '_/_': return (f) => div(a0(f), a1(f));
        case '_%_': return (f) => mod(a0(f), a1(f));
        case '@in': return (f) => inOp(a0(f), a1(f));
        case '_[_]': return (f) => index(a0(f), a1(f));
      }
    }
    if (call.target) {
      const t = call.target;
      // namespaced global function: `strings.quote(x)` parses as a method on an unbound identifier
      if (t.exprKind.case === 'identExpr') {
        const ns = (t.exprKind.value as { name: string }).name;
        const g = lib.functions[`${ns}.${fn}`];
        if (!scope.names.has(ns) && !typeIdents.has(ns)) {
          if (g) return (f) => g(undefined, args.map((a) => a(f)));
          unknown.add(`${ns}.${fn}`);
          return () => {
            throw new CelEvalError(`undeclared reference to '${ns}.${fn}'`);
          };
        }
      }
      const m: CelFn | undefined = lib.methods[fn];
      if (!m) {
        unknown.add(fn);
        return () => {
          throw new CelEvalError(`undeclared reference to '${fn}'`);
        };
      }
      const target = compile(t, scope);
      if (args.length === 0) return (f) => m(target(f), []);
      if (args.length === 1) return (f) => m(target(f), [a0(f)]);
      return (f) => m(target(f), args.map((a) => a(f)));
    }
    const g: CelFn | undefined = lib.functions[fn];
    if (!g) {
      unknown.add(fn);
      return () => {
        throw new CelEvalError(`undeclared reference to '${fn}'`);
      };
    }
    if (args.length === 1) return (f) => g(undefined, [a0(f)]);
    return (f) => g(undefined, args.map((a) => a(f)));
  };

  const scope: Scope = { names: new Map([['self', 0], ['oldSelf', 1]]), size };
  const ev = compile(root as Expr, scope);
  return { eval: ev, frameSize: size.n, usesOldSelf, unknown: [...unknown].sort() };
}

