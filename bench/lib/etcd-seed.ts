// Seeds and wipes objects of a real control plane straight in its etcd, in kube-apiserver's own
// storage format, for the benchmarks on the real control plane (bench/go-peers.ts). Through the
// API a create costs the apiserver ~3 ms of CPU here (admission, validation, managed fields),
// which makes 50,000 objects minutes of set-up per run; written to etcd they take seconds, and
// the apiserver's watch cache takes them in through its etcd watch as it does any write.
// Objects are copied from a template the apiserver itself stored (one object created through
// the API and read back from etcd), so only names, uids and the fields a caller varies differ.
import { randomUUID } from 'node:crypto';
import type { Etcd3 } from 'etcd3';

/** The storage key of a namespaced object: `/registry/<group>/<resource>/<namespace>/<name>` (a core group has no group part). */
export function storageKey(group: string, resource: string, namespace: string, name: string): string {
  return `/registry/${group ? `${group}/` : ''}${resource}/${namespace}/${name}`;
}

type Stored = {
  metadata: { name: string; namespace: string; uid: string; generation?: number; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
};

/**
 * The stored form of object `i` of `namespace`, made from `template` (a stored object, as parsed
 * from etcd): name `<prefix>-<i>`, a fresh uid, `app` label and every string in spec that held
 * the template's name with the new name; `mutate` changes the rest.
 */
export function seededObject(template: object, namespace: string, name: string, mutate?: (o: Stored) => void): Stored {
  const o = structuredClone(template) as Stored;
  const was = o.metadata.name;
  o.metadata.name = name;
  o.metadata.namespace = namespace;
  o.metadata.uid = randomUUID();
  if (o.metadata.labels?.app !== undefined) o.metadata.labels.app = name;
  for (const [k, v] of Object.entries(o.spec ?? {}))
    if (typeof v === 'string' && v.includes(was)) o.spec![k] = v.replaceAll(was, name);
  mutate?.(o);
  return o;
}

/** etcd allows 128 operations per transaction by default (--max-txn-ops). */
const TXN_OPS = 128;

/**
 * Puts `values` (key → JSON object, or the stored bytes as they are: built-ins are protobuf) in transactions of `perTxn` (default 128), `lanes` (default 4)
 * in flight; resolves with the revision after the last. The objects of one transaction share one
 * resourceVersion: a stream a client is to be replayed whole is written with `perTxn` 1, since a
 * watch that is closed part-way and resumed from the last resourceVersion seen skips the rest of
 * that revision's events.
 */
export async function putAll(
  client: Etcd3,
  values: Iterable<[string, object]>,
  perTxn = TXN_OPS,
  lanes = 4,
): Promise<string> {
  const batches: [string, object][][] = [[]];
  for (const kv of values) {
    if (batches[batches.length - 1].length === perTxn) batches.push([]);
    batches[batches.length - 1].push(kv);
  }
  let next = 0;
  let revision = 0n;
  const lane = async (): Promise<void> => {
    while (next < batches.length) {
      const batch = batches[next++];
      if (batch.length === 0) continue;
      // apiserver's values end with a newline (its JSON encoder's)
      const r = await client
        .if(batch[0][0], 'Version', '>', -1)
        .then(...batch.map(([k, v]) => client.put(k).value(Buffer.isBuffer(v) ? v : `${JSON.stringify(v)}\n`)))
        .commit();
      const rev = BigInt(r.header.revision);
      if (rev > revision) revision = rev;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return revision.toString();
}

/** Deletes every key under `prefix`; resolves with the revision after the delete. */
export async function deletePrefix(client: Etcd3, prefix: string): Promise<string> {
  const r = await client.delete().prefix(prefix).exec();
  return String(r.header.revision);
}

/** A client of the etcd at `endpoint` (etcd3, a dev dependency of crdgen). */
export async function etcdClient(endpoint: string): Promise<Etcd3> {
  const { Etcd3: Client } = await import('etcd3');
  return new Client({ hosts: endpoint });
}
