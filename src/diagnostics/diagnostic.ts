// Diagnostic: one problem found in an input, with its position.
// Readers collect all of them, then the CLI prints them and exits 1.

import type { DiagnosticCode } from './codes.js';

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  /** Stable code from the catalogue (src/diagnostics/codes.ts), e.g. `CRD040`. */
  code: DiagnosticCode;
  message: string;
  /** Input file as given on the command line (or `<stdin>`). */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  col?: number;
  /** Path inside the document, e.g. `spec.versions[0].schema.openAPIV3Schema.properties.spec`. */
  path?: string;
  /**
   * The same location as the apiserver names it in a 422 Status cause, e.g.
   * `spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[deploymentName].type`
   * (set by checks that mirror apiserver validation, so crdgen/testing can answer as the apiserver does).
   */
  field?: string;
  /**
   * The apiserver's StatusCause reason for this problem (`FieldValueRequired`,
   * `FieldValueInvalid`, `FieldValueNotSupported`, `FieldValueForbidden`,
   * `FieldValueDuplicate`, `FieldValueTypeInvalid`), set by apiserver-equivalent checks.
   */
  reason?: string;
  /** What would fix it, e.g. `did you mean "string"?`. */
  hint?: string;
}
