// End to end: two replicas of the generated operator with --leader-elect on one Lease, against
// `crdgen testenv --simulate-workloads` and against `crdgen testenv --real` (real Leases on
// kube-apiserver), each running as its own process (short timings: lease 3 s, renew deadline
// 2 s, retry 0.5 s). Only the leader reconciles; SIGKILLing it hands over to the other within
// the lease duration (+ the retry period's jitter).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  loadKubeconfig,
  resourceClient,
  DeploymentResource,
  LeaseResource,
  type Deployment,
  type Lease,
  type KubeObject,
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

const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
const LEASE_MS = 3000;
const RETRY_MS = 500;

function leaderElection(label: string, testenvArgs: string[]): void {
  describe(label, () => {
    let server: TestenvProcess;
    let gen: ReturnType<typeof generateOperator>;
    const ops: OperatorProcess[] = [];

    before(async () => {
      gen = generateOperator();
      server = await startTestenvProcess(DM_CRD, testenvArgs);
    });

    after(async () => {
      await Promise.all(ops.map((o) => o.kill()));
      await server?.stop();
      gen?.cleanup();
    });

    test('two replicas: only the leader reconciles; SIGKILL hands over within the lease duration', async () => {
      const args = [
        '--kubeconfig',
        server.kubeconfigPath,
        '--leader-elect',
        '--leader-election-namespace',
        'default',
        '--leader-elect-lease-duration',
        '3s',
        '--leader-elect-renew-deadline',
        '2s',
        '--leader-elect-retry-period',
        '500ms',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        // the line that ends each reconcile is at debug
        '--log-level',
        'debug',
      ];
      ops.push(startOperator(gen.main, args));
      const first = ops[0];
      await first.waitForLog((l) => l.msg === 'caches synced; starting workers', 30_000);
      ops.push(startOperator(gen.main, args));
      const second = ops[1];
      await second.waitForLog((l) => l.msg === 'attempting to acquire leader lease', 30_000);
      const config = await loadKubeconfig({ path: server.kubeconfigPath });
      const dms = resourceClient<KubeObject & { spec: Record<string, unknown> }>(config, DM_RESOURCE).namespace(
        'default',
      );
      const deployments = resourceClient<Deployment>(config, DeploymentResource).namespace('default');
      const leases = resourceClient<Lease>(config, LeaseResource).namespace('default');

      await dms.create({
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name: 'a' },
        spec: { deploymentName: 'a-db', replicas: 1, dbtype: 'redis' },
      });
      await waitFor(async () => (await deployments.get('a-db')).metadata?.name, 30_000, 'Deployment a-db');
      // the Deployment is in the API before the leader's log line about it has come through its pipe
      await first.waitForLog((l) => l.msg === 'created Deployment' && l['deployment'] === 'a-db', 15_000);
      await new Promise((r) => setTimeout(r, 1000)); // a few renewals: the standby must stay standby
      assert.equal(
        second.logs.some(
          (l) => l.msg === 'acquired lease' || l.msg === 'starting controller' || l.msg === 'created Deployment',
        ),
        false,
        'the standby did nothing',
      );
      const lease1 = await leases.get('databasemanager-controller-leader');
      const firstId = lease1.spec?.holderIdentity;
      assert.ok(firstId);

      const killedAt = Date.now();
      await first.kill();
      const acquired = await second.waitForLog((l) => l.msg === 'acquired lease', LEASE_MS + 10_000);
      const handover = Date.parse(String(acquired['time'])) - killedAt;
      assert.ok(handover <= LEASE_MS + 2.2 * RETRY_MS + 1000, `handed over after ${handover} ms`);
      assert.ok(handover >= LEASE_MS - RETRY_MS * 2.2, `not before the lease could expire (${handover} ms)`);
      const lease2 = await leases.get('databasemanager-controller-leader');
      assert.notEqual(lease2.spec?.holderIdentity, firstId);
      assert.equal(lease2.spec?.leaseTransitions, (lease1.spec?.leaseTransitions ?? 0) + 1);

      await dms.create({
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name: 'b' },
        spec: { deploymentName: 'b-db', replicas: 1, dbtype: 'mysql' },
      });
      await waitFor(
        async () => (await deployments.get('b-db')).metadata?.name,
        15_000,
        'Deployment b-db from the new leader',
      );
      await second.waitForLog((l) => l.msg === 'created Deployment' && l['deployment'] === 'b-db', 15_000);

      // across both processes, the reconciles of one key never overlap in time
      await second.waitForLog((l) => isReconcileEnd(l) && l['key'] === 'default/b', 15_000);
      const spans = [...first.logs, ...second.logs]
        .filter(isReconcileEnd)
        .map((l) => ({
          key: String(l['key']),
          from: Date.parse(String(l['startedAt'])),
          to: Date.parse(String(l['time'])),
        }))
        .sort((x, y) => x.from - y.from);
      assert.ok(
        spans.some((s) => s.key === 'default/a'),
        'a reconcile of a (from either replica)',
      );
      for (const s of spans) {
        const clash = spans.find((o) => o !== s && o.key === s.key && o.from < s.to && s.from < o.to);
        assert.equal(clash, undefined, `${s.key} reconciled twice at once`);
      }

      second.proc.kill('SIGTERM');
      assert.equal(await second.exited, 0);
      const released = await leases.get('databasemanager-controller-leader');
      assert.equal(released.spec?.holderIdentity, '', 'released on a clean stop');
    });

    test('a warm standby fills its caches while the other leads, and reconciles as soon as it wins; --warm-standby=false lists nothing before', async () => {
      await Promise.all(ops.splice(0).map((o) => o.kill()));
      // a longer lease than the other tests': the leader must keep it while the standby's informers
      // sync beside it (a standby that watches the Lease sees every renewal at once, so a leader
      // whose renewals a busy machine delays by more than the lease loses it to the standby)
      const WARM_LEASE_MS = 6000;
      const args = (id: string, more: string[] = []): string[] => [
        '--kubeconfig',
        server.kubeconfigPath,
        '--leader-elect',
        '--leader-election-namespace',
        'default',
        '--leader-election-id',
        id,
        '--leader-elect-lease-duration',
        `${WARM_LEASE_MS / 1000}s`,
        '--leader-elect-renew-deadline',
        '4s',
        '--leader-elect-retry-period',
        '1s',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        '--log-level',
        'debug',
        ...more,
      ];
      const config = await loadKubeconfig({ path: server.kubeconfigPath });
      await resourceClient<KubeObject & { spec: Record<string, unknown> }>(config, DM_RESOURCE)
        .namespace('default')
        .create({
          apiVersion: 'coolops.cn/v1alpha1',
          kind: 'DatabaseManager',
          metadata: { name: 'w' },
          spec: { deploymentName: 'w-db', replicas: 1, dbtype: 'redis' },
        });
      for (const warm of [true, false]) {
        const id = warm ? 'warm-leader' : 'cold-leader';
        const leader = startOperator(gen.main, args(id));
        ops.push(leader);
        await leader.waitForLog((l) => l.msg === 'caches synced; starting workers', 30_000);
        const standby = startOperator(gen.main, args(id, warm ? [] : ['--warm-standby=false']));
        ops.push(standby);
        await standby.waitForLog((l) => l.msg === 'attempting to acquire leader lease', 30_000);
        if (warm) {
          const synced = await standby.waitForLog((l) => l.msg === 'warm standby: caches synced', 30_000);
          assert.ok(
            (synced['informers'] as string[]).some((k) => k.startsWith('databasemanagers')),
            'its DatabaseManager informer synced',
          );
        } else {
          await new Promise((r) => setTimeout(r, 2000));
          assert.equal(
            standby.logs.some((l) => String(l.msg).startsWith('warm standby')),
            false,
            'a cold standby starts nothing',
          );
        }
        assert.equal(
          standby.logs.some((l) => l.msg === 'acquired lease' || l.msg === 'reconciled'),
          false,
          `the standby does not lead yet; the leader's logs:\n${leader.logs.map((l) => JSON.stringify(l)).join('\n')}`,
        );
        await leader.kill();
        const acquired = await standby.waitForLog((l) => l.msg === 'acquired lease', WARM_LEASE_MS + 10_000);
        // it reconciles the existing DatabaseManagers (its queue filled while it waited)
        const first = await standby.waitForLog((l) => l.msg === 'reconciled', 15_000);
        assert.ok(Date.parse(String(first['time'])) >= Date.parse(String(acquired['time'])), 'only once leading');
        await standby.kill();
      }
    });

    test('a leader that loses its lease exits 1 at once: it does not work through its queue beside the new leader', async () => {
      // replicas the first test left running (when it failed) would hold the lease
      await Promise.all(ops.splice(0).map((o) => o.kill()));
      const args = [
        '--kubeconfig',
        server.kubeconfigPath,
        '--leader-elect',
        '--leader-election-namespace',
        'default',
        '--leader-elect-lease-duration',
        '3s',
        '--leader-elect-renew-deadline',
        '2s',
        '--leader-elect-retry-period',
        '500ms',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        // the line that ends each reconcile is at debug
        '--log-level',
        'debug',
      ];
      const leader = startOperator(gen.main, args);
      ops.push(leader);
      await leader.waitForLog((l) => l.msg === 'caches synced; starting workers', 30_000);
      const standby = startOperator(gen.main, args);
      ops.push(standby);
      await standby.waitForLog((l) => l.msg === 'attempting to acquire leader lease', 30_000);
      const config = await loadKubeconfig({ path: server.kubeconfigPath });
      const dms = resourceClient<KubeObject & { spec: Record<string, unknown> }>(config, DM_RESOURCE).namespace(
        'default',
      );

      // fill the leader's queue, then freeze it (as a long GC pause or a stalled node would) past the lease
      const N = 150;
      for (let i = 0; i < N; i += 25) {
        await Promise.all(
          Array.from({ length: 25 }, (_, j) =>
            dms.create({
              apiVersion: 'coolops.cn/v1alpha1',
              kind: 'DatabaseManager',
              metadata: { name: `q-${i + j}` },
              spec: { deploymentName: `q-${i + j}-db`, replicas: 1, dbtype: 'redis' },
            }),
          ),
        );
      }
      const queued = (): number =>
        new Set(
          leader.logs
            .filter((l) => isReconcileEnd(l) && String(l['key']).startsWith('default/q-'))
            .map((l) => l['key']),
        ).size;
      await waitFor(() => queued() >= 5, 30_000, 'the leader reconciling the new objects');
      assert.ok(queued() < N, `the leader still had objects to reconcile when frozen (${queued()} of ${N} seen)`);
      leader.proc.kill('SIGSTOP');
      try {
        await standby.waitForLog((l) => l.msg === 'acquired lease', LEASE_MS + 15_000);
      } finally {
        leader.proc.kill('SIGCONT');
      }
      const resumed = Date.now();
      const code = await Promise.race([
        leader.exited,
        new Promise<string>((r) => setTimeout(() => r('still running'), 10_000).unref()),
      ]);
      assert.equal(code, 1, 'exit code 1 right after the lease is found lost');
      assert.ok(leader.logs.some((l) => l.msg === 'leader election lost: exiting'));
      // at most what the workers had already started: no draining of the queue after the loss
      const after = leader.logs.filter((l) => isReconcileEnd(l) && Date.parse(String(l['startedAt'])) >= resumed);
      assert.ok(
        after.length <= 2,
        `${after.length} reconciles started after the lease was lost: ${after.map((l) => String(l['key'])).join(', ')}`,
      );
      // the new leader finishes the work
      await standby.waitForLog((l) => isReconcileEnd(l) && l['key'] === `default/q-${N - 1}`, 60_000);
    });
  });
}

leaderElection('leader election on crdgen testenv', ['--simulate-workloads', '50ms']);
// Leases are all it needs of the real control plane: etcd and kube-apiserver
leaderElection('leader election on crdgen testenv --real (real Leases)', ['--real']);
