// Determinism in one place: sort with a fixed, locale-independent order.

/** Compares strings by UTF-16 code units (never locale-dependent). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `Object.entries(obj)` (or a Map's entries) sorted by key with {@link compareStrings}. */
export function sortedEntries<V>(obj: Readonly<Record<string, V>> | ReadonlyMap<string, V>): [string, V][] {
  const entries: [string, V][] = obj instanceof Map ? [...obj.entries()] : Object.entries(obj as Record<string, V>);
  return entries.sort((x, y) => compareStrings(x[0], y[0]));
}

/** A sorted copy of `items`, by `key(item)` with {@link compareStrings}. */
export function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((x, y) => compareStrings(key(x), key(y)));
}
