// compileValidator: one structural schema → validate (OpenAPI keywords, list types, CEL rules, in the
// apiserver's order), applyDefaults and prune.
import { BLOCKING_REASONS, RULES_NOT_CHECKED, type FieldError } from './field-error.js';
import { applyDefaults as defaultNode, pruneNonNullableNulls } from './defaulting.js';
import { validateEmbedded } from './embedded.js';
import { validateListTypes } from './list-type.js';
import { checkPatterns, compileNode, type Node } from './node.js';
import { NO_OLD, validateOpenAPI } from './openapi.js';
import { prune as pruneNode } from './pruning.js';
import { hasRules, isPrecompiled, reduceSchema, SchemaError, type PrecompiledSchema } from './schema.js';
import { ruleEngine, type RuleEvaluator, type RuleProblem } from './rule-engine.js';

/** Validates, defaults and prunes objects of one kind and version. */
export interface StructuralValidator {
  /**
   * Field errors as the apiserver reports them; `old` (on update) enables transition rules
   * (`oldSelf`). `context` adds the errors a server finds around the schema (object metadata
   * before it, the scale subresource's paths after it): they come out in the apiserver's order
   * and, when blocking, skip the CEL rules too.
   */
  validate(obj: unknown, old?: unknown, context?: ValidationContext): FieldError[];
  /** Applies schema defaults in place (and drops non-nullable nulls without a default). */
  applyDefaults(obj: unknown): void;
  /** Drops unknown fields in place, unless x-kubernetes-preserve-unknown-fields. */
  prune(obj: unknown): void;
  /** CEL rules that cannot be evaluated (empty unless `unsupportedRules: 'report'`). */
  readonly problems: readonly RuleProblem[];
}

/** Errors found outside the schema, placed where the apiserver's custom resource strategy puts them. */
export interface ValidationContext {
  /** Before the schema's errors (ObjectMeta validation). */
  before?: readonly FieldError[];
  /** After the schema's errors, before embedded resources and list types (the scale subresource's paths). */
  afterSchema?: readonly FieldError[];
  /**
   * Run one part only: `'openapi'`, the OpenAPI keywords (kube-openapi's validator alone, as the
   * apiserver checks a CRD's defaults), or `'rules'`, the CEL rules alone.
   */
  only?: 'openapi' | 'rules';
}

/** Options of {@link compileValidator}. */
export interface CompileOptions {
  /** The schema is a resource root (default true): apiVersion/kind/metadata are kept by pruning. */
  isResourceRoot?: boolean;
  /**
   * What to do with CEL rules that cannot be compiled (syntax error, unknown function):
   * `'throw'` (default) throws a {@link RuleCompileError} listing all of them, as the apiserver rejects
   * such a CRD; `'report'` returns a validator whose `problems` list them and whose `validate()`
   * answers each with a field error at the rule's node — never as passing.
   */
  unsupportedRules?: 'throw' | 'report';
  /**
   * Compile every CEL rule now (default true for a raw schema, so problems surface at load time).
   * For a precompiled schema (already checked by `precompileSchema`) the default is lazy: each rule
   * is compiled once, the first time it is evaluated.
   */
  eagerRules?: boolean;
}

/** Thrown by {@link compileValidator} when CEL rules cannot be compiled; lists every problem once. */
export class RuleCompileError extends Error {
  /** @param problems every rule that cannot be compiled */
  constructor(readonly problems: readonly RuleProblem[]) {
    super(
      `${problems.length} validation rule${problems.length === 1 ? '' : 's'} cannot be compiled:\n` +
        problems.map((p) => `  at ${p.schemaPath || '<root>'}: ${p.message} (rule: ${p.rule})`).join('\n'),
    );
    this.name = 'RuleCompileError';
  }
}

/**
 * Builds a validator from a CRD version's `openAPIV3Schema` or from the precompiled form
 * ({@link precompileSchema}). Throws {@link SchemaError} for a malformed schema and
 * {@link RuleCompileError} for rules that cannot be compiled (unless `unsupportedRules: 'report'`).
 */
export function compileValidator(openAPIV3Schema: unknown, options: CompileOptions = {}): StructuralValidator {
  const pre = isPrecompiled(openAPIV3Schema);
  const schema = pre ? openAPIV3Schema.schema : reduceSchema(openAPIV3Schema);
  const root = compileNode(schema);
  const isResourceRoot = options.isResourceRoot ?? true;
  const rules = root.hasRules ? ruleEngine()(root, { eager: options.eagerRules ?? !pre, isResourceRoot }) : undefined;
  if (rules && rules.problems.length && (options.unsupportedRules ?? 'throw') === 'throw')
    throw new RuleCompileError(rules.problems);
  return new Validator(root, isResourceRoot, rules);
}

class Validator implements StructuralValidator {
  readonly problems: readonly RuleProblem[];

  constructor(
    private readonly root: Node,
    private readonly isResourceRoot: boolean,
    private readonly rules: RuleEvaluator | undefined,
  ) {
    this.problems = rules?.problems ?? [];
  }

  validate(obj: unknown, old?: unknown, context?: ValidationContext): FieldError[] {
    if (context?.only === 'openapi') {
      const errs: FieldError[] = [];
      validateOpenAPI(this.root, obj, '', errs, NO_OLD);
      return errs;
    }
    if (context?.only === 'rules') {
      const errs: FieldError[] = [];
      this.rules?.validate(obj, old, errs);
      return errs;
    }
    const errs: FieldError[] = [...(context?.before ?? [])];
    validateOpenAPI(this.root, obj, '', errs, old === undefined ? NO_OLD : old);
    if (context?.afterSchema) errs.push(...context.afterSchema);
    validateEmbedded(this.root, obj, '', errs);
    validateListTypes(this.root, obj, '', errs);
    if (this.rules) {
      if (errs.some((e) => BLOCKING_REASONS.has(e.reason))) errs.push(RULES_NOT_CHECKED);
      else this.rules.validate(obj, old, errs);
    }
    return errs;
  }

  applyDefaults(obj: unknown): void {
    defaultNode(this.root, obj);
    pruneNonNullableNulls(this.root, obj);
  }

  prune(obj: unknown): void {
    pruneNode(this.root, obj, this.isResourceRoot);
  }
}

export { SchemaError };

/**
 * Reduces a CRD version's `openAPIV3Schema` to the precompiled form generated code embeds (plain
 * JSON). Every CEL rule is compiled and checked against the schema here, at generation time, so the
 * embedded form holds only rules the runtime can evaluate: throws {@link SchemaError} or
 * {@link RuleCompileError} otherwise.
 */
export function precompileSchema(openAPIV3Schema: unknown): PrecompiledSchema {
  const frozen = typeof openAPIV3Schema === 'object' && openAPIV3Schema !== null && Object.isFrozen(openAPIV3Schema);
  const known = frozen ? precompiled.get(openAPIV3Schema) : undefined;
  if (known !== undefined) return known;
  const schema = reduceSchema(openAPIV3Schema);
  // the node tree is only needed to type-check rules; without rules only the patterns can fail
  if (hasRules(schema))
    compileValidator({ crdgenValidation: 1, schema } satisfies PrecompiledSchema, { eagerRules: true });
  else checkPatterns(schema);
  const out: PrecompiledSchema = { crdgenValidation: 1, schema };
  if (frozen) precompiled.set(openAPIV3Schema, out);
  return out;
}

/**
 * Precompiled forms of frozen schemas (a frozen schema cannot change, so its form cannot either):
 * crdgen's CRD reader compiles a schema to check it, the validators emitter embeds the same one.
 */
const precompiled = new WeakMap<object, PrecompiledSchema>();

/**
 * A validator compiled on first use from the precompiled form — what generated `validate<Kind>` and
 * `default<Kind>` hold at module level, so importing them costs nothing until they are called.
 */
export function lazyValidator(pre: PrecompiledSchema, options: CompileOptions = {}): StructuralValidator {
  let v: StructuralValidator | undefined;
  const get = () => (v ??= compileValidator(pre, options));
  return {
    validate: (obj, old) => get().validate(obj, old),
    applyDefaults: (obj) => get().applyDefaults(obj),
    prune: (obj) => get().prune(obj),
    get problems() {
      return get().problems;
    },
  };
}
