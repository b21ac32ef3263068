// One informer client of the informer benchmarks, in its own process (so heap figures are its
// own): crdgen's informer as a generated operator gets it (SharedInformerFactoryBase, the base
// of every generated SharedInformerFactory; by default it drops managedFields before caching,
// `keepManagedFields` keeps them as client-go does) or @kubernetes/client-node's makeInformer,
// each with its defaults; or the floor (`floor`): the list fetched in one request with node's http
// module, `JSON.parse`d, and the handler called for each item (what any JS client pays at least).
// For each namespace: time until the handler has seen every object (list and sync), then heap
// and RSS growth per cached object after GC.
// Then the event streams:
// - `stream` (crdgen/testing): an informer whose list is an empty snapshot taken before a
//   namespace's objects were created, so its watch replays every creation from that
//   resourceVersion; events/s and CPU per event until the handler has seen them all. Run twice:
//   served by crdgen/testing, then the same bytes from a pre-rendered replay
//   (bench/lib/replay-server.ts), where the client sets the pace;
// - `updates` (a real kube-apiserver): an informer that lists the namespace at the exact
//   resourceVersion before its objects were updated, then watches from there, so the server
//   replays every update of a cached object; events/s and CPU per event from the end of the
//   list until the handler has seen every update (bench/go-informer does the same in Go).
// A job without a stream only syncs; with `warmHeap` the process first allocates and drops ~50 MB.
//   node --expose-gc --import tsx bench/lib/informer-client.ts '<json of ClientJob>'
import { readFileSync } from 'node:fs';
import { fetchAndParse } from './list-floor.js';
import { importDist } from './env.js';
import { gc, settledGc } from './stats.js';
import type * as Runtime from '../../src/runtime/index.js';
import type * as ClientNode from '@kubernetes/client-node';

/** What the orchestrator asks of one client process. */
export interface ClientJob {
  client: 'crdgen' | 'client-node' | 'floor';
  /** crdgen only: the factory's keepManagedFields option (default false: they are dropped). */
  keepManagedFields?: boolean;
  /** crdgen only: streaming lists (default true, the runtime's default); false lists in pages as on a server without them. */
  streaming?: boolean;
  /** crdgen only: RestConfig.watchCompression (absent: the runtime's default). */
  watchCompression?: boolean;
  kubeconfigPath: string;
  /** pageSize: crdgen's reflector page size (default 500; 0 lists in one request, as client-node does). */
  sync: { namespace: string; count: number; pageSize?: number }[];
  /**
   * Before the first sync, allocate ~50 MB of short-lived objects and drop them, so that V8 has
   * grown its heap (and the pages behind it) as in a process that has already done some work.
   */
  warmHeap?: boolean;
  /** The event stream, and the same stream from a pre-rendered replay (bench/lib/replay-server.ts); none: sync only. */
  stream?: { namespace: string; events: number; listFile: string; replayKubeconfigPath: string };
  /** A real apiserver's replay of `events` updates of `namespace`'s objects made after `resourceVersion`. */
  updates?: { namespace: string; events: number; resourceVersion: string };
}

/** What one client process reports. */
export interface ClientReport {
  sync: {
    namespace: string;
    count: number;
    pageSize?: number;
    ms: number;
    cpuMicrosPerObject: number;
    heapPerObject: number;
    /** RSS growth since the process was ready (before its first sync), per cached object. */
    rssPerObject: number;
    /** The process's peak RSS (VmHWM) when the handler had seen every object. */
    peakRssBytes: number;
  }[];
  /** Served by crdgen/testing (its pace), then by the replay server (the client's pace); absent without a stream. */
  stream?: StreamReport;
  replay?: StreamReport;
  /** The real apiserver's replay of updates (job.updates). */
  updates?: StreamReport;
}

/** Event throughput of one stream. */
export interface StreamReport {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

const GROUP = 'coolops.cn';
const VERSION = 'v1alpha1';
const PLURAL = 'databasemanagers';

type KubeObj = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };
type KubeList = { metadata?: { resourceVersion?: string }; items: KubeObj[] };

/** Runs one informer until `until` resolves; `list` replaces the informer's list call when given. */
interface Harness {
  /** Starts an informer on `namespace`; calls `onAdd`/`onUpdate` per event; returns a stop function. */
  start(
    namespace: string,
    onAdd: () => void,
    onUpdate: () => void,
    options?: { list?: () => Promise<KubeList>; pageSize?: number },
  ): Promise<() => Promise<void>>;
}

async function crdgenHarness(
  kubeconfigPath: string,
  keepManagedFields: boolean,
  streaming: boolean,
  watchCompression: boolean | undefined,
): Promise<Harness> {
  const rt = await importDist<typeof Runtime>('runtime/index.js');
  const loaded = await rt.loadConfig({ path: kubeconfigPath });
  const config = watchCompression === undefined ? loaded : { ...loaded, watchCompression };
  const descriptor = {
    group: GROUP,
    version: VERSION,
    resource: PLURAL,
    kind: 'DatabaseManager',
    listKind: 'DatabaseManagerList',
    namespaced: true,
  };
  const rest = rt.restBackend(config);
  return {
    async start(namespace, onAdd, onUpdate, { list, pageSize } = {}) {
      // The stream's informer lists a fixed snapshot: the backend's clients answer list with it.
      const backend: Runtime.ClientBackend = list
        ? {
            resource: ((d: Runtime.ResourceDescriptor, ns?: string) =>
              Object.assign(Object.create(rest.resource(d, ns)) as object, {
                list: async () => list(),
              })) as Runtime.ClientBackend['resource'],
            scale: (d, ns) => rest.scale(d, ns),
          }
        : rest;
      // a fixed snapshot to list is a paged list's job: no streaming list then
      let factory: Runtime.SharedInformerFactoryBase | undefined = new rt.SharedInformerFactoryBase(backend, 0, {
        namespace,
        keepManagedFields,
        informerOptions: { ...(pageSize === undefined ? {} : { pageSize }), streamingList: streaming && !list },
      });
      factory.informerFor<Runtime.KubeObject>(descriptor).addEventHandler({ onAdd, onUpdate });
      factory.start();
      return async () => {
        await factory?.shutdown();
        factory = undefined; // the next step's heap baseline must not include this cache
      };
    },
  };
}

async function clientNodeHarness(kubeconfigPath: string): Promise<Harness> {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  return {
    async start(namespace, onAdd, onUpdate, { list } = {}) {
      const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`;
      const listFn =
        list ??
        (() =>
          api.listNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace,
            plural: PLURAL,
          }) as Promise<KubeList>);
      const informer: ClientNode.Informer<KubeObj> = k8s.makeInformer<KubeObj>(kc, path, listFn);
      informer.on('add', onAdd);
      informer.on('update', onUpdate);
      informer.on('error', (e: unknown) => process.stderr.write(`client-node informer error: ${String(e)}\n`));
      await informer.start();
      return async () => void (await informer.stop());
    },
  };
}

/** The process's peak RSS so far (VmHWM), in bytes. */
function peakRss(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** Resolves when `count()` reaches `n`, checking on every event via `tick`. */
function counter(n: number): { tick: () => void; reached: Promise<void>; value: () => number } {
  let c = 0;
  let done!: () => void;
  const reached = new Promise<void>((r) => (done = r));
  return { tick: () => void (++c === n && done()), reached, value: () => c };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]) as ClientJob;
  const harness = (kubeconfigPath: string): Promise<Harness> =>
    job.client === 'crdgen'
      ? crdgenHarness(kubeconfigPath, job.keepManagedFields ?? false, job.streaming ?? true, job.watchCompression)
      : job.client === 'floor'
        ? floorHarness(kubeconfigPath)
        : clientNodeHarness(kubeconfigPath);
  const h = await harness(job.kubeconfigPath);
  if (job.warmHeap) warmHeap();
  const sync: ClientReport['sync'] = [];
  await settledGc();
  const rss0 = process.memoryUsage().rss;
  for (const s of job.sync) {
    await settledGc(); // the previous step's list text and informer are garbage by then
    const heap0 = process.memoryUsage().heapUsed;
    const adds = counter(s.count);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const stop = await h.start(s.namespace, adds.tick, () => {}, { pageSize: s.pageSize });
    await adds.reached;
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const peakRssBytes = peakRss();
    await settledGc();
    const mem = process.memoryUsage();
    const heapPerObject = (mem.heapUsed - heap0) / s.count;
    const rssPerObject = (mem.rss - rss0) / s.count;
    await stop();
    sync.push({
      ...s,
      ms,
      cpuMicrosPerObject: (cpu.user + cpu.system) / s.count,
      heapPerObject,
      rssPerObject,
      peakRssBytes,
    });
  }
  const report: ClientReport = { sync };
  const s = job.stream;
  if (s) {
    const snapshot = readFileSync(s.listFile, 'utf8');
    const stream = async (from: Harness): Promise<StreamReport> => {
      gc();
      const events = counter(s.events);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const stop = await from.start(s.namespace, events.tick, () => {}, {
        list: async () => JSON.parse(snapshot) as KubeList,
        pageSize: 0,
      });
      await events.reached;
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      await stop();
      return { eventsPerSecond: (s.events / ms) * 1000, cpuMicrosPerEvent: (cpu.user + cpu.system) / s.events };
    };
    report.stream = await stream(h);
    report.replay = await stream(await harness(s.replayKubeconfigPath));
  }
  const u = job.updates;
  if (u) {
    gc();
    const list = listExactly(job.kubeconfigPath, u.namespace, u.resourceVersion);
    const adds = counter(u.events);
    const updates = counter(u.events);
    let listed: { t: number; cpu: NodeJS.CpuUsage } | undefined;
    void adds.reached.then(() => (listed = { t: performance.now(), cpu: process.cpuUsage() }));
    const stop = await h.start(u.namespace, adds.tick, updates.tick, { list, pageSize: 0 });
    await updates.reached;
    const t = performance.now();
    if (!listed) throw new Error('updates arrived before the list was handled');
    const cpu = process.cpuUsage(listed.cpu);
    await stop();
    report.updates = {
      eventsPerSecond: (u.events / (t - listed.t)) * 1000,
      cpuMicrosPerEvent: (cpu.user + cpu.system) / u.events,
    };
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/**
 * The floor as a client: one GET of the namespace's list (node's http module), JSON.parse, the
 * handler called for each item. It keeps the parsed list until stopped, as an informer keeps
 * its cache. No watch (no stream jobs).
 */
async function floorHarness(kubeconfigPath: string): Promise<Harness> {
  return {
    async start(namespace, onAdd) {
      let list: { items: unknown[] } | undefined = (
        await fetchAndParse(kubeconfigPath, `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`)
      ).list;
      for (let i = 0; i < list.items.length; i++) onAdd();
      return async () => void (list = undefined);
    },
  };
}

/** A list function answering the namespace's list at exactly `resourceVersion` (one request, parsed as JSON). */
function listExactly(kubeconfigPath: string, namespace: string, resourceVersion: string): () => Promise<KubeList> {
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}?resourceVersion=${resourceVersion}&resourceVersionMatch=Exact`;
  return async () => (await fetchAndParse(kubeconfigPath, path)).list as KubeList;
}

/**
 * Allocates ~50 MB of small objects, all alive at once, then drops them and collects: V8 grows
 * its young and old generations, and maps their pages, as a process that has done some work
 * already has them. A fresh process pays for that growth in its first large list instead.
 */
function warmHeap(): void {
  const live: { i: number; s: string; a: number[] }[] = [];
  for (let i = 0; i < 400_000; i++) live.push({ i, s: `x${i}`, a: [i] });
  live.length = 0;
  gc();
}

await main();
