// crdgen/runtime validation: the apiserver's checks for custom resources (OpenAPI keywords,
// x-kubernetes-list-type, CEL x-kubernetes-validations), defaulting and pruning, in one engine.
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
  isPrecompiled,
  reduceSchema,
  SchemaError,
  type PrecompiledSchema,
  type SchemaNode,
  type ValidationRule,
} from './schema.js';
export { compileValidator, lazyValidator, precompileSchema, RuleCompileError, type CompileOptions, type StructuralValidator } from './validator.js';
export type { RuleProblem } from '../cel/rules.js';
