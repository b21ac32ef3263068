// crdgen/types: the type-only module that annotated TypeScript API files import.
export {};
