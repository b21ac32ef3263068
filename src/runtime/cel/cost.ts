// The static cost estimate with which the apiserver refuses too-expensive rules at CRD create: a
// port of cel-go's checker cost model (checker/cost.go) with Kubernetes' library estimator
// (k8s.io/apiserver pkg/cel/library/cost.go) and its schema size estimator: identifiers 1, field
// selections on maps/objects 1, presence tests 0, list literals 10, map literals 30, calls 1,
// string work 0.1 per code point, regexes 0.1 × string size × 0.25 × pattern length,
// comprehensions their loop body × the largest size of what they range over. Sizes come from the
// schema (maxItems, maxProperties, maxLength × 4, enum lengths, else what fits in a 3 MiB request)
// and from literals; an unknown size is unbounded. A rule's cost is the estimate's maximum times
// how many times it can run in one object (the product of maxItems/maxProperties above it, or, when
// one is missing, how many of the node's smallest serialized value fit in a request).
// Limits (Kubernetes 1.37): 10,000,000 per rule (StaticEstimatedCostLimit) and 100,000,000 for a
// CRD (StaticEstimatedCRDCostLimit) at create; at run time 1,000,000 per evaluation (PerCallLimit)
// and 10,000,000 per object (RuntimeCELCostBudget) — the run-time limits are not enforced by crdgen.
import type { Checked } from './checker.js';
import { objectField } from './checker.js';
import { MAX_REQUEST_SIZE_BYTES, sizeOf } from './schema-types.js';
import type { Expr } from './syntax.js';
import type { CelType } from './types.js';

/** Kubernetes' per-rule limit on the estimated cost (apiextensions StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' limit on the whole CRD's estimated rule cost (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Kubernetes' per-evaluation runtime cost limit (PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000;
/** Kubernetes' runtime cost budget for one object's validation (RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

const MAX = 2 ** 64 - 1;
const TRAVERSAL = 0.1;
const REGEX = 0.25;

type Size = { min: number; max: number };
const UNKNOWN: Size = { min: 0, max: MAX };
const fixed = (n: number): Size => ({ min: n, max: n });
const add = (a: number, b: number) => Math.min(MAX, a + b);
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(MAX, a * b));
const factor = (a: number, f: number) => Math.min(MAX, Math.ceil(a * f));
const addS = (a: Size, b: Size): Size => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const mulS = (a: Size, b: Size): Size => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });
const facS = (a: Size, f: number): Size => ({ min: factor(a.min, f), max: factor(a.max, f) });
const union = (a: Size, b: Size): Size => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });

const SCALAR = new Set(['bool', 'double', 'duration', 'int', 'timestamp', 'uint', 'null_type']);

interface Entry {
  container: 'list' | 'map';
  key: Size;
  val: Size;
}

interface Local {
  path: string[];
  size: Size | undefined;
  entry: Entry | undefined;
}

/** The estimated cost (cel-go's max) of one evaluation of a checked expression whose `self` has type `selfType`. */
export function estimateCost(ast: Expr, checked: Checked, selfType: CelType): number {
  const locals: [string, Local][] = [];
  const paths = new Map<number, string[]>();
  const sizes = new Map<number, Size>();
  const entries = new Map<number, Entry>();
  const local = (name: string): Local | undefined => {
    for (let i = locals.length - 1; i >= 0; i--) if (locals[i][0] === name) return locals[i][1];
    return undefined;
  };
  const typeK = (e: Expr): string => checked.types.get(e.id)?.k ?? 'dyn';
  const pathOf = (e: Expr): string[] => (e.k === 'ident' ? local(e.name)?.path : undefined) ?? paths.get(e.id) ?? [];
  /** Kubernetes' size estimator: walk the schema from self's type along the path (its first element is the variable). */
  const schemaSize = (path: string[]): Size | undefined => {
    if (!path.length) return undefined;
    let t: CelType | undefined = selfType;
    for (const seg of path.slice(1)) {
      if (!t) return undefined;
      if (seg === '@items' || seg === '@values') t = t.k === 'list' ? t.elem : t.k === 'map' ? t.value : undefined;
      else if (seg === '@keys') t = t.k === 'map' ? t.key : undefined;
      else t = t.k === 'object' ? objectField(t, seg) : undefined;
    }
    const sz = t && sizeOf(t);
    return sz ? { min: 0, max: sz.maxElements } : undefined;
  };
  const computeSize = (e: Expr): Size | undefined => {
    const known = sizes.get(e.id);
    if (known) return known;
    if (e.k === 'lit') {
      if (typeof e.v === 'string') return fixed(Array.from(e.v).length);
      if (e.v instanceof Uint8Array) return fixed(e.v.length);
      return fixed(1);
    }
    if (e.k === 'list') return fixed(e.elems.length);
    if (e.k === 'map') return fixed(e.entries.length);
    const s = schemaSize(pathOf(e));
    if (s) return s;
    if (SCALAR.has(typeK(e))) return fixed(1);
    if (e.k === 'ident') return local(e.name)?.size;
    return undefined;
  };
  const sizeOr = (e: Expr): Size => computeSize(e) ?? UNKNOWN;
  const entryOf = (e: Expr): Entry | undefined =>
    entries.get(e.id) ?? (e.k === 'ident' ? local(e.name)?.entry : undefined);
  const unionEntry = (a: Entry | undefined, b: Entry | undefined): Entry | undefined =>
    a && b ? { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) } : undefined;

  const cost = (e: Expr): Size => {
    switch (e.k) {
      case 'lit':
        return fixed(0);
      case 'ident':
        if (!local(e.name)) paths.set(e.id, [e.name]);
        return fixed(1);
      case 'select': {
        const c = cost(e.operand);
        // presence tests cost nothing in Kubernetes' environment (PresenceTestHasCost(false))
        if (e.test) return c;
        paths.set(e.id, [...pathOf(e.operand), e.field]);
        const k = typeK(e.operand);
        return k === 'map' || k === 'object' || k === 'param' ? addS(c, fixed(1)) : c;
      }
      case 'list': {
        let sum = fixed(10);
        let item: Size = { min: e.elems.length ? MAX : 0, max: 0 };
        for (const x of e.elems) {
          sum = addS(sum, cost(x));
          item = union(item, sizeOr(x));
        }
        entries.set(e.id, { container: 'list', key: fixed(1), val: item });
        return sum;
      }
      case 'map': {
        let sum = fixed(30);
        let key: Size = { min: e.entries.length ? MAX : 0, max: 0 };
        let val: Size = { min: e.entries.length ? MAX : 0, max: 0 };
        for (const en of e.entries) {
          sum = addS(sum, addS(cost(en.key), cost(en.value)));
          key = union(key, sizeOr(en.key));
          val = union(val, sizeOr(en.value));
        }
        entries.set(e.id, { container: 'map', key, val });
        return sum;
      }
      case 'struct':
        return e.fields.reduce((s, f) => addS(s, cost(f.value)), fixed(40));
      case 'comp': {
        let sum = addS(cost(e.range), cost(e.init));
        locals.push([e.accuVar, { path: pathOf(e.init), size: computeSize(e.init), entry: entryOf(e.init) }]);
        const entry = entryOf(e.range);
        const container = entry?.container ?? (typeK(e.range) === 'list' ? 'list' : 'map');
        const rpath = pathOf(e.range);
        let pushed = 1;
        if (e.iterVar2 !== undefined) {
          locals.push([
            e.iterVar,
            { path: [...rpath, container === 'list' ? '@indices' : '@keys'], size: entry?.key, entry: undefined },
          ]);
          locals.push([
            e.iterVar2,
            { path: [...rpath, container === 'list' ? '@items' : '@values'], size: entry?.val, entry: undefined },
          ]);
          pushed = 2;
        } else {
          locals.push([
            e.iterVar,
            {
              path: [...rpath, container === 'list' ? '@items' : '@keys'],
              size: container === 'list' ? entry?.val : entry?.key,
              entry: undefined,
            },
          ]);
        }
        const loop = addS(cost(e.cond), cost(e.step));
        locals.splice(locals.length - pushed, pushed);
        sum = addS(sum, cost(e.result));
        locals.pop();
        const n = sizeOr(e.range);
        sum = addS(sum, mulS(n, loop));
        if (e.init.k === 'lit') {
          const s = computeSize(e.init);
          if (s) sizes.set(e.id, s);
        } else if (e.init.k === 'list' || e.init.k === 'map') sizes.set(e.id, n);
        return sum;
      }
      case 'call':
        return call(e);
    }
  };

  const call = (e: Extract<Expr, { k: 'call' }>): Size => {
    if (e.fn === 'dyn' && !e.target && e.args.length === 1) {
      const c = cost(e.args[0]);
      const s = computeSize(e.args[0]);
      if (s) sizes.set(e.id, s);
      const en = entryOf(e.args[0]);
      if (en) entries.set(e.id, en);
      return addS(fixed(1), c);
    }
    const argCosts = e.args.map(cost);
    let sum = e.target ? cost(e.target) : fixed(0);
    const argSum = argCosts.reduce(addS, fixed(0));
    const fn = e.fn;
    const target = e.target;
    const ts = () => sizeOr(target!);
    const as = (i: number) => sizeOr(e.args[i]);
    let fc: Size | undefined;
    let result: Size | undefined;
    switch (fn) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
      case 'includes':
        if (target && typeK(target) === 'list') {
          let elCost = fixed(1);
          const ek = (checked.types.get(target.id) as { elem?: CelType } | undefined)?.elem?.k;
          if (ek === 'string' || ek === 'bytes')
            elCost = addS(elCost, facS(schemaSize([...pathOf(target), '@items']) ?? UNKNOWN, TRAVERSAL));
          fc = mulS(ts(), elCost);
        } else if (target && fn === 'includes') fc = ts();
        break;
      case 'url':
        if (e.args.length === 1) {
          fc = facS(as(0), TRAVERSAL);
          result = as(0);
        }
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target) {
          fc = facS(ts(), TRAVERSAL);
          result = ts();
        }
        break;
      case 'replace':
        if (target && e.args.length >= 2) fc = facS(ts(), 2 * TRAVERSAL);
        break;
      case 'split':
        if (target) {
          fc = facS(ts(), 2 * TRAVERSAL);
          const lim = e.args[1];
          result = { min: 0, max: lim?.k === 'lit' && typeof lim.v === 'bigint' ? Number(lim.v) : ts().max };
        }
        break;
      case 'join':
        if (target) {
          const el = schemaSize([...pathOf(target), '@items']) ?? entryOf(target)?.val;
          let sz = el ? mulS(ts(), el) : fixed(0);
          if (e.args.length)
            sz = addS(sz, mulS(as(0), { min: Math.max(0, ts().min - 1), max: Math.max(0, ts().max - 1) }));
          fc = facS(sz, TRAVERSAL);
          result = sz;
        }
        break;
      case 'find':
      case 'findAll':
        if (target && e.args.length) {
          fc = mulS(facS(addS(ts(), fixed(1)), TRAVERSAL), facS(as(0), REGEX));
          result = { min: 0, max: ts().max };
        }
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
        if (e.args.length >= 1) fc = facS(as(0), TRAVERSAL);
        break;
      case 'ip':
        fc = target ? fixed(1) : facS(as(0), TRAVERSAL);
        break;
      case 'ip.isCanonical':
        fc = facS(as(0), 2 * TRAVERSAL);
        break;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
        fc = fixed(1);
        break;
      case 'format':
        if (target) fc = facS(ts(), TRAVERSAL);
        break;
      case 'bytes':
        if (!target && typeK(e.args[0]) === 'string') {
          fc = facS(as(0), TRAVERSAL);
          result = { min: as(0).min, max: mul(as(0).max, 4) };
        }
        break;
      case 'strings.quote':
        fc = facS(as(0), TRAVERSAL);
        result = { min: add(as(0).min, 2), max: add(mul(as(0).max, 2), 2) };
        break;
      case 'startsWith':
      case 'endsWith':
        if (e.args.length === 1) fc = facS(as(0), TRAVERSAL);
        break;
      case '@in':
        if (typeK(e.args[1]) === 'list') fc = as(1);
        break;
      case 'matches': {
        const str = target ?? e.args[0];
        const re = target ? e.args[0] : e.args[1];
        if (str && re) fc = mulS(facS(addS(sizeOr(str), fixed(1)), TRAVERSAL), facS(sizeOr(re), REGEX));
        break;
      }
      case 'contains':
        if (target && e.args.length === 1) fc = mulS(facS(ts(), TRAVERSAL), facS(as(0), TRAVERSAL));
        break;
      case '_&&_':
      case '_||_':
        return addS(sum, { min: argCosts[0].min, max: add(argCosts[0].max, argCosts[1].max) });
      case '_?_:_': {
        sizes.set(e.id, union(as(1), as(2)));
        const en = unionEntry(entryOf(e.args[1]), entryOf(e.args[2]));
        if (en) entries.set(e.id, en);
        return addS(sum, addS(argCosts[0], union(argCosts[1], argCosts[2])));
      }
      case '_+_': {
        const k = typeK(e);
        if (k === 'list' || k === 'string' || k === 'bytes') {
          const rs = addS(as(0), as(1));
          sizes.set(e.id, rs);
          const en = unionEntry(entryOf(e.args[0]), entryOf(e.args[1]));
          if (en) entries.set(e.id, en);
          return addS(sum, addS(k === 'list' ? fixed(1) : facS(rs, TRAVERSAL), argSum));
        }
        break;
      }
      case '_==_':
      case '_!=_':
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_': {
        const ak = typeK(e.args[0]);
        if (fn === '_==_' || fn === '_!=_' || ak === 'string' || ak === 'bytes') {
          const smallest = Math.min(as(0).max, as(1).max);
          return addS(sum, addS(facS({ min: smallest > 0 ? 1 : 0, max: smallest }, TRAVERSAL), argSum));
        }
        break;
      }
      case '_[_]': {
        const ck = typeK(e.args[0]);
        if (ck === 'list' || ck === 'map') {
          const en = entryOf(e.args[0]);
          if (en) sizes.set(e.id, en.val);
          paths.set(e.id, [...pathOf(e.args[0]), ck === 'list' ? '@items' : '@values']);
        }
        break;
      }
    }
    if (result) sizes.set(e.id, result);
    sum = addS(sum, addS(fc ?? fixed(1), argSum));
    return sum;
  };
  return cost(ast).max;
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

/** The apiserver's refusal text when `cost` is over the per-rule limit, else undefined. */
export function costError(what: string, cost: number, limit = STATIC_ESTIMATED_COST_LIMIT): string | undefined {
  if (cost <= limit) return undefined;
  const f = cost / limit;
  const factorText = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${factorText} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
