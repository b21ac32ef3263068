// A shard's verdict on a key it let go of: once it has acknowledged a drain, the key is skipped
// whether or not its own handler has yet seen the object leave the cache (each informer handler
// has its own buffer, so the controller's may queue the key first, e.g. when an owned object
// moves with its owner). Not skipping it would start a reconcile beside the new shard's.
// A sharder that no longer holds its Lease (a process paused past it wakes with stale caches)
// writes nothing: no label, and no shard Lease taken.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  ConfigMapResource,
  LeaseResource,
  RING_LABEL,
  SecretResource,
  Sharder,
  ShardMember,
  newControllerRef,
  drainLabel,
  loadKubeconfig,
  restBackend,
  shardLabel,
  type ClientBackend,
  type ConfigMap,
  type Lease,
  type Secret,
} from '../../../../src/runtime/index.js';

const RING = 'cm-controller';
let server: TestApiServer;
let backend: ClientBackend;

before(async () => {
  server = await startTestApiServer();
  backend = restBackend(await loadKubeconfig({ path: server.kubeconfigPath }));
});
after(async () => {
  await server.stop();
});

/** A shard of `ring` that holds its Lease (long timings: no renewal falls due in a test) until `stop`. */
async function joinedShard(ring: string, shard: string): Promise<{ member: ShardMember; stop: () => Promise<void> }> {
  const member = new ShardMember({
    backend,
    ring,
    shard,
    leaseNamespace: 'default',
    leaseDurationMs: 60_000,
    renewDeadlineMs: 45_000,
    retryPeriodMs: 1_000,
  });
  const abort = new AbortController();
  let joined!: (ok: boolean) => void;
  const isJoined = new Promise<boolean>((r) => (joined = r));
  const run = member.run(
    abort.signal,
    (signal) => new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true })),
    joined,
  );
  assert.equal(await isJoined, true, `${shard} joined`);
  return {
    member,
    stop: async () => {
      abort.abort();
      await run;
    },
  };
}

test('a drained key is skipped before the shard sees its object leave, and reconciled when it was never held', async () => {
  const { member, stop } = await joinedShard(RING, 'shard-a');
  try {
    const cms = backend.resource<ConfigMap>(ConfigMapResource, 'default');
    const cm = await cms.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'moving',
        namespace: 'default',
        labels: { [shardLabel(RING)]: 'shard-a', [drainLabel(RING)]: 'true' },
      },
    });
    assert.equal(member.admit('default/moving', cm), 'drain');
    await member.acknowledgeDrain(ConfigMapResource, cm);
    const after = await cms.get('moving');
    assert.equal(after.metadata?.labels?.[shardLabel(RING)], undefined, 'the shard removed its label');
    // the cache no longer holds it, and the shard's own handler has not run (no informer here)
    assert.equal(member.admit('default/moving', undefined), 'skip');
    // still cached at the version it let go of: skipped too
    assert.equal(member.admit('default/moving', cm), 'skip');
    // a key this shard never held nor let go of, not cached: reconciled (the reconciler sees it gone)
    assert.equal(member.admit('default/deleted', undefined), 'reconcile');
  } finally {
    await stop();
  }
});

test('a sharder that does not hold its Lease labels nothing and takes no shard Lease; once it holds it, it does', async () => {
  const ring = 'guarded';
  const shard = await joinedShard(ring, 'shard-g');
  // a shard Lease whose holder stopped renewing an hour ago: expired for any sharder
  const leases = backend.resource<Lease>(LeaseResource, 'default');
  await leases.create({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'shard-dead', namespace: 'default', labels: { [RING_LABEL]: ring } },
    spec: { holderIdentity: 'shard-dead', leaseDurationSeconds: 1, renewTime: '2026-01-01T00:00:00.000000Z' },
  });
  const cms = backend.resource<ConfigMap>(ConfigMapResource, 'default');
  const secrets = backend.resource<Secret>(SecretResource, 'default');
  const owner = await cms.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'guarded-owner', namespace: 'default' },
  });
  await secrets.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'guarded-owned',
      namespace: 'default',
      labels: { [shardLabel(ring)]: 'shard-elsewhere' },
      ownerReferences: [newControllerRef(owner, { group: '', version: 'v1', kind: 'ConfigMap' })],
    },
  });
  let holds = false;
  const stopSharder = new AbortController();
  const sharder = new Sharder({
    backend,
    ring,
    leaseNamespace: 'default',
    resource: ConfigMapResource,
    owned: [SecretResource],
    namespaces: ['default'],
    identity: 'sharder-g',
    checkIntervalMs: 100,
    resyncMs: 500,
    holds: () => holds,
  });
  const sharderRun = sharder.run(stopSharder.signal);
  const labelOf = async (): Promise<[string | undefined, string | undefined]> => [
    (await cms.get('guarded-owner')).metadata?.labels?.[shardLabel(ring)],
    (await secrets.get('guarded-owned')).metadata?.labels?.[shardLabel(ring)],
  ];
  try {
    // long enough for many resyncs and expiry checks of the sharder
    await new Promise((r) => setTimeout(r, 3_000));
    assert.deepEqual(await labelOf(), [undefined, 'shard-elsewhere'], 'nothing labelled without the Lease');
    assert.equal((await leases.get('shard-dead')).spec?.holderIdentity, 'shard-dead', 'no shard Lease taken');
    holds = true;
    const deadline = Date.now() + 60_000;
    while ((await labelOf()).some((l) => l !== 'shard-g') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await labelOf(), ['shard-g', 'shard-g'], 'owner and owned labelled once it holds the Lease');
    while ((await leases.get('shard-dead')).spec?.holderIdentity === 'shard-dead' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    assert.equal((await leases.get('shard-dead')).spec?.holderIdentity, 'sharder-g', 'the expired Lease taken');
  } finally {
    stopSharder.abort();
    await sharderRun;
    await shard.stop();
  }
});
