// Diagnostic: one problem found in an input, with its position.
// Readers collect all of them, then the CLI prints them and exits 1.

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  severity: Severity;
  /** Stable code from the catalogue, e.g. `CRD004`. */
  code: string;
  message: string;
  /** Input file as given on the command line (or `<stdin>`). */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  col?: number;
  /** Path inside the document, e.g. `spec.versions[0].schema.openAPIV3Schema.properties.spec`. */
  path?: string;
  /** What would fix it, e.g. `did you mean "string"?`. */
  hint?: string;
}
