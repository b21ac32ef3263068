// Our CEL evaluator: compiles the AST of ./syntax.ts (already type-checked) into JS closures over a
// slot frame (self, oldSelf, then comprehension variables). Errors are exceptions, except where CEL
// absorbs them (`&&`, `||`, the macros' loop condition), where they travel as ErrVal. Lists typed
// x-kubernetes-list-type set/map keep that kind through `+` (set union, map merge by key).
// Every step is metered as cel-go meters it (./runtime-cost.ts): identifiers, selections and
// indexes 1, calls their CallCost, list and map literals 10 and 30; a cost-limit error is never
// absorbed.
import type { Expr } from './syntax.js';
import type { CelLibrary, CelFn, Value } from './value.js';
import {
  CelEvalError,
  Duration,
  LiteralMap,
  Optional,
  Timestamp,
  TypeValue,
  Uint,
  celCompare,
  celEquals,
  checkInt,
  checkUint,
  concatLists,
  isMap,
  keyText,
  noOverload,
  NoOverloadError,
  typeName,
} from './value.js';
import { overloads } from './decls.js';
import { callCost, CelCostLimitError, charge } from './runtime-cost.js';
import { checkTimestamp } from './time.js';

/** A compiled expression: evaluates against a frame whose slot 0 is `self` and 1 is `oldSelf`. */
export type Eval = (frame: Value[]) => Value;

/** An error carried as a value through a comprehension accumulator. */
class ErrVal {
  /** @param err the evaluation error */
  constructor(readonly err: unknown) {}
}

interface Scope {
  names: Map<string, number>;
}

/** What compiling produced: the closure and the frame size it needs, or the unknown names. */
export interface Compiled {
  eval: Eval;
  frameSize: number;
  usesOldSelf: boolean;
  unknown: string[];
}

/** Variables other than self/oldSelf, bound by name (the conformance tests' bindings). */
export type ExtraVars = readonly string[];

function tryEval(e: Eval, f: Value[]): Value | ErrVal {
  try {
    return e(f);
  } catch (err) {
    if (err instanceof CelCostLimitError) throw err;
    return new ErrVal(err);
  }
}

/** `fn` applied to the evaluated arguments, charged its call cost (a member's target is the first argument). */
function metered(name: string, fn: (args: Value[]) => Value): (args: Value[]) => Value {
  return (args) => {
    const r = fn(args);
    charge(callCost(name, args, r, typeName));
    return r;
  };
}

/** A literal list or map of literals: cel-go folds it into a constant (no cost). */
function isConstant(e: Expr): boolean {
  if (e.k === 'lit') return true;
  if (e.k === 'list') return !e.optional.some((o) => o) && e.elems.every(isConstant);
  if (e.k === 'map') return e.entries.every((x) => !x.optional && isConstant(x.key) && isConstant(x.value));
  return false;
}

function add(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a + b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return concatLists(a, b);
  if (a instanceof Uint && b instanceof Uint) return checkUint(a.v + b.v);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }
  if (a instanceof Duration && b instanceof Duration) return new Duration(checkInt(a.ns + b.ns));
  if (a instanceof Timestamp && b instanceof Duration) return checkTimestamp(new Timestamp(a.ns + b.ns, a.offset));
  if (a instanceof Duration && b instanceof Timestamp) return checkTimestamp(new Timestamp(a.ns + b.ns, b.offset));
  return noOverload('_+_', a, b);
}

function sub(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a - b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof Uint && b instanceof Uint) return checkUint(a.v - b.v);
  if (a instanceof Duration && b instanceof Duration) return new Duration(checkInt(a.ns - b.ns));
  if (a instanceof Timestamp && b instanceof Duration) return checkTimestamp(new Timestamp(a.ns - b.ns, a.offset));
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
    if (a === -(1n << 63n) && b === -1n) throw new CelEvalError('integer overflow');
    return a % b;
  }
  if (a instanceof Uint && b instanceof Uint) {
    if (b.v === 0n) throw new CelEvalError('modulus by zero');
    return new Uint(a.v % b.v);
  }
  return noOverload('_%_', a, b);
}

function listIndex(c: Value[], i: Value): number | undefined {
  let n: bigint;
  if (typeof i === 'bigint') n = i;
  else if (i instanceof Uint) n = i.v;
  else if (typeof i === 'number') {
    if (!Number.isInteger(i)) throw new CelEvalError(`unsupported index value ${i} in list`);
    n = BigInt(i);
  } else return noOverload('_[_]', c, i);
  if (n < 0n || n >= BigInt(c.length)) return undefined;
  return Number(n);
}

function index(c: Value, i: Value): Value {
  if (Array.isArray(c)) {
    const n = listIndex(c, i);
    // listIndex takes only int, uint and double indexes
    if (n === undefined)
      throw new CelEvalError(`index out of bounds: ${i instanceof Uint ? i.v : (i as bigint | number)}`);
    return c[n]!;
  }
  if (isMap(c)) {
    const v = c.get(i);
    if (v === undefined) throw new CelEvalError(`no such key: ${keyText(i)}`);
    return v;
  }
  if (c instanceof Optional) return c.value === undefined ? c : optIndex(c.value, i);
  return noOverload('_[_]', c, i);
}

function optIndex(c: Value, i: Value): Optional {
  if (c instanceof Optional) return c.value === undefined ? c : optIndex(c.value, i);
  if (Array.isArray(c)) {
    const n = listIndex(c, i);
    return new Optional(n === undefined ? undefined : c[n]!);
  }
  if (isMap(c)) return new Optional(c.get(i));
  return noOverload('_[?_]', c, i);
}

function optSelect(c: Value, field: string): Optional {
  if (c instanceof Optional) return c.value === undefined ? c : optSelect(c.value, field);
  if (isMap(c)) return new Optional(c.get(field));
  return noOverload('_?._', c);
}

function inOp(x: Value, c: Value): boolean {
  if (Array.isArray(c)) return c.some((v) => celEquals(v, x));
  if (isMap(c)) return c.has(x);
  return noOverload('@in', x, c);
}

/** The operands of a chain of the same logical operator: `a && (b && c)` → [a, b, c]. */
function flatten(e: Expr, fn: string): Expr[] {
  if (e.k === 'call' && e.fn === fn && !e.target) return e.args.flatMap((a) => flatten(a, fn));
  return [e];
}

function asBool(v: Value, op: string): boolean {
  return typeof v === 'boolean' ? v : noOverload(op, v);
}

function qualified(e: Expr): string | undefined {
  if (e.k === 'ident') return e.name.replace(/^\./, '');
  if (e.k === 'select' && !e.test) {
    const q = qualified(e.operand);
    return q === undefined ? undefined : `${q}.${e.field}`;
  }
  return undefined;
}

function rootName(e: Expr): string | undefined {
  while (e.k === 'select') e = e.operand;
  return e.k === 'ident' ? e.name : undefined;
}

/** Compiles a checked expression against a library (name → implementation). */
export function compileAst(
  root: Expr,
  lib: CelLibrary,
  typeIdents: ReadonlyMap<string, TypeValue>,
  extra: ExtraVars = [],
): Compiled {
  const unknown = new Set<string>();
  let usesOldSelf = false;
  const size = { n: 2 + extra.length };

  const fail = (name: string): Eval => {
    unknown.add(name);
    return () => {
      throw new CelEvalError(`undeclared reference to '${name}'`);
    };
  };

  const compile = (expr: Expr, scope: Scope): Eval => {
    switch (expr.k) {
      case 'lit': {
        const v = expr.v;
        return () => v;
      }
      case 'ident': {
        const name = expr.name.replace(/^\./, '');
        const slot = scope.names.get(name);
        if (slot !== undefined) {
          if (slot === 1) usesOldSelf = true;
          return (f) => {
            charge(1);
            const v = f[slot] as Value | ErrVal;
            if (v instanceof ErrVal) throw v.err;
            return v;
          };
        }
        const t = typeIdents.get(name);
        if (t) return () => t;
        return fail(name);
      }
      case 'select': {
        const root = rootName(expr);
        if (!expr.test && root !== undefined && !scope.names.has(root.replace(/^\./, ''))) {
          const q = qualified(expr);
          const t = q !== undefined ? typeIdents.get(q) : undefined;
          if (t) return () => t;
        }
        const operand = compile(expr.operand, scope);
        const field = expr.field;
        if (expr.test) {
          const has = (v: Value): boolean => {
            if (isMap(v)) return v.get(field) !== undefined;
            if (v instanceof Optional) return v.value !== undefined && has(v.value);
            return noOverload('has', v);
          };
          // a presence test costs nothing more (Kubernetes: PresenceTestHasCost(false))
          return (f) => has(operand(f));
        }
        return (f) => {
          const v = operand(f);
          charge(1);
          if (isMap(v)) {
            const r = v.get(field);
            if (r === undefined) throw new CelEvalError(`no such key: ${field}`);
            return r;
          }
          if (v instanceof Optional) return v.value === undefined ? v : optSelect(v.value, field);
          return noOverload(`.${field}`, v);
        };
      }
      case 'list': {
        const els = expr.elems.map((e) => compile(e, scope));
        if (isConstant(expr)) return (f) => els.map((e) => e(f));
        if (expr.optional.some((o) => o)) {
          const opt = expr.optional;
          return (f) => {
            const out: Value[] = [];
            els.forEach((e, i) => {
              const v = e(f);
              if (!opt[i]) out.push(v);
              else if (v instanceof Optional) {
                if (v.value !== undefined) out.push(v.value);
              } else noOverload('optional list element', v);
            });
            charge(10);
            return out;
          };
        }
        return (f) => {
          const out = els.map((e) => e(f));
          charge(10);
          return out;
        };
      }
      case 'map': {
        const entries = expr.entries.map((e) => [compile(e.key, scope), compile(e.value, scope), e.optional] as const);
        const constant = isConstant(expr);
        return (f) => {
          const out: [Value, Value][] = [];
          for (const [kk, vv, opt] of entries) {
            const k = kk(f);
            const v = vv(f);
            if (!opt) out.push([k, v]);
            else if (v instanceof Optional) {
              if (v.value !== undefined) out.push([k, v.value]);
            } else noOverload('optional map entry', v);
          }
          if (!constant) charge(30);
          return new LiteralMap(out);
        };
      }
      case 'struct':
        return fail(expr.name);
      case 'comp':
        return compileComprehension(expr, scope);
      case 'call':
        return compileCall(expr, scope);
    }
  };

  /** n-ary `&&` / `||` over the flattened chain: the deciding value wins, else the first error. */
  const compileLogic = (call: Extract<Expr, { k: 'call' }>, scope: Scope): Eval => {
    const fn = call.fn;
    const decide = fn === '_||_';
    const ops = flatten(call, fn).map((e) => compile(e, scope));
    return (f) => {
      let first: { error: unknown } | undefined;
      for (const op of ops) {
        let v: Value;
        try {
          v = op(f);
        } catch (e) {
          if (e instanceof CelCostLimitError) throw e;
          first ??= { error: e };
          continue;
        }
        if (v === decide) return decide;
        if (v !== !decide) first ??= { error: new CelEvalError(`no such overload: ${fn}`) };
      }
      if (first) throw first.error;
      return !decide;
    };
  };

  const compileComprehension = (c: Extract<Expr, { k: 'comp' }>, scope: Scope): Eval => {
    const range = compile(c.range, scope);
    const init = compile(c.init, scope);
    const inner: Scope = { names: new Map(scope.names) };
    const accuSlot = size.n++;
    inner.names.set(c.accuVar, accuSlot);
    const iterSlot = size.n++;
    inner.names.set(c.iterVar, iterSlot);
    const iter2 = c.iterVar2;
    const iter2Slot = iter2 !== undefined ? size.n++ : -1;
    if (iter2 !== undefined) inner.names.set(iter2, iter2Slot);
    const cond = compile(c.cond, inner);
    const step = compile(c.step, inner);
    const resultScope: Scope = { names: new Map(scope.names) };
    resultScope.names.set(c.accuVar, accuSlot);
    const result = compile(c.result, resultScope);
    return (f) => {
      const r = range(f);
      let items: Value[];
      let values: Value[] | undefined;
      if (Array.isArray(r)) {
        items = r;
      } else if (isMap(r)) {
        items = r.keys();
        if (iter2 !== undefined) values = items.map((key) => r.get(key)!);
      } else return noOverload('comprehension', r);
      let accu: Value | ErrVal = init(f);
      for (let i = 0; i < items.length; i++) {
        f[accuSlot] = accu as Value;
        if (iter2 !== undefined) {
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

  const compileCall = (call: Extract<Expr, { k: 'call' }>, scope: Scope): Eval => {
    const fn = call.fn;
    const arity = (name: string, member: boolean): boolean => {
      const o = overloads(name);
      return !o || o.some((x) => x.member === member && x.params.length === call.args.length + (member ? 1 : 0));
    };
    const noArity =
      (name: string): Eval =>
      () => {
        throw new NoOverloadError(
          `no such overload: ${name} with ${call.args.length} argument${call.args.length === 1 ? '' : 's'}`,
        );
      };
    if (fn === '_&&_' || fn === '_||_') return compileLogic(call, scope);
    if (fn === '_?._') {
      const operand = compile(call.args[0], scope);
      const field = (call.args[1] as { v: string }).v;
      return (f) => {
        const v = optSelect(operand(f), field);
        charge(1);
        return v;
      };
    }
    const args = call.args.map((a) => compile(a, scope));
    const cost = (r: Value, ...xs: Value[]): Value => {
      charge(callCost(fn, xs, r, typeName));
      return r;
    };
    const [a0, a1, a2] = args as [Eval, Eval, Eval];
    if (!call.target) {
      switch (fn) {
        case '@not_strictly_false':
          return (f) => {
            const r = tryEval(a0, f) !== false;
            charge(1);
            return r;
          };
        case '_?_:_':
          return (f) => (asBool(a0(f), '_?_:_') ? a1(f) : a2(f));
        case '!_':
          return (f) => cost(!asBool(a0(f), '!_'));
        case '-_':
          return (f) => {
            const v = a0(f);
            charge(1);
            if (typeof v === 'bigint') return checkInt(-v);
            if (typeof v === 'number') return -v;
            return noOverload('-_', v);
          };
        case '_==_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(celEquals(a, b), a, b);
          };
        case '_!=_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(!celEquals(a, b), a, b);
          };
        case '_<_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(celCompare(a, b, fn) < 0, a, b);
          };
        case '_<=_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(celCompare(a, b, fn) <= 0, a, b);
          };
        case '_>_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(celCompare(a, b, fn) > 0, a, b);
          };
        case '_>=_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(celCompare(a, b, fn) >= 0, a, b);
          };
        case '_+_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(add(a, b), a, b);
          };
        case '_-_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(sub(a, b), a, b);
          };
        case '_*_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(mul(a, b), a, b);
          };
        case '_/_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(div(a, b), a, b);
          };
        case '_%_':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(mod(a, b), a, b);
          };
        case '@in':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(inOp(a, b), a, b);
          };
        case '_[_]':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(index(a, b), a, b);
          };
        case '_[?_]':
          return (f) => {
            const a = a0(f);
            const b = a1(f);
            return cost(optIndex(a, b), a, b);
          };
      }
    }
    if (call.target) {
      const t = call.target;
      // namespaced global function: `strings.quote(x)` parses as a method on an unbound identifier
      const root = rootName(t);
      if (root !== undefined && !scope.names.has(root.replace(/^\./, ''))) {
        const q = qualified(t);
        const g = q !== undefined ? lib.functions[`${q}.${fn}`] : undefined;
        if (g) {
          const run = metered(`${q}.${fn}`, (xs) => g(undefined, xs));
          return arity(`${q}.${fn}`, false) ? (f) => run(args.map((a) => a(f))) : noArity(`${q}.${fn}`);
        }
        if (q !== undefined && !typeIdents.has(q)) return fail(`${q}.${fn}`);
      }
      const m: CelFn | undefined = lib.methods[fn];
      if (!m) return fail(fn);
      if (!arity(fn, true)) return noArity(fn);
      const target = compile(t, scope);
      const run = metered(fn, (xs) => m(xs[0], xs.slice(1)));
      if (args.length === 0) return (f) => run([target(f)]);
      if (args.length === 1) return (f) => run([target(f), a0(f)]);
      return (f) => run([target(f), ...args.map((a) => a(f))]);
    }
    const g: CelFn | undefined = lib.functions[fn];
    if (!g) return fail(fn);
    if (!arity(fn, false)) return noArity(fn);
    const run = metered(fn, (xs) => g(undefined, xs));
    if (args.length === 1) return (f) => run([a0(f)]);
    return (f) => run(args.map((a) => a(f)));
  };

  const scope: Scope = {
    names: new Map([['self', 0], ['oldSelf', 1], ...extra.map((n, i) => [n, 2 + i] as [string, number])]),
  };
  const ev = compile(root, scope);
  return { eval: ev, frameSize: size.n, usesOldSelf, unknown: [...unknown].sort() };
}

export { typeName };
