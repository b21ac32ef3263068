// The soak's end state, read from the server once faults stopped: every live DatabaseManager
// has exactly one Deployment that matches its spec, under its controller ownerReference, and a
// status that reports it; no Deployment is left without a live owner.
import type { ResourceClient, Deployment } from '../../src/runtime/index.js';
import type { DM } from './workload.js';

/** Images per database type, as the generated reconcile.ts's DATABASES says. */
export type Images = Readonly<Record<string, { image: string }>>;

/** Lists every object of a resource across namespaces. */
async function listAll<T>(client: ResourceClient<T & DM>): Promise<T[]> {
  return (await client.list()).items;
}

/** The violations of the end state (empty when converged). */
export async function endStateViolations(
  dms: ResourceClient<DM>,
  deployments: ResourceClient<Deployment>,
  images: Images,
): Promise<string[]> {
  const [allDms, allDeps] = await Promise.all([
    listAll<DM>(dms),
    listAll<Deployment>(deployments as unknown as ResourceClient<Deployment & DM>),
  ]);
  const out: string[] = [];
  const liveByUid = new Map<string, DM>();
  for (const d of allDms) if (!d.metadata?.deletionTimestamp && d.metadata?.uid) liveByUid.set(d.metadata.uid, d);
  const owned = new Map<string, Deployment[]>();
  for (const dep of allDeps) {
    const ref = dep.metadata?.ownerReferences?.find((r) => r.controller === true);
    const where = `Deployment ${dep.metadata?.namespace}/${dep.metadata?.name}`;
    if (!ref) {
      out.push(`${where} has no controller ownerReference`);
      continue;
    }
    if (ref.kind !== 'DatabaseManager' || ref.apiVersion !== 'coolops.cn/v1alpha1') {
      out.push(`${where} is controlled by ${ref.apiVersion} ${ref.kind}`);
      continue;
    }
    const owner = liveByUid.get(ref.uid);
    if (!owner || owner.metadata?.namespace !== dep.metadata?.namespace) {
      out.push(`${where} has no live owner (uid ${ref.uid})`);
      continue;
    }
    owned.set(ref.uid, [...(owned.get(ref.uid) ?? []), dep]);
  }
  for (const [uid, dm] of liveByUid) {
    const where = `DatabaseManager ${dm.metadata?.namespace}/${dm.metadata?.name}`;
    const deps = owned.get(uid) ?? [];
    if (deps.length !== 1) {
      out.push(`${where} controls ${deps.length} Deployments`);
      continue;
    }
    const dep = deps[0];
    const spec = dm.spec ?? {};
    const image = images[spec.dbtype ?? '']?.image;
    if (dep.metadata?.name !== spec.deploymentName)
      out.push(`${where}: Deployment name ${dep.metadata?.name} ≠ ${spec.deploymentName}`);
    if (dep.spec?.replicas !== (spec.replicas ?? 1))
      out.push(`${where}: Deployment replicas ${dep.spec?.replicas} ≠ ${spec.replicas}`);
    const got = dep.spec?.template.spec?.containers[0]?.image;
    if (got !== image) out.push(`${where}: Deployment image ${got} ≠ ${image}`);
    const st = dm.status ?? {};
    const gen = dm.metadata?.generation;
    if (st.availableReplicas !== (spec.replicas ?? 1))
      out.push(`${where}: status.availableReplicas ${st.availableReplicas} ≠ ${spec.replicas}`);
    if (st.observedGeneration !== gen)
      out.push(`${where}: status.observedGeneration ${st.observedGeneration} ≠ generation ${gen}`);
    const ready = st.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status !== 'True' || ready.observedGeneration !== gen)
      out.push(
        `${where}: Ready ${ready?.status ?? 'missing'} (observedGeneration ${ready?.observedGeneration}, generation ${gen})`,
      );
  }
  return out;
}
