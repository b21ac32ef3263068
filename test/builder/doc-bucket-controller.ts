import { ConfigMapResource, finalizer, isNotFound, newControllerManagedBy, setCondition, setControllerReference,
  typedResource, type Condition, type KubeObject, type Manager } from '../../src/runtime/index.js';

/** A storage bucket that lives in an external service, declared in the cluster. */
export interface Bucket extends KubeObject {
  spec: { region: string };
  status?: { conditions?: Condition[] };
}
export const BucketResource = typedResource<Bucket>({ group: 'storage.example.com', version: 'v1',
  resource: 'buckets', kind: 'Bucket', listKind: 'BucketList', namespaced: true });
const FINALIZER = 'storage.example.com/bucket';

/** Keeps one bucket per Bucket in the storage API at `api`, and a ConfigMap with its URL for pods. */
export function setupBucketController(manager: Manager, api: string): void {
  newControllerManagedBy(manager).for(BucketResource).owns(ConfigMapResource).complete(async (req, { client, signal }) => {
    let bucket: Bucket;
    try {
      bucket = await client.get(BucketResource, req); // from the manager's cache
    } catch (err) {
      if (isNotFound(err)) return; // deleted, and its finalizer has run
      throw err; // retried with backoff
    }
    const url = `${api}/buckets/${req.namespace}.${req.name}`;
    return finalizer(client, BucketResource, FINALIZER, bucket, {
      apply: async (b) => {
        const res = await fetch(url, { method: 'PUT', body: JSON.stringify({ region: b.spec.region }), signal });
        if (!res.ok) throw new Error(`PUT ${url}: ${res.status}`);
        await client.createOrUpdate(ConfigMapResource, { namespace: req.namespace, name: `${req.name}-bucket` }, (cm) => {
          cm.data = { BUCKET_URL: url, BUCKET_REGION: b.spec.region };
          setControllerReference(b, cm, BucketResource);
        });
        // Ready, for kubectl wait and the user. setCondition changes the list in place and says whether
        // anything changed: write the status only then (a shallow copy taken before changes with it)
        const conditions = b.status?.conditions ?? [];
        const message = `${url} in ${b.spec.region}`, observedGeneration = b.metadata?.generation ?? 0;
        if (setCondition(conditions, { type: 'Ready', status: 'True', reason: 'Provisioned', message, observedGeneration }))
          await client.updateStatus(BucketResource, { ...b, status: { ...b.status, conditions } });
        return { requeueAfterMs: 10 * 60_000 }; // look again for drift in the storage API
      },
      cleanup: async () => {
        const res = await fetch(url, { method: 'DELETE', signal });
        if (!res.ok && res.status !== 404) throw new Error(`DELETE ${url}: ${res.status}`); // the finalizer stays
      },
    });
  });
}
