// Evaluating x-kubernetes-validations over an object, as apiextensions-apiserver's CEL validator:
// rules run on every non-null value of their node, transition rules (oldSelf) only when an old value
// correlates (same property; same key of a list-type map), errors at the node's field path.
import { ROOT_FIELD, duplicate, forbidden, invalid, required, type FieldError } from '../validation/field-error.js';
import { fieldPath } from '../validation/list-type.js';
import type { Node } from '../validation/node.js';
import { correlateItems, jsonEqual, NO_OLD } from '../validation/openapi.js';
import type { ValidationRule } from '../validation/schema.js';
import { compileRule, type CompiledRule } from './compile.js';
import { checkRuleFields } from './typecheck.js';
import { CelEvalError, fromJson, type ConversionCache, type Value } from './value.js';

const newConversionCache = (): ConversionCache => new WeakMap();

/** A rule that cannot be evaluated, found when the schema was loaded. */
export interface RuleProblem {
  /** Where the rule sits, as a data path (`spec.listeners[*]`; empty for the root). */
  schemaPath: string;
  /**
   * The apiserver's field path of the rule inside the schema, for a CRD 422
   * (`openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`; prefix `spec.versions[i].schema.`).
   */
  field: string;
  /** The same place as path segments under `openAPIV3Schema` (`['properties', 'spec', 'x-kubernetes-validations', 0, 'rule']`). */
  segments: (string | number)[];
  rule: string;
  message: string;
}

/** Evaluates all rules of a schema tree. */
export interface RuleEvaluator {
  readonly problems: readonly RuleProblem[];
  /** Appends the errors of every failing rule. */
  validate(obj: unknown, old: unknown, errs: FieldError[]): void;
}

type Slot = CompiledRule | { error: string } | undefined;

function slots(n: Node): Slot[] {
  if (!Array.isArray(n.celCache)) n.celCache = new Array<Slot>(n.rules.length).fill(undefined);
  return n.celCache as Slot[];
}

function compiled(n: Node, i: number): CompiledRule | { error: string } {
  const s = slots(n);
  let c = s[i];
  if (!c) {
    const out = compileRule(n.rules[i]!);
    c = out.ok ? out.rule : { error: out.message };
    s[i] = c;
  }
  return c;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Compiles every rule now and lists those that cannot be evaluated. */
function precheck(n: Node, isRoot: boolean, path: string, field: string, segs: (string | number)[], out: RuleProblem[], seen: Set<Node>, typeNode: Node = n): void {
  if (!n.hasRules || seen.has(n)) return;
  seen.add(n);
  n.rules.forEach((r, i) => {
    const c = compiled(n, i);
    let message = 'error' in c ? c.error : checkRuleFields(c.ast, typeNode, isRoot || typeNode.s['x-kubernetes-embedded-resource'] === true);
    if (message !== undefined && !('error' in c)) {
      slots(n)[i] = { error: message };
    }
    if (message !== undefined) {
      out.push({ schemaPath: path, field: `${field}.x-kubernetes-validations[${i}].rule`, segments: [...segs, 'x-kubernetes-validations', i, 'rule'], rule: r.rule, message });
    }
    message = undefined;
  });
  // rules under allOf are typed by the node they sit on, as upstream
  n.allOf.forEach((a, i) => precheck(a, isRoot, path, `${field}.allOf[${i}]`, [...segs, 'allOf', i], out, seen, typeNode));
  if (n.items) precheck(n.items, false, `${path}[*]`, `${field}.items`, [...segs, 'items'], out, seen);
  if (n.props) for (const [k, c] of n.props) precheck(c, false, path ? `${path}.${k}` : k, `${field}.properties[${k}]`, [...segs, 'properties', k], out, seen);
  if (n.addl) precheck(n.addl, false, `${path}[*]`, `${field}.additionalProperties`, [...segs, 'additionalProperties'], out, seen);
}

/** Builds the evaluator for a compiled schema tree; with `eager`, every rule is compiled now. */
export function createRuleEvaluator(root: Node, opts: { eager: boolean; isResourceRoot: boolean }): RuleEvaluator {
  const problems: RuleProblem[] = [];
  if (opts.eager) precheck(root, opts.isResourceRoot, '', 'openAPIV3Schema', [], problems, new Set());
  return {
    problems,
    validate(obj, old, errs) {
      walk(root, obj, old, false, '', errs, newConversionCache(), newConversionCache());
    },
  };
}

function ruleText(r: ValidationRule): string {
  return r.message?.trim() || r.rule.trim();
}

/** The message for a failed rule: messageExpression's result, else `message`, else `failed rule: <rule>`. */
function detailFor(c: CompiledRule, self: Value, oldSelf: Value | undefined): string {
  if (c.messageProgram) {
    try {
      const m = c.messageProgram.run(self, oldSelf);
      if (typeof m === 'string') {
        const t = m.trim();
        if (t !== '' && t.length <= 5000 && !t.includes('\n')) return t;
      }
    } catch {
      // the apiserver logs it and falls back to message
    }
  }
  const r = c.source;
  return r.message?.trim() ? r.message.trim() : `failed rule: ${ruleText(r)}`;
}

/** `.spec.name` / `['key'].x` → field path segments appended to `base`. */
function withFieldPath(base: string, fp: string): string {
  let out = base === ROOT_FIELD ? '' : base;
  const re = /\.([^.[\]]+)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fp))) out = fieldPath.child(out, m[1] ?? m[2]!.replace(/\\(.)/g, '$1'));
  return out || ROOT_FIELD;
}

function evalRules(n: Node, typeNode: Node, obj: unknown, old: unknown, ratchet: boolean, path: string, errs: FieldError[], cache: ConversionCache, oldCache: ConversionCache): void {
  const here = path || ROOT_FIELD;
  const type = typeNode.s.type ?? '';
  let self: Value | undefined;
  let oldSelf: Value | undefined;
  for (let i = 0; i < n.rules.length; i++) {
    const c = compiled(n, i);
    if ('error' in c) {
      errs.push(invalid(here, type, `rule compile error: ${c.error}`));
      continue;
    }
    if (c.usesOldSelf && (old === undefined || old === null)) continue;
    self ??= fromJson(typeNode, obj, cache);
    if (c.usesOldSelf) oldSelf ??= fromJson(typeNode, old, oldCache);
    let result: Value;
    try {
      result = c.program.run(self, c.usesOldSelf ? oldSelf : undefined);
    } catch (e) {
      const msg = e instanceof CelEvalError ? e.message : `internal error: ${(e as Error).message}`;
      const text = msg.startsWith('no such overload')
        ? `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(c.source)}`
        : `${msg} evaluating rule: ${ruleText(c.source)}`;
      errs.push(invalid(here, type, text));
      continue;
    }
    if (result === true) continue;
    // ratcheting: an unchanged value keeps passing, except for transition rules
    if (ratchet && !c.usesOldSelf) continue;
    const at = c.source.fieldPath ? withFieldPath(here, c.source.fieldPath) : here;
    const detail = detailFor(c, self, oldSelf);
    switch (c.source.reason) {
      case 'FieldValueForbidden': errs.push(forbidden(at, detail)); break;
      case 'FieldValueRequired': errs.push(required(at, detail)); break;
      case 'FieldValueDuplicate': errs.push(duplicate(at, type)); break;
      default: errs.push(invalid(at, type, detail));
    }
  }
}

function walk(n: Node, obj: unknown, old: unknown, ratchet: boolean, path: string, errs: FieldError[], cache: ConversionCache, oldCache: ConversionCache): void {
  if (!n.hasRules || obj === null || obj === undefined) return;
  const unchanged = ratchet || (old !== undefined && jsonEqual(obj, old));
  if (n.rules.length) evalRules(n, n, obj, old, unchanged, path, errs, cache, oldCache);
  // rules under allOf run on this node's value, typed by this node
  for (const a of n.allOf) if (a.rules.length) evalRules(a, n, obj, old, unchanged, path, errs, cache, oldCache);
  if (Array.isArray(obj)) {
    const items = n.items;
    if (!items?.hasRules) return;
    const corr = old !== undefined ? correlateItems(n, old) : undefined;
    for (let i = 0; i < obj.length; i++) {
      const o = corr ? corr(obj[i]) : NO_OLD;
      walk(items, obj[i], o === NO_OLD ? undefined : o, unchanged, fieldPath.index(path, i), errs, cache, oldCache);
    }
    return;
  }
  if (!isObject(obj)) return;
  const oldObj = isObject(old) && n.s['x-kubernetes-map-type'] !== 'atomic' ? old : undefined;
  if (n.addl?.hasRules) {
    for (const k of Object.keys(obj)) if (!n.props?.has(k)) walk(n.addl, obj[k], oldObj?.[k], unchanged, fieldPath.key(path, k), errs, cache, oldCache);
  }
  if (n.props) {
    for (const [k, child] of n.props) {
      if (child.hasRules && Object.prototype.hasOwnProperty.call(obj, k)) {
        walk(child, obj[k], oldObj?.[k], unchanged, fieldPath.child(path, k), errs, cache, oldCache);
      }
    }
  }
}
