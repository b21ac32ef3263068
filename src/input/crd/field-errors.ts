// Builders for findings worded as the apiserver words them
// (k8s.io/apimachinery/pkg/util/validation/field: Required, Invalid, NotSupported, …).

import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { apiserverField, dottedPath, type Path } from './field-path.js';

/** A check result before positions are known: a diagnostic plus its path segments. */
export interface Finding {
  diag: Diagnostic;
  path: Path;
  /** The problem is the key at `path` itself (an unknown field): point at the key, not its value. */
  atKey?: boolean;
}

/** Formats a value as the apiserver prints it after `Invalid value:`. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  const json = JSON.stringify(v);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

function make(code: DiagnosticCode, path: Path, reason: string, message: string, hint?: string): Finding {
  const diag: Diagnostic = {
    severity: 'error',
    code,
    message,
    path: dottedPath(path),
    field: apiserverField(path),
    reason,
  };
  if (hint !== undefined) diag.hint = hint;
  return { diag, path };
}

/** `Required value` (`: detail` when given). */
export function required(code: DiagnosticCode, path: Path, detail = '', hint?: string): Finding {
  return make(code, path, 'FieldValueRequired', detail ? `Required value: ${detail}` : 'Required value', hint);
}

/** `Invalid value: <v>: detail`. */
export function invalid(code: DiagnosticCode, path: Path, value: unknown, detail: string, hint?: string): Finding {
  return make(code, path, 'FieldValueInvalid', `Invalid value: ${formatValue(value)}: ${detail}`, hint);
}

/** `Unsupported value: "x": supported values: "a", "b"`. */
export function notSupported(
  code: DiagnosticCode,
  path: Path,
  value: unknown,
  supported: readonly string[],
  hint?: string,
): Finding {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return make(
    code,
    path,
    'FieldValueNotSupported',
    `Unsupported value: ${formatValue(value)}: supported values: ${list}`,
    hint,
  );
}

/** `Forbidden: detail`. */
export function forbidden(code: DiagnosticCode, path: Path, detail: string, hint?: string): Finding {
  return make(code, path, 'FieldValueForbidden', `Forbidden: ${detail}`, hint);
}

/** `Invalid value: <v>: must be of type <t>` (a decoding error in the apiserver). */
export function typeInvalid(code: DiagnosticCode, path: Path, value: unknown, expected: string): Finding {
  return make(code, path, 'FieldValueTypeInvalid', `Invalid value: ${formatValue(value)}: must be of type ${expected}`);
}

/** A generator-only finding (not an apiserver rule): plain message. */
export function genError(code: DiagnosticCode, path: Path, message: string, hint?: string): Finding {
  return make(code, path, 'FieldValueInvalid', message, hint);
}

/** Edit distance, for `did you mean` hints. */
export function levenshtein(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}

/** `did you mean "x"?` for the closest candidate within distance 2 (or a case-only difference), else undefined. */
export function didYouMean(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = c.toLowerCase() === value.toLowerCase() ? 0 : levenshtein(value, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(value.length / 3))
    ? `did you mean ${JSON.stringify(best)}?`
    : undefined;
}
