// Field ownership as the apiserver's field manager keeps it (k8s.io/apimachinery's
// managedfields with sigs.k8s.io/structured-merge-diff underneath): every write records, per
// manager, the fields it set (FieldsV1), read through the resource's schema — sets and map
// lists by item, granular maps by key, atomic lists, maps and structs as a whole. Update takes
// what a writer added or changed; Apply merges the configuration by schema, removes what the
// applier stops applying unless someone else owns it, and refuses to change fields other
// managers own (409 listing them) unless forced. The layers of the apiserver's field manager
// are reproduced in order: version check, kubectl's last-applied upgrade path, the
// before-first-apply manager, the cap of ten update managers, manager identities, timestamps,
// the metadata that is never tracked, and the strategies' reset fields (status on the main
// resource, spec and metadata on /status); /scale maps ownership of the replicas field.
import type { KubeObject, ManagedFieldsEntry } from '../runtime/meta/types.js';
import {
  builtinTypeName,
  builtinTypeSchema,
  builtinZeroObject,
  customResourceTypeSchema,
  FieldSchemaError,
  UNTYPED_DEDUCED,
} from './field-schema.js';
import type { TypeRef, TypeSchema } from './field-schema.js';
import { FieldSet, FieldsV1Error, field, goJson, goQuote, pathString } from './fieldpath.js';
import type { Path } from './fieldpath.js';
import { isObject, nowRfc3339 } from './meta.js';
import { groupVersion } from './resource.js';
import type { ResourceInfo } from './resource.js';
import { ApiError, failure } from './status.js';
import {
  compareTyped,
  ensureNamedFieldsAreMembers,
  formatTypedErrors,
  mergeTyped,
  pruneUndeclared,
  removeItemsTyped,
  toFieldSet,
  TypedValueError,
  validateTyped,
} from './typed-value.js';
import type { Comparison } from './typed-value.js';

type Rec = Record<string, unknown>;

/**
 * Which part of an object a write touches: the main resource (status is reset when a status
 * subresource exists), /status, /scale, or `all` (in-process controllers: nothing reset).
 */
export type FieldScope = 'all' | 'main' | 'status' | 'scale';

/** Another served version of the same resource, for managers that wrote at another apiVersion. */
export type VersionLookup = (apiVersion: string) => ResourceInfo | undefined;

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const MAX_UPDATE_MANAGERS = 10;
const SCALE_GV = 'autoscaling/v1';

// ---- typed views of a resource -------------------------------------------------------------

interface Typed {
  schema: TypeSchema;
  root: TypeRef;
}

const typedCache = new WeakMap<ResourceInfo, Typed>();

/** The schema objects of `res` are read through (built on first use). */
export function typedOf(res: ResourceInfo): Typed {
  let t = typedCache.get(res);
  if (!t) {
    if (res.custom) {
      try {
        t = customResourceTypeSchema(res.openAPIV3Schema);
      } catch (e) {
        if (!(e instanceof FieldSchemaError)) throw e;
        t = { schema: builtinTypeSchema(), root: { named: UNTYPED_DEDUCED } };
      }
    } else {
      const name = builtinTypeName(res.group, res.version, res.kind);
      // a kind the published OpenAPI does not have: everything deduced (maps granular, lists atomic)
      t = { schema: builtinTypeSchema(), root: { named: name ?? UNTYPED_DEDUCED } };
    }
    typedCache.set(res, t);
  }
  return t;
}

function scaleTyped(): Typed {
  return {
    schema: builtinTypeSchema(),
    root: { named: builtinTypeName('autoscaling', 'v1', 'Scale') ?? UNTYPED_DEDUCED },
  };
}

const path = (...names: string[]): Path => names.map(field);

/** The fields a strategy resets (the field manager ignores them), per resource and subresource. */
function resetFields(res: ResourceInfo, scope: FieldScope): FieldSet | undefined {
  if (scope === 'main') return res.statusSubresource ? FieldSet.of(path('status')) : undefined;
  if (scope !== 'status') return undefined;
  if (res.custom) return FieldSet.of(path('metadata'), path('spec'));
  if (res.group === 'apps' && res.resource === 'deployments')
    return FieldSet.of(path('spec'), path('metadata', 'labels'));
  return FieldSet.of(path('spec'));
}

// ---- managed fields: decoding, identities, encoding ----------------------------------------

interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Managers (by identity) with their sets and times. */
interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

interface Identity {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}

/** The manager identity: the entry without fields, time, and (for appliers) apiVersion, as JSON. */
function identityOf(e: Identity): string {
  const parts: string[] = [];
  if (e.manager) parts.push(`"manager":${goJson(e.manager)}`);
  if (e.operation) parts.push(`"operation":${goJson(e.operation)}`);
  if (e.apiVersion && e.operation !== 'Apply') parts.push(`"apiVersion":${goJson(e.apiVersion)}`);
  if (e.subresource) parts.push(`"subresource":${goJson(e.subresource)}`);
  return `{${parts.join(',')}}`;
}

function parseIdentity(id: string): Identity {
  try {
    const v = JSON.parse(id) as unknown;
    return isObject(v) ? v : {};
  } catch {
    return {};
  }
}

class DecodeError extends Error {}

function decodeManaged(entries: unknown): Managed {
  const m = emptyManaged();
  if (entries === undefined || entries === null) return m;
  if (!Array.isArray(entries)) throw new DecodeError('managedFields must be a list');
  entries.forEach((raw, i) => {
    const e = (isObject(raw) ? raw : {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update')
      throw new DecodeError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1)
      throw new DecodeError('apiVersion must not be empty');
    if (e.fieldsType !== 'FieldsV1') {
      throw new DecodeError(
        e.fieldsType
          ? `invalid fieldsType "${String(e.fieldsType)}" in managed fields entry ${i}`
          : `missing fieldsType in managed fields entry ${i}`,
      );
    }
    const id = identityOf({
      manager: typeof e.manager === 'string' ? e.manager : undefined,
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: typeof e.subresource === 'string' ? e.subresource : undefined,
    });
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      if (err instanceof FieldsV1Error)
        throw new DecodeError(`error decoding versioned set: error decoding set: ${err.message}`);
      throw err;
    }
    m.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    m.times.set(id, typeof e.time === 'string' ? e.time : undefined);
  });
  return m;
}

const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);

/** The managedFields list (sorted as the apiserver sorts it), or undefined when no manager is left. */
function encodeManaged(m: Managed): ManagedFieldsEntry[] | undefined {
  if (m.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.fields) {
    const idn = parseIdentity(id);
    const e: ManagedFieldsEntry = {};
    if (idn.manager) e.manager = idn.manager;
    e.operation = vs.applied ? 'Apply' : (idn.operation ?? 'Update');
    e.apiVersion = vs.apiVersion;
    const t = m.times.get(id);
    if (t) e.time = t;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = vs.set.toFieldsV1();
    if (idn.subresource) e.subresource = idn.subresource;
    out.push(e);
  }
  const cmp = (a = '', b = ''): number => (a < b ? -1 : a > b ? 1 : 0);
  return out.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource, q.subresource),
  );
}

/** `[]`, or one entry with nothing set: the client asks to drop all ownership. */
function isReset(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  if (mf.length !== 1) return false;
  const e: unknown = mf[0];
  if (e === null || e === undefined) return true;
  return isObject(e) && Object.values(e).every((v) => v === undefined || v === null || v === '');
}

// ---- the structured merge updater -----------------------------------------------------------

/** Conflicts: the manager identity and the path it owns. */
interface Conflict {
  manager: string;
  path: Path;
}

class Conflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('conflicts');
  }
}

/** The resource at each apiVersion a manager may have written at. */
interface Versions {
  current: string;
  typedAt(apiVersion: string): { typed: Typed; reset: FieldSet | undefined } | undefined;
}

function filter(c: Comparison, reset: FieldSet | undefined): Comparison {
  if (!reset) return c;
  return {
    added: c.added.recursiveDifference(reset),
    modified: c.modified.recursiveDifference(reset),
    removed: c.removed.recursiveDifference(reset),
  };
}

/** Conflicts and removals for every other manager (structured-merge-diff's Updater.update). */
function update(
  v: Versions,
  oldObj: unknown,
  newObj: unknown,
  managers: Map<string, VersionedSet>,
  workflow: string,
  force: boolean,
): Comparison {
  const cur = v.typedAt(v.current)!;
  const compare = filter(compareTyped(cur.typed.schema, cur.typed.root, oldObj, newObj), cur.reset);
  const byVersion = new Map<string, Comparison>([[v.current, compare]]);
  const conflicts = new Map<string, FieldSet>();
  const removed = new Map<string, FieldSet>();
  for (const [m, vs] of [...managers]) {
    if (m === workflow) continue;
    let c = byVersion.get(vs.apiVersion);
    if (!c) {
      const other = v.typedAt(vs.apiVersion);
      if (!other) {
        managers.delete(m);
        continue;
      }
      c = filter(
        compareTyped(
          other.typed.schema,
          other.typed.root,
          withApiVersion(oldObj, vs.apiVersion),
          withApiVersion(newObj, vs.apiVersion),
        ),
        other.reset,
      );
      byVersion.set(vs.apiVersion, c);
    }
    const conflictSet = vs.set.intersection(c.modified.union(c.added));
    if (!conflictSet.empty()) conflicts.set(m, conflictSet);
    if (!c.removed.empty()) removed.set(m, c.removed);
  }
  if (!force && conflicts.size) {
    const list: Conflict[] = [];
    for (const [m, s] of conflicts) s.iterate((p) => list.push({ manager: m, path: p }));
    throw new Conflicts(list);
  }
  for (const [m, s] of conflicts) {
    const vs = managers.get(m)!;
    managers.set(m, { ...vs, set: vs.set.difference(s) });
  }
  for (const [m, s] of removed) {
    const vs = managers.get(m);
    if (vs) managers.set(m, { ...vs, set: vs.set.difference(s) });
  }
  for (const [m, vs] of [...managers]) if (vs.set.empty()) managers.delete(m);
  return compare;
}

function withApiVersion(obj: unknown, apiVersion: string): unknown {
  return isObject(obj) ? { ...obj, apiVersion } : obj;
}

/** Granular ownership of a field the schema now calls atomic becomes ownership of the whole field. */
function reconcile(v: Versions, managers: Map<string, VersionedSet>): void {
  for (const [m, vs] of [...managers]) {
    const t = v.typedAt(vs.apiVersion);
    if (!t) {
      // a version no longer served: its managers go
      managers.delete(m);
      continue;
    }
    const toRemove = new FieldSet();
    const walk = (tr: TypeRef | undefined, set: FieldSet | undefined, p: Path, isAtomic: boolean): void => {
      const atom = tr ? t.typed.schema.resolve(tr) : undefined;
      if (!atom) return;
      const visit = (typeOfChild: (pe: Path[number]) => TypeRef | undefined): void => {
        if (!set) return;
        const handle = (pe: Path[number], isMember: boolean): void => {
          const ct = typeOfChild(pe);
          if (!ct) return;
          const child = set.child(pe);
          walk(ct, child, [...p, pe], isMember && !child);
        };
        for (const c of set.children) if (!set.hasMember(c.pe)) handle(c.pe, false);
        for (const pe of set.members) handle(pe, true);
      };
      if (atom.map) {
        const mt = atom.map;
        const deduced =
          mt.fields.size === 0 &&
          !!mt.elementType &&
          (mt.elementType.named === UNTYPED_DEDUCED || mt.elementType.inlined?.scalar === 'untyped');
        if (deduced) return;
        if (!isAtomic && mt.relationship === 'atomic') {
          if (set && set.size() > 0) toRemove.insert(p);
          return;
        }
        visit((pe) => (pe.kind === 'field' ? (mt.fields.get(pe.name)?.type ?? mt.elementType) : mt.elementType));
      } else if (atom.scalar) {
        return;
      } else if (atom.list) {
        if (!isAtomic && atom.list.relationship === 'atomic') {
          toRemove.insert(p);
          return;
        }
        const et = atom.list.elementType;
        visit(() => et);
      }
    };
    walk(t.typed.root, vs.set, [], false);
    if (!toRemove.empty()) managers.set(m, { ...vs, set: vs.set.recursiveDifference(toRemove).union(toRemove) });
  }
}

/** Updater.Update: `manager` owns what it added or changed. */
function smdUpdate(
  v: Versions,
  live: unknown,
  obj: unknown,
  managers: Map<string, VersionedSet>,
  manager: string,
): void {
  reconcile(v, managers);
  const compare = update(v, live, obj, managers, manager, true);
  let set = (managers.get(manager)?.set ?? new FieldSet())
    .difference(compare.removed)
    .union(compare.modified)
    .union(compare.added);
  const reset = v.typedAt(v.current)!.reset;
  if (reset) set = set.recursiveDifference(reset);
  if (set.empty()) managers.delete(manager);
  else managers.set(manager, { set, apiVersion: v.current, applied: false });
}

/** Updater.Apply: the merged object (undefined when nothing changed). */
function smdApply(
  v: Versions,
  live: unknown,
  config: unknown,
  managers: Map<string, VersionedSet>,
  manager: string,
  force: boolean,
): unknown {
  reconcile(v, managers);
  const cur = v.typedAt(v.current)!;
  let merged: unknown;
  try {
    merged = mergeTyped(cur.typed.schema, cur.typed.root, live, config);
  } catch (e) {
    if (e instanceof TypedValueError) throw internalError(`failed to merge config: ${e.message}`);
    throw e;
  }
  const lastSet = managers.get(manager);
  let set = toFieldSet(cur.typed.schema, cur.typed.root, config);
  if (cur.reset) set = set.recursiveDifference(cur.reset);
  managers.set(manager, { set, apiVersion: v.current, applied: true });
  merged = prune(v, merged, managers, lastSet);
  update(v, live, merged, managers, manager, force);
  return valuesEqualLoose(live, merged) ? undefined : merged;
}

function valuesEqualLoose(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}

/** Removes what the applier applied last time and not now, unless another manager (or this configuration) owns it. */
function prune(
  v: Versions,
  merged: unknown,
  managers: Map<string, VersionedSet>,
  lastSet: VersionedSet | undefined,
): unknown {
  if (!lastSet || lastSet.set.empty()) return merged;
  const at = v.typedAt(lastSet.apiVersion);
  if (!at) return merged;
  const { schema, root } = at.typed;
  const ens = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(schema, root, s);
  const obj = withApiVersion(merged, lastSet.apiVersion);
  let pruned = removeItemsTyped(schema, root, obj, ens(lastSet.set));
  // add back what someone owns
  let owned = new FieldSet();
  for (const vs of managers.values()) owned = owned.union(vs.set);
  const mergedSet = ens(toFieldSet(schema, root, obj));
  pruned = removeItemsTyped(
    schema,
    root,
    obj,
    mergedSet.difference(ens(toFieldSet(schema, root, pruned)).union(ens(owned))),
  );
  // add back what the applier did not own (dangling, or owned by updaters)
  const prunedSet = ens(toFieldSet(schema, root, pruned));
  const out = removeItemsTyped(schema, root, obj, mergedSet.difference(prunedSet).intersection(ens(lastSet.set)));
  return withApiVersion(out ?? {}, v.current);
}

// ---- the field manager ----------------------------------------------------------------------

function internalError(message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

function badRequest(message: string): ApiError {
  return new ApiError(failure(400, 'BadRequest', message));
}

interface Target {
  res: ResourceInfo;
  scope: FieldScope;
  versions?: VersionLookup;
}

function versionsOf(t: Target, typed: Typed = typedOf(t.res), gv = groupVersion(t.res)): Versions {
  return {
    current: gv,
    typedAt: (apiVersion) => {
      if (apiVersion === gv)
        return { typed, reset: typed === typedOf(t.res) ? resetFields(t.res, t.scope) : undefined };
      const other = t.versions?.(apiVersion);
      if (!other) return undefined;
      return { typed: typedOf(other), reset: resetFields(other, t.scope) };
    },
  };
}

function subresourceOf(scope: FieldScope): string | undefined {
  return scope === 'status' || scope === 'scale' ? scope : undefined;
}

function typedCheck(typed: Typed, obj: unknown, allowDuplicates: boolean): string | undefined {
  const errs = validateTyped(typed.schema, typed.root, obj, allowDuplicates);
  return errs.length ? formatTypedErrors(errs) : undefined;
}

function stripMeta(s: FieldSet): FieldSet {
  return s.difference(STRIP);
}

const STRIP = FieldSet.of(
  path('apiVersion'),
  path('kind'),
  path('metadata'),
  path('metadata', 'name'),
  path('metadata', 'namespace'),
  path('metadata', 'creationTimestamp'),
  path('metadata', 'selfLink'),
  path('metadata', 'uid'),
  path('metadata', 'clusterName'),
  path('metadata', 'generation'),
  path('metadata', 'managedFields'),
  path('metadata', 'resourceVersion'),
);

/** ObjectMeta's fields: the apiserver's decoding drops any other from metadata. */
const OBJECT_META_FIELDS = new Set([
  'annotations',
  'creationTimestamp',
  'deletionGracePeriodSeconds',
  'deletionTimestamp',
  'finalizers',
  'generateName',
  'generation',
  'labels',
  'managedFields',
  'name',
  'namespace',
  'ownerReferences',
  'resourceVersion',
  'selfLink',
  'uid',
]);

/** A stored (or requested) object as the field manager reads it: no managedFields, metadata as decoded. */
function bare(obj: unknown): unknown {
  if (!isObject(obj) || !isObject(obj.metadata)) return obj;
  const meta: Rec = {};
  for (const [k, v] of Object.entries(obj.metadata))
    if (k !== 'managedFields' && OBJECT_META_FIELDS.has(k)) meta[k] = v;
  return { ...obj, metadata: meta };
}

/**
 * The update chain below the manager-identity layer: `manager` (an identity) takes what it
 * changed from `live` to `obj`; the result replaces `managed`. Throws TypedValueError when an
 * object does not fit the schema.
 */
function updateChain(v: Versions, typed: Typed, live: unknown, obj: unknown, managed: Managed, id: string): void {
  for (const [o, dup] of [
    [obj, true],
    [live, true],
  ] as const) {
    const e = typedCheck(typed, bare(o), dup);
    if (e) throw new TypedValueError([{ path: '', message: e }]);
  }
  const current = 'current-operation';
  smdUpdate(v, bare(live), bare(obj), managed.fields, current);
  const mine = managed.fields.get(current);
  if (mine) {
    managed.fields.delete(current);
    const stripped = stripMeta(mine.set);
    if (!stripped.empty()) {
      const prev = managed.fields.get(id);
      managed.fields.set(id, {
        set: prev ? stripped.union(prev.set) : stripped,
        apiVersion: mine.apiVersion,
        applied: false,
      });
      managed.times.set(id, nowRfc3339());
    }
  }
  capUpdateManagers(managed);
}

function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields.entries()].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort(
    (a, b) => seconds(managed.times.get(a)) - seconds(managed.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i];
    const vs = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = identityOf({ manager: 'ancient-changes', operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const s = managed.fields.get(first)!;
      managed.fields.delete(first);
      managed.fields.set(bucket, s);
    }
    managed.fields.set(bucket, {
      set: vs.set.union(managed.fields.get(bucket)!.set),
      apiVersion: vs.apiVersion,
      applied: vs.applied,
    });
    managed.fields.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
}

/**
 * The managedFields of `obj` after `manager` created it (`live` undefined) or updated `live`
 * to it (PUT, and merge/JSON/strategic patches). A request that sends managedFields replaces
 * the live ones (`[]` or `[{}]` drops them all); on a subresource the request's are ignored.
 * Undefined: the object has no managedFields.
 */
export function updateManagedFields(
  res: ResourceInfo,
  live: KubeObject | undefined,
  obj: KubeObject,
  manager: string,
  scope: FieldScope,
  versions?: VersionLookup,
): ManagedFieldsEntry[] | undefined {
  const target: Target = { res, scope, versions };
  const liveMf = live?.metadata?.managedFields;
  const sentMf = obj.metadata?.managedFields;
  const decodeOrEmpty = (mf: unknown): Managed => {
    try {
      return decodeManaged(mf);
    } catch {
      return emptyManaged();
    }
  };
  let managed: Managed;
  if (subresourceOf(scope)) managed = decodeOrEmpty(liveMf);
  else if (isReset(sentMf)) managed = emptyManaged();
  else {
    let m: Managed | undefined;
    try {
      m = decodeManaged(sentMf);
    } catch {
      m = undefined;
    }
    managed = m && m.fields.size > 0 ? m : decodeOrEmpty(liveMf);
  }
  // objects that exist without managedFields are not tracked by updates (only an apply starts it)
  if (managed.fields.size === 0 && live?.metadata?.uid) return undefined;
  const typed = typedOf(res);
  const gv = groupVersion(res);
  // a built-in is compared as its Go struct converts back (the fields the struct always has,
  // `status: {}`, are there on both sides); a create compares with the empty object
  const zero = res.custom ? undefined : builtinZeroObject(res.group, res.version, res.kind);
  const fill = (o: unknown): unknown => (zero ? withZero(decoded(res, typed, o), zero) : o);
  const before = live ? fill(live) : (zero ?? { apiVersion: gv, kind: res.kind });
  const id = identityOf({
    manager: manager || 'unknown',
    operation: 'Update',
    apiVersion: gv,
    subresource: subresourceOf(scope),
  });
  try {
    updateChain(versionsOf(target, typed, gv), typed, before, fill(obj), managed, id);
  } catch (e) {
    // UpdateNoErrors: an object that does not fit the schema keeps the live managedFields
    if (e instanceof TypedValueError || e instanceof FieldSchemaError) return liveMf;
    throw e;
  }
  return encodeManaged(managed);
}

/** A built-in as its Go struct holds it: fields its schema does not declare are gone. */
function decoded(res: ResourceInfo, typed: Typed, obj: unknown): unknown {
  if (res.custom || !isObject(obj)) return obj;
  const mf = isObject(obj.metadata) ? obj.metadata.managedFields : undefined;
  const out = pruneUndeclared(typed.schema, typed.root, bare(obj)) as Rec;
  if (mf !== undefined && isObject(out.metadata)) out.metadata = { ...out.metadata, managedFields: mf };
  return out;
}

/** `obj` with the fields of `zero` it lacks (deeply, through maps both have). */
function withZero(obj: unknown, zero: unknown): unknown {
  if (!isObject(obj) || !isObject(zero)) return obj;
  const out: Rec = { ...obj };
  for (const [k, z] of Object.entries(zero)) {
    if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = structuredClone(z);
    else if (isObject(out[k]) && isObject(z)) out[k] = withZero(out[k], z);
  }
  return out;
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const parts = av.split('/');
  let g = '';
  let v = '';
  if (parts.length === 1) v = parts[0]!;
  else if (parts.length === 2) [g, v] = parts as [string, string];
  return `${g}/${v}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * Server-side apply of `applied` (the decoded configuration) by `manager` onto `live`
 * (undefined: the object is created). Returns the object to store, with its managedFields.
 * Throws the apiserver's errors: 400 for a configuration of another kind or with
 * managedFields, 500 for one that does not fit the schema, 409 for conflicts.
 */
export function applyManagedFields(
  res: ResourceInfo,
  live: KubeObject | undefined,
  applied: Rec,
  manager: string,
  scope: FieldScope,
  force: boolean,
  versions?: VersionLookup,
): KubeObject {
  const target: Target = { res, scope, versions };
  const gv = groupVersion(res);
  const typed = typedOf(res);
  const v = versionsOf(target, typed, gv);
  const current: Rec = live ? (decoded(res, typed, live) as Rec) : { apiVersion: gv, kind: res.kind };
  let managed: Managed;
  try {
    managed = decodeManaged(live?.metadata?.managedFields);
  } catch (e) {
    throw internalError(`failed to decode managed fields: ${(e as Error).message}`);
  }
  // the version check
  if (applied.apiVersion !== gv || applied.kind !== res.kind)
    throw badRequest(`invalid object type: ${gvkString(applied.apiVersion, applied.kind)}`);
  const appliedMeta = isObject(applied.metadata) ? applied.metadata : {};
  if (appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null)
    throw badRequest('metadata.managedFields must be nil');

  const run = (managedIn: Managed, forced: boolean): { obj: Rec; managed: Managed } => {
    const m: Managed = { fields: new Map(managedIn.fields), times: new Map(managedIn.times) };
    const liveObj: unknown = current;
    // objects without managedFields: a before-first-apply manager owns what is there
    if (m.fields.size === 0) {
      const id = identityOf({
        manager: 'before-first-apply',
        operation: 'Update',
        apiVersion: gv,
        subresource: subresourceOf(scope),
      });
      try {
        updateChain(v, typed, { apiVersion: gv, kind: res.kind }, current, m, id);
      } catch (e) {
        if (e instanceof TypedValueError)
          throw internalError(`failed to create manager for existing fields: ${e.message}`);
        throw e;
      }
    }
    const objName = `${typeof appliedMeta.namespace === 'string' ? appliedMeta.namespace : ''}/${typeof appliedMeta.name === 'string' ? appliedMeta.name : ''}; ${gvkString(applied.apiVersion, applied.kind)}`;
    const patchErr = typedCheck(typed, applied, false);
    if (patchErr) throw internalError(`failed to create typed patch object (${objName}): ${patchErr}`);
    const liveErr = typedCheck(typed, bare(liveObj), true);
    if (liveErr) {
      const lm = isObject((liveObj as Rec).metadata) ? ((liveObj as Rec).metadata as Rec) : {};
      throw internalError(
        `failed to create typed live object (${typeof lm.namespace === 'string' ? lm.namespace : ''}/${typeof lm.name === 'string' ? lm.name : ''}; ${gvkString(gv, res.kind)}): ${liveErr}`,
      );
    }
    const id = identityOf({ manager: manager || 'unknown', operation: 'Apply', subresource: subresourceOf(scope) });
    const out = smdApply(v, bare(liveObj), applied, m.fields, id, forced);
    const mine = m.fields.get(id);
    if (mine) {
      const stripped = stripMeta(mine.set);
      if (stripped.empty()) m.fields.delete(id);
      else m.fields.set(id, { ...mine, set: stripped });
    }
    let obj: Rec;
    if (out !== undefined) {
      m.times.set(id, nowRfc3339());
      obj = out as Rec;
    } else obj = bare(liveObj) as Rec;
    return { obj: structuredClone(obj), managed: m };
  };

  let result: { obj: Rec; managed: Managed };
  try {
    result = run(managed, force);
  } catch (e) {
    if (e instanceof TypedValueError) throw internalError(e.message);
    if (!(e instanceof Conflicts)) throw e;
    // kubectl's upgrade from client-side apply: conflicts only on fields its
    // last-applied-configuration set, unchanged since, are not conflicts
    if (manager !== 'kubectl') throw conflictError(e.conflicts);
    const allowed = allowedFromLastApplied(typed, current);
    if (!allowed) throw conflictError(e.conflicts);
    const rest = e.conflicts.filter((c) => !allowed.has(c.path));
    if (rest.length) throw conflictError(rest);
    try {
      result = run(managed, true);
    } catch (e2) {
      if (e2 instanceof TypedValueError) throw internalError(e2.message);
      throw e2;
    }
  }
  const obj = result.obj;
  if (manager === 'kubectl') {
    const annotations =
      isObject(obj.metadata) && isObject((obj.metadata as Rec).annotations)
        ? ((obj.metadata as Rec).annotations as Record<string, string>)
        : undefined;
    if (annotations && typeof annotations[LAST_APPLIED] === 'string' && annotations[LAST_APPLIED] !== '')
      setLastApplied(obj, buildLastApplied(applied));
  }
  const mf = encodeManaged(result.managed);
  const meta = { ...(isObject(obj.metadata) ? obj.metadata : {}) };
  if (mf) meta.managedFields = mf;
  else delete meta.managedFields;
  obj.metadata = meta;
  return obj;
}

function buildLastApplied(applied: Rec): string {
  const copy = structuredClone(applied);
  if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) delete copy.metadata.annotations[LAST_APPLIED];
  return `${goJson(copy)}\n`;
}

function setLastApplied(obj: Rec, value: string): void {
  const meta = (obj.metadata = { ...(isObject(obj.metadata) ? obj.metadata : {}) });
  const annotations = { ...(isObject(meta.annotations) ? (meta.annotations as Record<string, string>) : {}) };
  annotations[LAST_APPLIED] = value;
  let size = 0;
  for (const [k, x] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(String(x));
  if (size > 256 * 1024) delete annotations[LAST_APPLIED];
  meta.annotations = annotations;
}

/** The fields kubectl's last-applied-configuration set that still have that value. */
function allowedFromLastApplied(typed: Typed, live: Rec): FieldSet | undefined {
  const meta = isObject(live.metadata) ? live.metadata : {};
  const text = isObject(meta.annotations) ? meta.annotations[LAST_APPLIED] : undefined;
  if (typeof text !== 'string' || text === '') return undefined;
  const liveObj = bare(live);
  if (typedCheck(typed, liveObj, false)) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(last) || last.apiVersion !== live.apiVersion) return undefined;
  if (typedCheck(typed, last, false)) return undefined;
  const set = toFieldSet(typed.schema, typed.root, last);
  const c = compareTyped(typed.schema, typed.root, last, liveObj);
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

function printManager(id: string): string {
  const e = parseIdentity(id);
  if (!e.operation && !e.manager && !id.startsWith('{')) return goQuote(id);
  let s = goQuote(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${goQuote(e.subresource)}`;
  if (e.operation === 'Update') return `${s} using ${e.apiVersion ?? ''}`;
  return s;
}

/** 409 as the apiserver words apply conflicts. */
function conflictError(conflicts: Conflict[]): ApiError {
  let message: string;
  if (conflicts.length === 1) {
    const c = conflicts[0];
    message = `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  } else {
    const byManager = new Map<string, Path[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(m)}:`);
      for (const p of byManager.get(m)!) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Conflict',
    details: {
      causes: conflicts.map((c) => ({
        reason: 'FieldManagerConflict',
        message: `conflict with ${printManager(c.manager)}`,
        field: pathString(c.path),
      })),
    },
    code: 409,
  });
}

// ---- /scale ---------------------------------------------------------------------------------

function replicasPath(res: ResourceInfo): Path | undefined {
  const p = res.scale?.specReplicasPath;
  if (!p) return undefined;
  return p.split('.').filter(Boolean).map(field);
}

function readPath(obj: unknown, p: Path): unknown {
  let cur = obj;
  for (const pe of p) {
    if (pe.kind !== 'field' || !isObject(cur)) return undefined;
    cur = cur[pe.name];
  }
  return cur;
}

/**
 * The managedFields of the parent after `manager` changed its replicas through /scale: the
 * owners of the replicas field are mapped to the Scale (autoscaling/v1 `.spec.replicas`), the
 * Scale's update is tracked as any update, and the Scale's owners are mapped back.
 */
export function scaleManagedFields(
  res: ResourceInfo,
  live: KubeObject,
  obj: KubeObject,
  manager: string,
  versions?: VersionLookup,
): ManagedFieldsEntry[] | undefined {
  const parentGv = groupVersion(res);
  const mapping = (apiVersion: string): Path | undefined => {
    if (apiVersion === parentGv) return replicasPath(res);
    const other = versions?.(apiVersion);
    return other ? replicasPath(other) : undefined;
  };
  const scaleReplicas = path('spec', 'replicas');
  let parent: Managed;
  try {
    parent = decodeManaged(live.metadata?.managedFields);
  } catch {
    return live.metadata?.managedFields;
  }
  // to the Scale
  const toScale = emptyManaged();
  for (const [id, vs] of parent.fields) {
    const p = mapping(vs.apiVersion);
    if (!p || !vs.set.has(p)) continue;
    toScale.fields.set(id, { set: FieldSet.of(scaleReplicas), apiVersion: SCALE_GV, applied: vs.applied });
    toScale.times.set(id, parent.times.get(id));
  }
  const scaleEntries = encodeManaged(toScale);
  const scaleMeta = (o: KubeObject): Rec => ({
    name: o.metadata?.name,
    namespace: o.metadata?.namespace,
    uid: o.metadata?.uid,
    resourceVersion: o.metadata?.resourceVersion,
    creationTimestamp: o.metadata?.creationTimestamp,
  });
  const scaleOf = (o: KubeObject): Rec => ({
    apiVersion: SCALE_GV,
    kind: 'Scale',
    metadata: scaleMeta(o),
    spec: { replicas: readPath(o, replicasPath(res) ?? []) },
  });
  const oldScale = { ...scaleOf(live), metadata: { ...scaleMeta(live), managedFields: scaleEntries } } as KubeObject;
  const newScale = scaleOf(obj) as KubeObject;
  // the Scale's own field manager (its requests' managedFields are ignored)
  let scaleManaged: Managed;
  try {
    scaleManaged = decodeManaged(scaleEntries);
  } catch {
    scaleManaged = emptyManaged();
  }
  if (scaleManaged.fields.size > 0) {
    const typed = scaleTyped();
    const v: Versions = {
      current: SCALE_GV,
      typedAt: (av) => (av === SCALE_GV ? { typed, reset: undefined } : undefined),
    };
    const id = identityOf({
      manager: manager || 'unknown',
      operation: 'Update',
      apiVersion: SCALE_GV,
      subresource: 'scale',
    });
    try {
      updateChain(v, typed, oldScale, newScale, scaleManaged, id);
    } catch (e) {
      if (!(e instanceof TypedValueError)) throw e;
      scaleManaged = decodeManaged(scaleEntries);
    }
  }
  // back to the parent
  const scaleFields = decodeManaged(encodeManaged(scaleManaged));
  const out = emptyManaged();
  for (const [id, vs] of parent.fields) {
    const p = mapping(vs.apiVersion);
    if (!p) continue;
    if (!vs.set.has(p)) {
      out.fields.set(id, vs);
      out.times.set(id, parent.times.get(id));
      continue;
    }
    if (!scaleFields.fields.has(id)) {
      const rest = vs.set.difference(FieldSet.of(p));
      if (!rest.empty()) {
        out.fields.set(id, { ...vs, set: rest });
        out.times.set(id, parent.times.get(id));
      }
    } else {
      out.fields.set(id, vs);
      out.times.set(id, parent.times.get(id));
      scaleFields.fields.delete(id);
    }
  }
  const parentPath = replicasPath(res);
  for (const [id, vs] of scaleFields.fields) {
    if (!vs.set.has(scaleReplicas) || !parentPath) continue;
    out.fields.set(id, { set: FieldSet.of(parentPath), apiVersion: parentGv, applied: vs.applied });
    out.times.set(id, parent.times.get(id));
  }
  return encodeManaged(out);
}
