// Compiling one x-kubernetes-validations rule: parse (with @bufbuild/cel's parser), compile to
// closures (our evaluator), refuse what cannot be evaluated (unknown functions, optional syntax)
// with a clear message. Programs are cached by source text, so a rule repeated across versions or
// nodes is compiled once per process.
import { parse } from '@bufbuild/cel';
import type { ValidationRule } from '../validation/schema.js';
import { kubernetesLibrary } from './env.js';
import { compileAst, type Eval } from './interp.js';
import type { Value } from './value.js';

/** A compiled program: evaluate with `self` (and `oldSelf`) bound; throws CelEvalError. */
export interface Program {
  run(self: Value, oldSelf?: Value): Value;
}

/** A rule ready to evaluate. */
export interface CompiledRule {
  readonly source: ValidationRule;
  readonly program: Program;
  /** The rule reads `oldSelf`: a transition rule, evaluated only on update. */
  readonly usesOldSelf: boolean;
  readonly messageProgram: Program | undefined;
  /** The parsed rule (for the schema-aware field check). */
  readonly ast: unknown;
}

/** The outcome of {@link compileRule}. */
export type CompileOutcome = { ok: true; rule: CompiledRule } | { ok: false; message: string };

interface Planned {
  program: Program;
  usesOldSelf: boolean;
  ast: unknown;
}

const cache = new Map<string, Planned | string>();

function program(ev: Eval, frameSize: number): Program {
  return {
    run(self, oldSelf) {
      const frame = new Array<Value>(frameSize);
      frame[0] = self;
      frame[1] = oldSelf ?? null;
      return ev(frame);
    },
  };
}

/** Compiles a CEL expression once; a string is the reason it cannot be evaluated. */
export function compileExpression(src: string): Planned | string {
  const hit = cache.get(src);
  if (hit !== undefined) return hit;
  let out: Planned | string;
  try {
    const parsed = parse(src);
    const c = compileAst(parsed.expr, kubernetesLibrary);
    if (c.unknown.length) {
      const names = c.unknown;
      out = `undeclared reference to ${names.map((n) => `'${n}'`).join(', ')} (not in crdgen's CEL library)`;
    } else {
      out = { program: program(c.eval, c.frameSize), usesOldSelf: c.usesOldSelf, ast: parsed.expr };
    }
  } catch (e) {
    const msg = (e as Error).message;
    out = /\.\?|\[\?/.test(src) ? `optional field selection (.? / [?]) is not supported: ${msg}` : `syntax error: ${msg}`;
  }
  cache.set(src, out);
  return out;
}

/** Compiles a rule (and its messageExpression). Never throws: problems come back as `{ ok: false }`. */
export function compileRule(rule: ValidationRule): CompileOutcome {
  if (rule.optionalOldSelf) return { ok: false, message: 'optionalOldSelf is not supported (it needs CEL optional types)' };
  const p = compileExpression(rule.rule);
  if (typeof p === 'string') return { ok: false, message: p };
  let messageProgram: Program | undefined;
  if (rule.messageExpression !== undefined) {
    const m = compileExpression(rule.messageExpression);
    if (typeof m === 'string') return { ok: false, message: `messageExpression: ${m}` };
    messageProgram = m.program;
  }
  return { ok: true, rule: { source: rule, program: p.program, usesOldSelf: p.usesOldSelf, messageProgram, ast: p.ast } };
}
