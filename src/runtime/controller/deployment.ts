// Keeping an owned Deployment in line with what its owner wants: a semantic comparison
// (every field the controller sets must match; fields the API server or others default
// or add are left alone) and the updated copy to send.
import type { Deployment } from '../client/builtin.js';

/**
 * True when every value set in `want` is present and equal in `have`: objects compare
 * key by key (extra keys in `have` are fine), arrays element by element and must have
 * the same length, everything else with `===`. `undefined` in `want` matches anything.
 */
export function semanticallyContains(have: unknown, want: unknown): boolean {
  if (want === undefined) return true;
  if (Array.isArray(want)) {
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => semanticallyContains(have[i], w));
  }
  if (want !== null && typeof want === 'object') {
    if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
    return Object.entries(want).every(([k, w]) => semanticallyContains((have as Record<string, unknown>)[k], w));
  }
  return have === want;
}

/**
 * The Deployment to send when `current` (from the cache; never mutated) is out of line
 * with `desired` in `spec.replicas` or `spec.template`, else `undefined`. The copy keeps
 * `current`'s metadata (resourceVersion: optimistic concurrency) and status.
 */
export function deploymentUpdate(current: Deployment, desired: Deployment): Deployment | undefined {
  const want = desired.spec;
  if (!want) return undefined;
  const have = current.spec;
  const replicasOk = want.replicas === undefined || have?.replicas === want.replicas;
  const templateOk = semanticallyContains(have?.template, want.template);
  if (replicasOk && templateOk) return undefined;
  const copy = structuredClone(current);
  copy.spec = { ...copy.spec!, ...(want.replicas !== undefined ? { replicas: want.replicas } : {}), template: structuredClone(want.template) };
  return copy;
}
