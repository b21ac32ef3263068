// Compiling one CEL expression as the apiserver does: parse (./syntax.ts), type-check against the
// declared variables (./checker.ts), run Kubernetes' AST validators (./validators.ts), then
// compile to closures (./interp.ts); ./rules.ts adds the rule-level checks and the cost estimate.
// Parsed ASTs and closures are cached by source text; the check depends on the variables' types,
// so it runs per schema node.
import type { ValidationRule } from '../validation/schema.js';
import { check, type Checked } from './checker.js';
import { TYPE_IDENTS } from './decls.js';
import { kubernetesLibrary } from './env.js';
import { compileAst, type Eval } from './interp.js';
import { CelCompileError, formatIssues, parseCel, type Expr } from './syntax.js';
import { DYN, type CelType } from './types.js';
import { metered, type MeteredResult } from './runtime-cost.js';
import { validateAst } from './validators.js';
import { TypeValue, type Value } from './value.js';

/** A compiled program: evaluate with `self` (and `oldSelf`, and extra variables) bound; throws CelEvalError. */
export interface Program {
  run(self: Value, oldSelf?: Value, extra?: readonly Value[]): Value;
  /** Runs metered (./runtime-cost.ts): stops past `limit` with a CelCostLimitError; gives the cost either way. */
  runMetered(limit: number, self: Value, oldSelf?: Value): MeteredResult;
}

/** Type identifiers as runtime values (`type(x) == int`). */
export const typeValues: ReadonlyMap<string, TypeValue> = new Map(
  [...TYPE_IDENTS.keys()].map((n) => [n, new TypeValue(n)]),
);

interface Parsed {
  ast: Expr;
  program: Program;
  usesOldSelf: boolean;
}

const cache = new Map<string, Parsed | CelCompileError>();

function program(ev: Eval, frameSize: number): Program {
  const run = (self: Value, oldSelf?: Value, extra?: readonly Value[]): Value => {
    const frame = new Array<Value>(frameSize);
    frame[0] = self;
    frame[1] = oldSelf ?? null;
    if (extra) for (let i = 0; i < extra.length; i++) frame[2 + i] = extra[i]!;
    return ev(frame);
  };
  return {
    run,
    runMetered: (limit, self, oldSelf) => metered(limit, () => run(self, oldSelf)),
  };
}

/** Parses and compiles to closures (cached by source); throws CelCompileError for a syntax error. */
export function parseProgram(src: string, extraVars: readonly string[] = []): Parsed {
  const key = extraVars.length ? `${extraVars.join(',')}\u0000${src}` : src;
  let hit = cache.get(key);
  if (hit === undefined) {
    try {
      const ast = parseCel(src);
      const c = compileAst(ast, kubernetesLibrary, typeValues, extraVars);
      hit = { ast, program: program(c.eval, c.frameSize), usesOldSelf: c.usesOldSelf };
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      hit = e;
    }
    if (cache.size > 20_000) cache.clear();
    cache.set(key, hit);
  }
  if (hit instanceof CelCompileError) throw hit;
  return hit;
}

/** The outcome of {@link compileChecked}. */
export type CheckedOutcome =
  | { ok: true; program: Program; ast: Expr; checked: Checked; usesOldSelf: boolean }
  | { ok: false; message: string; compile: boolean };

/**
 * Parses and type-checks `src` with the variables `vars` (name → type); on success the program.
 * On failure `message` is cel-go's issue text (`ERROR: <input>:1:6: … | …^`), `compile` true.
 */
export function compileChecked(
  src: string,
  vars: ReadonlyMap<string, CelType>,
  extraVars: readonly string[] = [],
): CheckedOutcome {
  let p: Parsed;
  try {
    p = parseProgram(src, extraVars);
  } catch (e) {
    if (e instanceof CelCompileError) return { ok: false, message: e.message, compile: true };
    throw e;
  }
  const checked = check(p.ast, vars);
  if (checked.issues.length) return { ok: false, message: formatIssues(src, checked.issues), compile: true };
  const invalid = validateAst(p.ast, checked);
  if (invalid.length) return { ok: false, message: formatIssues(src, invalid), compile: true };
  return { ok: true, program: p.program, ast: p.ast, checked, usesOldSelf: p.usesOldSelf && vars.has('oldSelf') };
}

/** What compileExpression produces: a program, or the reason it cannot be compiled. */
export interface Planned {
  program: Program;
  usesOldSelf: boolean;
  ast: Expr;
  type: CelType;
}

const DYN_VARS: ReadonlyMap<string, CelType> = new Map([
  ['self', DYN],
  ['oldSelf', DYN],
]);

/** Compiles an expression with `self` and `oldSelf` of type dyn; a string is cel-go's error text. */
export function compileExpression(src: string): Planned | string {
  const c = compileChecked(src, DYN_VARS);
  if (!c.ok) return c.message;
  return { program: c.program, usesOldSelf: c.usesOldSelf, ast: c.ast, type: c.checked.type };
}

/** A rule ready to evaluate. */
export interface CompiledRule {
  readonly source: ValidationRule;
  readonly program: Program;
  /** The rule reads `oldSelf`: a transition rule, evaluated only on update. */
  readonly usesOldSelf: boolean;
  readonly messageProgram: Program | undefined;
  readonly ast: Expr;
  /** The static cost estimate (cel-go's max), when it was computed. */
  readonly maxCost?: number;
}
