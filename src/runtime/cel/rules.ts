// Evaluating x-kubernetes-validations over an object, as apiextensions-apiserver's CEL validator:
// a tree of validators built from the schema (rules of a node, of its items, properties,
// additionalProperties, and of allOf entries — whose own items/properties/additionalProperties
// run on the node's corresponding children, typed by the structural node). Rules are compiled
// against the schema as CEL types (./schema-types.ts), type-checked (./checker.ts) and
// cost-estimated (./cost.ts); they run on every non-null value of their node; transition rules
// (oldSelf) only when an old value correlates; errors at the node's field path.
import {
  ROOT_FIELD,
  duplicate,
  duplicateOmitValue,
  forbidden,
  invalid,
  invalidOmitValue,
  required,
  type FieldError,
} from '../validation/field-error.js';
import { fieldPath } from '../validation/list-type.js';
import type { Node } from '../validation/node.js';
import { correlateItems, NO_OLD } from '../validation/openapi.js';
import { jsonEqual } from '../meta/json.js';
import type { ValidationRule } from '../validation/schema.js';
import type { RuleEvaluator, RuleProblem } from '../validation/rule-engine.js';
import { compileChecked, type CompiledRule, type Program } from './compile.js';
import { costError, estimateCost, ruleCardinality } from './cost.js';
import { schemaType } from './schema-types.js';
import { CelCostLimitError, COST_LIMIT_EXCEEDED, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './runtime-cost.js';
import { programErrors } from './validators.js';
import { BOOL, optional, STRING, type CelType } from './types.js';
import { escapePropertyName } from './typecheck.js';
import { CelEvalError, fromJson, Optional, type ConversionCache, type Value } from './value.js';

const newConversionCache = (): ConversionCache => new WeakMap();

type Slot = CompiledRule | { error: string };

interface Validator {
  /** The structural node values are typed by. */
  node: Node;
  /** The rules (the node's own, or an allOf entry's). */
  rules: readonly ValidationRule[];
  isRoot: boolean;
  type: CelType | undefined;
  slots: (Slot | undefined)[];
  items?: Validator;
  props?: Map<string, Validator>;
  addl?: Validator;
  allOf: Validator[];
  /** How many values of this node one object can have (maxItems/maxProperties above it); undefined when unbounded. */
  card: number | undefined;
  /** The highest ancestor whose old and new values cannot be correlated (a list not of type map, an atomic map). */
  uncorrelatable: (string | number)[] | undefined;
  /** Schema location, for problems. */
  path: string;
  field: string;
  segs: (string | number)[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function embedded(n: Node): boolean {
  return n.s['x-kubernetes-embedded-resource'] === true;
}

/** Builds the validator for rules in `v` applied to values of node `n` (upstream's `validator`). */
function build(
  v: Node,
  n: Node,
  isRoot: boolean,
  type: CelType | undefined,
  path: string,
  field: string,
  segs: (string | number)[],
  card: number | undefined,
  unc: (string | number)[] | undefined,
): Validator | undefined {
  if (!v.hasRules) return undefined;
  const out: Validator = {
    node: n,
    rules: v.rules,
    isRoot,
    type,
    slots: new Array<Slot | undefined>(v.rules.length).fill(undefined),
    allOf: [],
    card,
    uncorrelatable: unc,
    path,
    field,
    segs,
  };
  const itemsUnc = unc ?? (n.s['x-kubernetes-list-type'] !== 'map' ? segs : undefined);
  const propsUnc = unc ?? (n.s['x-kubernetes-map-type'] === 'atomic' ? segs : undefined);
  const elem = type && (type.k === 'list' ? type.elem : type.k === 'map' ? type.value : undefined);
  const times = (m: number | undefined) => (card === undefined || m === undefined ? undefined : card * Math.max(0, m));
  if (v.items && n.items)
    out.items = build(
      v.items,
      n.items,
      embedded(n.items),
      elem,
      `${path}[*]`,
      `${field}.items`,
      [...segs, 'items'],
      times(n.s.maxItems),
      itemsUnc,
    );
  if (v.props) {
    for (const [k, vp] of v.props) {
      const np = n.props?.get(k);
      if (!np || !vp.hasRules) continue;
      let ft: CelType | undefined;
      const esc = escapePropertyName(k);
      if (esc !== undefined) {
        if (type?.k !== 'object') continue;
        ft = type.fields().get(esc);
        // fields with no CEL type are left out of CEL validation, as upstream
        if (!ft) continue;
      } else {
        ft = schemaType(np, embedded(np), `selfType.${k}`);
        if (!ft) continue;
      }
      const c = build(
        vp,
        np,
        embedded(np),
        ft,
        path ? `${path}.${k}` : k,
        `${field}.properties[${k}]`,
        [...segs, 'properties', k],
        card,
        propsUnc,
      );
      if (c) (out.props ??= new Map()).set(k, c);
    }
  }
  if (v.addl && n.addl)
    out.addl = build(
      v.addl,
      n.addl,
      embedded(n.addl),
      elem,
      `${path}[*]`,
      `${field}.additionalProperties`,
      [...segs, 'additionalProperties'],
      times(n.s.maxProperties),
      unc,
    );
  v.allOf.forEach((a, i) => {
    const c = build(a, n, isRoot, type, path, `${field}.allOf[${i}]`, [...segs, 'allOf', i], card, unc);
    if (c) out.allOf.push(c);
  });
  return out;
}

/** Compiles rule `i` of a validator (once). */
function compiled(val: Validator, i: number): Slot {
  let s = val.slots[i];
  if (!s) {
    const r = compileForSchema(val.rules[i], val.type);
    s = r.ok ? r.rule : { error: r.message };
    val.slots[i] = s;
  }
  return s;
}

/** The outcome of {@link compileForSchema}. */
export type SchemaCompileOutcome =
  | { ok: true; rule: CompiledRule; totalCost?: number }
  | {
      ok: false;
      message: string;
      kind: 'invalid' | 'forbidden';
      compile: boolean;
      where?: 'messageExpression' | 'optionalOldSelf';
      totalCost?: number;
    };

/**
 * Compiles a rule for a node whose values have CEL type `type` (undefined: the node has none), as
 * the apiserver does at CRD create: type check, result type bool, messageExpression type string,
 * cost within budget. On failure `message` is the apiserver's detail (`compilation failed: ERROR: …`).
 */
export function compileForSchema(
  rule: ValidationRule,
  type: CelType | undefined,
  cost?: { card: number | undefined },
): SchemaCompileOutcome {
  if (type === undefined)
    return {
      ok: false,
      message: 'failed to convert to declType for CEL validation rules',
      kind: 'invalid',
      compile: false,
    };
  const vars = new Map<string, CelType>([
    ['self', type],
    ['oldSelf', rule.optionalOldSelf ? optional(type) : type],
  ]);
  const c = compileChecked(rule.rule, vars);
  if (!c.ok) return { ok: false, message: `compilation failed: ${c.message}`, kind: 'invalid', compile: true };
  if (c.checked.type.k !== BOOL.k)
    return { ok: false, message: 'cel expression must evaluate to a bool', kind: 'invalid', compile: false };
  if (rule.optionalOldSelf && !c.usesOldSelf)
    return {
      ok: false,
      message: 'may not be set if oldSelf is not used in rule',
      kind: 'invalid',
      compile: false,
      where: 'optionalOldSelf',
    };
  const inst = programErrors(c.ast, c.checked);
  if (inst) return { ok: false, message: `program instantiation failed: ${inst}`, kind: 'invalid', compile: false };
  let messageProgram: Program | undefined;
  if (rule.messageExpression !== undefined && rule.messageExpression !== '') {
    const m = compileChecked(rule.messageExpression, vars);
    if (!m.ok)
      return {
        ok: false,
        message: `messageExpression compilation failed: ${m.message}`,
        kind: 'invalid',
        compile: false,
        where: 'messageExpression',
      };
    if (m.checked.type.k !== STRING.k)
      return {
        ok: false,
        message: 'messageExpression must evaluate to a string',
        kind: 'invalid',
        compile: false,
        where: 'messageExpression',
      };
    messageProgram = m.program;
  }
  // the cost limit is the CRD's (checked when a CRD is read), not the evaluator's
  const maxCost = cost ? estimateCost(c.ast, c.checked, type) : undefined;
  const totalCost =
    maxCost === undefined ? undefined : Math.min(2 ** 64 - 1, maxCost * ruleCardinality(cost!.card, type));
  const over = totalCost === undefined ? undefined : costError('estimated rule cost', totalCost);
  if (over) return { ok: false, message: over, kind: 'forbidden', compile: false, totalCost };
  return {
    ok: true,
    rule: { source: rule, program: c.program, usesOldSelf: c.usesOldSelf, messageProgram, ast: c.ast, maxCost },
    totalCost,
  };
}

/** Go's encoding/json of a string (HTML-safe, as json.Marshal writes it). */
function goJsonString(s: string): string {
  return `"${s.replace(/[\u0000-\u001f"\\<>&\u2028\u2029]/g, (c) => {
    if (c === '"') return '\\"';
    if (c === '\\') return '\\\\';
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  })}"`;
}

/**
 * The rule as the apiserver prints it in a CRD 422: its internal ValidationRule struct, JSON-encoded
 * (`{"Rule":"self.a > 0","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}`).
 */
export function goValidationRule(r: ValidationRule): string {
  const opt = (v: string | undefined) => (v === undefined ? 'null' : goJsonString(v));
  return `{"Rule":${goJsonString(r.rule)},"Message":${goJsonString(r.message ?? '')},"MessageExpression":${goJsonString(r.messageExpression ?? '')},"Reason":${opt(r.reason)},"FieldPath":${goJsonString(r.fieldPath ?? '')},"OptionalOldSelf":${r.optionalOldSelf === undefined ? 'null' : String(r.optionalOldSelf)}}`;
}

/** The apiserver's full error text for a rule problem (what follows the field path in a 422). */
export function ruleProblemDetail(
  rule: ValidationRule,
  r: { message: string; kind: 'invalid' | 'forbidden'; where?: 'messageExpression' | 'optionalOldSelf' },
): string {
  if (r.kind === 'forbidden') return `Forbidden: ${r.message}`;
  if (r.where === 'optionalOldSelf') return `Invalid value: ${String(rule.optionalOldSelf)}: ${r.message}`;
  return `Invalid value: ${goValidationRule(rule)}: ${r.message}`;
}

/**
 * Compiles every rule now and lists those that cannot be evaluated (they do not compile against
 * their node's type). Whether a CRD with such rules, or too costly ones, may be created at all is
 * the CRD checker's judgement (src/input/crd): here only what the engine can run matters.
 */
function precheck(val: Validator, out: RuleProblem[]): void {
  val.rules.forEach((r, i) => {
    const res = compileForSchema(r, val.type);
    if (res.ok) {
      val.slots[i] = res.rule;
      return;
    }
    val.slots[i] = { error: res.message };
    const where = res.where ?? 'rule';
    out.push({
      schemaPath: val.path,
      field: `${val.field}.x-kubernetes-validations[${i}].${where}`,
      segments: [...val.segs, 'x-kubernetes-validations', i, where],
      rule: r.rule,
      message: res.compile ? res.message.replace(/^compilation failed: /, '') : res.message,
      detail: ruleProblemDetail(r, res),
    });
  });
  if (val.items) precheck(val.items, out);
  if (val.props) for (const c of val.props.values()) precheck(c, out);
  if (val.addl) precheck(val.addl, out);
  // rules under allOf are not compiled when the apiserver admits a CRD (only when it validates objects)
}

/** Builds the evaluator for a compiled schema tree; with `eager`, every rule is compiled now. */
export function createRuleEvaluator(root: Node, opts: { eager: boolean; isResourceRoot: boolean }): RuleEvaluator {
  const problems: RuleProblem[] = [];
  const tree = build(
    root,
    root,
    opts.isResourceRoot,
    schemaType(root, opts.isResourceRoot),
    '',
    'openAPIV3Schema',
    [],
    1,
    undefined,
  );
  if (tree && opts.eager) {
    precheck(tree, problems);
  }
  return {
    problems,
    validate(obj, old, errs) {
      const budget: Budget = { remaining: RUNTIME_CEL_COST_BUDGET };
      if (tree) walk(tree, obj, old, false, '', errs, newConversionCache(), newConversionCache(), budget);
    },
  };
}

function ruleText(r: ValidationRule): string {
  return r.message?.trim() || r.rule.trim();
}

/**
 * What is left of the run-time cost budget of one object's validation (RuntimeCELCostBudget);
 * negative once it ran out or a rule passed its per-call limit: no further rule runs.
 */
interface Budget {
  remaining: number;
}

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/**
 * The message for a failed rule: messageExpression's result, else `message`, else `failed rule:
 * <rule>`; or, when the messageExpression ran out of budget or past its per-call limit, the error
 * that stops the validation (`stop`).
 */
function detailFor(
  c: CompiledRule,
  self: Value,
  oldSelf: Value | undefined,
  budget: Budget,
): { detail: string; stop?: undefined } | { stop: string; detail?: undefined } {
  if (c.messageProgram) {
    const r = c.messageProgram.runMetered(PER_CALL_LIMIT, self, oldSelf);
    if (r.cost > budget.remaining)
      return {
        stop: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
      };
    if (r.error instanceof CelCostLimitError)
      return {
        stop: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(c.source.messageExpression)}`,
      };
    budget.remaining -= r.cost;
    // an evaluation error or a bad result: the apiserver logs it and falls back to message
    if (r.error === undefined && typeof r.value === 'string') {
      const t = r.value.trim();
      if (t !== '' && t.length <= 5000 && !t.includes('\n')) return { detail: t };
    }
  }
  const r = c.source;
  return { detail: r.message?.trim() ? r.message.trim() : `failed rule: ${ruleText(r)}` };
}

/** `.spec.name` / `['key'].x` → field path segments appended to `base`. */
function withFieldPath(base: string, fp: string): string {
  let out = base === ROOT_FIELD ? '' : base;
  const re = /\.([^.[\]]+)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fp))) out = fieldPath.child(out, m[1] ?? m[2].replace(/\\(.)/g, '$1'));
  return out || ROOT_FIELD;
}

/** The error message the apiserver gives when evaluating a rule fails. */
export function evalErrorMessage(e: unknown, rule: ValidationRule): string {
  const msg = e instanceof CelEvalError ? e.message : `internal error: ${(e as Error).message}`;
  return msg.startsWith('no such overload')
    ? `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`
    : `${msg} evaluating rule: ${ruleText(rule)}`;
}

function evalRules(
  val: Validator,
  obj: unknown,
  old: unknown,
  ratchet: boolean,
  path: string,
  errs: FieldError[],
  cache: ConversionCache,
  oldCache: ConversionCache,
  budget: Budget,
): void {
  const n = val.node;
  const here = path || ROOT_FIELD;
  const type = n.s.type ?? '';
  let self: Value | undefined;
  let oldSelf: Value | undefined;
  if (budget.remaining <= 0) {
    errs.push(invalid(here, type, OUT_OF_BUDGET));
    budget.remaining = -1;
    return;
  }
  for (let i = 0; i < val.rules.length; i++) {
    const c = compiled(val, i);
    if ('error' in c) {
      errs.push(invalid(here, type, `rule compile error: ${c.error}`));
      continue;
    }
    const optionalOld = c.source.optionalOldSelf === true;
    // transition rules run only with an old value; with optionalOldSelf also without (oldSelf is optional.none())
    if (c.usesOldSelf && !optionalOld && (old === undefined || old === null)) continue;
    let bound: Value | undefined;
    try {
      self ??= fromJson(n, obj, cache);
      if (c.usesOldSelf && old !== undefined && old !== null) oldSelf ??= fromJson(n, old, oldCache);
      bound = optionalOld ? new Optional(old === undefined || old === null ? undefined : oldSelf) : oldSelf;
    } catch (e) {
      errs.push(invalid(here, type, evalErrorMessage(e, c.source)));
      continue;
    }
    // metered as the apiserver meters it: past the per-call limit, or past what is left of the
    // object's budget, the rule fails and no further rule runs
    const run = c.program.runMetered(PER_CALL_LIMIT, self, c.usesOldSelf ? bound : undefined);
    if (run.cost > budget.remaining) {
      errs.push(invalid(here, type, OUT_OF_BUDGET));
      budget.remaining = -1;
      return;
    }
    budget.remaining -= run.cost;
    if (run.error !== undefined) {
      if (run.error instanceof CelCostLimitError) {
        errs.push(
          invalid(
            here,
            type,
            `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(c.source)}`,
          ),
        );
        budget.remaining = -1;
        return;
      }
      errs.push(invalid(here, type, evalErrorMessage(run.error, c.source)));
      continue;
    }
    const result = run.value!;
    if (result === true) continue;
    // ratcheting: an unchanged value keeps passing, except for transition rules
    if (ratchet && !c.usesOldSelf) continue;
    const at = c.source.fieldPath ? withFieldPath(here, c.source.fieldPath) : here;
    const d = detailFor(c, self, bound, budget);
    if (d.stop !== undefined) {
      errs.push(invalid(at, type, d.stop));
      budget.remaining = -1;
      return;
    }
    const detail = d.detail;
    // the value is printed for scalars, omitted for objects and arrays (as the apiserver since 1.28)
    const omit = type === 'object' || type === 'array';
    switch (c.source.reason) {
      case 'FieldValueForbidden':
        errs.push(forbidden(at, detail));
        break;
      case 'FieldValueRequired':
        errs.push(required(at, detail));
        break;
      case 'FieldValueDuplicate':
        errs.push(omit ? duplicateOmitValue(at) : duplicate(at, obj));
        break;
      default:
        errs.push(omit ? invalidOmitValue(at, detail) : invalid(at, obj, detail));
    }
  }
}

function walk(
  val: Validator,
  obj: unknown,
  old: unknown,
  ratchet: boolean,
  path: string,
  errs: FieldError[],
  cache: ConversionCache,
  oldCache: ConversionCache,
  budget: Budget,
): void {
  if (obj === null || obj === undefined || budget.remaining < 0) return;
  const n = val.node;
  const unchanged = ratchet || (old !== undefined && jsonEqual(obj, old));
  if (val.rules.length) evalRules(val, obj, old, unchanged, path, errs, cache, oldCache, budget);
  // allOf entries run on this value (not ratcheted, as upstream)
  for (const a of val.allOf) walk(a, obj, old, false, path, errs, cache, oldCache, budget);
  if (Array.isArray(obj)) {
    if (!val.items) return;
    const corr = old !== undefined ? correlateItems(n, old) : undefined;
    for (let i = 0; i < obj.length; i++) {
      const o = corr ? corr(obj[i]) : NO_OLD;
      walk(
        val.items,
        obj[i],
        o === NO_OLD ? undefined : o,
        unchanged,
        fieldPath.index(path, i),
        errs,
        cache,
        oldCache,
        budget,
      );
    }
    return;
  }
  if (!isObject(obj)) return;
  const oldObj = isObject(old) && n.s['x-kubernetes-map-type'] !== 'atomic' ? old : undefined;
  if (val.addl) {
    for (const k of Object.keys(obj))
      if (!n.props?.has(k))
        walk(val.addl, obj[k], oldObj?.[k], unchanged, fieldPath.key(path, k), errs, cache, oldCache, budget);
  }
  if (val.props) {
    for (const [k, child] of val.props) {
      if (Object.prototype.hasOwnProperty.call(obj, k))
        walk(child, obj[k], oldObj?.[k], unchanged, fieldPath.child(path, k), errs, cache, oldCache, budget);
    }
  }
}
