// crdgen/runtime validation: the apiserver's checks for custom resources (OpenAPI keywords,
// x-kubernetes-list-type, CEL x-kubernetes-validations), defaulting and pruning, in one engine.
// Everything of ./core.js, with the CEL rule engine (src/runtime/cel) loaded and registered.
// Loading the CEL parser and evaluator is most of this entry's load time (~200 ms unbundled).
import { createRuleEvaluator } from '../cel/rules.js';
import { registerRuleEngine } from './rule-engine.js';

registerRuleEngine(createRuleEvaluator);

export * from './core.js';
