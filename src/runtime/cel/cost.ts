// The static cost estimate with which the apiserver refuses too-expensive rules at CRD create, as
// Kubernetes 1.37 computes it: cel-go's checker cost model (checker/cost.go of cel-go v0.29) with
// the overload estimators of the libraries in Kubernetes' environment (cel-go ext lists v3 and
// sets) and Kubernetes' library estimator (k8s.io/apiserver pkg/cel/library/cost.go), whose size
// estimator walks the schema's CEL types (apiextensions' sizeEstimator). Written from those
// sources' rules, node by node:
// - literals cost 0, identifiers and field selections on maps/objects 1, presence tests 0
//   (PresenceTestHasCost(false)), list literals 10, map literals 30;
// - a call costs what its overload's estimator says (the Kubernetes estimator, by function name,
//   after the libraries' per-overload estimators), else cel-go's built-in rule for the overload,
//   else 1, plus its arguments; over several matching overloads, the union;
// - a comprehension costs its range and init, plus the range's size times its loop step and
//   condition;
// - sizes come from literals, from results of sized calls, from the schema along a node's path
//   (whose first element, a variable or any other identifier, stands for the rule's own node),
//   and are 1 for scalar types; unknown otherwise (0 … 2^64-1).
// Limits (Kubernetes 1.37): 10,000,000 per rule (StaticEstimatedCostLimit) and 100,000,000 for a
// CRD (StaticEstimatedCRDCostLimit) at create; at run time 1,000,000 per evaluation (PerCallLimit)
// and 10,000,000 per object (RuntimeCELCostBudget).
import type { Checked } from './checker.js';
import { objectField } from './checker.js';
import type { Overload } from './decls.js';
import { MAX_REQUEST_SIZE_BYTES, sizeOf } from './schema-types.js';
import { ACCU, type Expr } from './syntax.js';
import { sameType, type CelType } from './types.js';
import { Uint } from './value.js';

/** Kubernetes' per-rule limit on the estimated cost (apiextensions StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' limit on the whole CRD's estimated rule cost (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Kubernetes' per-evaluation runtime cost limit (PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Kubernetes' runtime cost budget for one object's validation (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

/** math.MaxUint64, as the closest double (every comparison here is far below its precision). */
export const MAX_UINT64 = 2 ** 64;

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
const STRUCT_CREATE = 40;
/** Kubernetes' limits on a named format (apiserver pkg/cel/limits.go). */
const MAX_FORMAT_SIZE = 64;
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

/** A range of sizes or costs (cel-go's SizeEstimate / CostEstimate: unsigned, saturating). */
export interface Range {
  min: number;
  max: number;
}

const sat = (x: number): number => (x >= MAX_UINT64 ? MAX_UINT64 : x);
const addU = (x: number, y: number): number => sat(x + y);
const mulU = (x: number, y: number): number => (x === 0 || y === 0 ? 0 : sat(x * y));
function byFactor(x: number, f: number): number {
  if (x > 0 && f > 0 && x > MAX_UINT64 / f) return MAX_UINT64;
  return sat(Math.ceil(x * f));
}
const fixed = (n: number): Range => ({ min: n, max: n });
const UNKNOWN: Range = { min: 0, max: MAX_UINT64 };
const add = (a: Range, b: Range): Range => ({ min: addU(a.min, b.min), max: addU(a.max, b.max) });
const mul = (a: Range, b: Range): Range => ({ min: mulU(a.min, b.min), max: mulU(a.max, b.max) });
const factor = (a: Range, f: number): Range => ({ min: byFactor(a.min, f), max: byFactor(a.max, f) });
const union = (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
/** Go's uint64 subtraction (wraps below zero). */
const subU = (a: number, b: number): number => (a >= b ? a - b : MAX_UINT64 - (b - a));

interface Entry {
  container: 'list' | 'map';
  key: Range;
  val: Range;
}

interface LocalVar {
  path: string[] | undefined;
  size: Range | undefined;
  entry: Entry | undefined;
}

/** What an estimator sees of a node (cel-go's AstNode). */
interface AstNode {
  path: string[] | undefined;
  type: CelType;
  expr: Expr | undefined;
  computed: Range | undefined;
}

interface CallEstimate {
  cost: Range;
  result?: Range;
}

const isAccumulator = (name: string | undefined): boolean => name === ACCU || name === '__result__';

function isScalar(t: CelType): boolean {
  switch (t.k) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && t.params.length === 1 && isScalar(t.params[0]);
  }
  return false;
}

/** The type parameters cel-go reports for a type (list: [elem], map: [key, value], opaque: its params). */
function typeParams(t: CelType): CelType[] {
  switch (t.k) {
    case 'list':
      return [t.elem];
    case 'map':
      return [t.key, t.value];
    case 'opaque':
      return t.params;
    case 'type':
      return [t.of];
  }
  return [];
}

const DYN_T: CelType = { k: 'dyn' };

/**
 * cel-go's overload id for the overloads whose cost its model or an estimator distinguishes;
 * undefined for the others (their cost is the default).
 */
function overloadId(name: string, member: boolean, o: Overload): string | undefined {
  const p = o.params;
  const k0 = p[0]?.k;
  switch (name) {
    case '_[_]':
      return k0 === 'list' ? 'index_list' : k0 === 'map' ? 'index_map' : undefined;
    case '_+_':
      return k0 === 'string' ? 'add_string' : k0 === 'bytes' ? 'add_bytes' : k0 === 'list' ? 'add_list' : undefined;
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_':
      return (k0 === 'string' || k0 === 'bytes') && p[1]?.k === k0 ? `${name}:${k0}` : undefined;
    case '_==_':
      return 'equals';
    case '_!=_':
      return 'not_equals';
    case '@in':
      return p[1]?.k === 'list' ? 'in_list' : undefined;
    case 'matches':
      return member ? 'matches_string' : 'matches';
    case 'contains':
      return member && k0 === 'string' ? 'contains_string' : undefined;
    case 'startsWith':
    case 'endsWith':
      return member && k0 === 'string' ? 'starts_ends_with_string' : undefined;
    case 'format':
      return member && k0 === 'string' ? 'string_format' : undefined;
    case 'bytes':
      return !member && k0 === 'string' ? 'string_to_bytes' : undefined;
    case 'string':
      return !member && k0 === 'bytes' ? 'bytes_to_string' : undefined;
    case 'strings.quote':
      return 'strings_quote';
    case '_&&_':
    case '_||_':
      return 'logical';
    case '_?_:_':
      return 'conditional';
    case 'ip':
      return member ? 'cidr_ip' : undefined;
    case 'containsIP':
      return p[1]?.k === 'string' ? 'cidr_contains_ip_string' : undefined;
    case 'containsCIDR':
      return p[1]?.k === 'string' ? 'cidr_contains_cidr_string' : undefined;
    case 'slice':
      return 'list_slice';
    case 'flatten':
      return 'list_flatten';
    case 'lists.range':
      return 'lists_range';
    case 'reverse':
      return k0 === 'list' ? 'list_reverse' : undefined;
    case 'distinct':
      return 'list_distinct';
    case 'sort':
      return k0 === 'list' ? `list_sort:${(p[0] as { elem: CelType }).elem.k}` : undefined;
    case '@sortByAssociatedKeys':
      return p[1]?.k === 'list' ? `list_sortBy:${(p[1] as { elem: CelType }).elem.k}` : undefined;
    case 'sets.contains':
    case 'sets.intersects':
      return 'sets_1';
    case 'sets.equivalent':
      return 'sets_2';
  }
  return undefined;
}

/**
 * The estimated cost (cel-go's max) of one evaluation of a checked expression, sizes taken from
 * `root` (the CEL type of the rule's node, whose schema sizes schema-types.ts attached).
 */
export function estimateCost(ast: Expr, checked: Checked, root: CelType): number {
  return new Coster(checked, root).cost(ast).max;
}

class Coster {
  private readonly paths = new Map<number, string[]>();
  private readonly sizes = new Map<number, Range>();
  private readonly entries = new Map<number, Entry>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(
    private readonly checked: Checked,
    private readonly root: CelType,
  ) {}

  private typeOf(e: Expr): CelType {
    return this.checked.types.get(e.id) ?? DYN_T;
  }

  private peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s && s.length ? s[s.length - 1] : undefined;
  }

  private push(name: string, v: LocalVar): void {
    const s = this.locals.get(name) ?? [];
    s.push(v);
    this.locals.set(name, s);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private pathOf(e: Expr): string[] | undefined {
    if (e.k === 'ident') {
      const v = this.peek(e.name);
      if (v) return v.path;
    }
    return this.paths.get(e.id);
  }

  /** Kubernetes' size estimator: from the rule's node along the path (its first element skipped). */
  private estimateSize(path: string[] | undefined): Range | undefined {
    if (!path || path.length === 0) return undefined;
    let t: CelType | undefined = this.root;
    for (const seg of path.slice(1)) {
      if (!t) return undefined;
      if (seg === '@items' || seg === '@values') t = t.k === 'list' ? t.elem : t.k === 'map' ? t.value : undefined;
      else if (seg === '@keys') t = t.k === 'map' ? t.key : undefined;
      else t = t.k === 'object' ? objectField(t, seg) : undefined;
    }
    if (!t) return undefined;
    return { min: 0, max: sizeOf(t)?.maxElements ?? 0 };
  }

  private computeSize(e: Expr): Range | undefined {
    const known = this.sizes.get(e.id);
    if (known) return known;
    const lit = exprSize(e);
    if (lit) return lit;
    const est = this.estimateSize(this.pathOf(e));
    if (est) {
      this.sizes.set(e.id, est);
      return est;
    }
    if (isScalar(this.typeOf(e))) return fixed(1);
    if (e.k === 'ident') {
      const v = this.peek(e.name);
      if (v?.size) return v.size;
    }
    return undefined;
  }

  private sizeOr(e: Expr): Range {
    return this.computeSize(e) ?? UNKNOWN;
  }

  private entryOf(e: Expr): Entry | undefined {
    const known = this.entries.get(e.id);
    if (known) return known;
    if (e.k === 'ident') return this.peek(e.name)?.entry;
    return undefined;
  }

  private node(e: Expr): AstNode {
    let path = this.pathOf(e);
    if (path && path.length > 0 && isAccumulator(path[0])) path = undefined;
    return { path, type: this.typeOf(e), expr: e, computed: this.computeSize(e) };
  }

  /** The estimators' size of a node: computed, else from the schema, else unknown. */
  private nodeSize(n: AstNode): Range {
    return n.computed ?? this.estimateSize(n.path) ?? UNKNOWN;
  }

  cost(e: Expr): Range {
    switch (e.k) {
      case 'lit':
        return fixed(0);
      case 'ident': {
        const v = this.peek(e.name);
        if (!v) this.paths.set(e.id, [e.name]);
        else if (v.path) this.paths.set(e.id, [...v.path]);
        else this.paths.delete(e.id);
        return fixed(1);
      }
      case 'select':
        return this.select(e);
      case 'call':
        return this.call(e);
      case 'list': {
        let sum = fixed(0);
        let item: Range = { min: e.elems.length ? MAX_UINT64 : 0, max: 0 };
        for (const x of e.elems) {
          sum = add(sum, this.cost(x));
          item = union(item, this.sizeOr(x));
        }
        this.entries.set(e.id, { container: 'list', key: fixed(1), val: item });
        return add(sum, fixed(LIST_CREATE));
      }
      case 'map': {
        let sum = fixed(0);
        let key: Range = { min: e.entries.length ? MAX_UINT64 : 0, max: 0 };
        let val: Range = { min: e.entries.length ? MAX_UINT64 : 0, max: 0 };
        for (const en of e.entries) {
          sum = add(sum, this.cost(en.key));
          sum = add(sum, this.cost(en.value));
          key = union(key, this.sizeOr(en.key));
          val = union(val, this.sizeOr(en.value));
        }
        this.entries.set(e.id, { container: 'map', key, val });
        return add(sum, fixed(MAP_CREATE));
      }
      case 'struct':
        return add(
          e.fields.reduce((s, f) => add(s, this.cost(f.value)), fixed(0)),
          fixed(STRUCT_CREATE),
        );
      case 'comp':
        return isBind(e) ? this.bind(e) : this.comprehension(e);
    }
  }

  /** A qualified name the checker resolved (`net.IP`, a type): an identifier of that name. */
  private qualifiedIdent(e: Extract<Expr, { k: 'select' }>): string | undefined {
    if (e.test) return undefined;
    const names: string[] = [e.field];
    let cur: Expr = e.operand;
    while (cur.k === 'select' && !cur.test) {
      names.unshift(cur.field);
      cur = cur.operand;
    }
    if (cur.k !== 'ident' || this.peek(cur.name) || this.checked.types.has(cur.id)) return undefined;
    return [cur.name, ...names].join('.');
  }

  private select(e: Extract<Expr, { k: 'select' }>): Range {
    const q = this.qualifiedIdent(e);
    if (q !== undefined) {
      this.paths.set(e.id, [q]);
      return fixed(1);
    }
    if (e.test) return this.cost(e.operand);
    let sum = this.cost(e.operand);
    const k = this.typeOf(e.operand).k;
    if (k === 'map' || k === 'object' || k === 'param') sum = add(sum, fixed(1));
    const base = this.pathOf(e.operand);
    this.paths.set(e.id, [...(base ?? []), e.field]);
    return sum;
  }

  private comprehension(e: Extract<Expr, { k: 'comp' }>): Range {
    let sum = add(this.cost(e.range), this.cost(e.init));
    this.pushLocal(e.accuVar, e.init);
    const entry = this.entryOf(e.range);
    const container = entry?.container ?? (this.typeOf(e.range).k === 'list' ? 'list' : 'map');
    const rpath = this.pathOf(e.range) ?? [];
    if (e.iterVar2 !== undefined) {
      this.push(e.iterVar, {
        path: [...rpath, container === 'list' ? '@indices' : '@keys'],
        size: entry?.key,
        entry: undefined,
      });
      this.push(e.iterVar2, {
        path: [...rpath, container === 'list' ? '@items' : '@values'],
        size: entry?.val,
        entry: undefined,
      });
    } else {
      this.push(e.iterVar, {
        path: [...rpath, container === 'list' ? '@items' : '@keys'],
        size: container === 'list' ? entry?.val : entry?.key,
        entry: undefined,
      });
    }
    const loop = this.cost(e.cond);
    const step = this.cost(e.step);
    this.pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    const n = this.sizeOr(e.range);
    sum = add(sum, mul(n, add(step, loop)));
    if (e.init.k === 'lit') {
      const s = this.computeSize(e.init);
      if (s) this.sizes.set(e.id, s);
    } else if (e.init.k === 'list' || e.init.k === 'map') {
      this.sizes.set(e.id, n);
      const stepEntry = this.entryOf(e.step);
      if (stepEntry) this.entries.set(e.id, stepEntry);
    }
    return sum;
  }

  private bind(e: Extract<Expr, { k: 'comp' }>): Range {
    let sum = add(this.cost(e.range), this.cost(e.init));
    this.pushLocal(e.accuVar, e.init);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    this.copySizes(e, e.result);
    return sum;
  }

  private pushLocal(name: string, init: Expr): void {
    const p = this.pathOf(init);
    this.push(name, { path: p ? [...p] : undefined, size: this.computeSize(init), entry: this.entryOf(init) });
  }

  private copySizes(dst: Expr, src: Expr): void {
    const s = this.computeSize(src);
    if (s) this.sizes.set(dst.id, s);
    const en = this.entryOf(src);
    if (en) this.entries.set(dst.id, en);
  }

  private call(e: Extract<Expr, { k: 'call' }>): Range {
    const matched = this.checked.calls.get(e.id);
    // dyn(x) only turns type checking off: 1 plus its argument
    if (e.fn === 'dyn' && !e.target && e.args.length === 1) {
      const c = this.cost(e.args[0]);
      this.copySizes(e, e.args[0]);
      return add(fixed(1), c);
    }
    const argCosts = e.args.map((a) => this.cost(a));
    const args = e.args.map((a) => this.node(a));
    if (!matched || matched.length === 0) return fixed(0);
    const name = matched[0].name;
    const member = matched[0].member;
    let sum = fixed(0);
    let target: AstNode | undefined;
    // the checker folded a namespace (`sets.contains`) into the name: then there is no receiver
    if (member && e.target) {
      sum = add(sum, this.cost(e.target));
      target = this.node(e.target);
    }
    let fn: Range = { min: MAX_UINT64, max: 0 };
    let result: Range | undefined;
    for (const o of matched) {
      const id = overloadId(name, member, o);
      const oc = this.functionCost(e, name, id, target, args, argCosts);
      fn = union(fn, oc.cost);
      if (oc.result) result = result ? union(result, oc.result) : oc.result;
      if (id === 'index_list' || id === 'index_map') {
        if (e.args.length > 0) {
          const en = this.entryOf(e.args[0]);
          result = en?.val;
          const base = this.pathOf(e.args[0]) ?? [];
          this.paths.set(e.id, [...base, id === 'index_list' ? '@items' : '@values']);
        }
      }
      if (!result) result = this.computeSize(e);
    }
    if (result) this.sizes.set(e.id, result);
    return add(sum, fn);
  }

  private functionCost(
    e: Extract<Expr, { k: 'call' }>,
    name: string,
    id: string | undefined,
    target: AstNode | undefined,
    args: AstNode[],
    argCosts: Range[],
  ): CallEstimate {
    const argSum = (): Range => argCosts.reduce(add, fixed(0));
    const plus = (est: CallEstimate | undefined): CallEstimate | undefined =>
      est ? { cost: add(est.cost, argSum()), ...(est.result ? { result: est.result } : {}) } : undefined;
    const lib = plus(this.libraryEstimate(id, target, args)) ?? plus(this.kubernetesEstimate(name, id, target, args));
    if (lib) return lib;
    switch (id) {
      case 'string_format':
        if (target) return { cost: add(factor(this.nodeSize(target), STRING_TRAVERSAL), argSum()) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const sz = this.nodeSize(args[0]);
          return {
            cost: add(factor(sz, STRING_TRAVERSAL), argSum()),
            result: { min: sz.min, max: mulU(sz.max, 4) },
          };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const sz = this.nodeSize(args[0]);
          return {
            cost: add(factor(sz, STRING_TRAVERSAL), argSum()),
            result: { min: Math.floor(sz.min / 4), max: sz.max },
          };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const sz = this.nodeSize(args[0]);
          return {
            cost: add(factor(sz, STRING_TRAVERSAL), argSum()),
            result: { min: addU(sz.min, 2), max: addU(mulU(sz.max, 2), 2) },
          };
        }
        break;
      case 'starts_ends_with_string':
        if (args.length === 1) return { cost: add(factor(this.nodeSize(args[0]), STRING_TRAVERSAL), argSum()) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: add(factor(this.nodeSize(args[1]), 1), argSum()) };
        break;
      case 'matches':
      case 'matches_string': {
        const str = id === 'matches_string' ? target : args.length === 2 ? args[0] : undefined;
        const re = id === 'matches_string' ? (args.length === 1 ? args[0] : undefined) : args[1];
        if (str && re && (id === 'matches' ? !target : true)) {
          const strCost = factor(add(this.nodeSize(str), fixed(1)), STRING_TRAVERSAL);
          const reCost = factor(this.nodeSize(re), REGEX_LENGTH);
          return { cost: add(mul(strCost, reCost), argSum()) };
        }
        break;
      }
      case 'contains_string':
        if (target && args.length === 1) {
          const a = factor(this.nodeSize(target), STRING_TRAVERSAL);
          const b = factor(this.nodeSize(args[0]), STRING_TRAVERSAL);
          return { cost: add(mul(a, b), argSum()) };
        }
        break;
      case 'logical':
        return { cost: { min: argCosts[0].min, max: add(argCosts[0], argCosts[1]).max } };
      case 'conditional': {
        const size = union(this.nodeSize(args[1]), this.nodeSize(args[2]));
        const a = this.entryOf(e.args[1]);
        const b = this.entryOf(e.args[2]);
        if (a && b)
          this.entries.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
        return { cost: add(argCosts[0], union(argCosts[1], argCosts[2])), result: size };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const result = add(this.nodeSize(args[0]), this.nodeSize(args[1]));
          const a = this.entryOf(e.args[0]);
          const b = this.entryOf(e.args[1]);
          if (a && b)
            this.entries.set(e.id, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
          if (id === 'add_list') return { cost: add(fixed(1), argSum()), result };
          return { cost: add(factor(result, STRING_TRAVERSAL), argSum()), result };
        }
        break;
      case '_<_:string':
      case '_<=_:string':
      case '_>_:string':
      case '_>=_:string':
      case '_<_:bytes':
      case '_<=_:bytes':
      case '_>_:bytes':
      case '_>=_:bytes':
      case 'equals':
      case 'not_equals': {
        const l = this.nodeSize(args[0]);
        const r = this.nodeSize(args[1]);
        const smallest = Math.min(l.max, r.max);
        return { cost: add(factor({ min: smallest > 0 ? 1 : 0, max: smallest }, STRING_TRAVERSAL), argSum()) };
      }
    }
    return { cost: add(fixed(1), argSum()) };
  }

  /** The per-overload estimators of cel-go's ext libraries in Kubernetes' environment (lists v3, sets). */
  private libraryEstimate(
    id: string | undefined,
    target: AstNode | undefined,
    args: AstNode[],
  ): CallEstimate | undefined {
    const listCall = (f: number, size: Range): CallEstimate => ({
      cost: add(add(factor(size, f), fixed(1)), fixed(LIST_CREATE)),
      result: size,
    });
    const uintOf = (n: AstNode, def: number): number => {
      const x = n.expr;
      if (x?.k !== 'lit' || typeof x.v !== 'bigint') return def;
      return x.v < 0n ? 0 : Number(x.v);
    };
    switch (id) {
      case 'list_slice': {
        if (!target || args.length !== 2) return undefined;
        const sz = this.nodeSize(target);
        const start = uintOf(args[0], 0);
        const end = uintOf(args[1], sz.max);
        return listCall(1, fixed(subU(end, start)));
      }
      case 'lists_range':
        if (target || args.length !== 1) return undefined;
        return listCall(1, fixed(uintOf(args[0], MAX_UINT64)));
      case 'list_reverse':
        if (!target || args.length !== 0) return undefined;
        return listCall(1, this.nodeSize(target));
      case 'list_flatten':
        if (!target || args.length > 1) return undefined;
        return listCall(args.length === 1 ? uintOf(args[0], MAX_UINT64) : 1, this.nodeSize(target));
      case 'list_distinct': {
        if (!target || args.length !== 0) return undefined;
        const sz = this.nodeSize(target);
        return listCall(2, mul(sz, sz));
      }
      case 'sets_1':
      case 'sets_2': {
        if (args.length !== 2) return undefined;
        const f = id === 'sets_2' ? 2 : 1;
        return { cost: add(factor(mul(this.nodeSize(args[0]), this.nodeSize(args[1])), f), fixed(1)) };
      }
    }
    if (id?.startsWith('list_sort:') || id?.startsWith('list_sortBy:')) {
      const byKeys = id.startsWith('list_sortBy:');
      const node = byKeys ? args[0] : target;
      if (!target || args.length !== (byKeys ? 1 : 0) || !node) return undefined;
      const sz = this.nodeSize(node);
      const elem = id.slice(id.indexOf(':') + 1);
      const f = 2 + (elem === 'string' || elem === 'bytes' ? STRING_TRAVERSAL : 0);
      return listCall(f, mul(sz, sz));
    }
    return undefined;
  }

  /** The element node of a list (Kubernetes' listElementNode): its type, and its path when the list has one. */
  private listElement(list: AstNode): AstNode | undefined {
    const params = typeParams(list.type);
    if (params.length === 0) return undefined;
    return {
      path: list.path ? [...list.path, '@items'] : undefined,
      type: params[0],
      expr: undefined,
      computed: undefined,
    };
  }

  /** Kubernetes' library estimator (k8s.io/apiserver pkg/cel/library/cost.go), by function name. */
  private kubernetesEstimate(
    fn: string,
    id: string | undefined,
    target: AstNode | undefined,
    args: AstNode[],
  ): CallEstimate | undefined {
    const size = (n: AstNode): Range => this.nodeSize(n);
    const trav = (n: AstNode, f = STRING_TRAVERSAL): Range => factor(size(n), f);
    switch (fn) {
      case 'check':
        return { cost: fixed(350000) };
      case 'serviceAccount':
      case 'path':
      case 'group':
      case 'resource':
      case 'subresource':
      case 'namespace':
      case 'name':
      case 'allowed':
      case 'reason':
      case 'error':
      case 'errored':
        return { cost: fixed(1) };
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
      case 'includes':
        if (target) {
          let el = fixed(1);
          const elNode = this.listElement(target);
          if (elNode) {
            if (elNode.type.k === 'string' || elNode.type.k === 'bytes')
              el = add(el, factor(size(elNode), STRING_TRAVERSAL));
            return { cost: mul(size(target), el) };
          }
          if (fn === 'includes') return { cost: mul(size(target), el) };
          return { cost: trav(target) };
        }
        break;
      case 'url':
        if (args.length === 1) {
          const sz = size(args[0]);
          return { cost: factor(sz, STRING_TRAVERSAL), result: sz };
        }
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target) {
          const sz = size(target);
          return { cost: factor(sz, STRING_TRAVERSAL), result: sz };
        }
        break;
      case 'replace':
        if (target && args.length >= 2)
          return {
            cost: factor(size(target), 2 * STRING_TRAVERSAL),
            result: this.replaceSize(size(target), size(args[0]), size(args[1])),
          };
        break;
      case 'split':
        if (target) {
          const sz = size(target);
          let max = sz.max;
          const lim = args[1]?.expr;
          if (args.length > 1 && lim?.k === 'lit' && typeof lim.v === 'bigint') max = Number(BigInt.asUintN(64, lim.v));
          return { cost: factor(sz, 2 * STRING_TRAVERSAL), result: { min: 0, max } };
        }
        break;
      case 'join':
        if (target) {
          const listSize = size(target);
          let sz: Range = fixed(0);
          const elNode = this.listElement(target);
          if (elNode) sz = mul(listSize, size(elNode));
          if (args.length > 0) {
            const sep = size(args[0]);
            sz = add(
              sz,
              mul(sep, { min: listSize.min > 0 ? listSize.min - 1 : 0, max: listSize.max > 0 ? listSize.max - 1 : 0 }),
            );
          }
          return { cost: factor(sz, STRING_TRAVERSAL), result: sz };
        }
        break;
      case 'find':
      case 'findAll':
        if (target && args.length >= 1) {
          const sz = size(target);
          const strCost = factor(add(sz, fixed(1)), STRING_TRAVERSAL);
          const reCost = factor(size(args[0]), REGEX_LENGTH);
          return { cost: mul(strCost, reCost), result: { min: 0, max: sz.max } };
        }
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
        if (args.length >= 1) return { cost: trav(args[0]) };
        break;
      case 'ip':
        if (id === 'cidr_ip') return { cost: fixed(1) };
        if (args.length >= 1) return { cost: trav(args[0]) };
        break;
      case 'ip.isCanonical':
        if (args.length >= 1) return { cost: trav(args[0], 2 * STRING_TRAVERSAL) };
        break;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
        return { cost: fixed(1) };
      case 'containsIP':
      case 'containsCIDR':
        if (args.length >= 1) {
          const ipSize: Range = { min: 4, max: 16 };
          let c = factor(add(ipSize, ipSize), STRING_TRAVERSAL);
          if (fn === 'containsCIDR') c = add(add(c, factor(ipSize, STRING_TRAVERSAL)), fixed(1));
          if (id === 'cidr_contains_ip_string' || id === 'cidr_contains_cidr_string') c = add(c, trav(args[0]));
          return { cost: c };
        }
        break;
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        if (args.length >= 1) return { cost: trav(args[0]) };
        break;
      case 'validate':
        if (args.length >= 1) return { cost: factor(trav(args[0]), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH) };
        break;
      case 'format.named':
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
      case 'major':
      case 'minor':
      case 'patch':
      case 'getScheme':
      case 'getHostname':
      case 'getHost':
      case 'getPort':
      case 'getEscapedPath':
      case 'getQuery':
        return { cost: fixed(1) };
      case '_==_':
        if (args.length === 2 && sameType(args[0].type, args[1].type)) {
          const t = args[0].type;
          if (t.k === 'opaque') {
            switch (t.name) {
              case 'net.IP':
              case 'net.CIDR':
              case 'kubernetes.Quantity':
              case 'kubernetes.Semver':
                return { cost: fixed(1) };
              case 'kubernetes.NamedFormat':
                return { cost: factor({ min: 1, max: MAX_FORMAT_SIZE }, STRING_TRAVERSAL) };
              case 'kubernetes.URL': {
                // (Kubernetes takes both sizes from the right-hand side)
                const r = args[1].computed;
                const s = r ? union(r, r) : fixed(1);
                return { cost: factor({ min: 1, max: s.max }, STRING_TRAVERSAL) };
              }
            }
          }
        }
        break;
    }
    return undefined;
  }

  private replaceSize(sz: Range, from: Range, to: Range): Range {
    const count: Range = { min: 0, max: 0 };
    const retained: Range = { min: 0, max: 0 };
    if (from.min === 0) {
      count.max = sz.max < MAX_UINT64 ? sz.max + 1 : sz.max;
      retained.max = sz.max;
    } else if (to.max <= from.min) {
      count.max = 0;
      retained.max = sz.max;
    } else count.max = sat(Math.ceil(sz.max / from.min));
    if (from.max === 0) {
      count.min = sz.min < MAX_UINT64 ? sz.min + 1 : sz.min;
      retained.min = sz.min;
    } else if (from.max <= to.min) {
      count.min = 0;
      retained.min = sz.min;
    } else count.min = sat(Math.ceil(sz.min / from.max));
    return add(mul(count, to), retained);
  }
}

/** cel.bind (and sortBy's input binding): an empty range, a false condition, a named accumulator. */
function isBind(e: Extract<Expr, { k: 'comp' }>): boolean {
  return (
    e.range.k === 'list' &&
    e.range.elems.length === 0 &&
    e.cond.k === 'lit' &&
    e.cond.v === false &&
    e.accuVar !== '__result__'
  );
}

/** The size of a literal, list or map literal (cel-go's computeExprSize). */
function exprSize(e: Expr): Range | undefined {
  switch (e.k) {
    case 'lit': {
      const v = e.v;
      if (typeof v === 'string') return fixed(Array.from(v).length);
      if (v instanceof Uint8Array) return fixed(v.length);
      if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint' || v === null || v instanceof Uint)
        return fixed(1);
      return undefined;
    }
    case 'list':
      return fixed(e.elems.length);
    case 'map':
      return fixed(e.entries.length);
  }
  return undefined;
}

/**
 * How many times a rule can run in one object (apiextensions' MaxCardinality): `bound` is the
 * product of maxItems/maxProperties on the way to the rule's node (undefined when one is missing);
 * then the count of the node's smallest serialized value that fits in a request.
 */
export function ruleCardinality(bound: number | undefined, type: CelType): number {
  if (bound !== undefined) return bound;
  const min = sizeOf(type)?.minSerializedSize ?? 1;
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (min + 1));
}

/** A rule's estimated cost times its cardinality, saturating as Go's multiplyWithOverflowGuard. */
export function ruleCost(maxCost: number, cardinality: number): number {
  if (maxCost === 0) return 0;
  return mulU(maxCost, cardinality);
}

/** Go's `%f` (six decimals) and `%.1f` of a positive factor. */
function goFixed(x: number, digits: number): string {
  return x.toFixed(digits);
}

/** The apiserver's refusal text when `cost` is over `limit`, else undefined. */
export function costError(what: string, cost: number, limit = STATIC_ESTIMATED_COST_LIMIT): string | undefined {
  if (cost <= limit) return undefined;
  const f = cost / limit;
  const factorText = f > 100 ? 'more than 100x' : f < 1.5 ? `${goFixed(f, 6)}x` : `${goFixed(f, 1)}x`;
  return `${what} exceeds budget by factor of ${factorText} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
