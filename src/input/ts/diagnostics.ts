// The TypeScript reader's diagnostic catalogue: one stable code per kind of problem.
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { SourcePos } from '../../model/types.js';

/** Codes the TypeScript reader reports, with what each means. */
export const TS_CODES = {
  /** A file could not be read, or has syntax errors. */
  TS001: 'input file problem',
  /** A declaration the format does not support (class, function, enum, variable, namespace). */
  TS002: 'unsupported declaration',
  /** A type the format cannot express as a schema (generic, union of objects, tuple, any, …). */
  TS003: 'unsupported type',
  /** A type refers to itself; a CRD schema cannot express recursion. */
  TS004: 'circular type',
  /** A marker name that is not in the catalogue. */
  TS005: 'unknown marker',
  /** A known marker on a node it cannot apply to. */
  TS006: 'marker on the wrong kind of node',
  /** A marker whose value does not parse. */
  TS007: 'marker value does not parse',
  /** A type reference that does not resolve to an interface or type alias. */
  TS008: 'unresolved type',
  /** Group or version missing or inconsistent. */
  TS009: 'group/version problem',
  /** A kind interface that is malformed (kind/apiVersion literals, missing spec shape). */
  TS010: 'malformed kind',
  /** Markers that contradict each other. */
  TS011: 'conflicting markers',
  /** The same kind twice in one version, or a multi-version kind without one storage version. */
  TS012: 'kind defined inconsistently',
  /** No inputs, or inputs that hold no kinds. */
  TS013: 'nothing to read',
} as const;

/** A TypeScript reader diagnostic code. */
export type TsCode = keyof typeof TS_CODES;

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
