// What the generated built-in kinds (./apis) import of the runtime: generated code imports
// `crdgen/runtime`, these files the runtime's own modules, so that no folder of src/runtime needs
// the package's entry point (which imports every folder).
export type { ListMeta, ObjectMeta } from '../meta/types.js';
export type { TypedResource } from '../client/resource.js';
