// Loading this module makes CEL `x-kubernetes-validations` rules available to the validation
// engine (the CEL parser and evaluator are most of the engine's load time, ~200 ms unbundled).
// `crdgen/runtime/validation` imports it; `crdgen/runtime/validation/core` leaves it out.
import { createRuleEvaluator } from '../cel/rules.js';
import { registerRuleEngine } from './validator.js';

registerRuleEngine(createRuleEvaluator);
