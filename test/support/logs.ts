// Reading an operator's JSON log lines (runOperator's logger: one object per line).

/**
 * True for the line that ends a reconcile: one per reconcile, with its `key`, `result`,
 * `startedAt` and `durationMs` (and `time`, when it ended), at debug when the reconcile finished
 * and at error when it failed. Run the operator with `--log-level debug` to get them all.
 */
export function isReconcileEnd(l: Readonly<Record<string, unknown>>): boolean {
  return typeof l['key'] === 'string' && typeof l['result'] === 'string' && typeof l['startedAt'] === 'string';
}
