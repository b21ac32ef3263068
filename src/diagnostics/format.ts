// The diagnostics printer: `file:line:col error CODE message` plus path and hint lines.

import type { Diagnostic } from './diagnostic.js';

/**
 * One diagnostic as text, for stderr:
 * ```
 * crd.yaml:19:25 error CRD030 Unsupported value: "strin": supported values: "array", …
 *   at spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.deploymentName.type
 *   hint: did you mean "string"?
 * ```
 * Missing position parts are left out (`crd.yaml error …`, `error …`). Control
 * characters in any part are shown as `?` so input cannot forge terminal output.
 */
export function formatDiagnostic(d: Diagnostic): string {
  let where = d.file ?? '';
  if (d.file !== undefined && d.line !== undefined) {
    where += `:${d.line}`;
    if (d.col !== undefined) where += `:${d.col}`;
  }
  const head = `${where === '' ? '' : `${clean(where)} `}${d.severity} ${d.code} ${clean(d.message)}`;
  const lines = [head];
  if (d.path) lines.push(`  at ${clean(d.path)}`);
  if (d.hint) lines.push(`  hint: ${clean(d.hint)}`);
  return lines.join('\n');
}

/** All diagnostics, one block each, errors and warnings in the given order, newline-terminated. */
export function formatDiagnostics(ds: readonly Diagnostic[]): string {
  return ds.map((d) => `${formatDiagnostic(d)}\n`).join('');
}

/** Counts `{errors, warnings}`. */
export function countDiagnostics(ds: readonly Diagnostic[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const d of ds) {
    if (d.severity === 'error') errors++;
    else warnings++;
  }
  return { errors, warnings };
}

/** True when any diagnostic is an error. */
export function hasErrors(ds: readonly Diagnostic[]): boolean {
  return ds.some((d) => d.severity === 'error');
}

function clean(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/g, '?').replace(/\n/g, ' ');
}
