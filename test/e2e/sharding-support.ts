// What the sharding end-to-end tests share: replicas of the generated DatabaseManager operator
// started with --sharded as processes, a reader of their /metrics, and the checker over every
// replica's log: the reconciles of one object never overlap in time across replicas.
import { HashRing, objectHashKey, type KubeObject } from '../../src/runtime/index.js';
import { startControlPlane } from '../../src/testing/index.js';
import { controlPlaneAssets } from '../support/assets.js';
import {
  DM_CRD,
  startOperator,
  startTestenvProcess,
  type LogLine,
  type OperatorProcess,
  type TestenvProcess,
} from './support.js';

/** The ring of the generated operator (its controller's name). */
export const RING = 'databasemanager-controller';
export const SHARD_LABEL = `shard.crdgen.io/${RING}`;
export const DRAIN_LABEL = `drain.shard.crdgen.io/${RING}`;
/** The field manager of the sharder's label patches. */
export const SHARDER_MANAGER = `${RING}-sharder`;

/** Lease timings of the tests: short, with room for a loaded machine. */
export const LEASE = { durationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 1000 };

/** Services the real control plane's default range (10.0.0.0/24) can hold: one per DatabaseManager. */
const DEFAULT_SERVICE_RANGE_HOLDS = 250;

/**
 * The real control plane for `objects` DatabaseManagers: `crdgen testenv --real` while their
 * Services fit its /24 Service range, else crdgen/testing's startControlPlane with a /16 (past
 * 253 Services kube-apiserver refuses the next one with "range is full", and those objects never
 * converge).
 */
export async function startShardingControlPlane(objects: number): Promise<TestenvProcess> {
  if (objects <= DEFAULT_SERVICE_RANGE_HOLDS) return startTestenvProcess(DM_CRD, ['--real']);
  const cp = await startControlPlane({
    assets: controlPlaneAssets(),
    crds: [DM_CRD],
    apiserverArgs: ['--service-cluster-ip-range=10.0.0.0/16'],
  });
  return { kubeconfigPath: cp.kubeconfigPath, stop: () => cp.stop() };
}

/** One replica process. */
export interface Replica {
  name: string;
  port: number;
  op: OperatorProcess;
}

/** Starts replica `name` of `main` with --sharded against `kubeconfig`, its metrics on `port`. */
export function startReplica(
  main: string,
  kubeconfig: string,
  name: string,
  port: number,
  extra: string[] = [],
): Replica {
  const op = startOperator(main, [
    '--kubeconfig',
    kubeconfig,
    '--sharded',
    '--shard-name',
    name,
    '--leader-election-namespace',
    'default',
    '--leader-elect-lease-duration',
    `${LEASE.durationMs}ms`,
    '--leader-elect-renew-deadline',
    `${LEASE.renewDeadlineMs}ms`,
    '--leader-elect-retry-period',
    `${LEASE.retryPeriodMs}ms`,
    '--metrics-bind-address',
    `127.0.0.1:${port}`,
    '--health-probe-bind-address',
    '0',
    '--log-level',
    'debug',
    '--kube-api-qps',
    '200',
    '--kube-api-burst',
    '400',
    ...extra,
  ]);
  return { name, port, op };
}

/** The field managers that own `obj`'s shard label (from its managedFields): who last set it. */
export function shardLabelSetBy(obj: KubeObject | undefined): string[] {
  return (obj?.metadata?.managedFields ?? [])
    .filter((e) => {
      const meta = (e.fieldsV1 as Record<string, Record<string, Record<string, unknown>>> | undefined)?.['f:metadata'];
      return meta?.['f:labels']?.[`f:${SHARD_LABEL}`] !== undefined;
    })
    .map((e) => e.manager ?? '');
}

/**
 * The first of `owners` (DatabaseManagers) whose Deployment or Service is not labelled for the
 * owner's shard by the sharder alone (the sharder moved it with its owner; the new shard wrote
 * no label), as a readable line; undefined when there is none.
 */
export function ownedNotMovedBySharder(
  owners: readonly KubeObject[],
  owned: readonly { kind: string; byName: ReadonlyMap<string, KubeObject> }[],
): string | undefined {
  for (const dm of owners) {
    const shard = dm.metadata?.labels?.[SHARD_LABEL];
    for (const { kind, byName } of owned) {
      const o = byName.get(`${dm.metadata?.name}-db`);
      const by = shardLabelSetBy(o);
      if (o?.metadata?.labels?.[SHARD_LABEL] !== shard || by.join() !== SHARDER_MANAGER)
        return `${dm.metadata?.name} on ${shard}: its ${kind} ${o ? `labelled ${JSON.stringify(o.metadata?.labels)}, the label set by ${JSON.stringify(by)}` : 'missing'}`;
    }
  }
  return undefined;
}

/** The value of a metric line `name{labels} value` in `text` (summed over matching lines). */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let found: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const set = m[2] ?? '';
    if (!Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) continue;
    found = (found ?? 0) + Number(m[3]);
  }
  return found;
}

/** A replica's /metrics text. */
export async function scrape(r: Replica): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${r.port}/metrics`);
  return res.text();
}

/** The shard the ring of `shards` gives DatabaseManager `namespace/name`. */
export function shardOf(shards: readonly string[], namespace: string, name: string): string | undefined {
  // a ring hashes 100 points per shard: built once per set of shards, not once per object
  const id = [...shards].sort().join(',');
  let ring = rings.get(id);
  if (!ring) rings.set(id, (ring = new HashRing(shards)));
  return ring.shardFor(objectHashKey('coolops.cn', 'DatabaseManager', namespace, name));
}
const rings = new Map<string, HashRing>();

/** One finished reconcile, from a replica's log line. */
export interface ReconcileSpan {
  replica: string;
  key: string;
  from: number;
  to: number;
}

/** The finished reconciles in `logs` (the line every reconcile ends with: startedAt, durationMs). */
export function reconcileSpans(replica: string, logs: readonly LogLine[]): ReconcileSpan[] {
  return logs
    .filter((l) => typeof l['startedAt'] === 'string' && typeof l['durationMs'] === 'number' && l['key'] !== undefined)
    .map((l) => {
      const from = Date.parse(String(l['startedAt']));
      return { replica, key: String(l['key']), from, to: from + Number(l['durationMs']) };
    });
}

/**
 * Pairs of reconciles of one key that overlap in time (across replicas), as readable lines.
 * `startedAt` is written to the millisecond (truncated), so two spans overlap only when one
 * starts more than 1 ms before the other ends.
 */
export function overlappingReconciles(spans: readonly ReconcileSpan[]): string[] {
  const byKey = new Map<string, ReconcileSpan[]>();
  for (const s of spans) byKey.set(s.key, [...(byKey.get(s.key) ?? []), s]);
  const out: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.from - b.from);
    let last = list[0];
    for (const s of list.slice(1)) {
      if (s.from + 1 < last.to)
        out.push(
          `${key}: ${last.replica} ${new Date(last.from).toISOString()}+${last.to - last.from}ms and ${s.replica} ${new Date(s.from).toISOString()}`,
        );
      if (s.to > last.to) last = s;
    }
  }
  return out;
}

/**
 * `spans` without the reconciles of `replica` that were in flight when it was frozen at `at`
 * (started before, ended after): such a reconcile resumes when the process wakes, and its
 * client refuses every write from then on (the shard no longer holds its Lease), so it acts no
 * more; `cut` counts them.
 */
export function withoutFrozen(
  spans: readonly ReconcileSpan[],
  replica: string,
  at: number,
): { spans: ReconcileSpan[]; cut: number } {
  const keep = spans.filter((s) => !(s.replica === replica && s.from < at && s.to > at));
  return { spans: keep, cut: spans.length - keep.length };
}
