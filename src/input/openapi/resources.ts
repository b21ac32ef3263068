// The resources an OpenAPI document's paths serve, as kube-apiserver writes them:
// `/api/v1/namespaces/{namespace}/pods/{name}/status` with operations that carry
// `x-kubernetes-action` (get, list, watch, post, put, patch, delete, deletecollection, …) and
// `x-kubernetes-group-version-kind` (the kind the operation reads or writes). From them: each
// kind's plural, scope, verbs and subresources.

import type { Verb } from '../../model/types.js';

/** What the paths say about one kind of one group/version. */
export interface ServedResource {
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural resource name from the path. */
  plural: string;
  /** True when served under `/namespaces/{namespace}/`. */
  namespaced: boolean;
  /** `x-kubernetes-action`s of the resource's own paths (not subresources'). */
  actions: Set<string>;
  /** Subresource name → its actions (`status` → put, patch, get; `scale`; …). */
  subresources: Map<string, Set<string>>;
  /** The first path that serves it, for diagnostics. */
  path: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `group/version` of a path prefix: `/api/v1` → ('', v1), `/apis/apps/v1` → (apps, v1), and the rest. */
function splitPath(path: string): { group: string; version: string; rest: string[] } | undefined {
  const segs = path.split('/').filter((s) => s !== '');
  if (segs[0] === 'api' && segs.length >= 2) return { group: '', version: segs[1], rest: segs.slice(2) };
  if (segs[0] === 'apis' && segs.length >= 3) return { group: segs[1], version: segs[2], rest: segs.slice(3) };
  return undefined;
}

/**
 * The resource and subresource a path addresses: `[namespaces, {namespace}] plural [{name} [sub]]`,
 * skipping the deprecated `watch/` prefix. Undefined for discovery paths (`/apis/apps/v1/`).
 */
export function parseResourcePath(
  path: string,
):
  | { group: string; version: string; plural: string; namespaced: boolean; named: boolean; subresource?: string }
  | undefined {
  const p = splitPath(path);
  if (!p) return undefined;
  let rest = p.rest;
  if (rest[0] === 'watch') rest = rest.slice(1);
  let namespaced = false;
  if (rest[0] === 'namespaces' && rest[1] === '{namespace}' && rest.length >= 3) {
    namespaced = true;
    rest = rest.slice(2);
  }
  const plural = rest[0];
  if (plural === undefined || plural.startsWith('{')) return undefined;
  const named = rest[1] !== undefined && /^\{.+\}$/.test(rest[1]);
  if (rest.length > 1 && !named) return undefined;
  const sub = named ? rest[2] : undefined;
  if (rest.length > 3) return undefined;
  return {
    group: p.group,
    version: p.version,
    plural,
    namespaced,
    named,
    ...(sub !== undefined ? { subresource: sub } : {}),
  };
}

/**
 * Every kind the document's paths serve as a resource of its own group/version (a kind that is
 * only a subresource's body elsewhere — autoscaling/v1 Scale under deployments/scale — is not
 * one), keyed `group/version/Kind`. A kind served by two plurals keeps the first path's.
 */
export function servedResources(paths: unknown): Map<string, ServedResource> {
  const out = new Map<string, ServedResource>();
  if (!isObj(paths)) return out;
  // the resources' own paths first, so that subresources attach to a known plural
  const entries = Object.entries(paths).map(([path, item]) => ({ path, item, parsed: parseResourcePath(path) }));
  const byPlural = new Map<string, ServedResource>();
  for (const pass of ['resource', 'subresource'] as const) {
    for (const { path, item, parsed } of entries) {
      if (!parsed || !isObj(item)) continue;
      if ((pass === 'subresource') !== (parsed.subresource !== undefined)) continue;
      for (const m of METHODS) {
        const op = item[m];
        if (!isObj(op)) continue;
        const action = op['x-kubernetes-action'];
        const gvk = op['x-kubernetes-group-version-kind'];
        if (typeof action !== 'string' || !isObj(gvk)) continue;
        const pluralKey = `${parsed.group}/${parsed.version}/${parsed.plural}/${parsed.namespaced}`;
        if (parsed.subresource !== undefined) {
          const r =
            byPlural.get(pluralKey) ??
            byPlural.get(`${parsed.group}/${parsed.version}/${parsed.plural}/${!parsed.namespaced}`);
          if (!r) continue;
          let set = r.subresources.get(parsed.subresource);
          if (!set) r.subresources.set(parsed.subresource, (set = new Set()));
          set.add(action);
          continue;
        }
        if (gvk.group !== parsed.group || gvk.version !== parsed.version || typeof gvk.kind !== 'string') continue;
        const key = `${parsed.group}/${parsed.version}/${gvk.kind}`;
        let r = out.get(key);
        if (!r) {
          r = {
            group: parsed.group,
            version: parsed.version,
            kind: gvk.kind,
            plural: parsed.plural,
            namespaced: parsed.namespaced,
            actions: new Set(),
            subresources: new Map(),
            path,
          };
          out.set(key, r);
        }
        if (r.plural !== parsed.plural) continue;
        // the cluster-wide list of a namespaced resource (`/api/v1/pods`) does not make it cluster-scoped
        if (parsed.namespaced) r.namespaced = true;
        byPlural.set(pluralKey, r);
        r.actions.add(action);
      }
    }
  }
  return out;
}

/** The client verbs of a served resource, in client-gen's order. */
export function verbsOf(r: ServedResource): Verb[] {
  const a = r.actions;
  const status = r.subresources.get('status');
  const verbs: Verb[] = [];
  if (a.has('post')) verbs.push('create');
  if (a.has('put')) verbs.push('update');
  if (status?.has('put')) verbs.push('updateStatus');
  if (a.has('delete')) verbs.push('delete');
  if (a.has('deletecollection')) verbs.push('deleteCollection');
  if (a.has('get')) verbs.push('get');
  if (a.has('list')) verbs.push('list');
  if (a.has('watch') || a.has('watchlist')) verbs.push('watch');
  if (a.has('patch')) verbs.push('patch', 'apply');
  if (status?.has('patch')) verbs.push('applyStatus');
  return verbs;
}
