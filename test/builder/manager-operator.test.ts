// runOperator({ setupWithManager }) end to end, as its own process against crdgen/testing's
// server: the manager's controllers run after winning the Lease, /metrics has
// controller-runtime's reconcile and workqueue metrics under the controller's name, /readyz
// answers once the caches synced, and SIGTERM drains and exits 0.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestApiServer, type TestApiServer } from '../../src/testing/index.js';
import {
  restBackend,
  ConfigMapResource,
  LeaseResource,
  type ConfigMap,
  type Lease,
  CoreEventResource,
  type CoreEvent,
} from '../../src/runtime/index.js';
import { startOperator, type OperatorProcess } from '../e2e/support.js';
import { WIDGET_CRD, WidgetResource, waitFor, widget, type Widget } from './support.js';

let server: TestApiServer;
let op: OperatorProcess;

before(async () => {
  server = await startTestApiServer({ crds: [WIDGET_CRD] });
});

after(async () => {
  await op?.kill();
  await server?.stop();
});

test('runOperator runs a manager: leader election, reconciles, metrics, probes, graceful stop', async () => {
  const main = fileURLToPath(new URL('./manager-operator-main.ts', import.meta.url));
  op = startOperator(main, [
    '--kubeconfig',
    server.kubeconfigPath,
    '--leader-elect',
    '--leader-election-namespace',
    'default',
    '--workers',
    '3',
    '--metrics-bind-address',
    '127.0.0.1:0',
    '--health-probe-bind-address',
    '127.0.0.1:0',
  ]);
  const metricsUrl = String((await op.waitForLog((l) => l.msg === 'serving metrics', 60_000))['url']);
  const healthUrl = String((await op.waitForLog((l) => l.msg === 'serving health probes'))['url']);
  await op.waitForLog(
    (l) => l.msg === 'caches synced; starting workers' && l['controller'] === 'widget' && l['workers'] === 3,
    60_000,
  );
  const api = restBackend(server.clientConfig);
  const lease = await api.resource<Lease>(LeaseResource, 'default').get('widget-operator-leader');
  assert.match(lease.spec?.holderIdentity ?? '', /_/);
  await api.resource<Widget>(WidgetResource, 'default').create(widget('default', 'w', { size: 4 }));
  const cm = await waitFor(
    () => api.resource<ConfigMap>(ConfigMapResource, 'default').get('w-config'),
    'the ConfigMap of w',
  );
  assert.equal(cm.data?.['size'], '4');
  assert.equal(cm.metadata?.managedFields?.[0]?.manager, 'widget-operator', 'the manager name is the field manager');
  await waitFor(
    async () =>
      (await api.resource<CoreEvent>(CoreEventResource, 'default').list()).items.some(
        (e) => e.reason === 'Synced' && e.involvedObject.name === 'w' && e.source?.component === 'widget-operator',
      ),
    'a Synced event',
  );
  const metrics = await waitFor(async () => {
    const text = await (await fetch(metricsUrl)).text();
    return /controller_runtime_reconcile_total\{controller="widget",result="success"\} [1-9]/.test(text) && text;
  }, 'a successful reconcile in /metrics');
  assert.match(metrics, /workqueue_adds_total\{name="widget"\} [1-9]/);
  assert.match(metrics, /controller_runtime_active_workers\{controller="widget"\} 3/);
  assert.match(metrics, /widget_reconcile_overlaps_total 0/);
  assert.equal((await fetch(healthUrl + '/readyz')).status, 200);
  op.proc.kill('SIGTERM');
  assert.equal(await op.exited, 0);
  assert.ok(op.logs.some((l) => l.msg === 'manager stopped'));
});
