import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listers } from '../../../src/generate/listers.js';
import {
  ApiError,
  isNotFound,
  newIndexer,
  parseSelector,
  ResourceLister,
  type KubeObject,
} from '../../../src/runtime/index.js';
import { ctxWith, file, fixtureModel, interfaceMethods } from './client-helpers.js';

test('namespaced kind: lister with list + namespace accessor, namespace lister with list + get', () => {
  const files = listers(fixtureModel('fixtures/databasemanager/crd.yaml'), ctxWith());
  assert.deepEqual(
    files.map((f) => f.path),
    ['listers/coolops.cn/v1alpha1/databasemanager.ts'],
  );
  const text = files[0].contents;
  assert.deepEqual(interfaceMethods(text, 'DatabaseManagerLister'), ['list', 'databaseManagers']);
  assert.deepEqual(interfaceMethods(text, 'DatabaseManagerNamespaceLister'), ['list', 'get']);
  // cached objects as the server returned them: name, namespace, uid, resourceVersion present
  assert.match(
    text,
    /export function newDatabaseManagerLister\(\n {2}indexer: IndexerReader<Stored<DatabaseManager, "Namespaced">>,\n\): DatabaseManagerLister/,
  );
  assert.match(text, /get\(name: string\): Stored<DatabaseManager, "Namespaced">;/);
  assert.match(text, /list\(selector\?: Selector \| string\): Stored<DatabaseManager, "Namespaced">\[\];/);
  assert.match(text, /resource: "databasemanager"/);
  assert.match(text, /READ-ONLY/);
});

test('cluster-scoped kind: get and list directly, one lister per version', () => {
  const files = listers(fixtureModel('fixtures/gatewayclass/gateway.networking.k8s.io_gatewayclasses.yaml'), ctxWith());
  assert.deepEqual(
    files.map((f) => f.path),
    [
      'listers/gateway.networking.k8s.io/v1/gatewayclass.ts',
      'listers/gateway.networking.k8s.io/v1beta1/gatewayclass.ts',
    ],
  );
  const v1 = file(files, 'listers/gateway.networking.k8s.io/v1/gatewayclass.ts');
  assert.deepEqual(interfaceMethods(v1, 'GatewayClassLister'), ['list', 'get']);
  assert.ok(!v1.includes('NamespaceLister'));
  assert.match(v1, /get\(name: string\): Stored<GatewayClass, "Cluster">;/);
});

test('kinds whose client cannot list and watch get no lister', () => {
  const model = fixtureModel('fixtures/databasemanager/crd.yaml');
  assert.deepEqual(listers(model, ctxWith({ kinds: { DatabaseManager: { skipVerbs: ['watch'] } } })), []);
  assert.equal(listers(model, ctxWith({ kinds: { DatabaseManager: { readonly: true } } })).length, 1);
});

function obj(ns: string, name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { namespace: ns, name, labels } };
}

test('ResourceLister reads the indexer: selectors, namespaces, NotFound as the apiserver words it', () => {
  const idx = newIndexer<KubeObject>();
  idx.add(obj('a', 'one', { app: 'db' }));
  idx.add(obj('a', 'two', { app: 'web' }));
  idx.add(obj('b', 'one', { app: 'db' }));
  const l = new ResourceLister<KubeObject>(idx.reader(), { group: 'coolops.cn', resource: 'databasemanager' }, false);
  const names = (xs: KubeObject[]) => xs.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();
  assert.deepEqual(names(l.list()), ['a/one', 'a/two', 'b/one']);
  assert.deepEqual(names(l.list('app=db')), ['a/one', 'b/one']);
  assert.deepEqual(names(l.list(parseSelector('app!=db'))), ['a/two']);
  assert.deepEqual(names(l.namespace('a').list('app in (db,web)')), ['a/one', 'a/two']);
  assert.deepEqual(names(l.namespace('').list()), ['a/one', 'a/two', 'b/one']);
  assert.equal(l.namespace('b').get('one').metadata?.namespace, 'b');
  assert.throws(
    () => l.namespace('b').get('two'),
    (e: unknown) =>
      e instanceof ApiError &&
      isNotFound(e) &&
      e.message.startsWith('databasemanager.coolops.cn "two" not found') &&
      e.code === 404,
  );
  assert.throws(() => l.list('bad key=1'), /unable to parse label selector/);
  // the lister hands out the cache's own objects (read-only by contract) ...
  assert.equal(l.namespace('a').get('one'), idx.getByKey('a/one'));
});

test('in development mode listed objects are deep-frozen, so mutating the cache throws', () => {
  const idx = newIndexer<KubeObject>();
  idx.add(obj('a', 'one', { app: 'db' }));
  const l = new ResourceLister<KubeObject>(idx.reader(), { group: 'coolops.cn', resource: 'databasemanager' }, true);
  const got = l.namespace('a').get('one');
  assert.ok(Object.isFrozen(got) && Object.isFrozen(got.metadata) && Object.isFrozen(got.metadata?.labels));
  assert.throws(() => {
    (got.metadata!.labels as Record<string, string>)['app'] = 'x';
  }, TypeError);
  assert.ok(Object.isFrozen(l.list()[0]));
});
