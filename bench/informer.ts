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
// Beside them, the floor of any JS client in a fresh process of its own: each list in one request
// (node's http module), JSON.parse'd, the handler called per item (the target bounds the sync at
// 1.5× it; measured after a sync in the same process it would use the heap the sync grew). With
// BENCH_INFORMER_VARIANTS=1,
// also crdgen with keepManagedFields and with its default pages of 500, and both clients syncing
// in a process whose heap was warmed first (~50 MB allocated and dropped): a fresh process pays
// for V8's heap growth (page faults, dear on this VM) in its first large list, and the lighter
// the library, the more of that growth is left to the list.
//   npm run bench -- informer      (or: node --import tsx bench/informer.ts)
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
import { recordVerdict } from './lib/verdicts.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Scales every count down for a quick trial (BENCH_INFORMER_SCALE=0.1); 1 for the real figures. */
const SCALE = Number(process.env.BENCH_INFORMER_SCALE ?? 1);
const n = (x: number): number => Math.max(1, Math.round(x * SCALE));
const SIZES = [
  { namespace: 'n1k', count: n(1_000) },
  { namespace: 'n10k', count: n(10_000) },
  { namespace: 'n50k', count: n(50_000) },
];
const STREAM = SIZES[2];
/**
 * crdgen: the factory's default (managedFields dropped); crdgen-keep: keepManagedFields; the
 * -warm ones sync only, with the heap warmed first (their jobs have no stream).
 */
const ALL_CLIENTS = ['crdgen', 'crdgen-keep', 'client-node', 'floor', 'crdgen-warm', 'client-node-warm'] as const;
type Client = (typeof ALL_CLIENTS)[number];
const VARIANTS = process.env.BENCH_INFORMER_VARIANTS === '1';
const CLIENTS: readonly Client[] = VARIANTS ? ALL_CLIENTS : ['crdgen', 'client-node', 'floor'];
const LABEL: Record<Client, string> = {
  crdgen: 'crdgen, default (managedFields dropped)',
  'crdgen-keep': 'crdgen, keepManagedFields',
  'client-node': 'client-node makeInformer',
  floor: "floor: the list in one request, JSON.parse'd, a handler call per item",
  'crdgen-warm': 'crdgen, default, heap warmed first',
  'client-node-warm': 'client-node makeInformer, heap warmed first',
};
const run = promisify(execFile);

/** Starts the server process; resolves with its URL and kubeconfig once the objects are seeded. */
async function startServer(): Promise<{
  url: string;
  kubeconfigPath: string;
  seconds: number;
  before: Record<string, string>;
  stop: () => Promise<void>;
}> {
  const spec = SIZES.map((s) => `${s.namespace}=${s.count}`).join(',');
  const child = spawn(process.execPath, [join(BENCH, 'lib', 'informer-server.mjs'), PKG, spec], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`informer server exited (${code}) before it was ready`)));
  });
  const info = JSON.parse(line) as {
    url: string;
    kubeconfigPath: string;
    seconds: number;
    before: Record<string, string>;
  };
  return { ...info, stop: async () => void (child.stdin.end(), await exited) };
}

/** Writes the empty list the stream clients start from; returns the mean JSON size of a listed object. */
async function prepareStream(url: string, before: string, listFile: string): Promise<number> {
  writeFileSync(
    listFile,
    JSON.stringify({
      apiVersion: 'coolops.cn/v1alpha1',
      kind: 'DatabaseManagerList',
      metadata: { resourceVersion: before },
      items: [],
    }),
  );
  const list = (await (
    await fetch(`${url}/apis/coolops.cn/v1alpha1/namespaces/${SIZES[0].namespace}/databasemanagers`)
  ).json()) as { items: unknown[] };
  return list.items.reduce<number>((n, o) => n + JSON.stringify(o).length, 0) / list.items.length;
}

async function runClient(job: ClientJob): Promise<ClientReport> {
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', join(BENCH, 'lib', 'informer-client.ts'), JSON.stringify(job)],
    {
      cwd: REPO,
      maxBuffer: 1024 * 1024,
      timeout: 600_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as ClientReport;
}

async function main(): Promise<void> {
  requireBuild();
  const scratch = mkdtempSync(join(tmpdir(), 'crdgen-bench-informer-'));
  const server = await startServer();
  let replay: Awaited<ReturnType<typeof startReplayServer>> | undefined;
  try {
    const listFile = join(scratch, 'stream-list.json');
    const before = server.before[STREAM.namespace];
    const objectJsonBytes = await prepareStream(server.url, before, listFile);
    process.stderr.write(`  informer: server started and seeded in ${fmt(server.seconds)} s\n`);
    const streamFile = join(scratch, 'stream.ndjson');
    await captureWatch(
      `${server.url}/apis/coolops.cn/v1alpha1/namespaces/${STREAM.namespace}/databasemanagers?watch=true&resourceVersion=${before}`,
      STREAM.count,
      streamFile,
    );
    replay = await startReplayServer(streamFile);
    const replayKubeconfigPath = join(scratch, 'replay-kubeconfig');
    retargetKubeconfig(server.kubeconfigPath, replay.url, replayKubeconfigPath);
    // crdgen lists in one request (pageSize 0, as client-node does; the verdicts use this), and
    // at 1k also with its default pages of 500. crdgen/testing pages a resourceVersion=0 list;
    // an apiserver serving it from its watch cache ignores the limit and answers it whole (until
    // KEP-4988's pagination from the cache), so only the one-request figures carry to a cluster.
    const oneList = SIZES.map((x) => ({ ...x, pageSize: 0 }));
    const stream = { namespace: STREAM.namespace, events: STREAM.count, listFile, replayKubeconfigPath };
    const on = (job: Omit<ClientJob, 'kubeconfigPath'>): ClientJob => ({
      ...job,
      kubeconfigPath: server.kubeconfigPath,
    });
    const jobs: Record<Client, ClientJob> = {
      crdgen: on({ client: 'crdgen', sync: VARIANTS ? [...oneList, SIZES[0]] : oneList, stream }),
      'crdgen-keep': on({ client: 'crdgen', keepManagedFields: true, sync: oneList, stream }),
      'client-node': on({ client: 'client-node', sync: SIZES, stream }),
      floor: on({ client: 'floor', sync: SIZES }),
      'crdgen-warm': on({ client: 'crdgen', warmHeap: true, sync: oneList }),
      'client-node-warm': on({ client: 'client-node', warmHeap: true, sync: SIZES }),
    };
    const reports = Object.fromEntries(ALL_CLIENTS.map((c) => [c, [] as ClientReport[]])) as Record<
      Client,
      ClientReport[]
    >;
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate which client goes first.
      const order = CLIENTS.map((_, i) => CLIENTS[(i + r) % CLIENTS.length]);
      for (const client of order) {
        reports[client].push(await runClient(jobs[client]));
      }
      process.stderr.write(`  informer: round ${r + 1}/${ROUNDS}\n`);
    }
    console.log(
      `## informer — crdgen's informer factory vs client-node makeInformer, same server, ${ROUNDS} rounds, one fresh process per client per round`,
    );
    console.log(`machine: ${machine()}`);
    console.log(
      `server: crdgen/testing in its own process; a DatabaseManager is ${bytes(objectJsonBytes)} of JSON as listed (with managedFields)\n`,
    );
    type Series = { ms: number[]; cpu: number; heap: number };
    const series = (c: Client, i: number): Series => ({
      ms: reports[c].map((x) => x.sync[i].ms),
      cpu: median(reports[c].map((x) => x.sync[i].cpuMicrosPerObject)),
      heap: median(reports[c].map((x) => x.sync[i].heapPerObject)),
    });
    const floorOf = (i: number): number[] => series('floor', i).ms;
    const rows: string[][] = [];
    const syncRatios: number[] = [];
    const floorRatios: number[] = [];
    const heapRatios: number[] = [];
    SIZES.forEach((s, i) => {
      const base = series('crdgen', i);
      const lines: [string, Series][] = [[`${LABEL.crdgen}, one list request`, base]];
      if (VARIANTS) {
        if (i === 0) lines.push([`${LABEL.crdgen}, pages of 500 (its default)`, series('crdgen', SIZES.length)]);
        lines.push([`${LABEL['crdgen-keep']}, one list request`, series('crdgen-keep', i)]);
      }
      lines.push([LABEL['client-node'], series('client-node', i)], [LABEL.floor, series('floor', i)]);
      if (VARIANTS)
        lines.push(
          [`${LABEL['crdgen-warm']}, one list request`, series('crdgen-warm', i)],
          [LABEL['client-node-warm'], series('client-node-warm', i)],
        );
      for (const [name, x] of lines) {
        rows.push([
          fmt(s.count),
          name,
          fmt(median(x.ms)),
          fmt((median(x.ms) * 1000) / s.count),
          times(pairedRatio(x.ms, base.ms)),
          fmt(x.cpu),
          bytes(x.heap),
          times(x.heap / objectJsonBytes),
        ]);
      }
      const floor = floorOf(i);
      syncRatios.push(pairedRatio(series('client-node', i).ms, base.ms));
      floorRatios.push(pairedRatio(base.ms, floor));
      heapRatios.push(base.heap / objectJsonBytes);
    });
    console.log('### list and sync (time until the handler has seen every object), heap per cached object after GC\n');
    console.log(
      table(
        [
          'objects',
          'client',
          'sync ms (median)',
          'µs per object',
          'time vs crdgen',
          'client CPU µs per object',
          'heap per object',
          'heap / JSON size',
        ],
        rows,
      ),
    );
    const sources: [string, (r: ClientReport) => StreamReport][] = [
      ['served by crdgen/testing (the server sets the pace)', (r) => streamed(r.stream)],
      ['the same bytes from a pre-rendered replay (the client sets the pace)', (r) => streamed(r.replay)],
    ];
    console.log(
      `\n### a stream of ${fmt(STREAM.count)} watch events (ADDED), replayed from the resourceVersion before the objects were created\n`,
    );
    const streamRows: string[][] = [];
    for (const [source, pick] of sources) {
      const eps = (c: Client): number[] => reports[c].map((x) => pick(x).eventsPerSecond);
      for (const c of CLIENTS.filter((x) => jobs[x].stream)) {
        streamRows.push([
          source,
          LABEL[c],
          fmt(median(eps(c))),
          times(pairedRatio(eps(c), eps('crdgen'))),
          fmt(median(reports[c].map((x) => pick(x).cpuMicrosPerEvent))),
        ]);
      }
    }
    console.log(table(['stream', 'client', 'events/s (median)', 'vs crdgen', 'client CPU µs per event'], streamRows));
    // The target is judged on the replay: from crdgen/testing both clients wait on the server.
    const eps = (c: Client): number[] => reports[c].map((x) => streamed(x.replay).eventsPerSecond);
    const ratio = pairedRatio(eps('crdgen'), eps('client-node'));
    const sizes = SIZES.map((s) => fmt(s.count)).join(' / ');
    const list = (xs: number[]): string => xs.map(times).join(' / ');
    const command = 'npm run bench -- informer';
    const ms = (c: Client): string => SIZES.map((_, i) => `${fmt(median(series(c, i).ms))}`).join(' / ');
    console.log('\nTargets (issue #26: fresh processes; issue #9: heap):');
    console.log(
      `- ${recordVerdict({ target: `informer sync ≥ 1.0× client-node's speed (${sizes}, crdgen/testing)`, crdgen: `${ms('crdgen')} ms`, peers: `client-node ${ms('client-node')} ms`, judged: `client-node takes ${list(syncRatios)} crdgen's time (≥ 1.00×)`, met: syncRatios.every((x) => x >= 1), command })}`,
    );
    console.log(
      `- ${recordVerdict({ target: "informer event throughput ≥ 1.0× client-node's (client-paced replay)", crdgen: `${fmt(median(eps('crdgen')))} events/s`, peers: `client-node ${fmt(median(eps('client-node')))} events/s`, judged: `${times(ratio)} (≥ 1.00×)`, met: ratio >= 1, command })}`,
    );
    console.log(
      `- ${recordVerdict({ target: `informer sync ≤ 1.5× fetch + JSON.parse of the same list (${sizes})`, crdgen: `${ms('crdgen')} ms`, peers: `floor ${SIZES.map((_, i) => fmt(median(floorOf(i)))).join(' / ')} ms`, judged: `${list(floorRatios)} the floor (≤ 1.50×)`, met: floorRatios.every((x) => x <= 1.5), command })}`,
    );
    console.log(
      `- ${recordVerdict({ target: `informer heap per cached object ≤ 1.5× its JSON (${sizes})`, crdgen: SIZES.map((_, i) => bytes(series('crdgen', i).heap)).join(' / '), peers: `client-node ${SIZES.map((_, i) => bytes(series('client-node', i).heap)).join(' / ')}; JSON ${bytes(objectJsonBytes)}`, judged: `${list(heapRatios)} (≤ 1.50×)`, met: heapRatios.every((x) => x <= 1.5), command })}`,
    );
    console.log('\n### scaling: sync cost per object as the count grows\n');
    const perObject = (c: Client, i: number): string =>
      fmt(median(reports[c].map((x) => (x.sync[i].ms * 1000) / x.sync[i].count)));
    console.log(
      table(
        ['objects', ...CLIENTS.map((c) => `${LABEL[c]}: µs per object`)],
        SIZES.map((s, i) => [fmt(s.count), ...CLIENTS.map((c) => perObject(c, i))]),
      ),
    );
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
