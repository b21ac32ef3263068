// EventBroadcaster against the test API server: a core/v1 Event per new event, repeats
// folded into one Event whose count grows, apiVersion/kind filled from the recorder's GVK,
// API failures logged and never thrown, nothing accepted after shutdown.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../../../src/testing/index.js';
import {
  loadKubeconfig,
  restBackend,
  type ClientBackend,
  EventBroadcaster,
  type Logger,
  CoreEventResource,
  type CoreEvent,
} from '../../../../src/runtime/index.js';

let server: TestApiServer;
let backend: ClientBackend;
before(async () => {
  server = await startTestApiServer();
  backend = restBackend(await loadKubeconfig({ path: server.kubeconfigPath }));
});
after(async () => {
  await server?.stop();
});

const obj = { metadata: { name: 'orders', namespace: 'default', uid: 'u-1', resourceVersion: '7' } };
const gvk = { group: 'coolops.cn', version: 'v1alpha1', kind: 'DatabaseManager' };

test('events are created, repeats aggregated by count, other reasons get their own Event', async () => {
  const b = new EventBroadcaster(backend, { component: 'dm-controller', host: 'node-1' });
  const r = b.newRecorder(gvk);
  r.event(obj, 'Warning', 'ErrResourceExists', 'taken');
  r.event(obj, 'Warning', 'ErrResourceExists', 'taken');
  r.event(obj, 'Warning', 'ErrResourceExists', 'taken');
  r.event(obj, 'Normal', 'Synced', 'ok');
  await b.flush();
  const items = (await backend.resource<CoreEvent>(CoreEventResource, 'default').list()).items.filter(
    (e) => e.involvedObject.uid === 'u-1',
  );
  assert.equal(items.length, 2);
  const warn = items.find((e) => e.reason === 'ErrResourceExists')!;
  assert.equal(warn.count, 3);
  assert.equal(warn.type, 'Warning');
  assert.deepEqual(warn.involvedObject, {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    name: 'orders',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '7',
  });
  assert.deepEqual(warn.source, { component: 'dm-controller', host: 'node-1' });
  assert.equal(items.find((e) => e.reason === 'Synced')!.count, 1);
  await b.shutdown();
  r.event(obj, 'Normal', 'Synced', 'ok');
  assert.equal(b.dropped, 1);
});

test('API errors are logged, not thrown', async () => {
  const warned: unknown[] = [];
  const log: Logger = {
    debug: () => {},
    info: () => {},
    error: () => {},
    warn: (f: unknown) => void warned.push(f),
    child: () => log,
  };
  const b = new EventBroadcaster(backend, { component: 'c', logger: log });
  b.newRecorder(gvk).event(
    { metadata: { name: 'x', namespace: 'no-such-namespace', uid: 'u-2' } },
    'Normal',
    'Synced',
    'ok',
  );
  await b.flush();
  assert.equal(warned.length, 1);
});
