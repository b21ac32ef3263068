// The OpenAPI reader's public surface: Kubernetes OpenAPI v3 documents → the model.

export { readOpenApiInputs, isOpenApiText, type OpenApiReadOptions } from './read.js';
