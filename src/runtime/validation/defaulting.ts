// Structural defaulting as the apiserver does it: a property's default is set when the property is
// absent (or null and not nullable), only inside objects that exist; then the walk continues into the
// (possibly defaulted) values, so defaults inside defaults apply too.
import type { Node } from './node.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonNullableNull(v: unknown, n: Node | undefined): boolean {
  return (v === null || v === undefined) && n !== undefined && !n.s.nullable;
}

/** Applies the schema's defaults to `x` in place. */
export function applyDefaults(n: Node | undefined, x: unknown): void {
  if (!n || !n.hasDefaults) return;
  if (Array.isArray(x)) {
    const items = n.items;
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], items) && items.s.default !== undefined) x[i] = structuredClone(items.s.default);
      applyDefaults(items, x[i]);
    }
    return;
  }
  if (!isObject(x)) return;
  if (n.props) {
    for (const [k, p] of n.props) {
      if (p.s.default === undefined) continue;
      if (!Object.hasOwn(x, k) || nonNullableNull(x[k], p)) x[k] = structuredClone(p.s.default);
    }
  }
  for (const k of Object.keys(x)) {
    const p = n.props?.get(k);
    if (p) applyDefaults(p, x[k]);
    else if (n.addl) {
      if (nonNullableNull(x[k], n.addl) && n.addl.s.default !== undefined) x[k] = structuredClone(n.addl.s.default);
      applyDefaults(n.addl, x[k]);
    }
  }
}

/**
 * Drops `null` values where the schema is not nullable and has no default
 * (the apiserver's PruneNonNullableNullsWithoutDefaults, run after defaulting).
 */
export function pruneNonNullableNulls(n: Node | undefined, x: unknown): void {
  if (!n) return;
  if (Array.isArray(x)) {
    if (n.items) for (const v of x) pruneNonNullableNulls(n.items, v);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const p = n.props?.get(k) ?? n.addl;
    if (!p) continue;
    const v = x[k];
    if (v === null) {
      if (!p.s.nullable && p.s.default === undefined) delete x[k];
    } else pruneNonNullableNulls(p, v);
  }
}
