// Keeping an owned Deployment (or Service) in line with what its owner wants: a semantic comparison
// (every field the controller sets must match; fields the API server or others default
// or add are left alone) and the updated copy to send.
import type { Deployment, Service } from '../builtin/index.js';

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
  copy.spec = {
    ...copy.spec,
    ...(want.replicas !== undefined ? { replicas: want.replicas } : {}),
    template: structuredClone(want.template),
  };
  return copy;
}

/** Equality of two string maps (a missing map is an empty one). */
function sameMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b ?? {}).length && ak.every((k) => (b ?? {})[k] === (a ?? {})[k]);
}

/**
 * The Service to send when `current` (from the cache; never mutated) is out of line with
 * `desired` in `spec.type`, `spec.selector` (exactly: an extra key would select other pods)
 * or `spec.ports` (every field `desired` sets, same number of ports), else `undefined`. The
 * copy keeps everything else of `current`, the cluster IPs the API server allocated included.
 */
export function serviceUpdate(current: Service, desired: Service): Service | undefined {
  const want = desired.spec;
  if (!want) return undefined;
  const have = current.spec;
  const typeOk = want.type === undefined || (have?.type ?? 'ClusterIP') === want.type;
  const selectorOk = want.selector === undefined || sameMap(have?.selector, want.selector);
  const portsOk = want.ports === undefined || semanticallyContains(have?.ports, want.ports);
  if (typeOk && selectorOk && portsOk) return undefined;
  const copy = structuredClone(current);
  copy.spec = {
    ...copy.spec,
    ...(want.type !== undefined ? { type: want.type } : {}),
    ...(want.selector !== undefined ? { selector: { ...want.selector } } : {}),
    ...(want.ports !== undefined ? { ports: structuredClone(want.ports) } : {}),
  };
  return copy;
}
