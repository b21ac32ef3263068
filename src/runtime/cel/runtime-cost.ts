// CEL evaluation metered as kube-apiserver meters it (cel-go's runtime cost tracker with
// Kubernetes' library costs): each evaluated identifier, field selection and index costs 1, each
// function call its CallCost (by the size of its arguments: strings by characters × 0.1, regexes
// × 0.25, lists by length), a list literal 10 and a map literal 30 (literals of constants cost 0,
// as cel-go's constant folding makes them). A rule stops when its cost passes PerCallLimit
// (`operation cancelled: actual cost limit exceeded`); the validation of one object stops when
// its rules together pass RuntimeCELCostBudget. The per-function costs here are the run-time
// ones; the estimator (./cost.ts) has its own static model.
import { CelEvalError, isMap, Optional, type Value } from './value.js';

/** Kubernetes' limit on one evaluation of one expression (k8s.io/apiserver/pkg/apis/cel PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Kubernetes' budget for all the rules run in one validation of an object (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** cel-go's error when an evaluation passes its cost limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** An evaluation stopped at its cost limit (never absorbed by `&&`, `||` or a macro's loop). */
export class CelCostLimitError extends CelEvalError {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
  }
}

/** The meter of the evaluation running now (evaluation is synchronous: one at a time). */
export const meter = { cost: 0, limit: Number.POSITIVE_INFINITY };

/** Adds `n` to the running evaluation's cost; throws {@link CelCostLimitError} past its limit. */
export function charge(n: number): void {
  meter.cost += n;
  if (meter.cost > meter.limit) throw new CelCostLimitError();
}

/** What a metered evaluation gave: its value or error, and its cost (also when it failed). */
export interface MeteredResult {
  value?: Value;
  error?: unknown;
  cost: number;
}

/** Runs `fn` with a fresh meter limited to `limit`. */
export function metered(limit: number, fn: () => Value): MeteredResult {
  const saved = { cost: meter.cost, limit: meter.limit };
  meter.cost = 0;
  meter.limit = limit;
  try {
    const value = fn();
    return { value, cost: meter.cost };
  } catch (error) {
    return { error, cost: meter.cost };
  } finally {
    meter.cost = saved.cost;
    meter.limit = saved.limit;
  }
}

const utf8 = new TextEncoder();
const codePoints = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
};

/** cel-go's actualSize: characters of a string, bytes, elements of a list or map; else 1. */
export function actualSize(v: Value | undefined): number {
  if (typeof v === 'string') return codePoints(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (isMap(v)) return v.size;
  if (v instanceof Optional && v.value !== undefined) return actualSize(v.value);
  return 1;
}

/** Kubernetes' traversalCost: a string's bytes × 0.1 (rounded down), a list's or map's elements summed; else 1. */
function traversalCost(v: Value | undefined): number {
  if (typeof v === 'string') return Math.floor(utf8.encode(v).length * 0.1);
  if (v instanceof Uint8Array) return Math.floor(v.length * 0.1);
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + traversalCost(x), 0);
  if (isMap(v)) return v.keys().reduce((n: number, k) => n + traversalCost(k) + traversalCost(v.get(k)), 0);
  return 1;
}

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const traverse = (v: Value | undefined, factor = 1): number => Math.ceil(actualSize(v) * factor * STRING_TRAVERSAL);
const regexCost = (s: Value | undefined, re: Value | undefined): number =>
  Math.ceil((1 + actualSize(s)) * STRING_TRAVERSAL) * Math.ceil(actualSize(re) * REGEX_LENGTH);
const isText = (v: Value | undefined): boolean => typeof v === 'string' || v instanceof Uint8Array;

/** Kubernetes' types whose equality costs 1 (quantities, IPs, CIDRs, URLs, semvers, formats). */
const UNIT_EQUALITY = new Set([
  'kubernetes.Quantity',
  'net.IP',
  'net.CIDR',
  'kubernetes.URL',
  'kubernetes.Semver',
  'kubernetes.NamedFormat',
]);

/**
 * The run-time cost of one call of `fn` (a member call's target is `args[0]`), as Kubernetes'
 * CostEstimator.CallCost and then cel-go's defaults give it; `typeName` names a value's CEL type.
 */
export function callCost(
  fn: string,
  args: readonly (Value | undefined)[],
  result: Value | undefined,
  typeName: (v: Value) => string,
): number {
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
    case 'includes':
      return args.length > 0 ? traversalCost(args[0]) : 0;
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'jsonpatch.escapeKey':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      return traverse(args[0]);
    case 'ip':
      return isText(args[0]) ? traverse(args[0]) : 1;
    case 'replace':
    case 'split':
    case 'ip.isCanonical':
      return traverse(args[0], 2);
    case 'join':
      return traverse(result, 2);
    case 'find':
    case 'findAll':
    case 'matches':
      return regexCost(args[0], args[1]);
    case 'containsIP':
    case 'containsCIDR': {
      const cidr = actualSize(args[0]);
      let c = Math.ceil(2 * cidr * STRING_TRAVERSAL);
      if (fn === 'containsCIDR') c += Math.ceil(cidr * STRING_TRAVERSAL) + 1;
      if (isText(args[1])) c += traverse(args[1]);
      return c;
    }
    case 'startsWith':
    case 'endsWith':
      return traverse(args[1]);
    case 'strings.quote':
    case 'format':
      return traverse(args[0]);
    case 'bytes':
    case 'string':
      return isText(args[0]) ? traverse(args[0]) : 1;
    case '@in':
      return Array.isArray(args[1]) ? args[1].length : 1;
    case '_==_':
    case '_!=_': {
      const a = args[0];
      if (fn === '_==_' && a !== undefined && a !== null && UNIT_EQUALITY.has(typeName(a))) return 1;
      return Math.ceil(Math.min(actualSize(args[0]), actualSize(args[1])) * STRING_TRAVERSAL);
    }
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_':
      return isText(args[0]) ? Math.ceil(Math.min(actualSize(args[0]), actualSize(args[1])) * STRING_TRAVERSAL) : 1;
    case '_+_':
      return isText(args[0]) ? Math.ceil((actualSize(args[0]) + actualSize(args[1])) * STRING_TRAVERSAL) : 1;
    case 'contains':
      return isText(args[0]) ? traverse(args[0]) * traverse(args[1]) : 1;
    default:
      return 1;
  }
}
