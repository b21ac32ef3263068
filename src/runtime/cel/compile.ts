// Compiling one x-kubernetes-validations rule: parse, refuse what cannot be evaluated (unknown
// functions, optional syntax) with a clear message, plan once. Programs are cached by source text,
// so a rule repeated across versions or nodes is compiled once per process.
import { parse, plan, type CelResult } from '@bufbuild/cel';
import type { ValidationRule } from '../validation/schema.js';
import { isKnownFunction, kubernetesCelEnv } from './env.js';

/** A planned CEL program: evaluates with `self` (and `oldSelf`) bound. */
export type Program = (bindings: Record<string, unknown>) => CelResult;

/** A rule ready to evaluate. */
export interface CompiledRule {
  readonly source: ValidationRule;
  readonly program: Program;
  /** The rule reads `oldSelf`: a transition rule, evaluated only on update. */
  readonly usesOldSelf: boolean;
  readonly messageProgram: Program | undefined;
}

/** The outcome of {@link compileRule}. */
export type CompileOutcome = { ok: true; rule: CompiledRule } | { ok: false; message: string };

interface Planned {
  program: Program;
  usesOldSelf: boolean;
}

const cache = new Map<string, Planned | string>();

interface AstInfo {
  unknown: Set<string>;
  usesOldSelf: boolean;
}

/** Walks a parsed expression (cel.expr.Expr as plain objects) collecting function names and identifiers. */
function inspect(e: unknown, info: AstInfo): void {
  if (typeof e !== 'object' || e === null) return;
  const kind = (e as { exprKind?: { case?: string; value?: unknown } }).exprKind;
  if (kind?.case === 'callExpr') {
    const call = kind.value as { function: string; target?: unknown; args: unknown[] };
    if (!isKnownFunction(call.function)) info.unknown.add(call.function);
    inspect(call.target, info);
    for (const a of call.args) inspect(a, info);
    return;
  }
  if (kind?.case === 'identExpr') {
    if ((kind.value as { name: string }).name === 'oldSelf') info.usesOldSelf = true;
    return;
  }
  if (kind?.case === 'selectExpr') {
    inspect((kind.value as { operand: unknown }).operand, info);
    return;
  }
  if (kind?.case === 'listExpr') {
    for (const x of (kind.value as { elements: unknown[] }).elements) inspect(x, info);
    return;
  }
  if (kind?.case === 'structExpr') {
    for (const entry of (kind.value as { entries: { keyKind?: { case?: string; value?: unknown }; value: unknown }[] }).entries) {
      if (entry.keyKind?.case === 'mapKey') inspect(entry.keyKind.value, info);
      inspect(entry.value, info);
    }
    return;
  }
  if (kind?.case === 'comprehensionExpr') {
    const c = kind.value as Record<string, unknown>;
    for (const k of ['iterRange', 'accuInit', 'loopCondition', 'loopStep', 'result']) inspect(c[k], info);
  }
}

function planExpression(src: string): Planned | string {
  const hit = cache.get(src);
  if (hit !== undefined) return hit;
  let out: Planned | string;
  try {
    const parsed = parse(src);
    const info: AstInfo = { unknown: new Set(), usesOldSelf: false };
    inspect(parsed.expr, info);
    if (info.unknown.size) {
      const names = [...info.unknown].sort();
      out = `undeclared reference to ${names.map((n) => `'${n}'`).join(', ')} (${names.length === 1 ? 'this function is' : 'these functions are'} not in crdgen's CEL library)`;
    } else {
      const p = plan(kubernetesCelEnv(), parsed) as unknown as Program;
      out = { program: p, usesOldSelf: info.usesOldSelf };
    }
  } catch (e) {
    const msg = (e as Error).message;
    out = /\.\?|\[\?/.test(src) ? `optional field selection (.? / [?]) is not supported by @bufbuild/cel: ${msg}` : `syntax error: ${msg}`;
  }
  cache.set(src, out);
  return out;
}

/** Compiles a rule (and its messageExpression). Never throws: problems come back as `{ ok: false }`. */
export function compileRule(rule: ValidationRule): CompileOutcome {
  if (rule.optionalOldSelf) return { ok: false, message: 'optionalOldSelf is not supported (it needs CEL optional types)' };
  const p = planExpression(rule.rule);
  if (typeof p === 'string') return { ok: false, message: p };
  let messageProgram: Program | undefined;
  if (rule.messageExpression !== undefined) {
    const m = planExpression(rule.messageExpression);
    if (typeof m === 'string') return { ok: false, message: `messageExpression: ${m}` };
    messageProgram = m.program;
  }
  return { ok: true, rule: { source: rule, program: p.program, usesOldSelf: p.usesOldSelf, messageProgram } };
}
