// crdgen/runtime's webhooks: the server an operator runs for the apiserver's admission and
// conversion calls, the review types and handlers, and hub-and-spoke conversion.
export * from './admission.js';
export * from './conversion.js';
export * from './certwatcher.js';
export * from './cert-rotation.js';
export * from './server.js';
export { applyPatchTolerant, diffJson, type JsonPatchOp } from './json-patch.js';
export { copyFields, type CopyPlan } from './field-copy.js';
