// Determinism in one place: sort with a fixed, locale-independent order.

/** Compares strings by UTF-16 code units (never locale-dependent). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
