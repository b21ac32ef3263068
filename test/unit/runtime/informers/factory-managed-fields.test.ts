import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeClientBackend,
  SharedInformerFactoryBase,
  type KubeObject,
  type TrackedResource,
} from '../../../../src/runtime/index.js';

const DM: TrackedResource = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
  subresources: { status: true },
};

function dm(name: string): KubeObject {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: {
      namespace: 'a',
      name,
      labels: { app: name },
      managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': {} } }],
    },
  };
}

let stored: KubeObject | undefined;
let storedAfter: KubeObject | undefined;

/**
 * Starts a factory with `options` over one DatabaseManager and returns its cached copy (`stored`:
 * the server's, read before the informer ran; `storedAfter`: read again after its sync).
 */
async function cached(
  options: ConstructorParameters<typeof SharedInformerFactoryBase>[2],
): Promise<KubeObject | undefined> {
  const backend = new FakeClientBackend([DM], [dm('one')]);
  stored = (await backend.resource<KubeObject>(DM, 'a').list()).items[0];
  const factory = new SharedInformerFactoryBase({ backend }, 0, options);
  const ac = new AbortController();
  try {
    const informer = factory.informerFor<KubeObject>(DM);
    factory.start(ac.signal);
    const synced = await factory.waitForCacheSync(AbortSignal.timeout(5000));
    assert.deepEqual([...synced.values()], [true]);
    const o = informer.getStore().getByKey('a/one');
    storedAfter = (await backend.resource<KubeObject>(DM, 'a').list()).items[0];
    return o;
  } finally {
    ac.abort();
    await factory.shutdown();
  }
}

test('the factory drops managedFields before caching by default, and nothing else', async () => {
  const o = await cached({});
  assert.ok(o);
  assert.equal(o.metadata?.managedFields, undefined);
  assert.equal('managedFields' in (o.metadata ?? {}), false);
  const { managedFields, ...rest } = stored?.metadata ?? {};
  assert.equal(managedFields?.length, 1, 'the server has them');
  assert.deepEqual(o.metadata, rest);
  assert.deepEqual({ ...o, metadata: undefined }, { ...stored, metadata: undefined });
  // the drop works in place on the object the informer decoded: the server's copy keeps them
  assert.deepEqual(storedAfter, stored);
});

test('keepManagedFields: true caches them as the server sent them', async () => {
  const o = await cached({ keepManagedFields: true });
  assert.deepEqual(o?.metadata?.managedFields, dm('one').metadata?.managedFields);
});

test('a user transform runs after managedFields are dropped; with keepManagedFields it sees them', async () => {
  const seen: boolean[] = [];
  const transform = (x: KubeObject): KubeObject => {
    seen.push(x.metadata?.managedFields !== undefined);
    return { ...x, metadata: { ...x.metadata, labels: { ...x.metadata?.labels, seen: 'yes' } } };
  };
  const stripped = await cached({ transform });
  assert.equal(stripped?.metadata?.managedFields, undefined);
  assert.equal(stripped?.metadata?.labels?.seen, 'yes');
  const kept = await cached({ transform, keepManagedFields: true });
  assert.equal(kept?.metadata?.managedFields?.length, 1);
  assert.equal(kept?.metadata?.labels?.seen, 'yes');
  assert.deepEqual(seen, [false, true]);
});
