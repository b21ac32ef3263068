// The field manager: the application's name by default (as client-go uses the binary's, through
// the User-Agent), settable, and sent on every write of a backend wrapped by withFieldManager.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applicationName,
  fieldManagerFromUserAgent,
  defaultFieldManager,
  withFieldManager,
  defaultUserAgent,
  FakeClientBackend,
  type ResourceDescriptor,
} from '../../../../src/runtime/index.js';

test('applicationName: the script name without extension; a generic one (index, main) gives the package name; no script: node', (t) => {
  assert.equal(applicationName(['/usr/bin/node', '/srv/app/dist/dbm-operator.js']), 'dbm-operator');
  assert.equal(applicationName(['node', 'tools/sync.mts']), 'sync');
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-appname-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@acme/orders-operator' }));
  mkdirSync(join(dir, 'dist'));
  assert.equal(applicationName(['node', join(dir, 'dist', 'index.js')]), 'orders-operator');
  assert.equal(applicationName(['node', join(dir, 'dist', 'main.ts')]), 'orders-operator');
  assert.equal(applicationName(['/usr/local/bin/node']), 'node');
  assert.equal(applicationName(['node', '/x/my op?.js']), 'my-op-');
});

test('the default User-Agent starts with the application name, so the API server names the field manager after it', () => {
  const ua = defaultUserAgent();
  assert.equal(ua.split('/')[0], applicationName());
  assert.match(ua, /^[^/]+\/[0-9][^ ]* \([a-z0-9]+\/[a-z0-9]+\) node\/v\d+/);
  assert.equal(fieldManagerFromUserAgent('dbm-operator/1.2 (linux/amd64)'), 'dbm-operator');
  assert.equal(defaultFieldManager({ userAgent: 'databasemanager-controller' }), 'databasemanager-controller');
  assert.equal(defaultFieldManager({}), applicationName());
});

const DM: ResourceDescriptor = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};

test('withFieldManager: every write without one carries it; one given is kept; reads are untouched', async () => {
  const fake = new FakeClientBackend([DM], []);
  const seen: Array<[string, unknown]> = [];
  const inner = fake.resource(DM, 'default');
  const spy = new Proxy(inner, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const opts = args.find(
          (a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a) && !('metadata' in a),
        );
        seen.push([String(prop), (opts as { fieldManager?: string } | undefined)?.fieldManager]);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const backend = withFieldManager(
    { resource: () => spy as never, scale: (d, ns) => fake.scale(d, ns) },
    'orders-operator',
  );
  const c = backend.resource(DM, 'default');
  const created = await c.create({
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: { name: 'a' },
  });
  await c.update({ ...created, metadata: { ...created.metadata } }, { fieldManager: 'mine' });
  await c.patch('a', 'application/merge-patch+json', { metadata: { labels: { x: 'y' } } });
  await c.get('a');
  assert.deepEqual(seen, [
    ['create', 'orders-operator'],
    ['update', 'mine'],
    ['patch', 'orders-operator'],
    ['get', undefined],
  ]);
});
