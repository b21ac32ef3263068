// Field ownership for server-side apply: managedFields entries (FieldsV1) per manager,
// updated on every write, and the apply merge with conflict detection. Lists are
// atomic (owned as a whole), which is what kubectl and our runtime need.
import type { KubeObject, ManagedFieldsEntry } from '../runtime/meta/types.js';
import { ApiError, failure } from './status.js';
import { isObject, jsonEqual, nowRfc3339, setOwn } from './meta.js';

type Rec = Record<string, unknown>;
type Path = string[];

const SEP = '\u0000';

/** Which part of an object a write touches: the main resource (no status when a status subresource exists) or /status. */
export type FieldScope = 'all' | 'main' | 'status';

function inScope(top: string, scope: FieldScope): boolean {
  if (top === 'apiVersion' || top === 'kind') return false;
  if (scope === 'status') return top === 'status';
  if (scope === 'main') return top !== 'status';
  return true;
}

const TRACKED_META = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences']);

/** The leaf paths set in an object, as ownership tracks them. */
export function leafPaths(obj: unknown, scope: FieldScope): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, path: Path): void => {
    if (isObject(v) && Object.keys(v).length > 0) {
      for (const [k, c] of Object.entries(v)) walk(c, [...path, k]);
    } else out.add(path.join(SEP));
  };
  if (!isObject(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (!inScope(k, scope)) continue;
    if (k === 'metadata') {
      if (!isObject(v)) continue;
      for (const [mk, mv] of Object.entries(v)) if (TRACKED_META.has(mk)) walk(mv, ['metadata', mk]);
      continue;
    }
    walk(v, [k]);
  }
  return out;
}

/** FieldsV1 JSON (`{"f:spec":{"f:replicas":{}}}`) of a set of leaf paths. */
export function toFieldsV1(paths: Set<string>): Rec {
  const root: Rec = {};
  for (const p of [...paths].sort()) {
    let cur = root;
    for (const seg of p.split(SEP)) {
      const k = `f:${seg}`;
      if (!isObject(cur[k])) cur[k] = {};
      cur = cur[k] as Rec;
    }
  }
  return root;
}

/** Leaf paths of a FieldsV1 value. */
export function fromFieldsV1(f: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown, path: Path): void => {
    const keys = isObject(v) ? Object.keys(v).filter((k) => k.startsWith('f:')) : [];
    if (keys.length === 0) {
      if (path.length) out.add(path.join(SEP));
      return;
    }
    for (const k of keys) walk((v as Rec)[k], [...path, k.slice(2)]);
  };
  walk(f, []);
  return out;
}

function getPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const seg of path.split(SEP)) {
    if (!isObject(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

function deletePath(obj: Rec, path: string): void {
  const segs = path.split(SEP);
  const parents: Rec[] = [obj];
  let cur: unknown = obj;
  for (const seg of segs.slice(0, -1)) {
    if (!isObject(cur)) return;
    cur = cur[seg];
    if (!isObject(cur)) return;
    parents.push(cur);
  }
  delete (cur as Rec)[segs[segs.length - 1]!];
  // Drop maps left empty by the removal (not the root).
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]!).length === 0) delete parents[i - 1]![segs[i - 1]!];
    else break;
  }
}

function deepMerge(target: unknown, src: unknown): unknown {
  if (!isObject(src) || !isObject(target)) return structuredClone(src);
  const out: Rec = { ...target };
  for (const [k, v] of Object.entries(src)) setOwn(out, k, Object.prototype.hasOwnProperty.call(out, k) ? deepMerge(out[k], v) : structuredClone(v));
  return out;
}

function entryKey(e: ManagedFieldsEntry): string {
  return `${e.manager ?? ''}${SEP}${e.operation ?? ''}${SEP}${e.subresource ?? ''}`;
}

function subresourceOf(scope: FieldScope): string | undefined {
  return scope === 'status' ? 'status' : undefined;
}

/**
 * Records an Update by `manager`: it takes ownership of every leaf it changed; removed
 * leaves leave every owner. Returns the new managedFields.
 */
export function recordUpdate(
  oldObj: KubeObject | undefined,
  newObj: KubeObject,
  manager: string,
  apiVersion: string,
  scope: FieldScope,
): ManagedFieldsEntry[] {
  const entries = (oldObj?.metadata?.managedFields ?? []).map((e) => ({ e, set: fromFieldsV1(e.fieldsV1) }));
  const newLeaves = leafPaths(newObj, scope);
  const oldLeaves = oldObj ? leafPaths(oldObj, scope) : new Set<string>();
  const changed = [...newLeaves].filter((p) => !oldLeaves.has(p) || !jsonEqual(getPath(oldObj, p), getPath(newObj, p)));
  const removed = [...oldLeaves].filter((p) => !newLeaves.has(p));
  for (const x of entries) {
    for (const p of changed) x.set.delete(p);
    for (const p of removed) x.set.delete(p);
  }
  const me = { manager, operation: 'Update', subresource: subresourceOf(scope) } as ManagedFieldsEntry;
  let mine = entries.find((x) => entryKey(x.e) === entryKey(me));
  if (!mine && changed.length) {
    mine = { e: me, set: new Set() };
    entries.push(mine);
  }
  if (mine) {
    for (const p of changed) mine.set.add(p);
    if (changed.length) {
      mine.e = { ...mine.e, apiVersion, time: nowRfc3339() };
    }
  }
  return finish(entries);
}

function finish(entries: { e: ManagedFieldsEntry; set: Set<string> }[]): ManagedFieldsEntry[] {
  return entries
    .filter((x) => x.set.size > 0)
    .map((x) => {
      const out: ManagedFieldsEntry = { manager: x.e.manager, operation: x.e.operation, apiVersion: x.e.apiVersion, time: x.e.time ?? nowRfc3339(), fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(x.set) };
      if (x.e.subresource) out.subresource = x.e.subresource;
      return out;
    });
}

/**
 * Server-side apply of `applied` by `manager` onto `live` (undefined: create). Fields the
 * manager applied before and omits now are removed unless another manager owns them.
 * Throws 409 listing the conflicting fields when another manager owns a field with a
 * different value, unless `force`.
 */
export function serverSideApply(
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  apiVersion: string,
  scope: FieldScope,
  force: boolean,
): KubeObject {
  const entries = (live?.metadata?.managedFields ?? []).map((e) => ({ e, set: fromFieldsV1(e.fieldsV1) }));
  const me = { manager, operation: 'Apply', subresource: subresourceOf(scope) } as ManagedFieldsEntry;
  let mine = entries.find((x) => entryKey(x.e) === entryKey(me));
  const newSet = leafPaths(applied, scope);
  const conflicts = new Map<string, string[]>();
  for (const x of entries) {
    if (x === mine) continue;
    for (const p of newSet) {
      if (x.set.has(p) && !jsonEqual(getPath(live, p), getPath(applied, p))) {
        const who = `"${x.e.manager ?? ''}" using ${x.e.apiVersion ?? apiVersion}`;
        if (!conflicts.has(who)) conflicts.set(who, []);
        conflicts.get(who)!.push(p);
      }
    }
  }
  if (conflicts.size && !force && !csaTakeover(live, conflicts, scope)) throw applyConflict(conflicts);
  if (conflicts.size) for (const x of entries) if (x !== mine) for (const paths of conflicts.values()) for (const p of paths) x.set.delete(p);

  const result = structuredClone((live ?? {}) as Rec);
  const prev = mine?.set ?? new Set<string>();
  for (const p of prev) {
    if (newSet.has(p)) continue;
    if (entries.some((x) => x !== mine && x.set.has(p))) continue;
    deletePath(result, p);
  }
  const merged = deepMerge(result, stripUntracked(applied, scope)) as KubeObject;
  if (!mine) {
    mine = { e: me, set: new Set() };
    entries.push(mine);
  }
  mine.set = newSet;
  mine.e = { ...me, apiVersion, time: nowRfc3339() };
  merged.metadata = { ...(merged.metadata ?? {}), managedFields: finish(entries) };
  return merged;
}

const CSA_MANAGER = 'kubectl-client-side-apply';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The apiserver's upgrade path from client-side to server-side apply: conflicts only with
 * `kubectl-client-side-apply`, on fields its last-applied-configuration set, are not
 * conflicts — ownership moves to the applier.
 */
function csaTakeover(live: KubeObject | undefined, conflicts: Map<string, string[]>, scope: FieldScope): boolean {
  if (![...conflicts.keys()].every((who) => who.startsWith(`"${CSA_MANAGER}" `))) return false;
  const text = live?.metadata?.annotations?.[LAST_APPLIED];
  if (!text) return false;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return false;
  }
  const set = leafPaths(lastApplied, scope);
  return [...conflicts.values()].every((paths) => paths.every((p) => set.has(p)));
}

function stripUntracked(applied: KubeObject, scope: FieldScope): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(applied as Rec)) {
    if (k === 'metadata' || k === 'apiVersion' || k === 'kind' || inScope(k, scope)) setOwn(out, k, v);
  }
  if (isObject(out.metadata)) {
    const m = { ...(out.metadata as Rec) };
    delete m.managedFields;
    delete m.resourceVersion;
    delete m.uid;
    delete m.creationTimestamp;
    delete m.generation;
    out.metadata = m;
  }
  return out;
}

function applyConflict(conflicts: Map<string, string[]>): ApiError {
  const all = [...conflicts.entries()].flatMap(([who, paths]) => paths.map((p) => ({ who, field: '.' + p.split(SEP).join('.') })));
  let message: string;
  if (all.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${all[0]!.who}: ${all[0]!.field}`;
  } else {
    const parts = [...conflicts.entries()].map(([who, paths]) => `conflicts with ${who}:\n${paths.map((p) => `- .${p.split(SEP).join('.')}`).join('\n')}`);
    message = `Apply failed with ${all.length} conflicts: ${parts.join('\n')}`;
  }
  return new ApiError(
    failure(409, 'Conflict', message, {
      causes: all.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.who}`, field: c.field })),
    }),
  );
}
