// The scale example of docs/controllers.md: the doc shows exactly doc-scale.ts, and on crdgen's
// test server and on the real control plane its manager caches one shard of ConfigMaps and
// their Services as metadata only, and keeps each Service in line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ConfigMapResource,
  LAST_SPEC_ANNOTATION,
  ServiceResource,
  isNotFound,
  resourceClient,
  type ConfigMap,
  type Manager,
  type Service,
} from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { BACKENDS } from '../support/backends.js';
import { shardManager } from './doc-scale.js';
import { waitFor } from './support.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

test('docs/controllers.md shows the tested scale example', () => {
  const doc = readFileSync(here('../../docs/controllers.md'), 'utf8');
  const code = readFileSync(here('./doc-scale.ts'), 'utf8').replace("'../../src/runtime/index.js'", "'crdgen/runtime'");
  assert.ok(doc.includes('```ts\n' + code + '```'), 'the scale block of docs/controllers.md differs from doc-scale.ts');
});

for (const backend of BACKENDS) {
  describe(`the scale example on ${backend.name}`, () => {
    let server: ApiServerHandle;
    let manager: Manager;
    const ac = new AbortController();
    let done: Promise<void>;
    before(async () => {
      server = await backend.start();
      manager = shardManager(server.clientConfig);
      done = manager.start(ac.signal);
    });
    after(async () => {
      ac.abort();
      await done;
      await server.stop();
    });

    test('a Service for each ConfigMap of its shard, metadata-only, kept in line', async () => {
      const cms = resourceClient<ConfigMap>(server.clientConfig, ConfigMapResource).namespace('default');
      const svcs = resourceClient<Service>(server.clientConfig, ServiceResource).namespace('default');
      const get = (name: string) => svcs.get(name).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      const cm = (name: string, shard: string): ConfigMap => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default', labels: { shard } },
        data: { port: '5432' },
      });
      await cms.create(cm('a1', 'a'));
      await cms.create(cm('b1', 'b'));
      const svc = await waitFor(() => get('a1'), 'the Service of a1');
      assert.deepEqual(
        svc.spec?.ports?.map((p) => p.port),
        [5432],
      );
      assert.ok(svc.metadata?.annotations?.[LAST_SPEC_ANNOTATION], 'the record of what was set');
      assert.deepEqual(
        manager
          .informer(ConfigMapResource)
          .getIndexer()
          .list()
          .map((o) => o.metadata?.name),
        ['a1'],
        'only shard a cached',
      );
      assert.equal(manager.cache.hasInformer(ServiceResource), false, 'no Service cached whole');
      assert.equal(manager.cache.hasInformer(ServiceResource, { metadataOnly: true }), true);
      await cms.update({ ...cm('a1', 'a'), metadata: { ...(await cms.get('a1')).metadata }, data: { port: '6379' } });
      await waitFor(
        async () => ((await get('a1'))?.spec?.ports?.[0]?.port === 6379 ? true : undefined),
        'the new port',
      );
      assert.equal(await get('b1'), undefined, 'no Service for shard b');
    });
  });
}
