// crdgen: the generator's programmatic API — read CRDs into the model, run the
// emitters, write or inspect the files. The CLI is a thin layer over these.

export type * from './model/types.js';
export type { Diagnostic, Severity } from './diagnostics/diagnostic.js';
export { DIAGNOSTIC_CODES, type DiagnosticCode } from './diagnostics/codes.js';
export { formatDiagnostic, formatDiagnostics, hasErrors, countDiagnostics } from './diagnostics/format.js';
export { readCrdInputs, checkCrdObject, type CrdSource, type ReadResult } from './input/crd/index.js';
export {
  createEmitContext,
  DEFAULT_RUNTIME_IMPORT,
  type Emitter,
  type EmitContext,
  type GeneratedFile,
} from './generate/emitter.js';
export { EMITTERS, runEmitters, selectEmitters, type EmitterEntry } from './generate/registry.js';
export { writeFiles, planWrite, WriteError, type PlanEntry, type PlanAction } from './emit/writer.js';
export { GENERATED_HEADER } from './emit/header.js';
export { publicName, privateName, pluralName, safeIdentifier, propertyKey, tsString } from './model/naming.js';
