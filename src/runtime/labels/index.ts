// Label selectors: type, grammar and metav1.LabelSelector conversion.
export * from './selector.js';
export * from './parse.js';
export * from './label-selector.js';
