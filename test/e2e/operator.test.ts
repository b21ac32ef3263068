// End to end: the generated DatabaseManager operator, as its own process, against
// `crdgen testenv --simulate-workloads` (the in-process server's simulated Deployments) and
// `crdgen testenv --real --simulate-workloads` (kube-apiserver, the real Deployment, ReplicaSet
// and garbage-collector controllers, kube-scheduler and kwok's pods): the same flow on both.
// One server and one operator per backend; every wait is bounded (by a condition, generously:
// the real backend schedules pods); everything is stopped in `after`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  ServiceResource,
  type Deployment,
  type Service,
  PatchType,
  isInvalid,
  isNotFound,
  ApiError,
  type KubeObject,
  type Condition,
  CoreEventResource,
  type CoreEvent,
} from '../../src/runtime/index.js';
import {
  DM_CRD,
  generateOperator,
  startOperator,
  startTestenvProcess,
  waitFor,
  type OperatorProcess,
  type TestenvProcess,
} from './support.js';
import { isReconcileEnd } from '../support/logs.js';

interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: { availableReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
}
const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const NS = 'default';

/** A generous bound for what a controller does: the real backend schedules and starts pods. */
const CONVERGE_MS = 90_000;

function operatorE2E(label: string, testenvArgs: string[]): void {
  describe(label, () => {
    let server: TestenvProcess;
    let op: OperatorProcess;
    let gen: ReturnType<typeof generateOperator>;
    let dms: ReturnType<typeof resourceClient<DM>>;
    let deployments: ReturnType<typeof resourceClient<Deployment>>;
    let services: ReturnType<typeof resourceClient<Service>>;
    let events: ReturnType<typeof resourceClient<CoreEvent>>;
    let metricsUrl = '';
    let healthUrl = '';

    function dm(name: string, spec: NonNullable<DM['spec']>): DM {
      return { apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManager', metadata: { name, namespace: NS }, spec };
    }

    async function getService(name: string): Promise<Service | undefined> {
      try {
        return await services.namespace(NS).get(name);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    }

    async function getDeployment(name: string): Promise<Deployment | undefined> {
      try {
        return await deployments.namespace(NS).get(name);
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    }

    before(async () => {
      gen = generateOperator();
      server = await startTestenvProcess(DM_CRD, testenvArgs);
      const config = await loadKubeconfig({ path: server.kubeconfigPath });
      dms = resourceClient<DM>(config, DM_RESOURCE);
      deployments = resourceClient<Deployment>(config, DeploymentResource);
      services = resourceClient<Service>(config, ServiceResource);
      events = resourceClient<CoreEvent>(config, CoreEventResource);
      op = startOperator(gen.main, [
        '--kubeconfig',
        server.kubeconfigPath,
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
        // the line that ends each reconcile is at debug
        '--log-level',
        'debug',
      ]);
      metricsUrl = String((await op.waitForLog((l) => l.msg === 'serving metrics', 60_000))['url']);
      healthUrl = String((await op.waitForLog((l) => l.msg === 'serving health probes', 60_000))['url']);
      await op.waitForLog((l) => l.msg === 'caches synced; starting workers', 60_000);
    });

    after(async () => {
      await op?.kill();
      await server?.stop();
      gen?.cleanup();
    });

    test('create: a Deployment named spec.deploymentName, right replicas and image, controller ownerReference; status follows the rollout; Ready', async () => {
      const created = await dms
        .namespace(NS)
        .create(dm('orders', { deploymentName: 'orders-db', replicas: 2, dbtype: 'postgres' }));
      const d = await waitFor(() => getDeployment('orders-db'), CONVERGE_MS, 'the Deployment');
      assert.equal(d.spec?.replicas, 2);
      assert.equal(d.spec?.template.spec?.containers[0]?.image, 'postgres:17');
      assert.deepEqual(d.metadata?.ownerReferences, [
        {
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          name: 'orders',
          uid: created.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      const done = await waitFor(
        async () => {
          const cur = await dms.namespace(NS).get('orders');
          return cur.status?.availableReplicas === 2 &&
            cur.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True'
            ? cur
            : undefined;
        },
        CONVERGE_MS,
        'availableReplicas 2 and Ready=True',
      );
      assert.equal(done.status?.observedGeneration, done.metadata?.generation);
      const ready = done.status!.conditions!.find((c) => c.type === 'Ready')!;
      assert.equal(ready.observedGeneration, done.metadata?.generation);
      assert.equal(ready.reason, 'DeploymentAvailable');
      const evs = await waitFor(
        async () =>
          (await events.namespace(NS).list()).items.filter(
            (e) => e.involvedObject.name === 'orders' && e.reason === 'Synced',
          ),
        CONVERGE_MS,
        'a Synced event',
      );
      assert.equal(evs[0].type, 'Normal');
    });

    test('a reconcile that changes nothing sends nothing: what the API server defaults or allocates is not drift', async () => {
      const reconciles = async (): Promise<number> =>
        [
          ...(await (await fetch(metricsUrl)).text()).matchAll(
            /^controller_runtime_reconcile_total\{controller="databasemanager-controller",result="[a-z_]+"\} (\d+)$/gm,
          ),
        ].reduce((n, m) => n + Number(m[1]), 0);
      const since = op.logs.length;
      const before = await reconciles();
      const cur = await dms.namespace(NS).get('orders');
      const annotations = { ...cur.metadata?.annotations, touched: 'yes' };
      await dms.namespace(NS).update({ ...cur, metadata: { ...cur.metadata, annotations } });
      await waitFor(async () => (await reconciles()) > before, CONVERGE_MS, 'a reconcile of the touched object');
      const writes = op.logs.slice(since).filter((l) => /^(created|updated) (Deployment|Service)$/.test(String(l.msg)));
      assert.deepEqual(
        writes.map((l) => l.msg),
        [],
      );
    });

    test('a Service exposes the database port: named after the Deployment, selecting its pods, controller ownerReference; kept in line, recreated when deleted', async () => {
      const owner = await dms.namespace(NS).get('orders');
      const svc = await waitFor(() => getService('orders-db'), CONVERGE_MS, 'the Service');
      assert.equal(svc.spec?.type, 'ClusterIP');
      assert.deepEqual(svc.spec?.selector, { app: 'orders-db', controller: 'orders' });
      assert.deepEqual(
        svc.spec?.ports?.map((p) => [p.name, p.port, p.targetPort, p.protocol]),
        [['postgres', 5432, 'postgres', 'TCP']],
      );
      assert.match(svc.spec?.clusterIP ?? '', /^\d+\.\d+\.\d+\.\d+$/, 'a cluster IP allocated');
      assert.deepEqual(svc.metadata?.ownerReferences, [
        {
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          name: 'orders',
          uid: owner.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      // the Deployment's pod labels are what the Service selects
      assert.deepEqual((await getDeployment('orders-db'))?.spec?.template.metadata?.labels, svc.spec?.selector);
      await services.namespace(NS).patch('orders-db', PatchType.Merge, {
        spec: {
          selector: { app: 'elsewhere', controller: null },
          ports: [{ name: 'postgres', port: 5433, targetPort: 'postgres', protocol: 'TCP' }],
        },
      });
      await waitFor(
        async () => {
          const cur = await getService('orders-db');
          return cur?.spec?.ports?.[0]?.port === 5432 &&
            cur.spec.selector?.['app'] === 'orders-db' &&
            cur.spec.selector['controller'] === 'orders'
            ? cur
            : undefined;
        },
        CONVERGE_MS,
        'the Service put back',
      );
      assert.equal(
        (await getService('orders-db'))?.spec?.clusterIP,
        svc.spec?.clusterIP,
        'updated in place: the cluster IP kept',
      );
      await services.namespace(NS).delete('orders-db');
      await waitFor(
        async () => {
          const again = await getService('orders-db');
          return again && again.metadata?.uid !== svc.metadata?.uid ? again : undefined;
        },
        CONVERGE_MS,
        'a recreated Service',
      );
    });

    test('spec.replicas changed → Deployment updated; replicas edited on the Deployment → put back', async () => {
      const cur = await dms.namespace(NS).get('orders');
      await dms.namespace(NS).update({ ...cur, spec: { ...cur.spec, replicas: 4 } });
      await waitFor(
        async () => (await getDeployment('orders-db'))?.spec?.replicas === 4,
        CONVERGE_MS,
        'Deployment replicas 4',
      );
      await waitFor(
        async () => (await dms.namespace(NS).get('orders')).status?.availableReplicas === 4,
        CONVERGE_MS,
        'availableReplicas 4',
      );
      const d = (await getDeployment('orders-db'))!;
      await deployments.namespace(NS).update({ ...d, spec: { ...d.spec, replicas: 7 } });
      await waitFor(
        async () => (await getDeployment('orders-db'))?.spec?.replicas === 4,
        CONVERGE_MS,
        'Deployment replicas put back to 4',
      );
    });

    test('Deployment deleted by hand → recreated; DatabaseManager deleted → Deployment garbage-collected, no error loop', async () => {
      const before = (await getDeployment('orders-db'))!;
      await deployments.namespace(NS).delete('orders-db');
      const again = await waitFor(
        async () => {
          const d = await getDeployment('orders-db');
          return d && d.metadata?.uid !== before.metadata?.uid ? d : undefined;
        },
        CONVERGE_MS,
        'a recreated Deployment',
      );
      assert.equal(again.spec?.replicas, 4);
      await dms.namespace(NS).delete('orders');
      await waitFor(
        async () => (await getDeployment('orders-db')) === undefined,
        CONVERGE_MS,
        'the Deployment to be garbage-collected',
      );
      await waitFor(
        async () => (await getService('orders-db')) === undefined,
        CONVERGE_MS,
        'the Service to be garbage-collected',
      );
      const errorsBefore = op.logs.filter(
        (l) => l.msg?.startsWith('reconcile failed') && l['key'] === `${NS}/orders`,
      ).length;
      await new Promise((r) => setTimeout(r, 1500));
      const errorsAfter = op.logs.filter(
        (l) => l.msg?.startsWith('reconcile failed') && l['key'] === `${NS}/orders`,
      ).length;
      assert.equal(errorsAfter, errorsBefore, 'no reconcile errors after the delete');
      assert.equal(await getDeployment('orders-db'), undefined, 'not recreated');
      assert.equal(await getService('orders-db'), undefined, 'the Service not recreated');
    });

    test('an unowned Deployment with the same name → Warning ErrResourceExists, no takeover, retried with backoff', async () => {
      const labels = { app: 'squatter' };
      await deployments.namespace(NS).create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'taken-db', namespace: NS },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'x', image: 'busybox' }] } },
        },
      });
      await dms.namespace(NS).create(dm('taken', { deploymentName: 'taken-db', replicas: 3, dbtype: 'redis' }));
      const ev = await waitFor(
        async () =>
          (await events.namespace(NS).list()).items.find(
            (e) => e.involvedObject.name === 'taken' && e.reason === 'ErrResourceExists',
          ),
        CONVERGE_MS,
        'ErrResourceExists event',
      );
      assert.equal(ev.type, 'Warning');
      const failures = (): number =>
        op.logs.filter((l) => l.msg?.startsWith('reconcile failed') && l['key'] === `${NS}/taken`).length;
      const t0 = failures();
      await new Promise((r) => setTimeout(r, 3000));
      const retries = failures() - t0;
      assert.ok(retries >= 1, 'retried');
      assert.ok(retries <= 12, `backoff, not a hot loop: ${retries} retries in 3 s`);
      const d = (await getDeployment('taken-db'))!;
      assert.equal(d.metadata?.ownerReferences, undefined, 'not taken over');
      assert.equal(d.spec?.replicas, 1);
      assert.equal(d.spec?.template.spec?.containers[0]?.image, 'busybox');
      await dms.namespace(NS).delete('taken');
      await deployments.namespace(NS).delete('taken-db');
    });

    test('replicas: 11 is refused by the server (422) and never reaches the controller', async () => {
      await assert.rejects(
        dms.namespace(NS).create(dm('toobig', { deploymentName: 'toobig-db', replicas: 11, dbtype: 'mysql' })),
        (e: unknown) => e instanceof ApiError && e.code === 422 && isInvalid(e),
      );
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await getDeployment('toobig-db'), undefined);
      assert.equal(
        op.logs.some((l) => JSON.stringify(l).includes('toobig')),
        false,
      );
    });

    test('an unknown dbtype: Ready=False with a reason and a Warning event, no Deployment', async () => {
      await dms.namespace(NS).create(dm('weird', { deploymentName: 'weird-db', replicas: 1, dbtype: 'oracle' }));
      const cur = await waitFor(
        async () => {
          const o = await dms.namespace(NS).get('weird');
          return o.status?.conditions?.find((c) => c.type === 'Ready' && c.reason === 'UnknownDBType') ? o : undefined;
        },
        CONVERGE_MS,
        'Ready=False UnknownDBType',
      );
      assert.equal(cur.status!.conditions!.find((c) => c.type === 'Ready')!.status, 'False');
      await waitFor(
        async () =>
          (await events.namespace(NS).list()).items.find(
            (e) => e.involvedObject.name === 'weird' && e.reason === 'UnknownDBType' && e.type === 'Warning',
          ),
        CONVERGE_MS,
        'UnknownDBType event',
      );
      assert.equal(await getDeployment('weird-db'), undefined);
      assert.equal(await getService('weird-db'), undefined);
      await dms.namespace(NS).delete('weird');
    });

    test('one parseable log line ends each reconcile: key, result, start time, duration; at debug when it finished, at error when it failed; never two of a key at once', () => {
      const lines = op.logs.filter(isReconcileEnd);
      assert.ok(lines.length >= 5, `${lines.length} reconciles logged`);
      for (const l of lines) {
        assert.match(String(l['key']), /^default\/[a-z0-9-]+$/);
        assert.ok(['success', 'error', 'requeue'].includes(String(l['result'])), String(l['result']));
        assert.ok(typeof l['durationMs'] === 'number' && l['durationMs'] >= 0);
        assert.ok(Number.isFinite(Date.parse(String(l['startedAt']))));
        assert.equal(l.level, l['result'] === 'error' ? 'error' : 'debug', JSON.stringify(l));
        if (l['result'] === 'success') assert.equal(l.msg, 'reconciled');
      }
      assert.ok(!op.logs.some((l) => l.level === 'info' && l.msg === 'reconciled'), 'no reconcile is logged at info');
      assert.ok(lines.some((l) => l['key'] === `${NS}/orders` && l['result'] === 'success'));
      assert.ok(lines.some((l) => l['key'] === `${NS}/taken` && l['result'] === 'error'));
      // the intervals [startedAt, time] of one key do not overlap (what a soak harness checks across processes)
      const byKey = new Map<string, Array<[number, number]>>();
      for (const l of lines) {
        const list = byKey.get(String(l['key'])) ?? [];
        list.push([Date.parse(String(l['startedAt'])), Date.parse(String(l['time']))]);
        byKey.set(String(l['key']), list);
      }
      for (const [key, spans] of byKey) {
        spans.sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++) assert.ok(spans[i][0] >= spans[i - 1][1], `${key}: reconciles overlap`);
      }
    });

    test('metrics and health endpoints answer', async () => {
      const m = await fetch(`${metricsUrl}`);
      assert.equal(m.status, 200);
      const text = await m.text();
      assert.match(
        text,
        /controller_runtime_reconcile_total\{controller="databasemanager-controller",result="success"\} [1-9]/,
      );
      assert.match(text, /controller_runtime_reconcile_errors_total\{controller="databasemanager-controller"\} [1-9]/);
      assert.match(text, /controller_runtime_reconcile_time_seconds_bucket/);
      assert.match(text, /workqueue_adds_total\{name="databasemanager-controller"\} [1-9]/);
      assert.match(text, /workqueue_retries_total\{name="databasemanager-controller"\} [1-9]/);
      assert.match(text, /workqueue_depth\{name="databasemanager-controller"\}/);
      // no key was ever reconciled twice at once by this process, over every scenario above
      assert.match(text, /^databasemanager_controller_reconcile_overlaps_total 0$/m);
      assert.equal(
        op.logs.some((l) => l.msg === 'overlapping reconcile of one key'),
        false,
      );
      assert.equal((await fetch(`${healthUrl}/healthz`)).status, 200);
      assert.equal((await fetch(`${healthUrl}/readyz`)).status, 200);
      assert.equal((await fetch(`${healthUrl}/nope`)).status, 404);
    });

    test('SIGTERM: stops intake, drains, exits 0', async () => {
      op.proc.kill('SIGTERM');
      const code = await Promise.race([op.exited, new Promise((r) => setTimeout(() => r('timeout'), 10_000))]);
      assert.equal(code, 0, op.other.join(''));
      assert.ok(op.logs.some((l) => l.msg === 'controller stopped'));
    });

    test('command line: --help exits 0 with the flags; a bad flag exits 2 with usage; a missing kubeconfig exits 1 with one log line, no stack trace', async () => {
      const [help, bad, noConfig] = [
        startOperator(gen.main, ['--help']),
        startOperator(gen.main, ['--workers', '0']),
        startOperator(gen.main, [
          '--kubeconfig',
          '/nonexistent/kubeconfig',
          '--metrics-bind-address',
          '0',
          '--health-probe-bind-address',
          '0',
        ]),
      ];
      try {
        assert.equal(await help.exited, 0);
        assert.match(help.other.join('\n'), /--leader-elect-lease-duration <d> +default 15s/);
        assert.equal(await bad.exited, 2);
        assert.match(bad.other.join(''), /--workers: "0" is not a positive integer[\s\S]*Usage:/);
        assert.equal(await noConfig.exited, 1);
        const failed = noConfig.logs.find((l) => l.msg === 'operator failed');
        assert.ok(failed, JSON.stringify(noConfig.logs));
        assert.match(String(failed['err']), /nonexistent/);
        assert.doesNotMatch(noConfig.other.join(''), /\n\s+at /, 'no stack trace');
      } finally {
        await Promise.all([help.kill(), bad.kill(), noConfig.kill()]);
      }
    });
  });
}

operatorE2E('the generated operator on crdgen testenv', ['--simulate-workloads', '100ms']);
operatorE2E('the generated operator on crdgen testenv --real', ['--real', '--simulate-workloads']);
