// The informer part of the benchmark on the real control plane (bench/go-peers.ts): client-go's
// shared informers (bench/go-informer: the typed informer code-generator writes, and with
// BENCH_INFORMER_DYNAMIC=1 the dynamic one) against crdgen's informer factory and client-node's makeInformer, each client a fresh
// process per round (order rotated), on one etcd + kube-apiserver v1.37.1:
// - list and sync of 1k / 10k / 50k DatabaseManagers (each client with its defaults: client-go
//   syncs with a streamed watch-list, crdgen and client-node with one list request), heap and
//   RSS growth per cached object after GC; and the floor of a JS client (each list in one
//   request, JSON.parse'd, a handler call per item) in a fresh process of its own;
// - 50,000 updates of the 50k objects, made after the resourceVersion the stream's informer
//   lists at exactly, so the server replays every one to an informer that has the objects.
// The objects are seeded straight in etcd in the apiserver's storage format (bench/lib/etcd-seed.ts).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ControlPlane } from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest-client.js';
import type { KubeObject } from '../../src/runtime/meta/types.js';
import { deletePrefix, etcdClient, putAll, seededObject, storageKey } from './etcd-seed.js';
import { BENCH, REPO } from './env.js';
import type { ClientJob, ClientReport } from './informer-client.js';
import { bytes, fmt, median, pairedRatio, table, times } from './stats.js';

const run = promisify(execFile);
const GROUP = 'coolops.cn';
const PLURAL = 'databasemanagers';
const BASE = `/apis/${GROUP}/v1alpha1`;

/** The clients of the part, in the order of their rows. */
const ALL_CLIENTS = ['client-go', 'client-go-dynamic', 'crdgen', 'client-node', 'floor'] as const;
export type InformerClient = (typeof ALL_CLIENTS)[number];
/**
 * The clients of this run: client-go's dynamic informer (what a Go operator without generated
 * code uses; ~a third of the part's time, since it is the slowest client) only with
 * BENCH_INFORMER_DYNAMIC=1; the typed one (what a Go operator's generated informers are) always runs.
 */
export const INFORMER_CLIENTS: readonly InformerClient[] = ALL_CLIENTS.filter(
  (c) => c !== 'client-go-dynamic' || process.env.BENCH_INFORMER_DYNAMIC === '1',
);
/** The clients with an update stream (the floor only lists). */
const STREAM_CLIENTS = INFORMER_CLIENTS.filter((c): c is Exclude<InformerClient, 'floor'> => c !== 'floor');
export const INFORMER_LABEL: Record<InformerClient, string> = {
  'client-go': 'client-go typed informer',
  'client-go-dynamic': 'client-go dynamic informer',
  crdgen: 'crdgen informer factory',
  'client-node': 'client-node makeInformer',
  floor: 'floor: list, JSON.parse (JS)',
};

/** One size's medians for one client. */
export interface SyncFigures {
  ms: number[];
  cpuMicrosPerObject: number;
  heapPerObject: number;
  rssPerObject: number;
}

/** What the part measured: per size and client, and the update stream per client. */
export interface InformerResult {
  sizes: { namespace: string; count: number }[];
  sync: Record<InformerClient, SyncFigures[]>;
  /** Per client of the run (INFORMER_CLIENTS); the dynamic one only when it ran. */
  updates: Record<Exclude<InformerClient, 'floor'>, { eps: number[]; cpuMicrosPerEvent: number }>;
  objectJsonBytes: number;
  seedSeconds: number;
  rounds: number;
}

/** A DatabaseManager as a user creates it (the template of every seeded object). */
function template(name: string, namespace: string): KubeObject {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'DatabaseManager',
    metadata: {
      name,
      namespace,
      labels: { app: name, tier: 'database', 'app.kubernetes.io/managed-by': 'crdgen' },
      annotations: { 'coolops.cn/owner': 'team-data' },
    },
    spec: { deploymentName: `${name}-deploy`, replicas: 3, dbtype: 'mysql' },
  } as KubeObject;
}

/** Waits until the apiserver's watch cache has caught up with etcd revision `rv`. */
async function cachedAt(client: RestClient, rv: string): Promise<void> {
  await client.request({
    method: 'GET',
    path: `${BASE}/${PLURAL}`,
    query: { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', limit: 1 },
    timeoutMs: 120_000,
  });
}

/** Throws unless a watch from `rv` in `namespace` starts with an update (the watch cache still holds the stream). */
async function checkReplayable(client: RestClient, namespace: string, rv: string): Promise<void> {
  const ac = new AbortController();
  const w = await client.watch<KubeObject>(
    `${BASE}/namespaces/${namespace}/${PLURAL}`,
    { resourceVersion: rv },
    ac.signal,
  );
  try {
    for await (const e of w) {
      if (e.type !== 'MODIFIED')
        throw new Error(
          `a watch from resourceVersion ${rv} starts with ${e.type} ${JSON.stringify(e.object).slice(0, 200)}, not the first update: the watch cache no longer holds the stream`,
        );
      return;
    }
    throw new Error(`a watch from resourceVersion ${rv} ended without an event`);
  } finally {
    w.stop();
    ac.abort();
  }
}

async function runNode(job: ClientJob): Promise<ClientReport> {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(BENCH, 'lib', 'informer-client.ts'), JSON.stringify(job)],
    { cwd: REPO, maxBuffer: 1 << 20, timeout: 600_000 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as ClientReport;
}

type GoReport = { sync: ClientReport['sync']; stream: { eventsPerSecond: number; cpuMicrosPerEvent: number } };

async function runGo(bin: string, job: object): Promise<ClientReport> {
  const { stdout } = await run(join(bin, 'go-informer'), [JSON.stringify(job)], {
    maxBuffer: 1 << 20,
    timeout: 600_000,
  });
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as GoReport;
  return { sync: r.sync, updates: r.stream };
}

/** Seeds the objects, runs `rounds` rounds of every client, returns the medians. */
export async function runInformerPart(
  cp: ControlPlane,
  peersBin: string,
  rounds: number,
  scale: number,
  progress: (s: string) => void,
): Promise<InformerResult> {
  const n = (x: number): number => Math.max(1, Math.round(x * scale));
  const sizes = [
    { namespace: 'n1k', count: n(1_000) },
    { namespace: 'n10k', count: n(10_000) },
    { namespace: 'n50k', count: n(50_000) },
  ];
  const stream = sizes[2];
  const client = new RestClient({ ...cp.clientConfig, qps: 0, userAgent: 'crdgen-bench-driver' });
  const etcd = await etcdClient(cp.etcdEndpoint);
  try {
    const t0 = performance.now();
    for (const ns of ['template', ...sizes.map((s) => s.namespace)]) {
      await client.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      });
    }
    await client.request({
      method: 'POST',
      path: `${BASE}/namespaces/template/${PLURAL}`,
      body: template('db-template', 'template'),
    });
    const stored = JSON.parse(
      (await etcd.get(storageKey(GROUP, PLURAL, 'template', 'db-template')).string()) ?? 'null',
    ) as object | null;
    if (!stored) throw new Error('the template DatabaseManager is not in etcd where kube-apiserver stores it');
    const listed = (
      await client.request<{ items: object[] }>({ method: 'GET', path: `${BASE}/namespaces/template/${PLURAL}` })
    ).items[0];
    const objectJsonBytes = JSON.stringify(listed).length;
    let streamed: [string, ReturnType<typeof seededObject>][] = [];
    for (const s of sizes) {
      const objects = Array.from({ length: s.count }, (_, i) => {
        const o = seededObject(stored, s.namespace, `db-${i}`);
        return [storageKey(GROUP, PLURAL, s.namespace, o.metadata.name), o] as [string, typeof o];
      });
      await putAll(etcd, objects);
      if (s === stream) streamed = objects;
    }
    const before = String((await etcd.get('/registry/crdgen-bench-none').exec()).header.revision);
    await cachedAt(client, before);
    // the updates: replicas 3 → 4, generation 1 → 2, on every object of the stream's namespace
    const after = await putAll(
      etcd,
      streamed.map(
        ([k, o]) =>
          [
            k,
            {
              ...o,
              metadata: { ...o.metadata, generation: (o.metadata.generation ?? 1) + 1 },
              spec: { ...o.spec, replicas: 4 },
            },
          ] as [string, object],
      ),
      1,
      32,
    );
    streamed = [];
    await cachedAt(client, after);
    await checkReplayable(client, stream.namespace, before);
    const seedSeconds = (performance.now() - t0) / 1000;
    progress(
      `informer: ${sizes.reduce((a, s) => a + s.count, 0).toLocaleString('en-US')} objects seeded and ${stream.count.toLocaleString('en-US')} updated in etcd in ${fmt(seedSeconds)} s`,
    );

    const updates = { namespace: stream.namespace, events: stream.count, resourceVersion: before };
    const kc = cp.kubeconfigPath;
    const jobs: Record<InformerClient, () => Promise<ClientReport>> = {
      'client-go': () => runGo(peersBin, { kubeconfigPath: kc, mode: 'typed', sync: sizes, stream: updates }),
      'client-go-dynamic': () => runGo(peersBin, { kubeconfigPath: kc, mode: 'dynamic', sync: sizes, stream: updates }),
      crdgen: () => runNode({ client: 'crdgen', kubeconfigPath: kc, sync: sizes, updates }),
      'client-node': () => runNode({ client: 'client-node', kubeconfigPath: kc, sync: sizes, updates }),
      floor: () => runNode({ client: 'floor', kubeconfigPath: kc, sync: sizes }),
    };
    const reports = Object.fromEntries(INFORMER_CLIENTS.map((c) => [c, [] as ClientReport[]])) as Record<
      InformerClient,
      ClientReport[]
    >;
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < INFORMER_CLIENTS.length; i++) {
        const c = INFORMER_CLIENTS[(i + r) % INFORMER_CLIENTS.length];
        reports[c].push(await jobs[c]());
      }
      progress(`informer: round ${r + 1}/${rounds}`);
    }
    const sync = Object.fromEntries(
      INFORMER_CLIENTS.map((c) => [
        c,
        sizes.map((_, i) => {
          const at = reports[c].map((x) => x.sync[i]);
          return {
            ms: at.map((x) => x.ms),
            cpuMicrosPerObject: median(at.map((x) => x.cpuMicrosPerObject)),
            heapPerObject: median(at.map((x) => x.heapPerObject)),
            rssPerObject: median(at.map((x) => x.rssPerObject)),
          };
        }),
      ]),
    ) as Record<InformerClient, SyncFigures[]>;
    const upd = Object.fromEntries(
      STREAM_CLIENTS.map((c) => [
        c,
        {
          eps: reports[c].map((x) => x.updates!.eventsPerSecond),
          cpuMicrosPerEvent: median(reports[c].map((x) => x.updates!.cpuMicrosPerEvent)),
        },
      ]),
    ) as InformerResult['updates'];
    return { sizes, sync, updates: upd, objectJsonBytes, seedSeconds, rounds };
  } finally {
    for (const s of sizes) await deletePrefix(etcd, storageKey(GROUP, PLURAL, s.namespace, '')).catch(() => undefined);
    etcd.close();
    client.close();
  }
}

/** The part's tables, as Markdown. */
export function informerTables(r: InformerResult): string {
  const out: string[] = [];
  const rows: string[][] = [];
  r.sizes.forEach((s, i) => {
    const base = r.sync.crdgen[i];
    for (const c of INFORMER_CLIENTS) {
      const x = r.sync[c][i];
      rows.push([
        fmt(s.count),
        INFORMER_LABEL[c],
        fmt(median(x.ms)),
        fmt((median(x.ms) * 1000) / s.count),
        times(pairedRatio(x.ms, base.ms)),
        fmt(x.cpuMicrosPerObject),
        bytes(x.heapPerObject),
        bytes(x.rssPerObject),
      ]);
    }
  });
  out.push(
    `### list and sync (time until the handler has seen every object), heap and RSS growth per cached object after GC; a DatabaseManager is ${bytes(r.objectJsonBytes)} of JSON as listed\n`,
  );
  out.push(
    table(
      [
        'objects',
        'client',
        'sync ms (median)',
        'µs per object',
        'time vs crdgen',
        'CPU µs per object',
        'heap per object',
        'RSS per object',
      ],
      rows,
    ),
  );
  const stream = r.sizes[2].count;
  out.push(
    `\n### ${fmt(stream)} updates of cached objects, replayed by kube-apiserver from its watch cache (events/s from the end of the list to the last update handled)\n`,
  );
  out.push(
    table(
      ['client', 'events/s (median)', 'vs crdgen', 'CPU µs per event'],
      STREAM_CLIENTS.map((c) => [
        INFORMER_LABEL[c],
        fmt(median(r.updates[c].eps)),
        times(pairedRatio(r.updates[c].eps, r.updates.crdgen.eps)),
        fmt(r.updates[c].cpuMicrosPerEvent),
      ]),
    ),
  );
  return out.join('\n');
}

/** What the key-order check found for one sample kind. */
export interface KeyOrderCheck {
  kind: string;
  /** undefined: every level sorted; else the path of the first unsorted object, or the error. */
  unsorted?: string;
}

/**
 * Creates the deepcopy benchmark's three samples on the server (status written through /status
 * where the kind has it), reads them back and checks that their keys are sorted at every level.
 */
export async function checkKeyOrder(cp: ControlPlane): Promise<KeyOrderCheck[]> {
  const { databaseManager, deploymentSized, prometheus } = await import('./samples.js');
  const { firstUnsorted } = await import('./key-order.js');
  const client = new RestClient({ ...cp.clientConfig, qps: 0, userAgent: 'crdgen-bench-driver' });
  const out: KeyOrderCheck[] = [];
  try {
    for (const sample of [
      databaseManager('orders-db', 'keyorder'),
      deploymentSized('checkout', 'keyorder'),
      prometheus('k8s', 'keyorder'),
    ]) {
      const kind = String(sample.kind);
      try {
        const [group] = String(sample.apiVersion).split('/');
        const plural = `${kind.toLowerCase()}${kind.endsWith('s') ? 'es' : 's'}`;
        const base = `/apis/${String(sample.apiVersion)}/namespaces/keyorder/${plural}`;
        const meta = sample.metadata as Record<string, unknown>;
        const body = {
          ...sample,
          metadata: { name: meta.name, namespace: 'keyorder', labels: meta.labels, annotations: meta.annotations },
        };
        const created = await client.request<Record<string, unknown>>({ method: 'POST', path: base, body });
        if (sample.status)
          await client.request({
            method: 'PUT',
            path: `${base}/${String(meta.name)}/status`,
            body: { ...created, status: sample.status },
          });
        const got = await client.request<unknown>({ method: 'GET', path: `${base}/${String(meta.name)}` });
        const listed = await client.request<{ items: unknown[] }>({ method: 'GET', path: base });
        out.push({ kind: `${kind} (${group})`, unsorted: firstUnsorted(got) ?? firstUnsorted(listed.items[0]) });
      } catch (e) {
        out.push({ kind, unsorted: `not checked: ${(e as Error).message.slice(0, 160)}` });
      }
    }
  } finally {
    client.close();
  }
  return out;
}
