// A shard's verdict on a key it let go of: once it has acknowledged a drain, the key is skipped
// whether or not its own handler has yet seen the object leave the cache (each informer handler
// has its own buffer, so the controller's may queue the key first, e.g. when an owned object
// moves with its owner). Not skipping it would start a reconcile beside the new shard's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  ConfigMapResource,
  ShardMember,
  drainLabel,
  loadKubeconfig,
  restBackend,
  shardLabel,
  type ClientBackend,
  type ConfigMap,
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

test('a drained key is skipped before the shard sees its object leave, and reconciled when it was never held', async () => {
  const member = new ShardMember({
    backend,
    ring: RING,
    shard: 'shard-a',
    leaseNamespace: 'default',
    leaseDurationMs: 60_000,
    renewDeadlineMs: 45_000,
    retryPeriodMs: 1_000,
  });
  const stop = new AbortController();
  let joined!: (ok: boolean) => void;
  const isJoined = new Promise<boolean>((r) => (joined = r));
  const run = member.run(
    stop.signal,
    (signal) => new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true })),
    joined,
  );
  try {
    assert.equal(await isJoined, true);
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
    stop.abort();
    await run;
  }
});
