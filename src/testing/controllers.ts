// In-process controllers that kube-controller-manager and the apiextensions server run:
// the namespace controller (a Terminating namespace loses its content, then goes), the
// CRD finalizer (a deleted CRD's objects are removed, then the CRD) and the garbage
// collector (dependents of a deleted owner follow it: background, foreground, orphan).
import type { KubeObject, OwnerReference } from '../runtime/meta/types.js';
import {
  CRD_CLEANUP_FINALIZER as CRD_FINALIZER,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
  deleteObject,
} from './deletion.js';
import type { ObjectService } from './objects.js';
import type { ResourceInfo } from './resource.js';
import { terminatingCondition } from './crd.js';
import type { StorageEvent, StorageWatch } from './storage/storage.js';
import type { Storage } from './storage/storage.js';
import { listShared, watchShared } from './storage/storage.js';
import { ApiError } from './status.js';
import { WorkLoop } from './work-loop.js';

interface Node {
  key: string;
  uid: string;
  namespace: string | undefined;
  name: string;
  storagePrefix: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

/** Runs the namespace controller, the CRD finalizer and the garbage collector. */
export class Controllers {
  private readonly loop: WorkLoop;
  private watch: StorageWatch | undefined;
  /** uid → object node (the GC's graph). */
  private readonly nodes = new Map<string, Node>();
  /** Namespaces being deleted. */
  private readonly terminating = new Set<string>();
  /** owner uid → dependent uids. */
  private readonly dependents = new Map<string, Set<string>>();

  constructor(
    private readonly svc: ObjectService,
    private readonly storage: Storage,
    onError: (e: unknown) => void,
  ) {
    this.loop = new WorkLoop(onError);
  }

  /** Starts watching the store from its current state (a list, then a watch from the list's revision). */
  async start(): Promise<void> {
    // (the stored objects themselves: the controllers only read them)
    const snap = await listShared(this.storage, '/');
    snap.items.forEach((o, i) => this.observe(snap.keys[i], o));
    this.watch = watchShared(this.storage, '/', snap.revision, (e) => this.onEvent(e));
    snap.items.forEach((o, i) => this.enqueueFor(snap.keys[i], o));
  }

  /** Stops the controllers (queued work is dropped). */
  stop(): void {
    this.watch?.stop();
    this.loop.stop();
  }

  /** Resolves when all queued work is done. */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Whether work is queued or running. */
  busy(): boolean {
    return this.loop.busy();
  }

  private onEvent(e: StorageEvent): void {
    if (e.type === 'DELETED') {
      this.forget(e.object);
      if (e.key.startsWith('/core/namespaces/')) this.terminating.delete(e.object.metadata?.name ?? '');
      const uid = e.object.metadata?.uid;
      if (uid) for (const dep of this.dependents.get(uid) ?? []) this.loop.push(() => this.gcDependent(dep));
      this.requeueOwners(e.object);
      const ns = e.object.metadata?.namespace;
      if (ns && this.terminating.has(ns)) this.loop.push(() => this.finishNamespace(ns));
      return;
    }
    this.observe(e.key, e.object);
    this.enqueueFor(e.key, e.object);
  }

  private enqueueFor(key: string, obj: KubeObject): void {
    const m = obj.metadata ?? {};
    if (key.startsWith('/core/namespaces/')) {
      if (m.deletionTimestamp) this.terminating.add(m.name!);
      else this.terminating.delete(m.name!);
    }
    if (m.deletionTimestamp) {
      if (key.startsWith('/core/namespaces/')) this.loop.push(() => this.finishNamespace(m.name!));
      if (key.startsWith('/apiextensions.k8s.io/customresourcedefinitions/'))
        this.loop.push(() => this.finishCrd(m.name!));
      if (m.finalizers?.includes(FOREGROUND_FINALIZER) || m.finalizers?.includes(ORPHAN_FINALIZER))
        this.loop.push(() => this.gcOwner(m.uid!));
    }
    if (m.ownerReferences?.length) this.loop.push(() => this.gcDependent(m.uid!));
  }

  private observe(key: string, obj: KubeObject): void {
    const m = obj.metadata ?? {};
    if (!m.uid) return;
    this.forget(obj);
    const node: Node = {
      key,
      uid: m.uid,
      namespace: m.namespace,
      name: m.name ?? '',
      storagePrefix: key.split('/').slice(0, 3).join('/'),
      owners: m.ownerReferences ?? [],
      deleting: !!m.deletionTimestamp,
      finalizers: m.finalizers ?? [],
    };
    this.nodes.set(m.uid, node);
    for (const o of node.owners) {
      if (!this.dependents.has(o.uid)) this.dependents.set(o.uid, new Set());
      this.dependents.get(o.uid)!.add(m.uid);
    }
  }

  private forget(obj: KubeObject): void {
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const prev = this.nodes.get(uid);
    if (prev) for (const o of prev.owners) this.dependents.get(o.uid)?.delete(uid);
    this.nodes.delete(uid);
  }

  private requeueOwners(obj: KubeObject): void {
    for (const o of obj.metadata?.ownerReferences ?? []) {
      const owner = this.nodes.get(o.uid);
      if (owner?.deleting) this.loop.push(() => this.gcOwner(o.uid));
    }
  }

  private resourceFor(prefix: string): ResourceInfo | undefined {
    return this.svc.registry.byStoragePrefix(prefix);
  }

  /** A dependent whose owners are all gone is deleted (background propagation); dangling references to gone owners are dropped. */
  private async gcDependent(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node || node.owners.length === 0) return;
    const live = node.owners.filter((o) => {
      const owner = this.nodes.get(o.uid);
      return owner && (owner.namespace === node.namespace || owner.namespace === undefined);
    });
    const res = this.resourceFor(node.storagePrefix);
    if (!res) return;
    if (live.length === 0) {
      if (node.deleting) return;
      await ignoreNotFound(deleteObject(this.svc, res, node.namespace, node.name, { propagationPolicy: 'Background' }));
      return;
    }
    // An owner being deleted in the foreground takes its dependents with it.
    const fg = live.some(
      (o) => this.nodes.get(o.uid)!.deleting && this.nodes.get(o.uid)!.finalizers.includes(FOREGROUND_FINALIZER),
    );
    if (fg && live.every((o) => this.nodes.get(o.uid)!.deleting) && !node.deleting) {
      await ignoreNotFound(deleteObject(this.svc, res, node.namespace, node.name, { propagationPolicy: 'Foreground' }));
    }
  }

  /** An owner with `foregroundDeletion` goes when its dependents are gone; with `orphan`, once they no longer reference it. */
  private async gcOwner(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    if (!node || !node.deleting) return;
    const res = this.resourceFor(node.storagePrefix);
    if (!res) return;
    const deps = [...(this.dependents.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((d): d is Node => !!d);
    if (node.finalizers.includes(ORPHAN_FINALIZER)) {
      for (const d of deps) {
        const dres = this.resourceFor(d.storagePrefix);
        if (!dres) continue;
        await this.svc.guaranteedUpdate(
          dres,
          d.namespace,
          d.name,
          (cur) => {
            const refs = (cur.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid);
            cur.metadata = { ...cur.metadata, ownerReferences: refs };
            if (refs.length === 0) delete cur.metadata.ownerReferences;
            return cur;
          },
          { fieldManager: 'garbage-collector' },
        );
      }
      await this.removeFinalizer(res, node, ORPHAN_FINALIZER);
      return;
    }
    if (node.finalizers.includes(FOREGROUND_FINALIZER)) {
      for (const d of deps) if (!d.deleting) this.loop.push(() => this.gcDependent(d.uid));
      const blocking = deps.filter((d) => d.owners.some((o) => o.uid === uid && o.blockOwnerDeletion));
      if (blocking.length === 0) await this.removeFinalizer(res, node, FOREGROUND_FINALIZER);
    }
  }

  private async removeFinalizer(res: ResourceInfo, node: Node, finalizer: string): Promise<void> {
    await this.svc.guaranteedUpdate(
      res,
      node.namespace,
      node.name,
      (cur) => {
        const fins = cur.metadata?.finalizers ?? [];
        if (!fins.includes(finalizer)) return undefined;
        cur.metadata = { ...cur.metadata, finalizers: fins.filter((f) => f !== finalizer) };
        return cur;
      },
      { fieldManager: 'garbage-collector' },
    );
  }

  /** Deletes everything in a Terminating namespace, then the namespace. */
  private async finishNamespace(name: string): Promise<void> {
    const nsRes = this.svc.registry.lookup('', 'v1', 'namespaces')!;
    const ns = await this.storage.get(this.svc.key(nsRes, undefined, name));
    if (!ns?.metadata?.deletionTimestamp) return;
    const namespaced = uniqueByPrefix(this.svc.registry.all()).filter((r) => r.namespaced);
    for (const r of namespaced) {
      for (const o of (await this.storage.list(`${r.storagePrefix}/${name}/`)).items) {
        if (!o.metadata?.deletionTimestamp)
          await ignoreNotFound(deleteObject(this.svc, r, name, o.metadata!.name!, { propagationPolicy: 'Background' }));
      }
    }
    let remaining = 0;
    for (const r of namespaced) remaining += (await this.storage.list(`${r.storagePrefix}/${name}/`)).items.length;
    if (remaining === 0) {
      await ignoreNotFound(this.storage.delete(this.svc.key(nsRes, undefined, name)));
    }
  }

  /** Deletes a terminating CRD's objects, then drops its cleanup finalizer. */
  private async finishCrd(name: string): Promise<void> {
    const crdRes = this.svc.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const crd = await this.storage.get(this.svc.key(crdRes, undefined, name));
    if (!crd?.metadata?.deletionTimestamp || !crd.metadata.finalizers?.includes(CRD_FINALIZER)) return;
    const served = this.svc.registry.crdResources(name)[0];
    if (served) {
      const conds = (crd as { status?: { conditions?: { type: string }[] } }).status?.conditions ?? [];
      if (!conds.some((c) => c.type === 'Terminating')) {
        await this.svc.guaranteedUpdate(
          crdRes,
          undefined,
          name,
          (cur) => {
            const st = ((cur as { status?: Record<string, unknown> }).status ??= {});
            st.conditions = [...((st.conditions as unknown[]) ?? []), terminatingCondition()];
            return cur;
          },
          { subresource: 'status', fieldManager: 'apiextensions-apiserver' },
        );
      }
      const { items } = await this.storage.list(`${served.storagePrefix}/`);
      for (const o of items) {
        // Custom resources are removed outright, finalizers notwithstanding (as the apiserver's cleanup does after its deletes).
        await ignoreNotFound(this.storage.delete(this.svc.key(served, o.metadata?.namespace, o.metadata!.name!)));
      }
    }
    await this.svc.guaranteedUpdate(
      crdRes,
      undefined,
      name,
      (cur) => {
        cur.metadata = {
          ...cur.metadata,
          finalizers: (cur.metadata?.finalizers ?? []).filter((f) => f !== CRD_FINALIZER),
        };
        return cur;
      },
      { fieldManager: 'apiextensions-apiserver' },
    );
  }
}

function uniqueByPrefix(rs: ResourceInfo[]): ResourceInfo[] {
  const seen = new Set<string>();
  return rs.filter((r) => (seen.has(r.storagePrefix) ? false : (seen.add(r.storagePrefix), true)));
}

async function ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if ((e instanceof ApiError && e.code === 404) || (e as { code?: string }).code === 'NotFound') return undefined;
    throw e;
  }
}
