// Reads the inputs of a run that are not TypeScript: CRD YAML, or Kubernetes OpenAPI v3
// documents (told apart by their content: an OpenAPI document has `openapi` at its top level).
// One run reads one of the two; mixing them is an error.

import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { decodeText, readCrdInputs, type CrdSource, type ReadResult } from './crd/index.js';
import { isOpenApiText, readOpenApiInputs, type OpenApiReadOptions } from './openapi/index.js';

/** What {@link readApiInputs} read: the model, diagnostics, and which reader. */
export interface ApiReadResult extends ReadResult {
  /** `openapi` when the inputs were OpenAPI documents, else `yaml` (CRDs). */
  format: 'yaml' | 'openapi';
}

/** True when the source is an OpenAPI (or Swagger) document rather than CRD YAML. */
export function isOpenApiSource(src: CrdSource): boolean {
  const decoded = decodeText(src.file, src.content);
  return !('diagnostic' in decoded) && isOpenApiText(decoded.text);
}

/** Reads CRD YAML or OpenAPI inputs with the reader they need. */
export function readApiInputs(sources: readonly CrdSource[], options: OpenApiReadOptions = {}): ApiReadResult {
  const openapi = sources.filter(isOpenApiSource);
  if (openapi.length === 0) return { ...readCrdInputs(sources), format: 'yaml' };
  if (openapi.length === sources.length) return { ...readOpenApiInputs(sources, options), format: 'openapi' };
  const crds = sources.filter((s) => !openapi.includes(s));
  const diagnostic: Diagnostic = {
    severity: 'error',
    code: 'CLI003',
    file: crds[0].file,
    message: `CRD inputs and OpenAPI documents cannot be generated in one run (OpenAPI: ${openapi.map((s) => s.file).join(', ')})`,
    hint: 'generate them into separate output folders (two config targets)',
  };
  return {
    model: { groups: [], sources: [...new Set(sources.map((s) => s.file))].sort() },
    diagnostics: [diagnostic],
    format: 'openapi',
  };
}
