// crdgen/runtime: what generated code imports. Must not import the generator's
// dependencies (ts-morph, handlebars, commander, ajv).
export type * from './meta/types.js';
export * from './client/errors.js';
export type * from './client/types.js';
export * from './client/resource.js';
export * from './client/config.js';
export * from './client/rest-client.js';
export * from './client/resource-client.js';
export * from './client/watch.js';
export * from './client/flowcontrol.js';
export * from './client/builtin.js';
