// Pruning as the apiserver does it: fields the schema does not specify are dropped, unless the node
// says x-kubernetes-preserve-unknown-fields (below which known properties are still pruned).
// apiVersion, kind and metadata of the resource root and of embedded resources are always kept.
import type { Node } from './node.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const RESOURCE_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Prunes `x` in place along `n`; `isResourceRoot` keeps apiVersion/kind/metadata at this level. */
export function prune(n: Node | undefined, x: unknown, isResourceRoot: boolean): void {
  if (n?.preserveUnknown) {
    skipPrune(n, x, isResourceRoot);
    return;
  }
  if (Array.isArray(x)) {
    for (const v of x) prune(n?.items, v, n?.items?.s['x-kubernetes-embedded-resource'] === true);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (isResourceRoot && RESOURCE_FIELDS.has(k)) continue;
    const p = n?.props?.get(k);
    if (p) prune(p, x[k], p.s['x-kubernetes-embedded-resource'] === true);
    else if (n?.addl) prune(n.addl, x[k], n.addl.s['x-kubernetes-embedded-resource'] === true);
    else if (n?.s.additionalProperties === true) continue;
    else delete x[k];
  }
}

/** Inside preserve-unknown-fields: unknown fields stay, known ones are pruned by their schema. */
function skipPrune(n: Node, x: unknown, isResourceRoot: boolean): void {
  if (Array.isArray(x)) {
    // as upstream: items of a preserved list are themselves only skip-pruned
    if (n.items) for (const v of x) skipPrune(n.items, v, n.items.s['x-kubernetes-embedded-resource'] === true);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if ((isResourceRoot || n.s['x-kubernetes-embedded-resource']) && RESOURCE_FIELDS.has(k)) continue;
    const p = n.props?.get(k) ?? n.addl;
    if (p) prune(p, x[k], p.s['x-kubernetes-embedded-resource'] === true);
  }
}
