// DELETE and DELETE-collection as the apiserver does them: preconditions, propagation
// policy turned into the `foregroundDeletion`/`orphan` finalizers, graceful deletion with
// `deletionTimestamp` while finalizers remain, immediate removal otherwise.
import type { KubeObject } from '../runtime/meta/types.js';
import { isObject, nowRfc3339 } from './meta.js';
import type { ObjectService } from './objects.js';
import type { ResourceInfo } from './resource.js';
import { conflict, forbidden, invalidOptions, notFound } from './status.js';
import { StorageError, readShared } from './storage/storage.js';

/** metav1.DeleteOptions fields the server honours. */
export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** The deprecated orphanDependents, when given (false makes a pending deletion answer 202). */
  orphanDependents?: boolean;
  /** Set for deletes through the HTTP API: validating admission webhooks are called (DELETE, the object as oldObject). */
  admission?: { userInfo?: import('./admission.js').AdmissionAttributes['userInfo'] };
}

/** What a delete did: the object (final state) and whether it is gone already. */
export interface DeleteResult {
  object: KubeObject;
  deleted: boolean;
}

/** Namespaces the apiserver refuses to delete. */
const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/** Finalizer of an owner deleted with propagationPolicy=Foreground. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer a CRD's delete adds: its custom resources are removed before the CRD. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** Finalizer of an owner deleted with propagationPolicy=Orphan. */
export const ORPHAN_FINALIZER = 'orphan';

function isCrd(res: ResourceInfo): boolean {
  return res.group === 'apiextensions.k8s.io' && res.resource === 'customresourcedefinitions';
}

/** Reads DeleteOptions from a request body (may be empty) and query parameters. */
export function parseDeleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const opts: DeleteOptions = {};
  const b = isObject(body) ? body : {};
  const policy = (b.propagationPolicy ?? query.get('propagationPolicy') ?? undefined) as string | undefined;
  const orphanQuery = query.get('orphanDependents');
  const orphan =
    b.orphanDependents ??
    (orphanQuery === null ? undefined : !(orphanQuery === '0' || orphanQuery.toLowerCase() === 'false'));
  if (policy !== undefined) {
    if (policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
      throw invalidOptions('DeleteOptions', [
        {
          reason: 'FieldValueNotSupported',
          field: 'propagationPolicy',
          message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
        },
      ]);
    }
    opts.propagationPolicy = policy;
  } else if (orphan === true) opts.propagationPolicy = 'Orphan';
  if (typeof orphan === 'boolean') opts.orphanDependents = orphan;
  if (isObject(b.preconditions)) {
    const p = b.preconditions;
    opts.preconditions = {};
    if (typeof p.uid === 'string') opts.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === 'string') opts.preconditions.resourceVersion = p.resourceVersion;
  }
  const dry = b.dryRun ?? query.getAll('dryRun');
  if (Array.isArray(dry) && dry.includes('All')) opts.dryRun = true;
  return opts;
}

/** Deletes one object. */
export async function deleteObject(
  svc: ObjectService,
  res: ResourceInfo,
  ns: string | undefined,
  name: string,
  opts: DeleteOptions = {},
): Promise<DeleteResult> {
  const key = svc.key(res, ns, name);
  if (res.resource === 'namespaces' && !res.group && IMMORTAL_NAMESPACES.includes(name)) {
    throw forbidden(res, name, 'this namespace may not be deleted');
  }
  for (let attempt = 0; attempt < 16; attempt++) {
    // (the stored object itself: it is copied before any change)
    const cur = await readShared(svc.storage, key);
    if (!cur) throw notFound(res, name);
    if (attempt === 0 && opts.admission) {
      const attrs = svc.attributes({ admission: opts.admission, dryRun: opts.dryRun === true }, 'DELETE', undefined)!;
      await svc.webhooks.validate(res, undefined, await svc.view(res, cur), attrs);
    }
    const pre = opts.preconditions;
    // the storage layer's precondition errors name the kind, not the resource
    const byKind = { group: res.group, resource: res.kind };
    if (pre?.uid && pre.uid !== cur.metadata?.uid) {
      throw conflict(
        byKind,
        name,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${cur.metadata?.uid ?? ''}). The object might have been deleted and then recreated`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== cur.metadata?.resourceVersion) {
      throw conflict(
        byKind,
        name,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${cur.metadata?.resourceVersion ?? ''}). The object might have been modified`,
      );
    }
    const finalizers = [...(cur.metadata?.finalizers ?? [])];
    const policy = opts.propagationPolicy;
    if (policy === 'Foreground' && !finalizers.includes(FOREGROUND_FINALIZER)) {
      finalizers.splice(
        0,
        finalizers.length,
        ...finalizers.filter((f) => f !== ORPHAN_FINALIZER),
        FOREGROUND_FINALIZER,
      );
    } else if (policy === 'Orphan' && !finalizers.includes(ORPHAN_FINALIZER)) {
      finalizers.splice(
        0,
        finalizers.length,
        ...finalizers.filter((f) => f !== FOREGROUND_FINALIZER),
        ORPHAN_FINALIZER,
      );
    } else if (policy === 'Background') {
      const keep = finalizers.filter((f) => f !== FOREGROUND_FINALIZER && f !== ORPHAN_FINALIZER);
      finalizers.splice(0, finalizers.length, ...keep);
    }
    const terminating = res.resource === 'namespaces' && !res.group;
    // A CRD's own delete (the CRD registry's Delete, not the generic one): the cleanup finalizer,
    // deletionTimestamp and the Terminating condition in one write, no generation bump (its
    // custom resources go first; the cleanup controller then drops the finalizer).
    if (isCrd(res) && !cur.metadata?.deletionTimestamp) {
      const next = structuredClone(cur) as KubeObject & { status?: { conditions?: Record<string, unknown>[] } };
      next.metadata = {
        ...next.metadata,
        deletionTimestamp: nowRfc3339(),
        finalizers: [...finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER), CRD_CLEANUP_FINALIZER],
      };
      const status = (next.status ??= {});
      status.conditions = [
        ...(status.conditions ?? []).filter((c) => c.type !== 'Terminating'),
        {
          type: 'Terminating',
          status: 'True',
          lastTransitionTime: nowRfc3339(),
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
      ];
      if (opts.dryRun) return { object: await svc.view(res, next), deleted: false };
      try {
        const stored = await svc.storage.update(key, next, Number(cur.metadata?.resourceVersion));
        svc.afterWrite(res, stored, false);
        return { object: await svc.view(res, stored), deleted: false };
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Conflict') continue;
        throw e;
      }
    }
    if (finalizers.length === 0 && !terminating) {
      if (opts.dryRun) return { object: await svc.view(res, cur), deleted: true };
      try {
        const last = await svc.storage.delete(key, Number(cur.metadata?.resourceVersion));
        svc.afterWrite(res, last, true);
        return { object: await svc.view(res, last), deleted: true };
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Conflict') continue;
        throw e;
      }
    }
    // Graceful: mark for deletion; finalizers (or the namespace controller) finish it.
    const next = structuredClone(cur);
    next.metadata = { ...next.metadata, finalizers };
    if (finalizers.length === 0) delete next.metadata.finalizers;
    if (!next.metadata.deletionTimestamp) {
      next.metadata.deletionTimestamp = nowRfc3339();
      // the namespace's own deletion is not graceful; everything else records grace 0
      if (!terminating) next.metadata.deletionGracePeriodSeconds = 0;
      // markAsDeleting: a change a controller must observe bumps the generation
      if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = next.metadata.generation! + 1;
    }
    if (terminating) {
      const st = isObject((next as { status?: unknown }).status)
        ? (next as { status: Record<string, unknown> }).status
        : {};
      (next as { status?: unknown }).status = { ...st, phase: 'Terminating' };
    }
    if (opts.dryRun) return { object: await svc.view(res, next), deleted: false };
    if (JSON.stringify(next) === JSON.stringify(cur)) return { object: await svc.view(res, cur), deleted: false };
    try {
      const stored = await svc.storage.update(key, next, Number(cur.metadata?.resourceVersion));
      return { object: await svc.view(res, stored), deleted: false };
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Conflict') continue;
      throw e;
    }
  }
  throw conflict(
    res,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );
}
