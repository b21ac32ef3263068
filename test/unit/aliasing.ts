// Shared by the deep-copy tests (runtime helpers, generated copiers, the bench's reference
// copies) and by bench/deepcopy.ts's lossless column: what objects a value reaches, and the
// check that a copy shares none of them.
import assert from 'node:assert/strict';

/** Every object and array reachable from `v` through own enumerable keys, `v` included. */
export function objectsOf(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === 'object' && v !== null) {
    into.add(v);
    for (const k of Object.keys(v)) objectsOf((v as Record<string, unknown>)[k], into);
  }
  return into;
}

/** Fails when `copy` reaches any object or array that `original` reaches. */
export function assertAliasFree(copy: unknown, original: unknown): void {
  const originals = objectsOf(original);
  for (const o of objectsOf(copy)) assert.ok(!originals.has(o), 'copy shares an object with the original');
}
