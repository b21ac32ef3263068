// docs/operator.md's "A kind of your own, with a finalizer": the CRD and the reconcile.ts it
// shows, taken from the doc itself. The operator `--controller Bucket --owns v1/ConfigMap`
// generates for that CRD compiles with that reconcile.ts under tsc --strict, and runs against a
// fake storage API whose first DELETE fails, on crdgen/testing and on the real control plane:
// the bucket is created, its ConfigMap applied with the Bucket's controller reference, the
// region followed, and the Bucket held by its finalizer until the bucket is deleted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { createEmitContext } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import {
  newManager,
  type Manager,
  restBackend,
  ConfigMapResource,
  NamespaceResource,
  type ConfigMap,
  isNotFound,
  PatchType,
  typedResource,
  type KubeObject,
} from '../../src/runtime/index.js';
import type { ApiServerHandle } from '../../src/testing/index.js';
import { ROOT, writeTree } from '../golden/support.js';
import { tscStrict } from '../compile/tsc.js';
import { BACKENDS } from '../support/backends.js';
import { startStorageApi, type StorageApi } from './storage-api.js';
import { waitFor } from './support.js';

const DOC = readFileSync(join(ROOT, 'docs', 'operator.md'), 'utf8');
const section = DOC.slice(
  DOC.indexOf('## A kind of your own, with a finalizer'),
  DOC.indexOf('## The DatabaseManager operator'),
);
const CRD_YAML = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
const RECONCILE = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

interface Bucket extends KubeObject {
  spec: { region: string };
}
const BucketResource = typedResource<Bucket>({
  group: 'storage.example.com',
  version: 'v1',
  resource: 'buckets',
  kind: 'Bucket',
  listKind: 'BucketList',
  namespaced: true,
});

/** Generates the Bucket operator from the doc's CRD with the doc's reconcile.ts (runtime imported from `runtimeImport`). */
function generate(dir: string, runtimeImport: string): void {
  const r = readCrdInputs([{ file: 'bucket.yaml', content: Buffer.from(CRD_YAML) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  writeTree(
    dir,
    runEmitters(
      r.model,
      createEmitContext({ sources: r.model.sources, runtimeImport, controllers: ['Bucket'], owns: ['v1/ConfigMap'] }),
    ),
  );
  writeFileSync(
    join(dir, 'controllers', 'bucket', 'reconcile.ts'),
    RECONCILE.replace('"crdgen/runtime"', JSON.stringify(runtimeImport)),
  );
}

function scratch(name: string): { dir: string; cleanup(): void } {
  const base = join(ROOT, 'test', 'e2e', 'out');
  mkdirSync(base, { recursive: true });
  const dir = join(base, `${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('docs/operator.md shows a CRD and a reconcile.ts with a finalizer, in under 60 lines, that compile under tsc --strict', async () => {
  assert.match(CRD_YAML, /kind: CustomResourceDefinition/);
  assert.match(RECONCILE, /finalizer\(client, BucketResource, FINALIZER, bucket/);
  assert.match(RECONCILE, /method: "DELETE"/);
  assert.ok(RECONCILE.trimEnd().split('\n').length < 60, `${RECONCILE.split('\n').length} lines`);
  const out = scratch('doc-bucket-tsc');
  try {
    generate(out.dir, 'crdgen/runtime');
    writeFileSync(join(out.dir, 'package.json'), '{"type":"module"}\n');
    const r = await tscStrict([out.dir], 'nodenext');
    assert.equal(r.output, '');
    assert.equal(r.status, 0);
  } finally {
    out.cleanup();
  }
});

for (const backend of BACKENDS) {
  describe(`docs/operator.md's Bucket operator on ${backend.name}`, () => {
    let handle: ApiServerHandle;
    let storage: StorageApi;
    let gen: ReturnType<typeof scratch>;
    let manager: Manager;
    const stop = new AbortController();
    let running: Promise<void> | undefined;

    before(async () => {
      gen = scratch('doc-bucket-op');
      generate(gen.dir, join(ROOT, 'src', 'runtime', 'index.js'));
      [handle, storage] = await Promise.all([
        backend.start({ crds: [parse(CRD_YAML) as KubeObject] }),
        startStorageApi(),
      ]);
      // the doc's reconciler reads the storage API's address from the environment, as `node main.js` would
      process.env['STORAGE_API'] = storage.url;
      const ctl = (await import(pathToFileURL(join(gen.dir, 'controllers', 'bucket', 'controller.ts')).href)) as {
        setupBucketController(m: Manager): unknown;
      };
      manager = newManager({ client: handle.clientConfig, name: 'bucket-operator' });
      ctl.setupBucketController(manager);
    });

    after(async () => {
      stop.abort();
      await running;
      await handle?.stop();
      await storage?.close();
      gen?.cleanup();
    });

    test('creates the bucket and its ConfigMap, follows the region, and deletes the bucket before the Bucket goes', async () => {
      const api = restBackend(handle.clientConfig);
      await api
        .resource(NamespaceResource)
        .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
      running = manager.start(stop.signal);
      const buckets = api.resource<Bucket>(BucketResource, 'team-a');
      const configMaps = api.resource<ConfigMap>(ConfigMapResource, 'team-a');
      const created = await buckets.create({
        apiVersion: 'storage.example.com/v1',
        kind: 'Bucket',
        metadata: { name: 'logs', namespace: 'team-a' },
        spec: { region: 'eu-west' },
      });
      await waitFor(() => storage.buckets.get('team-a.logs')?.region === 'eu-west', 'the bucket in the storage API');
      const cm = await waitFor(() => configMaps.get('logs-bucket'), 'the ConfigMap');
      assert.equal(cm.data?.['BUCKET_URL'], `${storage.url}/buckets/team-a.logs`);
      assert.deepEqual(cm.metadata?.ownerReferences, [
        {
          apiVersion: 'storage.example.com/v1',
          kind: 'Bucket',
          name: 'logs',
          uid: created.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      assert.deepEqual((await buckets.get('logs')).metadata?.finalizers, ['storage.example.com/bucket']);
      await buckets.patch('logs', PatchType.Merge, { spec: { region: 'us-east' } });
      await waitFor(() => storage.buckets.get('team-a.logs')?.region === 'us-east', 'the bucket moved to us-east');
      await waitFor(
        async () => (await configMaps.get('logs-bucket')).data?.['BUCKET_REGION'] === 'us-east',
        'the ConfigMap at us-east',
      );
      await buckets.delete('logs');
      await waitFor(async () => {
        try {
          await buckets.get('logs');
          return false;
        } catch (e) {
          return isNotFound(e);
        }
      }, 'the Bucket gone');
      assert.equal(storage.buckets.has('team-a.logs'), false, 'the bucket deleted before the Bucket went');
      // the first DELETE failed (503) and was retried; a cleanup may run once more from a stale cache (it must be idempotent)
      assert.ok(
        storage.deletes.length >= 2 && storage.deletes.every((d) => d === 'team-a.logs'),
        `DELETEs: ${storage.deletes.join(', ')}`,
      );
    });
  });
}
