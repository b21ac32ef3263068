// The seam between schema validation and the CEL rule engine: what an engine of
// x-kubernetes-validations rules provides, and where it is registered. Validation does not import
// the engine: `crdgen/runtime/validation` (./index.ts) loads src/runtime/cel and registers it, so
// `crdgen/runtime/validation/core` and code whose schemas have no rules never pay for CEL.
import type { FieldError } from './field-error.js';
import type { Node } from './node.js';

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
  /** The problem after `compilation failed: ` (for compile errors), else the whole detail. */
  message: string;
  /**
   * The apiserver's whole error for this rule: `Invalid value: "<rule>": compilation failed: ERROR: <input>:1:6: …`,
   * `Invalid value: "<rule>": cel expression must evaluate to a bool`, or
   * `Forbidden: estimated rule cost exceeds budget by factor of …`.
   */
  detail: string;
  /** For an oldSelf rule under an uncorrelatable list or map: that node, as segments under `openAPIV3Schema`. */
  uncorrelatable?: (string | number)[];
}

/** Evaluates all rules of a schema tree. */
export interface RuleEvaluator {
  readonly problems: readonly RuleProblem[];
  /** Appends the errors of every failing rule. */
  validate(obj: unknown, old: unknown, errs: FieldError[]): void;
}

/** Builds the evaluator of every rule under a compiled schema tree (`eager`: compile all rules now). */
export type RuleEngine = (root: Node, opts: { eager: boolean; isResourceRoot: boolean }) => RuleEvaluator;

let registered: RuleEngine | undefined;

/** Makes CEL rules available to `compileValidator` (called by `crdgen/runtime/validation` when it loads). */
export function registerRuleEngine(engine: RuleEngine): void {
  registered = engine;
}

/** The registered engine; throws, saying what to import, when none is. */
export function ruleEngine(): RuleEngine {
  if (!registered) {
    throw new Error(
      "this schema has x-kubernetes-validations rules, and the CEL engine is not loaded: import 'crdgen/runtime/validation' (not '…/validation/core') before compiling it",
    );
  }
  return registered;
}
