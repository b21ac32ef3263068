// crdgen: the generator's programmatic API.
export type { Model } from './model/types.js';
export type { Diagnostic } from './diagnostics/diagnostic.js';
