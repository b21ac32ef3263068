// crdgen/runtime validation: the apiserver's checks for custom resources (OpenAPI keywords,
// x-kubernetes-list-type, CEL x-kubernetes-validations), defaulting and pruning, in one engine.
// Everything of ./core.js, with the CEL rule engine loaded.
import './cel-engine.js';

export * from './core.js';
