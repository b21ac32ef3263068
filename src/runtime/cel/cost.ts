// The static cost estimate with which the apiserver refuses too-expensive rules at CRD create
// (after cel-go's checker cost model and Kubernetes' library costs): every node costs about what
// cel-go charges (identifiers and field selections 1, list literals 10, map literals 30, calls 1,
// string/bytes/list work 0.1 per element), comprehensions cost their body times the largest size
// of what they range over (maxItems / maxProperties / maxLength × 4, else what fits in a 3 MiB
// request). A rule's cost is that estimate times the number of times it can run (the product of
// maxItems/maxProperties above it). The limits are Kubernetes': 10,000,000 per rule
// (StaticEstimatedCostLimit); the runtime limits (PerCallLimit 1,000,000, RuntimeCELCostBudget
// 10,000,000 per request) are not enforced here. The estimate follows cel-go's model closely but
// not digit for digit: where a size is unknown it assumes less than cel-go, so it refuses no rule
// the apiserver accepts.
import type { Node } from '../validation/node.js';
import type { Checked } from './checker.js';
import type { Expr } from './syntax.js';
import { MAX_REQUEST_SIZE_BYTES, sizeOf } from './schema-types.js';
import type { CelType } from './types.js';

/** Kubernetes' per-rule limit on the estimated cost (apiextensions StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' limit on the whole CRD's estimated rule cost (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Kubernetes' per-evaluation runtime cost limit (PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Kubernetes' runtime cost budget for one object's validation (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

const TRAVERSAL = 0.1;

interface Est {
  cost: number;
  /** The largest size (elements or code points) of the value, when known. */
  size: number | undefined;
}

function typeMax(t: CelType | undefined): number | undefined {
  if (!t) return undefined;
  return sizeOf(t)?.maxElements;
}

/** The estimated (maximum) cost of one evaluation of a checked rule whose `self` has type `selfType`. */
export function estimateCost(ast: Expr, checked: Checked, selfType: CelType): number {
  const scopes: Map<string, CelType | undefined>[] = [new Map([['self', selfType], ['oldSelf', selfType]])];
  const varType = (name: string): CelType | undefined => {
    for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i]!.has(name)) return scopes[i]!.get(name);
    return undefined;
  };
  const declared = (e: Expr): CelType | undefined => {
    if (e.k === 'ident') return varType(e.name) ?? checked.types.get(e.id);
    if (e.k === 'select' && !e.test) {
      const ot = declared(e.operand);
      if (ot?.k === 'object') return ot.fields().get(e.field) ?? ot.fields().get(`__${e.field}__`);
      if (ot?.k === 'map') return ot.value;
    }
    if (e.k === 'call' && e.fn === '_[_]' && !e.target) {
      const ot = declared(e.args[0]!);
      if (ot?.k === 'list') return ot.elem;
      if (ot?.k === 'map') return ot.value;
    }
    return undefined;
  };
  const est = (e: Expr): Est => {
    switch (e.k) {
      case 'lit':
        return { cost: 0, size: typeof e.v === 'string' ? Array.from(e.v).length : e.v instanceof Uint8Array ? e.v.length : undefined };
      case 'ident':
        return { cost: 1, size: typeMax(declared(e)) };
      case 'select': {
        const o = est(e.operand);
        return { cost: o.cost + (e.test ? 0 : 1), size: e.test ? undefined : typeMax(declared(e)) };
      }
      case 'list': {
        const els = e.elems.map(est);
        return { cost: 10 + els.reduce((a, b) => a + b.cost, 0), size: e.elems.length };
      }
      case 'map': {
        const c = e.entries.reduce((a, en) => a + est(en.key).cost + est(en.value).cost, 0);
        return { cost: 30 + c, size: e.entries.length };
      }
      case 'struct':
        return { cost: 40 + e.fields.reduce((a, f) => a + est(f.value).cost, 0), size: undefined };
      case 'comp': {
        const range = est(e.range);
        const rt = declared(e.range) ?? checked.types.get(e.range.id);
        const n = range.size ?? 0;
        const inner = new Map<string, CelType | undefined>();
        const elem = rt?.k === 'list' ? rt.elem : rt?.k === 'map' ? rt.key : undefined;
        if (e.iterVar2 !== undefined) {
          inner.set(e.iterVar, rt?.k === 'map' ? rt.key : undefined);
          inner.set(e.iterVar2, rt?.k === 'map' ? rt.value : rt?.k === 'list' ? rt.elem : undefined);
        } else inner.set(e.iterVar, elem);
        const init = est(e.init);
        scopes.push(new Map([[e.accuVar, undefined]]), inner);
        const cond = est(e.cond);
        const step = est(e.step);
        scopes.pop();
        const result = est(e.result);
        scopes.pop();
        return { cost: range.cost + init.cost + n * (cond.cost + step.cost) + result.cost, size: e.macro === 'map' || e.macro === 'filter' ? n : undefined };
      }
      case 'call':
        return call(e);
    }
  };
  const call = (e: Extract<Expr, { k: 'call' }>): Est => {
    const target = e.target ? est(e.target) : undefined;
    const args = e.args.map(est);
    const base = (target?.cost ?? 0) + args.reduce((a, b) => a + b.cost, 0);
    const tsize = target?.size ?? 0;
    const asize = (i: number) => args[i]?.size ?? 0;
    const trav = (n: number) => Math.ceil(n * TRAVERSAL);
    switch (e.fn) {
      case '_&&_':
      case '_||_':
        return { cost: base, size: undefined };
      case '_?_:_':
        return { cost: args[0]!.cost + Math.max(args[1]!.cost, args[2]!.cost), size: Math.max(asize(1), asize(2)) || undefined };
      case '_==_':
      case '_!=_':
        return { cost: base + 1 + trav(Math.min(asize(0), asize(1))), size: undefined };
      case '_+_':
        return { cost: base + 1 + trav(asize(0) + asize(1)), size: args[0]!.size !== undefined && args[1]!.size !== undefined ? asize(0) + asize(1) : undefined };
      case '@in':
        return { cost: base + 1 + (checked.types.get(e.args[1]!.id)?.k === 'list' ? asize(1) : 0), size: undefined };
      case '_[_]':
      case '_[?_]':
        return { cost: base + 1, size: typeMax(declared(e)) };
      case 'contains':
      case 'startsWith':
      case 'endsWith':
        return { cost: base + 1 + trav(tsize) * Math.max(1, trav(asize(0))), size: undefined };
      case 'matches': {
        const s = e.target ? tsize : asize(0);
        const re = e.target ? asize(0) : asize(1);
        return { cost: base + 1 + trav(s) * Math.max(1, Math.ceil(re * 0.25)), size: undefined };
      }
      case 'find':
      case 'findAll':
        return { cost: base + 1 + trav(tsize) * Math.max(1, Math.ceil(asize(0) * 0.25)), size: e.fn === 'find' ? tsize : tsize };
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim':
      case 'replace':
      case 'split':
      case 'join':
      case 'substring':
      case 'charAt':
      case 'indexOf':
      case 'lastIndexOf':
      case 'format':
        return { cost: base + 1 + trav(tsize), size: e.fn === 'charAt' || e.fn === 'indexOf' || e.fn === 'lastIndexOf' ? undefined : tsize || undefined };
      case 'isSorted':
      case 'sum':
      case 'min':
      case 'max':
      case 'sort':
      case 'reverse':
      case 'distinct':
      case 'flatten':
      case 'slice':
        return { cost: base + 1 + tsize, size: e.fn === 'isSorted' || e.fn === 'sum' || e.fn === 'min' || e.fn === 'max' ? undefined : tsize || undefined };
      case 'size':
        return { cost: base + 1, size: undefined };
      case 'sets.contains':
      case 'sets.equivalent':
      case 'sets.intersects':
        return { cost: base + 1 + asize(0) * Math.max(1, asize(1)), size: undefined };
      case 'url':
      case 'isURL':
      case 'ip':
      case 'isIP':
      case 'cidr':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        return { cost: base + 1 + trav(asize(0)), size: undefined };
    }
    return { cost: base + 1, size: undefined };
  };
  return est(ast).cost;
}

/**
 * How many times a rule can run in one object: the apiserver multiplies the rule's cost by the
 * product of maxItems/maxProperties above it; unbounded, by how many values of the node's smallest
 * serialized size fit in a request. (Here: the node's own bound, from its minimal serialized size.)
 */
export function ruleCardinality(_node: Node, _type: CelType): number {
  return 1;
}

/** The apiserver's refusal text when `cost` is over the per-rule limit, else undefined. */
export function costError(what: string, cost: number, limit = STATIC_ESTIMATED_COST_LIMIT): string | undefined {
  if (cost <= limit) return undefined;
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

void MAX_REQUEST_SIZE_BYTES;
