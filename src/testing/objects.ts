// The generic object store of the test server (the apiserver's registry/generic Store):
// create, update and patch with the apiserver's metadata rules (uid, creationTimestamp,
// generation, resourceVersion preconditions, status subresource, no-op writes),
// validation, defaulting and pruning, and field ownership. Used by HTTP handlers and
// by the in-process controllers (GC, namespace and CRD cleanup, workload simulation).
import type { KubeObject, ManagedFieldsEntry } from '../runtime/meta/types.js';
import { checkCrd, crdResources, defaultCrd, establishedStatus } from './crd.js';
import { applyManagedFields, scaleManagedFields, updateManagedFields } from './managed-fields.js';
import type { FieldScope, VersionLookup } from './managed-fields.js';
import { jsonCopy } from '../runtime/meta/json.js';
import {
  checkAnnotations,
  checkLabelName,
  checkLabels,
  checkName,
  isObject,
  jsonEqual,
  newUid,
  nowRfc3339,
} from './meta.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import type { Registry } from './registry.js';
import { groupVersion, storageKey } from './resource.js';
import type { ResourceInfo } from './resource.js';
import {
  ApiError,
  OBJECT_MODIFIED,
  alreadyExists,
  badRequest,
  conflict,
  failure,
  forbidden,
  internalError,
  invalid,
  notFound,
  unsupportedMediaType,
} from './status.js';
import { goJson } from './fieldpath.js';
import { decodeBuiltinValue, fillZeroFields, unknownFields, unknownMetadataFields } from './decode.js';
import { goMessageOf, goRoundTrip, jsonPatchDecoded, mergePatchDecoded, patchedJson } from './go-json.js';
import type { FieldCause } from './status.js';
import { StorageError, readShared } from './storage/storage.js';
import type { Storage } from './storage/storage.js';
import { AdmissionWebhooks, TESTENV_USER, type AdmissionAttributes } from './admission.js';
import { ConversionWebhookError, convertObjects } from './conversion.js';

type Rec = Record<string, unknown>;

/** How unknown fields are treated (the `fieldValidation` query parameter). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options of a write. */
export interface WriteOptions {
  /** Manager recorded in managedFields (default `unknown`). */
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  dryRun?: boolean;
  /** `status` for writes to the /status subresource, `scale` for /scale. */
  subresource?: 'status' | 'scale';
  /** Warnings for the `Warning` response header (appended to). */
  warnings?: string[];
  /** Strict errors of a patch body itself (duplicate members, unknown members of JSON patch operations). */
  patchStrict?: string[];
  /** Ownership computed by server-side apply for a create (internal). */
  appliedManagedFields?: ManagedFieldsEntry[];
  /**
   * Set for writes through the HTTP API: admission webhooks are called for them (the in-process
   * controllers' writes skip them). `userInfo` defaults to testenv's user.
   */
  admission?: { userInfo?: AdmissionAttributes['userInfo'] };
}

/** The patch types the server accepts. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** The patch type of a Content-Type, or undefined. */
export function patchTypeOf(contentType: string): PatchType | undefined {
  const ct = contentType.split(';')[0].trim().toLowerCase();
  if (ct === 'application/json-patch+json') return 'json';
  if (ct === 'application/merge-patch+json') return 'merge';
  if (ct === 'application/strategic-merge-patch+json') return 'strategic';
  if (ct === 'application/apply-patch+yaml' || ct === 'application/apply-patch+cbor') return 'apply';
  return undefined;
}

/** Result of an update: the stored object and whether it was created. */
export interface UpdateResult {
  object: KubeObject;
  created: boolean;
}

const MAX_UPDATE_RETRIES = 16;

/** Views made by `present` whose JSON is their stored object's (typed copies of one already typed). */
const sameJson = new WeakMap<KubeObject, KubeObject>();

/** The JSON texts of stored objects (never changed in place), made once each. */
const storedJson = new WeakMap<KubeObject, string>();

/**
 * `JSON.stringify(view)`; for a view made by {@link ObjectService.present} that still holds its
 * stored object's members (checked), the stored object's text, made once per stored object.
 */
export function viewJson(view: unknown): string {
  const stored = typeof view === 'object' && view !== null ? sameJson.get(view) : undefined;
  if (!stored || !sameMembers(view as Rec, stored as Rec)) return JSON.stringify(view);
  let text = storedJson.get(stored);
  if (text === undefined) storedJson.set(stored, (text = JSON.stringify(stored)));
  return text;
}

/** The generic store: all writes of the server go through it. */
export class ObjectService {
  /** The admission webhooks of the stored configurations. */
  readonly webhooks: AdmissionWebhooks;
  constructor(
    readonly storage: Storage,
    readonly registry: Registry,
  ) {
    this.webhooks = new AdmissionWebhooks(storage, registry);
  }

  /**
   * A stored object as served at `res`'s version: a custom resource stored in another version
   * is converted (its CRD's strategy: a relabel, or its conversion webhook).
   */
  async view(res: ResourceInfo, stored: KubeObject): Promise<KubeObject> {
    if (
      res.custom &&
      stored.apiVersion !== undefined &&
      stored.apiVersion !== groupVersion(res) &&
      res.conversion?.strategy === 'Webhook'
    ) {
      return this.typed(res, (await convertObjects(res, [stored], res.version))[0]);
    }
    return this.present(res, stored);
  }

  /** {@link view} of many (one conversion review for all that need one). */
  async viewAll(res: ResourceInfo, stored: KubeObject[]): Promise<KubeObject[]> {
    if (
      res.custom &&
      res.conversion?.strategy === 'Webhook' &&
      stored.some((o) => o.apiVersion !== groupVersion(res))
    ) {
      return (await convertObjects(res, stored, res.version)).map((o) => this.typed(res, o));
    }
    return stored.map((o) => this.present(res, o));
  }

  /** The attributes admission webhooks get, or undefined for writes that skip them. */
  attributes(
    opts: WriteOptions,
    operation: AdmissionAttributes['operation'],
    scope: FieldScope | undefined,
  ): AdmissionAttributes | undefined {
    if (!opts.admission) return undefined;
    const sub = opts.subresource ?? (scope === 'status' ? 'status' : undefined);
    return {
      operation,
      ...(sub ? { subresource: sub } : {}),
      dryRun: opts.dryRun === true,
      userInfo: opts.admission.userInfo ?? TESTENV_USER,
      options: {
        apiVersion: 'meta.k8s.io/v1',
        kind: operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions',
        ...(opts.fieldManager && operation !== 'DELETE' ? { fieldManager: opts.fieldManager } : {}),
        ...(opts.dryRun ? { dryRun: ['All'] } : {}),
      },
      ...(opts.warnings ? { warnings: opts.warnings } : {}),
    };
  }

  /** The storage key of an object. */
  key(res: ResourceInfo, ns: string | undefined, name: string): string {
    return storageKey(res, ns, name);
  }

  /** A stored object as served at `res`'s version (converted from the stored form where the resource has one; apiVersion/kind set). */
  present(res: ResourceInfo, stored: KubeObject): KubeObject {
    if (res.fromStorage) return this.typed(res, res.fromStorage(stored));
    const out = this.typed(res, stored);
    // the same members in the same order: the same JSON
    if (stored.apiVersion === out.apiVersion && stored.kind === out.kind) sameJson.set(out, stored);
    return out;
  }

  /** An object already in `res`'s form, with its apiVersion/kind. */
  private typed(res: ResourceInfo, obj: KubeObject): KubeObject {
    return { ...obj, apiVersion: groupVersion(res), kind: res.kind };
  }

  /** What is stored for an object of `res` (a custom resource in its CRD's storage version). */
  private async storageForm(res: ResourceInfo, obj: KubeObject): Promise<KubeObject> {
    if (res.custom && res.conversion && res.conversion.storageVersion !== res.version) {
      return (await convertObjects(res, [this.typed(res, obj)], res.conversion.storageVersion))[0];
    }
    return res.toStorage ? res.toStorage(obj) : obj;
  }

  /** Reads an object; throws 404. The answer shares members with the stored object: do not modify it. */
  async get(res: ResourceInfo, ns: string | undefined, name: string): Promise<KubeObject> {
    const key = this.key(res, ns, name);
    const obj = await readShared(this.storage, key);
    if (!obj) throw notFound(res, name);
    try {
      return await this.view(res, obj);
    } catch (e) {
      // the etcd3 store decodes (and so converts) what it read: a failed conversion is its corrupt-object error
      if (e instanceof ConversionWebhookError) {
        throw internalError(
          `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${obj.metadata?.resourceVersion ?? 0}: ${e.detail}`,
        );
      }
      throw e;
    }
  }

  /** Throws 404 `namespaces "x" not found` when a namespaced request names a missing namespace. */
  async requireNamespace(res: ResourceInfo, ns: string | undefined): Promise<void> {
    if (!res.namespaced) return;
    const nsRes = this.registry.lookup('', 'v1', 'namespaces')!;
    if (!ns || !(await readShared(this.storage, this.key(nsRes, undefined, ns)))) throw notFound(nsRes, ns ?? '');
  }

  /** Creates an object (POST). */
  async create(res: ResourceInfo, ns: string | undefined, body: unknown, opts: WriteOptions = {}): Promise<KubeObject> {
    const obj = this.decode(res, ns, body);
    const meta = obj.metadata!;
    const nameGenerated = !meta.name && !!meta.generateName;
    if (nameGenerated) meta.name = `${meta.generateName}${randomSuffix()}`;
    const nameRequired: FieldCause = {
      reason: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    };
    if (!meta.name) {
      // a custom resource reports it with its schema's errors (it is blocking: the CEL rules are skipped)
      if (res.schema) await this.admit(res, obj, undefined, opts, [nameRequired]);
      throw invalid(res.group, res.kind, '', [nameRequired]);
    }
    await this.requireNamespace(res, ns);
    if (res.namespaced) {
      const nsObj = await readShared(
        this.storage,
        this.key(this.registry.lookup('', 'v1', 'namespaces')!, undefined, ns!),
      );
      if (nsObj?.metadata?.deletionTimestamp) {
        throw forbidden(
          res,
          meta.name,
          `unable to create new content in namespace ${ns} because it is being terminated`,
        );
      }
    }
    if (res.custom) await this.requireCrdActive(res, meta.name);
    meta.uid = newUid();
    meta.creationTimestamp = nowRfc3339();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (res.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    if (res.statusSubresource) delete (obj as Rec).status;
    const attrs = this.attributes(opts, 'CREATE', undefined);
    // the apiserver generates the name after mutating admission: those webhooks see none
    if (attrs && nameGenerated) attrs.nameGenerated = true;
    const deferred = await this.admit(res, obj, undefined, opts, [], attrs);
    if (opts.appliedManagedFields) obj.metadata!.managedFields = opts.appliedManagedFields;
    else
      obj.metadata!.managedFields = updateManagedFields(
        res,
        undefined,
        obj,
        opts.fieldManager ?? 'unknown',
        'main',
        this.versions(res),
      );
    if (!obj.metadata!.managedFields?.length) delete obj.metadata!.managedFields;
    const finish = res.beginWrite
      ? await res.beginWrite({
          storage: this.storage,
          obj,
          old: undefined,
          dryRun: opts.dryRun === true,
          scope: 'main',
          errors: deferred,
        })
      : undefined;
    try {
      res.prepareForCreate?.(obj);
      if (attrs) await this.webhooks.validate(res, this.typed(res, obj), undefined, attrs);
      if (opts.dryRun) return this.typed(res, obj);
      const stored = await this.storage.create(this.key(res, ns, meta.name), await this.storageForm(res, obj));
      this.afterWrite(res, stored, false);
      if (isCrd(res)) await this.establishedByApiserver(res, stored);
      return this.view(res, stored);
    } catch (e) {
      if (e instanceof StorageError && e.code === 'AlreadyExists') throw alreadyExists(res, meta.name);
      throw e;
    } finally {
      finish?.();
    }
  }

  /** Replaces an object (PUT), on the main resource or /status. */
  async update(
    res: ResourceInfo,
    ns: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<UpdateResult> {
    const obj = this.decode(res, ns, body);
    if (obj.metadata?.name && obj.metadata.name !== name) {
      throw badRequest(`the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`);
    }
    obj.metadata!.name = name;
    const old = await this.storage.get(this.key(res, ns, name));
    if (!old) throw notFound(res, name);
    const rv = obj.metadata?.resourceVersion;
    if (!rv && res.custom) {
      // the update strategy's error names the resource, not the kind
      throw invalid(res.group, res.resource, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0: must be specified for an update',
        },
      ]);
    }
    if (rv && rv !== old.metadata?.resourceVersion) throw conflict(res, name, OBJECT_MODIFIED);
    const stored = await this.commit(res, ns, old, obj, opts, opts.subresource ?? 'main', undefined);
    return { object: stored, created: false };
  }

  /** Patches an object; an apply patch creates it when missing. Retries on write races as GuaranteedUpdate does. */
  async patch(
    res: ResourceInfo,
    ns: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions & { force?: boolean } = {},
  ): Promise<UpdateResult> {
    if (type === 'strategic' && !res.strategicMerge) {
      throw unsupportedMediaType([
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/apply-patch+yaml',
      ]);
    }
    if (type === 'apply' && !opts.fieldManager) {
      throw badRequest('fieldManager is required for apply requests');
    }
    const scope: FieldScope = opts.subresource === 'status' ? 'status' : 'main';
    for (let attempt = 0; ; attempt++) {
      const old = await this.storage.get(this.key(res, ns, name));
      if (!old) {
        if (type !== 'apply') throw notFound(res, name);
        const created = this.apply(res, ns, name, undefined, patch, opts, 'main');
        try {
          const obj = await this.create(res, ns, created, {
            ...opts,
            appliedManagedFields: created.metadata!.managedFields ?? [],
          });
          return { object: obj, created: true };
        } catch (e) {
          if (e instanceof ApiError && e.status.reason === 'AlreadyExists' && attempt < MAX_UPDATE_RETRIES) continue;
          throw e;
        }
      }
      const current = await this.view(res, old);
      let candidate: KubeObject;
      let managed = false;
      switch (type) {
        case 'json':
          candidate = jsonPatch(current, patch) as KubeObject;
          break;
        case 'merge':
          candidate = mergePatch(current, patch) as KubeObject;
          break;
        case 'strategic':
          candidate = strategicMergePatch(current, patch) as KubeObject;
          break;
        case 'apply':
          candidate = this.apply(res, ns, name, current, patch, opts, scope);
          managed = true;
          break;
      }
      if (!isObject(candidate)) throw badRequest('the patch produced an object that is not a JSON object');
      if (candidate.metadata !== undefined && candidate.metadata !== null && !isObject(candidate.metadata))
        throw metadataNotAnObject(candidate);
      if (!managed) candidate = await this.decodePatched(res, current, candidate, patch, type, opts);
      // A resourceVersion in the patch is a precondition.
      const patchRv = isObject(patch) && isObject(patch.metadata) ? patch.metadata.resourceVersion : undefined;
      if (typeof patchRv === 'string' && patchRv !== old.metadata?.resourceVersion)
        throw conflict(res, name, OBJECT_MODIFIED);
      try {
        const stored = await this.commit(
          res,
          ns,
          old,
          candidate,
          opts,
          scope,
          managed ? ((candidate as KubeObject).metadata?.managedFields ?? []) : undefined,
        );
        return { object: stored, created: false };
      } catch (e) {
        if (
          e instanceof StorageError &&
          e.code === 'Conflict' &&
          attempt < MAX_UPDATE_RETRIES &&
          typeof patchRv !== 'string'
        )
          continue;
        if (e instanceof StorageError && e.code === 'Conflict') throw conflict(res, name, OBJECT_MODIFIED);
        throw e;
      }
    }
  }

  /**
   * A patch's result decoded as the patch handler decodes it: a built-in's decode error is a
   * 422 on `patch` (whatever fieldValidation says); the strict errors of the patch body
   * (`opts.patchStrict`) and the result's unknown fields are refused (Strict, 422 on `patch`)
   * or warned about (Warn). Returns the result without its unknown fields.
   */
  private async decodePatched(
    res: ResourceInfo,
    current: KubeObject,
    candidate: KubeObject,
    patch: unknown,
    type: PatchType,
    opts: WriteOptions,
  ): Promise<KubeObject> {
    // the value the apiserver shows: the patched JSON, or for a strategic merge patch the patch map (%+v)
    // (a built-in's JSON: the members the patch went into sorted, the rest in the Go struct's order)
    const shown = (): string => {
      if (type === 'strategic') return goV(patch);
      if (res.custom) return goJson(candidate);
      // the patch again, over the stored object in its Go encoding's order
      const msg = goMessageOf(groupVersion(res), res.kind);
      const base = msg ? goRoundTrip(msg, current as Rec) : current;
      const doc = type === 'json' ? jsonPatch(base, patch) : mergePatch(base, patch);
      return patchedJson(doc, type === 'json' ? jsonPatchDecoded(patch) : mergePatchDecoded(base, patch));
    };
    let unknown: string[];
    let out: KubeObject = candidate;
    if (!res.custom) {
      const found = decodeBuiltinValue(candidate, res.group, res.version, res.kind);
      if (found.error !== undefined) throw patchInvalid(shown(), found.error);
      const u = unknownFields(candidate, res.group, res.version, res.kind, 'sorted');
      unknown = u.paths;
      out = u.value as KubeObject;
    } else {
      const meta = unknownMetadataFields(candidate.metadata);
      unknown = meta.paths;
      if (candidate.metadata !== undefined) out = { ...candidate, metadata: meta.value as KubeObject['metadata'] };
      if (res.schema) {
        out = structuredClone(out);
        unknown.push(
          ...(await res.schema())
            .prune(out)
            .filter((p) => p !== 'metadata' && !p.startsWith('metadata.'))
            .sort(),
        );
      }
    }
    const errs = [...(opts.patchStrict ?? []), ...unknown.map((p) => `unknown field ${JSON.stringify(p)}`)];
    if (errs.length && opts.fieldValidation === 'Strict')
      throw patchInvalid(shown(), `strict decoding error: ${errs.join(', ')}`);
    if (errs.length && opts.fieldValidation === 'Warn') opts.warnings?.push(...errs);
    return out;
  }

  /** Server-side apply of `patch` onto `current` (undefined: create), then the patch handler's namespace and name checks. */
  private apply(
    res: ResourceInfo,
    ns: string | undefined,
    name: string,
    current: KubeObject | undefined,
    patch: unknown,
    opts: WriteOptions & { force?: boolean },
    scope: FieldScope,
  ): KubeObject {
    if (patch !== null && !isObject(patch)) {
      const what = Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch;
      throw badRequest(
        `error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`,
      );
    }
    const out = applyManagedFields(
      res,
      current,
      patch ?? {},
      opts.fieldManager!,
      scope,
      opts.force === true,
      this.versions(res),
    );
    const meta = (out.metadata ??= {});
    if (res.namespaced && ns) {
      if (meta.namespace && meta.namespace !== ns)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      meta.namespace = ns;
    }
    if (!meta.name)
      throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
    if (meta.name !== name)
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    return out;
  }

  /** The other served versions of a resource (managers may have written at another apiVersion). */
  private versions(res: ResourceInfo): VersionLookup {
    return (apiVersion) => {
      const i = apiVersion.indexOf('/');
      const group = i < 0 ? '' : apiVersion.slice(0, i);
      const version = i < 0 ? apiVersion : apiVersion.slice(i + 1);
      if (group !== res.group) return undefined;
      return this.registry.lookup(group, version, res.resource);
    };
  }

  /**
   * Read-modify-write with retries, for in-process controllers: `mutate` gets a copy of
   * the current object and returns the new one (or undefined to skip).
   */
  async guaranteedUpdate(
    res: ResourceInfo,
    ns: string | undefined,
    name: string,
    mutate: (cur: KubeObject) => KubeObject | undefined,
    opts: WriteOptions = {},
  ): Promise<KubeObject | undefined> {
    for (let attempt = 0; attempt <= MAX_UPDATE_RETRIES; attempt++) {
      const old = await this.storage.get(this.key(res, ns, name));
      if (!old) return undefined;
      const next = mutate(this.present(res, structuredClone(old)));
      if (!next) return this.present(res, old);
      try {
        return await this.commit(res, ns, old, next, opts, opts.subresource === 'status' ? 'status' : 'all', undefined);
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Conflict') continue;
        if (e instanceof StorageError && e.code === 'NotFound') return undefined;
        throw e;
      }
    }
    throw conflict(res, name, OBJECT_MODIFIED);
  }

  /**
   * Validates and writes `candidate` over `old` at the old revision. `scope` says which part
   * the write may change; `managedFields` set means the caller computed ownership (apply).
   * Throws StorageError Conflict on a race (callers retry or answer 409).
   */
  private async commit(
    res: ResourceInfo,
    ns: string | undefined,
    stored: KubeObject,
    candidate: KubeObject,
    opts: WriteOptions,
    scope: FieldScope,
    managedFields: ManagedFieldsEntry[] | undefined,
  ): Promise<KubeObject> {
    // the old object in `res`'s form (as the client sees it)
    const old = await this.view(res, stored);
    const name = old.metadata!.name!;
    let obj = jsonCopy(candidate) as KubeObject & Rec;
    const oldRec = old as KubeObject & Rec;
    if (scope === 'status') {
      // /status writes change only .status (and nothing else).
      const status = obj.status;
      obj = jsonCopy(oldRec);
      if (status === undefined) delete obj.status;
      else obj.status = status;
    } else if (scope === 'main' && res.statusSubresource) {
      // Main-resource writes ignore .status.
      if (oldRec.status === undefined) delete obj.status;
      else obj.status = jsonCopy(oldRec.status);
    }
    obj.apiVersion = groupVersion(res);
    obj.kind = res.kind;
    const meta = (obj.metadata = { ...(obj.metadata ?? {}) });
    const om = old.metadata!;
    meta.name = om.name;
    if (res.namespaced) meta.namespace = om.namespace;
    else delete meta.namespace;
    meta.uid = om.uid;
    meta.creationTimestamp = om.creationTimestamp;
    meta.resourceVersion = om.resourceVersion;
    if (om.deletionTimestamp) {
      meta.deletionTimestamp = om.deletionTimestamp;
      meta.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds ?? 0;
      const added = (meta.finalizers ?? []).filter((f) => !(om.finalizers ?? []).includes(f));
      if (added.length) {
        const cause: FieldCause = {
          reason: 'FieldValueForbidden',
          field: 'metadata.finalizers',
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        };
        // reported twice, as the apiserver does: by the generic update checks and again by the resource's own
        throw invalid(res.group, res.kind, name, [cause, cause]);
      }
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    if (res.hasGeneration) meta.generation = om.generation ?? 1;
    else delete meta.generation;
    const attrs = this.attributes(opts, 'UPDATE', scope);
    const deferred = await this.admit(res, obj, old, opts, [], attrs);
    // the spec is compared as decoded: pruned and defaulted
    if (res.hasGeneration && scope !== 'status' && specChanged(old, obj)) meta.generation = (meta.generation ?? 1) + 1;
    // managedFields sent by the request replace the live ones (how clients reset or migrate ownership)
    const mf =
      managedFields !== undefined
        ? managedFields
        : scope === 'scale'
          ? scaleManagedFields(res, old, obj, opts.fieldManager ?? 'unknown', this.versions(res))
          : updateManagedFields(res, old, obj, opts.fieldManager ?? 'unknown', scope, this.versions(res));
    if (mf?.length) meta.managedFields = mf;
    else delete meta.managedFields;
    this.recordCrdStatus(res, old, obj);
    const finish = res.beginWrite
      ? await res.beginWrite({ storage: this.storage, obj, old, dryRun: opts.dryRun === true, scope, errors: deferred })
      : undefined;
    try {
      if (attrs) await this.webhooks.validate(res, this.typed(res, obj), old, attrs);
      if (noOp(old, obj)) return old;
      if (opts.dryRun) return this.typed(res, obj);
      const key = this.key(res, ns ?? om.namespace, name);
      const rev = Number(om.resourceVersion);
      if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0) {
        // The last finalizer is gone: the object goes away now, without an update first (as the
        // registry's shouldDeleteDuringUpdate): watchers see one DELETED, the caller gets the
        // object it wrote at the version it replaced.
        const last = await this.storage.delete(key, rev);
        this.afterWrite(res, last, true);
        meta.resourceVersion = om.resourceVersion;
        return this.typed(res, obj);
      }
      const written = await this.storage.update(key, await this.storageForm(res, obj), rev);
      this.afterWrite(res, written, false);
      return this.view(res, written);
    } finally {
      finish?.();
    }
  }

  /**
   * A CRD's status is written by the apiserver's own controllers (names and establishing),
   * as field manager `kube-apiserver` on the status subresource: testenv sets it inline, and
   * records that ownership the same way.
   */
  private recordCrdStatus(res: ResourceInfo, old: KubeObject | undefined, obj: KubeObject): void {
    if (!isCrd(res)) return;
    const before = {
      ...obj,
      metadata: { ...obj.metadata, managedFields: obj.metadata?.managedFields ?? [] },
    } as KubeObject & Rec;
    // storedVersions come with the write itself (the strategy), not from those controllers
    const stored = ((obj as Rec).status as Rec | undefined)?.storedVersions;
    const prev = old ? ((old as Rec).status as Rec | undefined) : undefined;
    before.status = { ...(prev ?? {}), ...(stored !== undefined ? { storedVersions: stored } : {}) };
    const mf = updateManagedFields(res, before, obj, 'kube-apiserver', 'status', this.versions(res));
    if (mf?.length) obj.metadata!.managedFields = mf;
  }

  /**
   * Right after a CRD's create, the apiserver's controllers write its status (names accepted,
   * established) as `kube-apiserver`: the create's answer has no such entry, the next read has.
   * testenv set the status inline; it records the controllers' ownership in a second write.
   */
  private async establishedByApiserver(res: ResourceInfo, stored: KubeObject): Promise<void> {
    const obj = structuredClone(stored);
    this.recordCrdStatus(res, undefined, obj);
    if (JSON.stringify(obj.metadata?.managedFields) === JSON.stringify(stored.metadata?.managedFields)) return;
    const key = this.key(res, undefined, stored.metadata!.name!);
    try {
      const next = await this.storage.update(key, obj, Number(stored.metadata?.resourceVersion));
      this.afterWrite(res, next, false);
    } catch (e) {
      // a write in between already took its place; that write's own path records what it changed
      if (!(e instanceof StorageError && e.code === 'Conflict')) throw e;
    }
  }

  /** Decodes a request body into an object of `res`: kind/apiVersion/namespace checks. */
  decode(res: ResourceInfo, ns: string | undefined, body: unknown): KubeObject {
    if (!isObject(body)) throw badRequest('the body of the request must be a JSON or YAML object');
    const obj = jsonCopy(body) as KubeObject & Rec;
    if (typeof obj.kind !== 'string' || obj.kind === '') {
      throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    }
    if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') {
      throw badRequest(`Object 'apiVersion' is missing in '${JSON.stringify(body)}'`);
    }
    if (obj.apiVersion !== groupVersion(res)) {
      throw badRequest(
        `the API version in the data (${obj.apiVersion}) does not match the expected API version (${groupVersion(res)})`,
      );
    }
    if (obj.kind !== res.kind) {
      throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${res.kind})`);
    }
    if (obj.metadata !== undefined && !isObject(obj.metadata)) throw badRequest('metadata must be an object');
    obj.metadata = { ...(obj.metadata ?? {}) };
    if (res.namespaced) {
      if (obj.metadata.namespace && ns && obj.metadata.namespace !== ns) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (ns) obj.metadata.namespace = ns;
    } else delete obj.metadata.namespace;
    return obj;
  }

  /**
   * Metadata checks, pruning, defaulting, schema validation and kind-specific preparation.
   * Throws the errors found; for a kind that validates late (`beginWrite`), returns them instead.
   */
  private async admit(
    res: ResourceInfo,
    obj: KubeObject,
    old: KubeObject | undefined,
    opts: WriteOptions,
    metaErrors: FieldCause[] = [],
    attrs?: AdmissionAttributes,
  ): Promise<FieldCause[]> {
    const name = obj.metadata?.name ?? '';
    const meta: FieldCause[] = [...metaErrors];
    if (name)
      meta.push(
        ...((res.resource === 'namespaces' && !res.group) || res.nameIsLabel ? checkLabelName(name) : checkName(name)),
      );
    meta.push(...checkLabels(obj.metadata?.labels));
    meta.push(...checkAnnotations(obj.metadata?.annotations));
    const errs: FieldCause[] = [];
    // what decoding drops (the HTTP layer reported it): a built-in's undeclared fields, unknown metadata fields
    if (!res.custom) {
      // the Go struct's encoding where the types are known (CRDs keep their own handling), else the undeclared fields dropped
      const msg = res.group === 'apiextensions.k8s.io' ? undefined : goMessageOf(groupVersion(res), res.kind);
      const kept = msg ? goRoundTrip(msg, obj as Rec) : unknownFields(obj, res.group, res.version, res.kind).value;
      // (in place, metadata too: callers hold references to both)
      if (isObject(kept) && isObject(obj.metadata) && isObject(kept.metadata))
        replaceContent(obj.metadata, kept.metadata);
      if (isObject(kept)) replaceContent(obj, { ...kept, metadata: obj.metadata });
      if (!msg) fillZeroFields(obj as Rec, res.group, res.version, res.kind);
    } else if (isObject(obj.metadata)) replaceContent(obj.metadata, unknownMetadataFields(obj.metadata).value);
    // (a CRD's metadata is checked by the CRD checker, with the rest of it, in the apiserver's order)
    const isCrd = res.group === 'apiextensions.k8s.io' && res.resource === 'customresourcedefinitions';
    if (!res.schema && !isCrd) errs.push(...meta);
    // mutating admission: after decoding and defaulting, before validation
    if (attrs && !res.schema) await this.mutate(res, obj, old, attrs);
    if (res.schema) {
      const schema = await res.schema();
      schema.prune(obj);
      schema.applyDefaults(obj);
      // what a webhook added is pruned and defaulted as the request was
      if (attrs && (await this.mutate(res, obj, old, attrs))) {
        schema.prune(obj);
        schema.applyDefaults(obj);
      }
      errs.push(
        ...schema.validate(obj, old, {
          before: meta,
          afterSchema: res.custom && res.scale ? scaleErrors(res.scale, obj) : [],
        }),
      );
    }
    if (res.prepare) errs.push(...res.prepare(obj, old));
    if (isCrd) {
      defaultCrd(obj);
      errs.push(...(await checkCrd(obj)));
      if (errs.length === 0) {
        // (the cleanup finalizer is added by the CRD's delete, not at create)
        (obj as Rec).status = establishedStatus(obj, old);
      }
    }
    if (res.beginWrite) return errs;
    if (errs.length) throw invalid(res.errorGroup ?? res.group, res.kind, name, errs);
    return [];
  }

  /** Runs the mutating webhooks; `obj` takes their changes in place. True when one changed it. */
  private async mutate(
    res: ResourceInfo,
    obj: KubeObject,
    old: KubeObject | undefined,
    attrs: AdmissionAttributes,
  ): Promise<boolean> {
    const changed = await this.webhooks.mutate(res, this.typed(res, obj), old, attrs);
    if (!changed) return false;
    const meta = obj.metadata;
    replaceContent(obj, changed);
    // the identity of the object is the server's, whatever a webhook did
    if (meta && isObject(obj.metadata)) {
      for (const k of ['name', 'namespace', 'uid', 'creationTimestamp', 'resourceVersion', 'generation'] as const) {
        if (meta[k] === undefined) delete (obj.metadata as Rec)[k];
        else (obj.metadata as Rec)[k] = meta[k];
      }
    } else obj.metadata = meta;
    obj.apiVersion = groupVersion(res);
    obj.kind = res.kind;
    return true;
  }

  private async requireCrdActive(res: ResourceInfo, name: string): Promise<void> {
    const crdRes = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const crd = await readShared(this.storage, this.key(crdRes, undefined, `${res.resource}.${res.group}`));
    if (crd?.metadata?.deletionTimestamp) {
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `create not allowed while custom resource definition is terminating`,
        reason: 'MethodNotAllowed',
        details: { name, group: res.group, kind: res.resource },
        code: 405,
      });
    }
  }

  /** Keeps the registry in step with stored CRDs. */
  afterWrite(res: ResourceInfo, obj: KubeObject, deleted: boolean): void {
    if (res.group !== 'apiextensions.k8s.io' || res.resource !== 'customresourcedefinitions') return;
    const name = obj.metadata!.name!;
    if (deleted) this.registry.removeCrd(name);
    else this.registry.setCrd(name, crdResources(obj));
  }
}

function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): Rec => {
    const r = { ...(o as Rec) };
    delete r.metadata;
    delete r.status;
    delete r.apiVersion;
    delete r.kind;
    return r;
  };
  return !jsonEqual(strip(a), strip(b));
}

/** Whether `a` and `b` hold the same members, in the same order, each the same value. */
function sameMembers(a: Rec, b: Rec): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i] || a[ka[i]] !== b[kb[i]]) return false;
  return true;
}

function noOp(a: KubeObject, b: KubeObject): boolean {
  // (copies of the levels it changes only: the rest is compared where it is)
  const strip = (o: KubeObject): Rec => {
    const r = { ...o } as Rec & KubeObject;
    delete r.apiVersion;
    delete r.kind;
    if (isObject(r.metadata)) {
      const m = (r.metadata = { ...r.metadata } as NonNullable<KubeObject['metadata']>);
      delete m.resourceVersion;
      m.managedFields = (m.managedFields ?? []).map((e) => ({ ...e, time: undefined }));
    }
    return r;
  };
  return jsonEqual(strip(a), strip(b));
}

/** Replaces `obj`'s members with `next`'s (in place). */
function replaceContent(obj: KubeObject, next: unknown): void {
  if (next === obj || !isObject(next)) return;
  for (const k of Object.keys(obj)) delete (obj as Rec)[k];
  Object.assign(obj, next);
}

/** 422 on `patch` with the patched value: what the patch handler answers when the result cannot be decoded. */
function patchInvalid(value: string, why: string): ApiError {
  const cause = `Invalid value: ${JSON.stringify(value)}: ${why}`;
  return new ApiError(
    failure(422, 'Invalid', ` "" is invalid: patch: ${cause}`, {
      causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'patch' }],
    }),
  );
}

/** 422 for a patch that leaves metadata something other than an object (the apiserver cannot decode it). */
function metadataNotAnObject(patched: KubeObject): ApiError {
  const m = (patched as Rec).metadata;
  const what = Array.isArray(m) ? 'array' : typeof m === 'boolean' ? 'bool' : typeof m;
  const cause = `Invalid value: ${JSON.stringify(goJson(patched))}: json: cannot unmarshal ${what} into Go value of type v1.ObjectMeta`;
  return new ApiError(
    failure(422, 'Invalid', ` "" is invalid: patch: ${cause}`, {
      causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'patch' }],
    }),
  );
}

function randomSuffix(): string {
  const chars = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}

/** Go's `%T` of a decoded JSON value, for unstructured accessor errors. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/** Go's `%v` of a decoded JSON value (the accessor errors print the bad value so). */
function goV(v: unknown): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (typeof v === 'object')
    return `map[${Object.keys(v as Rec)
      .sort()
      .map((k) => `${k}:${goV((v as Rec)[k])}`)
      .join(' ')}]`;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v; // undefined, a bigint, symbol or function: no decoded JSON value
}

/**
 * The custom resource validator's checks of the scale subresource's paths: replicas an int64
 * in 0..MaxInt32 (spec and status), the label selector a string.
 */
function scaleErrors(scale: NonNullable<ResourceInfo['scale']>, obj: KubeObject): FieldCause[] {
  const out: FieldCause[] = [];
  const nested = (path: string): { found: boolean; value: unknown } => {
    let cur: unknown = obj;
    for (const seg of path.replace(/^\./, '').split('.')) {
      if (!isObject(cur) || !(seg in cur)) return { found: false, value: undefined };
      cur = cur[seg];
    }
    return { found: true, value: cur };
  };
  const replicas = (path: string): void => {
    const { found, value } = nested(path);
    if (!found) return;
    const jsonPath = `.${path.replace(/^\./, '')}`;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      out.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: 0: ${jsonPath} accessor error: ${goV(value)} is of the type ${goType(value)}, expected int64`,
      });
    } else if (value < 0)
      out.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value}: should be a non-negative integer`,
      });
    else if (value > 2147483647)
      out.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value}: should be less than or equal to 2147483647`,
      });
  };
  replicas(scale.specReplicasPath);
  replicas(scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    const { found, value } = nested(scale.labelSelectorPath);
    if (found && typeof value !== 'string') {
      out.push({
        reason: 'FieldValueInvalid',
        field: scale.labelSelectorPath,
        message: `Invalid value: "": .${scale.labelSelectorPath.replace(/^\./, '')} accessor error: ${goV(value)} is of the type ${goType(value)}, expected string`,
      });
    }
  }
  return out;
}

function isCrd(res: ResourceInfo): boolean {
  return res.group === 'apiextensions.k8s.io' && res.resource === 'customresourcedefinitions';
}
