// crdgen/runtime/validation/core: the apiserver's checks for custom resources (OpenAPI keywords,
// x-kubernetes-list-type), defaulting and pruning, without the CEL rule engine. Compiling a schema
// with x-kubernetes-validations needs `crdgen/runtime/validation` (the same exports, CEL loaded);
// generated validation.ts imports this entry when its schemas have no rules.
export {
  BLOCKING_REASONS,
  ROOT_FIELD,
  dedupe,
  formatFieldError,
  formatInvalidMessage,
  type FieldError,
  type FieldErrorReason,
} from './field-error.js';
export {
  hasRules,
  isPrecompiled,
  reduceSchema,
  SchemaError,
  type PrecompiledSchema,
  type SchemaNode,
  type ValidationRule,
} from './schema.js';
export {
  compileValidator,
  lazyValidator,
  precompileSchema,
  RuleCompileError,
  type CompileOptions,
  type StructuralValidator,
} from './validator.js';
export type { RuleProblem } from './rule-engine.js';
