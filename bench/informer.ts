// Benchmark: crdgen's shared informer, as a generated operator gets it from its informer
// factory (default: managedFields dropped before caching; and with keepManagedFields, as
// client-go caches), against @kubernetes/client-node's makeInformer on the
// same crdgen/testing API server (its own process), in the same run: list-and-sync of 1k, 10k
// and 50k DatabaseManagers, heap per cached object after GC, and a stream of 50k watch events
// (events/s delivered to a handler, CPU per event): the creation of the 50k objects, replayed
// from the resourceVersion before it (the server makes them in-process once; making 50k
// updates over HTTP would cost the server ~1.5 ms of CPU each, minutes per run). The stream
// runs twice per client: served by crdgen/testing, whose own serialisation then sets the pace
// (~35,000 events/s at most here), and as the same bytes from a pre-rendered replay
// (bench/lib/replay-server.ts), where the client does; the throughput target is judged on the
// replay. Each client runs in a fresh process per round; rounds alternate which client goes first.
// Both clients also sync (no stream) in a process whose heap was warmed first (~50 MB allocated
// and dropped): a fresh process pays for V8's heap growth (page faults, dear on this VM) in its
// first large list, and the lighter the library, the more of that growth is left to the list.
//   npm run bench -- informer      (or: node --import tsx bench/informer.ts [rounds=7])
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { BENCH, PKG, REPO, requireBuild } from './lib/env.js';
import type { ClientJob, ClientReport, StreamReport } from './lib/informer-client.js';
import { captureWatch, retargetKubeconfig, startReplayServer } from './lib/replay-server.js';
import { bytes, fmt, machine, median, pairedRatio, table, times } from './lib/stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Scales every count down for a quick trial (BENCH_INFORMER_SCALE=0.1); 1 for the real figures. */
const SCALE = Number(process.env.BENCH_INFORMER_SCALE ?? 1);
const n = (x: number): number => Math.max(1, Math.round(x * SCALE));
const SIZES = [
  { namespace: 'n1k', count: n(1_000) },
  { namespace: 'n10k', count: n(10_000) },
  { namespace: 'n50k', count: n(50_000) },
];
const STREAM = SIZES[2]!;
/**
 * crdgen: the factory's default (managedFields dropped); crdgen-keep: keepManagedFields; the
 * -warm ones sync only, with the heap warmed first (their jobs have no stream).
 */
const CLIENTS = ['crdgen', 'crdgen-keep', 'client-node', 'crdgen-warm', 'client-node-warm'] as const;
type Client = (typeof CLIENTS)[number];
const LABEL: Record<Client, string> = {
  crdgen: 'crdgen, default (managedFields dropped)',
  'crdgen-keep': 'crdgen, keepManagedFields',
  'client-node': 'client-node makeInformer',
  'crdgen-warm': 'crdgen, default, heap warmed first',
  'client-node-warm': 'client-node makeInformer, heap warmed first',
};
const run = promisify(execFile);

/** Starts the server process; resolves with its URL and kubeconfig once the objects are seeded. */
async function startServer(): Promise<{ url: string; kubeconfigPath: string; seconds: number; before: Record<string, string>; stop: () => Promise<void> }> {
  const spec = SIZES.map((s) => `${s.namespace}=${s.count}`).join(',');
  const child = spawn(process.execPath, [join(BENCH, 'lib', 'informer-server.mjs'), PKG, spec], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`informer server exited (${code}) before it was ready`)));
  });
  const info = JSON.parse(line) as { url: string; kubeconfigPath: string; seconds: number; before: Record<string, string> };
  return { ...info, stop: async () => void (child.stdin.end(), await exited) };
}

/** Writes the empty list the stream clients start from; returns the mean JSON size of a listed object. */
async function prepareStream(url: string, before: string, listFile: string): Promise<number> {
  writeFileSync(listFile, JSON.stringify({ apiVersion: 'coolops.cn/v1alpha1', kind: 'DatabaseManagerList', metadata: { resourceVersion: before }, items: [] }));
  const list = (await (await fetch(`${url}/apis/coolops.cn/v1alpha1/namespaces/${SIZES[0]!.namespace}/databasemanagers`)).json()) as { items: unknown[] };
  return list.items.reduce<number>((n, o) => n + JSON.stringify(o).length, 0) / list.items.length;
}

async function runClient(job: ClientJob): Promise<ClientReport> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', join(BENCH, 'lib', 'informer-client.ts'), JSON.stringify(job)], {
    cwd: REPO,
    maxBuffer: 1024 * 1024,
    timeout: 600_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as ClientReport;
}

async function main(): Promise<void> {
  requireBuild();
  const scratch = mkdtempSync(join(tmpdir(), 'crdgen-bench-informer-'));
  const server = await startServer();
  let replay: Awaited<ReturnType<typeof startReplayServer>> | undefined;
  try {
    const listFile = join(scratch, 'stream-list.json');
    const before = server.before[STREAM.namespace]!;
    const objectJsonBytes = await prepareStream(server.url, before, listFile);
    process.stderr.write(`  informer: server started and seeded in ${fmt(server.seconds)} s\n`);
    const streamFile = join(scratch, 'stream.ndjson');
    await captureWatch(`${server.url}/apis/coolops.cn/v1alpha1/namespaces/${STREAM.namespace}/databasemanagers?watch=true&resourceVersion=${before}`, STREAM.count, streamFile);
    replay = await startReplayServer(streamFile);
    const replayKubeconfigPath = join(scratch, 'replay-kubeconfig');
    retargetKubeconfig(server.kubeconfigPath, replay.url, replayKubeconfigPath);
    // crdgen lists in one request (pageSize 0, as client-node does; the verdicts use this), and
    // at 1k also with its default pages of 500. crdgen/testing pages a resourceVersion=0 list;
    // an apiserver serving it from its watch cache ignores the limit and answers it whole (until
    // KEP-4988's pagination from the cache), so only the one-request figures carry to a cluster.
    const oneList = SIZES.map((x) => ({ ...x, pageSize: 0 }));
    const stream = { namespace: STREAM.namespace, events: STREAM.count, listFile, replayKubeconfigPath };
    const on = (job: Omit<ClientJob, 'kubeconfigPath'>): ClientJob => ({ ...job, kubeconfigPath: server.kubeconfigPath });
    const jobs: Record<Client, ClientJob> = {
      crdgen: on({ client: 'crdgen', sync: [...oneList, SIZES[0]!], stream }),
      'crdgen-keep': on({ client: 'crdgen', keepManagedFields: true, sync: oneList, stream }),
      'client-node': on({ client: 'client-node', sync: SIZES, stream }),
      'crdgen-warm': on({ client: 'crdgen', warmHeap: true, sync: oneList }),
      'client-node-warm': on({ client: 'client-node', warmHeap: true, sync: SIZES }),
    };
    const reports = Object.fromEntries(CLIENTS.map((c) => [c, [] as ClientReport[]])) as Record<Client, ClientReport[]>;
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate which client goes first.
      const order = CLIENTS.map((_, i) => CLIENTS[(i + r) % CLIENTS.length]!);
      for (const client of order) {
        reports[client].push(await runClient(jobs[client]));
      }
      process.stderr.write(`  informer: round ${r + 1}/${ROUNDS}\n`);
    }
    console.log(`## informer — crdgen's informer factory vs client-node makeInformer, same server, ${ROUNDS} rounds, one fresh process per client per round`);
    console.log(`machine: ${machine()}`);
    console.log(`server: crdgen/testing in its own process; a DatabaseManager is ${bytes(objectJsonBytes)} of JSON as listed (with managedFields)\n`);
    type Series = { ms: number[]; cpu: number; heap: number };
    const series = (c: Client, i: number): Series => ({
      ms: reports[c].map((x) => x.sync[i]!.ms),
      cpu: median(reports[c].map((x) => x.sync[i]!.cpuMicrosPerObject)),
      heap: median(reports[c].map((x) => x.sync[i]!.heapPerObject)),
    });
    const rows: string[][] = [];
    const verdicts: string[] = [];
    SIZES.forEach((s, i) => {
      const base = series('crdgen', i);
      const lines: [string, Series][] = [[`${LABEL.crdgen}, one list request`, base]];
      if (i === 0) lines.push([`${LABEL.crdgen}, pages of 500 (its default)`, series('crdgen', SIZES.length)]);
      lines.push(
        [`${LABEL['crdgen-keep']}, one list request`, series('crdgen-keep', i)],
        [LABEL['client-node'], series('client-node', i)],
        [`${LABEL['crdgen-warm']}, one list request`, series('crdgen-warm', i)],
        [LABEL['client-node-warm'], series('client-node-warm', i)],
      );
      for (const [name, x] of lines) {
        rows.push([fmt(s.count), name, fmt(median(x.ms)), fmt((median(x.ms) * 1000) / s.count), times(pairedRatio(x.ms, base.ms)), fmt(x.cpu), bytes(x.heap), times(x.heap / objectJsonBytes)]);
      }
      const slower = pairedRatio(series('client-node', i).ms, base.ms);
      const keep = series('crdgen-keep', i);
      const slowerKeep = pairedRatio(series('client-node', i).ms, keep.ms);
      const slowerWarm = pairedRatio(series('client-node-warm', i).ms, series('crdgen-warm', i).ms);
      verdicts.push(
        `sync ${fmt(s.count)}: client-node takes ${times(slower)} crdgen's time — ${slower > 1 ? 'MET' : 'MISSED'}; crdgen heap per object ${times(base.heap / objectJsonBytes)} its JSON — ${base.heap <= 1.5 * objectJsonBytes ? 'MET' : 'MISSED'}` +
          ` (keepManagedFields: ${times(slowerKeep)}, heap ${times(keep.heap / objectJsonBytes)}; both heaps warmed first: ${times(slowerWarm)})`,
      );
    });
    console.log('### list and sync (time until the handler has seen every object), heap per cached object after GC\n');
    console.log(table(['objects', 'client', 'sync ms (median)', 'µs per object', 'time vs crdgen', 'client CPU µs per object', 'heap per object', 'heap / JSON size'], rows));
    const sources: [string, (r: ClientReport) => StreamReport][] = [
      ['served by crdgen/testing (the server sets the pace)', (r) => streamed(r.stream)],
      ['the same bytes from a pre-rendered replay (the client sets the pace)', (r) => streamed(r.replay)],
    ];
    console.log(`\n### a stream of ${fmt(STREAM.count)} watch events (ADDED), replayed from the resourceVersion before the objects were created\n`);
    const streamRows: string[][] = [];
    for (const [source, pick] of sources) {
      const eps = (c: Client): number[] => reports[c].map((x) => pick(x).eventsPerSecond);
      for (const c of CLIENTS.filter((x) => jobs[x].stream)) {
        streamRows.push([source, LABEL[c], fmt(median(eps(c))), times(pairedRatio(eps(c), eps('crdgen'))), fmt(median(reports[c].map((x) => pick(x).cpuMicrosPerEvent)))]);
      }
    }
    console.log(table(['stream', 'client', 'events/s (median)', 'vs crdgen', 'client CPU µs per event'], streamRows));
    // The target is judged on the replay: from crdgen/testing both clients wait on the server.
    const eps = (c: Client): number[] => reports[c].map((x) => streamed(x.replay).eventsPerSecond);
    const ratio = pairedRatio(eps('crdgen'), eps('client-node'));
    const ratioKeep = pairedRatio(eps('crdgen-keep'), eps('client-node'));
    verdicts.push(`event throughput (pre-rendered replay): crdgen ${times(ratio)} client-node's — ${ratio > 1 ? 'MET' : 'MISSED'} (keepManagedFields: ${times(ratioKeep)})`);
    console.log('\nTargets, judged on the default (faster sync and higher throughput than client-node; heap per object ≤ 1.5× its JSON):');
    for (const v of verdicts) console.log(`- ${v}`);
    console.log('\n### scaling: sync cost per object as the count grows\n');
    const perObject = (c: Client, i: number): string => fmt(median(reports[c].map((x) => (x.sync[i]!.ms * 1000) / x.sync[i]!.count)));
    console.log(table(['objects', 'crdgen µs per object', 'crdgen keepManagedFields', 'client-node µs per object'], SIZES.map((s, i) => [fmt(s.count), perObject('crdgen', i), perObject('crdgen-keep', i), perObject('client-node', i)])));
  } finally {
    await replay?.stop();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The stream report of a client that ran the stream. */
function streamed(r: StreamReport | undefined): StreamReport {
  if (!r) throw new Error('a stream client reported no stream');
  return r;
}

await main();
