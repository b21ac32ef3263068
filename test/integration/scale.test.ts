// getScale/updateScale of a kind with the scale subresource (kitchensink's cluster-scoped
// Widget), the same assertions on crdgen/testing and on the fake clientset.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isConflict } from '../../src/runtime/index.js';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { generateTree, type GeneratedTree } from './support.js';
import type { Clientset } from '../../fixtures/kitchensink/expected/clientset/clientset.js';
import type { createFakeClientset } from '../../fixtures/kitchensink/expected/clientset/fake/clientset.js';
import type { Widget } from '../../fixtures/kitchensink/expected/apis/shop.example.com/v1/types.js';

let tree: GeneratedTree;
let server: TestApiServer;
let real: Clientset;
let fake: Clientset;

before(async () => {
  tree = generateTree(['fixtures/kitchensink/crds.yaml']);
  const { Clientset: C } = await tree.import<{ Clientset: typeof Clientset }>('clientset/clientset.ts');
  const { createFakeClientset: f } = await tree.import<{ createFakeClientset: typeof createFakeClientset }>(
    'clientset/fake/clientset.ts',
  );
  server = await startTestApiServer({ crds: [join(ROOT, 'fixtures', 'kitchensink', 'crds.yaml')] });
  real = await C.fromKubeConfig(server.kubeconfigPath);
  fake = f();
});
after(async () => {
  await server?.stop();
  tree?.cleanup();
});

const widget = (name: string): Widget => ({
  apiVersion: 'shop.example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec: { size: 'small', replicas: 2 },
});

for (const which of ['crdgen/testing', 'fake'] as const) {
  test(`scale subresource of a cluster-scoped kind (${which})`, async () => {
    const cs = which === 'fake' ? fake : real;
    const c = cs.shopV1().widgets();
    const w = await c.create(widget('scaled'));
    const s = await c.getScale('scaled');
    assert.equal(s.kind, 'Scale');
    assert.equal(s.spec?.replicas, 2);
    assert.equal(s.metadata?.name, 'scaled');
    const u = await c.updateScale('scaled', { ...s, spec: { replicas: 4 } });
    assert.equal(u.spec?.replicas, 4);
    assert.equal((await c.get('scaled')).spec?.replicas, 4);
    await assert.rejects(
      c.updateScale('scaled', { ...s, spec: { replicas: 5 } }),
      isConflict,
      'stale resourceVersion in the Scale',
    );
    assert.equal(w.metadata?.namespace, undefined);
  });
}
