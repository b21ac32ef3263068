// The informer part of the scale benchmark (bench/scale.ts): at each size (10k, 50k, 100k
// DatabaseManagers, seeded straight in etcd), one fresh process per client per round, order
// rotated: client-go's typed informer (v0.37: a streamed watch-list), crdgen's informer factory
// with streaming lists and with paged lists (its fallback, as on a server without streaming),
// client-node's makeInformer. For each: time until the handler has seen every object, peak RSS
// of the process, heap per cached object; and kube-apiserver's and etcd's peak RSS while it
// syncs (their /proc VmHWM, reset before each client). Each client syncs from a fresh
// kube-apiserver process (same etcd and flags, its watch cache just filled:
// bench/lib/fresh-apiserver.ts), so every kube-apiserver peak starts from the same baseline.
// And the limit of the list for a JS client, in fresh processes too (and a fresh kube-apiserver):
// the larger of (a) the time until the last byte of the list arrives at a client that throws the
// bytes away and (b) JSON.parse of those bytes.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { ControlPlane } from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest-client.js';
import { ApiError } from '../../src/runtime/client/errors.js';
import type { KubeObject } from '../../src/runtime/meta/types.js';
import { deletePrefix, etcdClient, putAll, seededObject, storageKey } from './etcd-seed.js';
import { BENCH, REPO } from './env.js';
import type { ClientJob, ClientReport } from './informer-client.js';
import { startFreshApiServer, type FreshApiServer } from './fresh-apiserver.js';
import { apiserverCpuProfile } from './apiserver-pprof.js';
import { bytes, fmt, median, pairedRatio, table, times } from './stats.js';

const run = promisify(execFile);
const GROUP = 'coolops.cn';
const PLURAL = 'databasemanagers';
const BASE = `/apis/${GROUP}/v1alpha1`;

/** Every client of the part; the default set is {@link DEFAULT_SCALE_CLIENTS}. */
export const SCALE_CLIENTS = [
  'client-go',
  'crdgen',
  'crdgen-paged',
  'client-node',
  'crdgen-gzip',
  'crdgen-nogzip',
] as const;
export type ScaleClient = (typeof SCALE_CLIENTS)[number];
/** The clients the targets are judged on (BENCH_SCALE_CLIENTS picks others, e.g. to compare gzip). */
export const DEFAULT_SCALE_CLIENTS: readonly ScaleClient[] = ['client-go', 'crdgen', 'crdgen-paged', 'client-node'];
export const SCALE_LABEL: Record<ScaleClient, string> = {
  'client-go': 'client-go typed informer (watch-list)',
  crdgen: 'crdgen informer (streaming list)',
  'crdgen-paged': 'crdgen informer (paged list)',
  'client-node': 'client-node makeInformer',
  'crdgen-gzip': 'crdgen informer (streaming list, asking for gzip: watchCompression true)',
  'crdgen-nogzip': 'crdgen informer (streaming list, no gzip on watches: watchCompression false)',
};

/** One size's figures for one client: per round, and medians. */
export interface ScaleSyncFigures {
  ms: number[];
  cpuMicrosPerObject: number;
  heapPerObject: number;
  peakRssBytes: number;
  /** kube-apiserver's and etcd's peak RSS while this client synced (median over rounds), and kube-apiserver's before. */
  apiserverPeakRss: number;
  apiserverBeforeRss: number;
  etcdPeakRss: number;
  /** kube-apiserver's CPU seconds (user + system) from the client's start to its sync (median over rounds). */
  apiserverCpuSeconds: number;
}

/** The limit of one size, per round. */
export interface LimitFigures {
  discardMs: number[];
  parseMs: number[];
  /** max(discard, parse) of each round. */
  limitMs: number[];
  /** The list's JSON bytes, and the bytes on the wire (gzip when the server compressed it). */
  bytes: number;
  wireBytes: number;
  encoding: string;
}

export interface ScaleInformerResult {
  sizes: { namespace: string; count: number }[];
  sync: Record<ScaleClient, ScaleSyncFigures[]>;
  limit: LimitFigures[];
  objectJsonBytes: number;
  rounds: number;
  /** The clients measured, in the order of the table. */
  clients: readonly ScaleClient[];
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

/** The pid of the control plane's process `name` (its command line names the run's folder). */
export function controlPlanePid(cp: ControlPlane, name: 'kube-apiserver' | 'etcd'): number {
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const argv = cmd.split('\0');
    if (argv[0]?.endsWith(`/${name}`) && cmd.includes(cp.dir)) return Number(e);
  }
  throw new Error(`no ${name} process of the control plane in ${cp.dir}`);
}

/** VmRSS and VmHWM of `pid`, in bytes. */
export function rssOf(pid: number): { rss: number; peak: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** CPU seconds (user + system) `pid` has used: /proc/<pid>/stat's utime and stime, in clock ticks of 1/100 s. */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command (which may hold spaces) start at the last ')'
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Resets `pid`'s peak RSS to its current RSS (Linux: clear_refs 5). */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

async function node(script: string, args: string[], timeoutMs = 900_000, flags: string[] = []): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', ...flags, '--import', 'tsx', join(BENCH, 'lib', script), ...args],
    {
      cwd: REPO,
      maxBuffer: 1 << 20,
      timeout: timeoutMs,
    },
  );
  return stdout.trim().split('\n').pop()!;
}

async function runClient(
  c: ScaleClient,
  peersBin: string,
  kubeconfigPath: string,
  s: { namespace: string; count: number },
  /** When set, a Node client writes a V8 CPU profile of its whole run under this name (a path). */
  cpuProfile?: string,
) {
  if (c === 'client-go') {
    const { stdout } = await run(
      join(peersBin, 'go-informer'),
      [JSON.stringify({ kubeconfigPath, mode: 'typed', sync: [s] })],
      { maxBuffer: 1 << 20, timeout: 900_000 },
    );
    return (JSON.parse(stdout.trim().split('\n').pop()!) as { sync: ClientReport['sync'] }).sync[0];
  }
  const job: ClientJob =
    c === 'client-node'
      ? { client: 'client-node', kubeconfigPath, sync: [s] }
      : {
          client: 'crdgen',
          kubeconfigPath,
          sync: [s],
          streaming: c !== 'crdgen-paged',
          ...(c === 'crdgen-gzip'
            ? { watchCompression: true }
            : c === 'crdgen-nogzip'
              ? { watchCompression: false }
              : {}),
        };
  const flags =
    cpuProfile === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${dirname(cpuProfile)}`, `--cpu-prof-name=${basename(cpuProfile)}`];
  return (JSON.parse(await node('informer-client.ts', [JSON.stringify(job)], 900_000, flags)) as ClientReport).sync[0];
}

/** Seeds each size in turn, measures the limit and every client `rounds` times, wipes the size. */
export async function runScaleInformerPart(
  cp: ControlPlane,
  peersBin: string,
  counts: number[],
  rounds: number,
  progress: (s: string) => void,
  clients: readonly ScaleClient[] = DEFAULT_SCALE_CLIENTS,
  /**
   * When set, each sync also leaves profiles in this folder: kube-apiserver's CPU profile over the
   * client's run (`<size>-r<round>-<client>.apiserver.pprof`, read with `go tool pprof -top`) and, for
   * the Node clients, the client's V8 CPU profile (`….cpuprofile`). The sampling costs a little CPU.
   */
  profileDir?: string,
): Promise<ScaleInformerResult> {
  const sizes = counts.map((count) => ({ namespace: `scale-${count}`, count }));
  const client = new RestClient({ ...cp.clientConfig, qps: 0, userAgent: 'crdgen-bench-driver' });
  const etcd = await etcdClient(cp.etcdEndpoint);
  const apiserver = controlPlanePid(cp, 'kube-apiserver');
  const etcdPid = controlPlanePid(cp, 'etcd');
  const dir = mkdtempSync(join(tmpdir(), 'crdgen-bench-scale-'));
  const sync = Object.fromEntries(clients.map((c) => [c, [] as ScaleSyncFigures[]])) as Record<
    ScaleClient,
    ScaleSyncFigures[]
  >;
  const limit: LimitFigures[] = [];
  try {
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
    for (const s of sizes) {
      const t0 = performance.now();
      const rv: string = await putAll(
        etcd,
        Array.from({ length: s.count }, (_, i) => {
          const o = seededObject(stored, s.namespace, `db-${i}`);
          return [storageKey(GROUP, PLURAL, s.namespace, o.metadata.name), o] as [string, object];
        }),
      );
      // the watch cache has taken them in once a list not older than the last write answers
      // (kube-apiserver waits 3 s, then answers 504 ResourceVersionTooLarge: ask again)
      for (const deadline = performance.now() + 300_000; ;) {
        try {
          await client.request({
            method: 'GET',
            path: `${BASE}/namespaces/${s.namespace}/${PLURAL}`,
            query: { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', limit: 1 },
            timeoutMs: 300_000,
          });
          break;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 504) || performance.now() > deadline) throw e;
        }
      }
      progress(`scale informer: ${fmt(s.count)} objects seeded in ${fmt((performance.now() - t0) / 1000)} s`);
      const path = `${BASE}/namespaces/${s.namespace}/${PLURAL}`;
      const file = join(dir, `${s.namespace}.json`);
      await node('list-limit.ts', ['save', cp.kubeconfigPath, path, file]);
      const lim: LimitFigures = { discardMs: [], parseMs: [], limitMs: [], bytes: 0, wireBytes: 0, encoding: '' };
      const reports = Object.fromEntries(
        clients.map((c) => [
          c,
          [] as (ClientReport['sync'][number] & {
            apiserver: number;
            apiserverBefore: number;
            etcd: number;
            apiserverCpu: number;
          })[],
        ]),
      ) as Record<
        ScaleClient,
        (ClientReport['sync'][number] & {
          apiserver: number;
          apiserverBefore: number;
          etcd: number;
          apiserverCpu: number;
        })[]
      >;
      for (let r = 0; r < rounds; r++) {
        // every measurement on a fresh kube-apiserver (same etcd, same flags), its watch cache just
        // filled: each starts from the same state, whatever the clients before it left behind
        const fresh = (what: string): Promise<FreshApiServer> =>
          startFreshApiServer(cp, apiserver, path, rv, dir, `${s.namespace}-${r}-${what}`);
        const limitServer = await fresh('limit');
        let d: { ms: number; bytes: number; encoding: string };
        try {
          d = JSON.parse(await node('list-limit.ts', ['discard', limitServer.kubeconfigPath, path])) as typeof d;
        } finally {
          await limitServer.stop();
        }
        const p = JSON.parse(await node('list-limit.ts', ['parse', file])) as {
          ms: number;
          items: number;
          bytes: number;
        };
        if (p.items !== s.count)
          throw new Error(`the saved list of ${s.namespace} has ${p.items} items, not ${s.count}`);
        lim.discardMs.push(d.ms);
        lim.parseMs.push(p.ms);
        lim.limitMs.push(Math.max(d.ms, p.ms));
        lim.wireBytes = d.bytes;
        lim.encoding = d.encoding;
        lim.bytes = p.bytes;
        for (let i = 0; i < clients.length; i++) {
          const c = clients[(i + r) % clients.length];
          const server = await fresh(c);
          try {
            // let the fresh apiserver's Go runtime settle after filling its cache, then measure this client's peak
            await new Promise((res) => setTimeout(res, 2000));
            resetPeak(server.pid);
            resetPeak(etcdPid);
            const before = rssOf(server.pid).rss;
            const cpuBefore = cpuSecondsOf(server.pid);
            const base = profileDir === undefined ? undefined : join(profileDir, `${s.count}-r${r + 1}-${c}`);
            // the window covers the client's start (~1 s) and a sync at ~20k objects a second
            const serverProfile =
              base === undefined
                ? undefined
                : apiserverCpuProfile(
                    { ...cp.clientConfig, server: server.url },
                    Math.ceil(s.count / 20_000) + 3,
                    `${base}.apiserver.pprof`,
                  ).catch((e: Error) => progress(`kube-apiserver's profile not taken: ${e.message}`));
            const rep = await runClient(
              c,
              peersBin,
              server.kubeconfigPath,
              s,
              base === undefined ? undefined : `${base}.cpuprofile`,
            );
            reports[c].push({
              ...rep,
              apiserverCpu: cpuSecondsOf(server.pid) - cpuBefore,
              apiserver: rssOf(server.pid).peak,
              apiserverBefore: before,
              etcd: rssOf(etcdPid).peak,
            });
            await serverProfile;
          } finally {
            await server.stop();
          }
        }
        progress(`scale informer: ${fmt(s.count)} round ${r + 1}/${rounds}`);
      }
      limit.push(lim);
      for (const c of clients) {
        const at = reports[c];
        sync[c].push({
          ms: at.map((x) => x.ms),
          cpuMicrosPerObject: median(at.map((x) => x.cpuMicrosPerObject)),
          heapPerObject: median(at.map((x) => x.heapPerObject)),
          peakRssBytes: median(at.map((x) => x.peakRssBytes)),
          apiserverPeakRss: median(at.map((x) => x.apiserver)),
          apiserverBeforeRss: median(at.map((x) => x.apiserverBefore)),
          etcdPeakRss: median(at.map((x) => x.etcd)),
          apiserverCpuSeconds: median(at.map((x) => x.apiserverCpu)),
        });
      }
      rmSync(file, { force: true });
      await deletePrefix(etcd, storageKey(GROUP, PLURAL, s.namespace, ''));
    }
    return { sizes, sync, limit, objectJsonBytes, rounds, clients };
  } finally {
    for (const s of sizes) await deletePrefix(etcd, storageKey(GROUP, PLURAL, s.namespace, '')).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    etcd.close();
    client.close();
  }
}

/** The part's table, as Markdown. */
export function scaleInformerTable(r: ScaleInformerResult): string {
  const rows: string[][] = [];
  r.sizes.forEach((s, i) => {
    const lim = r.limit[i];
    rows.push([
      fmt(s.count),
      `limit: max(last byte ${fmt(median(lim.discardMs))} ms, JSON.parse ${fmt(median(lim.parseMs))} ms) of ${bytes(lim.bytes)}${lim.encoding === 'gzip' ? ` (${bytes(lim.wireBytes)} gzip on the wire)` : ''}`,
      fmt(median(lim.limitMs)),
      '1.00×',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
    for (const c of r.clients) {
      const x = r.sync[c][i];
      rows.push([
        fmt(s.count),
        SCALE_LABEL[c],
        fmt(median(x.ms)),
        times(pairedRatio(x.ms, lim.limitMs)),
        bytes(x.peakRssBytes),
        bytes(x.heapPerObject),
        `${bytes(x.apiserverBeforeRss)} → ${bytes(x.apiserverPeakRss)}`,
        bytes(x.etcdPeakRss),
        ((x.cpuMicrosPerObject * s.count) / 1e6).toFixed(2),
        x.apiserverCpuSeconds.toFixed(2),
      ]);
    }
  });
  return [
    `### informer sync at scale (time until the handler has seen every object; a DatabaseManager is ${bytes(r.objectJsonBytes)} of JSON as listed; medians of ${r.rounds} rounds, fresh processes)\n`,
    table(
      [
        'objects',
        'client',
        'sync ms',
        'vs the limit',
        'client peak RSS',
        'heap per object',
        'kube-apiserver RSS before → peak',
        'etcd peak RSS',
        'client CPU s',
        'kube-apiserver CPU s during the sync',
      ],
      rows,
    ),
  ].join('\n');
}
