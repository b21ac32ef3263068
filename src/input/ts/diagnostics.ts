// The TypeScript reader's diagnostics: its codes (the catalogue's TS codes) and how it builds and orders them.
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { SourcePos } from '../../model/types.js';

/** A TypeScript reader diagnostic code: the `TS` codes of the catalogue (src/diagnostics/codes.ts). */
export type TsCode = Extract<DiagnosticCode, `TS${string}`>;

/** Builds an error diagnostic at a source position. */
export function tsDiag(code: TsCode, message: string, pos: SourcePos | undefined, hint?: string): Diagnostic {
  const d: Diagnostic = { severity: 'error', code, message };
  if (pos) {
    d.file = pos.file;
    d.line = pos.line;
    d.col = pos.col;
  }
  if (hint !== undefined) d.hint = hint;
  return d;
}

/** Removes exact duplicates (a shared type is visited once per use) and sorts by position. */
export function dedupeDiagnostics(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const d of list) {
    const key = `${d.file}\0${d.line}\0${d.col}\0${d.code}\0${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out.sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.col ?? 0) - (b.col ?? 0) ||
      a.code.localeCompare(b.code),
  );
}
