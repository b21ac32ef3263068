// The fake clientset's runtime: object tracker, recorded actions, reactors, fake watch.
export * from './tracker.js';
export * from './actions.js';
export * from './backend.js';
export * from './watch.js';
export { mergePatch, jsonPatch } from './patch.js';
