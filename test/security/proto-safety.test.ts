// `__proto__` (and `constructor.prototype`) keys are data, never prototypes: in the generated
// deepcopy, in the generated fake clientset's tracker (create, get, merge and JSON patch), and
// in the test API server (a schema that keeps unknown fields, JSON and merge patches).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { ROOT } from '../golden/support.js';
import { loadGenerated } from '../integration/support.js';
import type { Generated } from '../integration/support.js';
import type { deepCopyWidget as DeepCopyWidget } from '../../fixtures/kitchensink/expected/apis/shop.example.com/v1/deepcopy.js';
import { api } from '../testing/helpers.js';

type Rec = Record<string, any>;
const POLLUTE = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';

function assertClean(): void {
  assert.equal(({} as Rec).polluted, undefined, 'Object.prototype was polluted');
  assert.deepEqual(Object.keys(Object.prototype), []);
}

/** Asserts `o` holds `__proto__` as an own key whose value is `{ polluted: 'yes' }`, with a plain prototype. */
function assertOwnProto(o: Rec, where: string): void {
  assert.equal(Object.getPrototypeOf(o), Object.prototype, `${where}: prototype changed`);
  assert.ok(Object.prototype.hasOwnProperty.call(o, '__proto__'), `${where}: __proto__ key lost`);
  assert.deepEqual({ ...Object.getOwnPropertyDescriptor(o, '__proto__')!.value }, { polluted: 'yes' });
  assert.equal(o.polluted, undefined, `${where}: the key became the prototype`);
}

describe('__proto__ keys are data', () => {
  after(assertClean);

  it('generated deepcopy keeps them as own keys, copies them deeply, changes no prototype', async () => {
    const mod = (await import(
      pathToFileURL(join(ROOT, 'fixtures/kitchensink/expected/apis/shop.example.com/v1/deepcopy.ts')).href
    )) as { deepCopyWidget: typeof DeepCopyWidget };
    const src = JSON.parse(`{"apiVersion":"shop.example.com/v1","kind":"Widget","__proto__":{"polluted":"yes"},
      "metadata":{"name":"w","labels":${POLLUTE}},
      "spec":{"__proto__":{"polluted":"yes"},"byZone":${POLLUTE},"extra":${POLLUTE},"parts":[${POLLUTE}]}}`) as Rec;
    const copy = mod.deepCopyWidget(src) as unknown as Rec;
    for (const [o, where] of [
      [copy, 'top'],
      [copy.spec, 'spec'],
      [copy.spec.byZone, 'map'],
      [copy.spec.extra, 'unknown fields'],
      [copy.spec.parts[0], 'list item'],
      [copy.metadata.labels, 'labels'],
    ] as [Rec, string][]) {
      assertOwnProto(o, where);
    }
    assert.notEqual(
      Object.getOwnPropertyDescriptor(copy.spec, '__proto__')!.value,
      Object.getOwnPropertyDescriptor(src.spec, '__proto__')!.value,
      'copied, not shared',
    );
    assert.equal(JSON.stringify(copy), JSON.stringify(src));
    assertClean();
  });

  describe('generated fake clientset', () => {
    let g: Generated;
    before(async () => {
      g = await loadGenerated();
    });
    after(() => g?.cleanup());

    it('create/get/patch keep __proto__ keys as data', async () => {
      const cs = g.createFakeClientset();
      try {
        const dms = cs.coolopsV1alpha1().databaseManagers('default');
        const obj = JSON.parse(
          `{"apiVersion":"coolops.cn/v1alpha1","kind":"DatabaseManager","metadata":{"name":"a","annotations":${POLLUTE}},"spec":{"replicas":1}}`,
        );
        await dms.create(obj);
        const got = (await dms.get('a')) as unknown as Rec;
        assertOwnProto(got.metadata.annotations, 'annotations after get');
        await dms.patch('a', 'application/merge-patch+json', JSON.parse(`{"metadata":{"labels":${POLLUTE}}}`));
        await dms
          .patch('a', 'application/json-patch+json', [
            { op: 'add', path: '/metadata/annotations/__proto__', value: { polluted: 'yes' } },
          ])
          .catch(() => undefined);
        for (const path of ['/spec/__proto__/polluted', '/__proto__/polluted', '/metadata/labels/__proto__/polluted']) {
          await dms
            .patch('a', 'application/json-patch+json', [{ op: 'add', path, value: 'yes' }])
            .catch(() => undefined);
          assertClean();
        }
        const after = (await dms.get('a')) as unknown as Rec;
        assertOwnProto(after.metadata.annotations, 'annotations after patches');
        assertClean();
      } finally {
        cs.tracker().stopWatches();
      }
    });
  });

  describe('test API server', () => {
    let env: TestApiServer;
    const GIZMOS = '/apis/shop.example.com/v1/namespaces/default/gizmos';
    before(async () => {
      env = await startTestApiServer({ crds: [join(ROOT, 'fixtures/kitchensink/crds.yaml')] });
    });
    after(() => env?.stop());

    it('stores, patches and returns __proto__ keys of unknown fields as data', async () => {
      const body = `{"apiVersion":"shop.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"free":${POLLUTE},"spec":{"widgetRef":"w"}}`;
      const created = await api(env.url, 'POST', GIZMOS, body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assertClean();
      const merge = await api(env.url, 'PATCH', `${GIZMOS}/g`, `{"more":${POLLUTE}}`, {
        'Content-Type': 'application/merge-patch+json',
      });
      assert.equal(merge.status, 200, JSON.stringify(merge.body));
      // Through an inherited `__proto__` (no own key there) a JSON patch must not write into Object.prototype.
      for (const path of [
        '/spec/__proto__/polluted',
        '/free/__proto__/polluted',
        '/__proto__/polluted',
        '/metadata/__proto__/polluted',
      ]) {
        const json = await api(env.url, 'PATCH', `${GIZMOS}/g`, `[{"op":"add","path":"${path}","value":"yes"}]`, {
          'Content-Type': 'application/json-patch+json',
        });
        assert.ok(json.status < 500, JSON.stringify(json.body));
        assertClean();
      }
      const smp = await api(env.url, 'PATCH', '/api/v1/namespaces/default', `{"metadata":{"labels":${POLLUTE}}}`, {
        'Content-Type': 'application/strategic-merge-patch+json',
      });
      assert.ok(smp.status < 500, JSON.stringify(smp.body));
      const apply = await api(
        env.url,
        'PATCH',
        `${GIZMOS}/g?fieldManager=fuzz&force=true`,
        `{"apiVersion":"shop.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"__proto__":{"polluted":"yes"},"free":${POLLUTE}}`,
        { 'Content-Type': 'application/apply-patch+yaml' },
      );
      assert.ok(apply.status < 500, JSON.stringify(apply.body));
      assertClean();
      const raw = await fetch(`${env.url}${GIZMOS}/g`).then((r) => r.text());
      const got = JSON.parse(raw) as Rec;
      assertOwnProto(got.more, 'merge-patched unknown field');
      assert.ok(
        Object.prototype.hasOwnProperty.call(got.free, '__proto__'),
        'created unknown field keeps its __proto__ key',
      );
      assert.ok(Object.prototype.hasOwnProperty.call(got.free, 'constructor'));
      assertClean();
    });
  });
});
