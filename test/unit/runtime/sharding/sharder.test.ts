// The Sharder alone on crdgen's test server: the objects of a shard that has no Lease (dead) are
// assigned to the live shards at once, with DEFAULT_SHARDER_WORKERS label patches in flight (a
// whole shard's objects move after a crash: one patch at a time per worker would pace the move by
// the round trip), each patch guarded by the resourceVersion read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  ConfigMapResource,
  LeaseResource,
  restBackend,
  resourceClient,
  type ClientBackend,
  type ConfigMap,
  type KubeObject,
  type Lease,
} from '../../../../src/runtime/index.js';
import {
  DEFAULT_SHARDER_WORKERS,
  HashRing,
  RING_LABEL,
  Sharder,
  objectHashKey,
  shardLabel,
} from '../../../../src/runtime/index.js';

const RING = 'cm-controller';
const N = 64;

let server: TestApiServer;
before(async () => {
  server = await startTestApiServer({ objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 's' } }] });
});
after(async () => {
  await server.stop();
});

test(`a dead shard's objects are assigned at once, ${DEFAULT_SHARDER_WORKERS} patches in flight`, async () => {
  const now = new Date().toISOString().replace('Z', '000Z');
  const leases = resourceClient<Lease>(server.clientConfig, LeaseResource).namespace('default');
  for (const shard of ['a', 'b'])
    await leases.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: shard, labels: { [RING_LABEL]: RING } },
      spec: { holderIdentity: shard, leaseDurationSeconds: 600, acquireTime: now, renewTime: now },
    });
  const cms = resourceClient<ConfigMap>(server.clientConfig, ConfigMapResource).namespace('s');
  for (let i = 0; i < N; i++)
    await cms.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, labels: { [shardLabel(RING)]: 'gone' } },
    });

  // every patch takes 30 ms more at the server: the patches a worker count allows overlap
  const rest = restBackend(server.clientConfig);
  let inFlight = 0;
  let most = 0;
  let patches = 0;
  const backend: ClientBackend = {
    ...rest,
    scale: (d, ns) => rest.scale(d, ns),
    resource: <T extends KubeObject>(d: Parameters<ClientBackend['resource']>[0], ns?: string) => {
      const c = rest.resource<T>(d, ns);
      if (d.kind !== 'ConfigMap') return c;
      return Object.assign(Object.create(c) as typeof c, {
        patch: async (...args: Parameters<typeof c.patch>) => {
          inFlight++;
          patches++;
          most = Math.max(most, inFlight);
          try {
            await new Promise((r) => setTimeout(r, 30));
            return await c.patch(...args);
          } finally {
            inFlight--;
          }
        },
      });
    },
  };
  if (rest.metadata) backend.metadata = (d, ns) => rest.metadata!(d, ns);

  const sharder = new Sharder({
    backend,
    ring: RING,
    leaseNamespace: 'default',
    resource: ConfigMapResource,
    identity: 'a',
  });
  const stop = new AbortController();
  const running = sharder.run(stop.signal);
  const ring = new HashRing(['a', 'b']);
  const want = (name: string): string | undefined => ring.shardFor(objectHashKey('', 'ConfigMap', 's', name));
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const items = (await cms.list()).items;
      if (items.every((c) => c.metadata?.labels?.[shardLabel(RING)] === want(c.metadata!.name!))) break;
      if (Date.now() > deadline)
        throw new Error(`not assigned: ${JSON.stringify(items.map((c) => c.metadata?.labels))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    stop.abort();
    await running;
  }
  assert.deepEqual([...sharder.shards()], ['a', 'b']);
  assert.equal(patches, N, 'one patch per object');
  assert.equal(most, DEFAULT_SHARDER_WORKERS, 'patches in flight at once');
});
