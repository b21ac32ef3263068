// Benchmark: workqueue add/get/done cycles per second with 1, 2 and 8 workers, with and
// without duplicate adds, for the basic queue and the rate-limiting queue (the controller's:
// get → forget → done), beside a bare array queue with the same async get (no de-duplication,
// no processing set: the floor of this design).
//   npm run bench -- workqueue     (or: node --expose-gc --import tsx bench/workqueue.ts [rounds=7] [adds=200000])
import { importDist } from './lib/env.js';
import { fmt, machine, median, pairedRatio, range, table, times } from './lib/stats.js';
import { recordVerdict } from './lib/verdicts.js';
import type * as Runtime from '../src/runtime/index.js';

const ROUNDS = Math.max(7, Number(process.argv[2] ?? 7));
const ADDS = Number(process.argv[3] ?? 200_000);
const BATCH = 1000;

/** The part of a queue the benchmark drives. */
interface BenchQueue {
  add(item: string): void;
  get(): Promise<{ item: string; shutdown: false } | { item: undefined; shutdown: true }>;
  done(item: string): void;
  forget?(item: string): void;
  shutDown(): void;
}

/** A bare FIFO with an async get: what any promise-based queue costs at least. */
class BareQueue implements BenchQueue {
  private items: string[] = [];
  private head = 0;
  private waiters: ((r: { item: string; shutdown: false } | { item: undefined; shutdown: true }) => void)[] = [];
  private closed = false;
  add(item: string): void {
    const w = this.waiters.shift();
    if (w) w({ item, shutdown: false });
    else this.items.push(item);
  }
  get(): Promise<{ item: string; shutdown: false } | { item: undefined; shutdown: true }> {
    if (this.head < this.items.length) {
      const item = this.items[this.head++];
      if (this.head > 4096 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ item, shutdown: false });
    }
    if (this.closed) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((r) => this.waiters.push(r));
  }
  done(): void {}
  shutDown(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w({ item: undefined, shutdown: true });
  }
}

const keys = Array.from({ length: BATCH }, (_, i) => `default/databasemanager-${i}`);

/**
 * Runs `workers` loops over a fresh queue while a producer adds ADDS keys in batches of
 * BATCH (yielding to the event loop between batches). With `duplicates`, every key of a
 * batch is added twice. Returns adds and processed items (get → done cycles) per second.
 */
async function cycles(
  make: () => BenchQueue,
  workers: number,
  duplicates: boolean,
): Promise<{ adds: number; cycles: number }> {
  const q = make();
  let processed = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      q.forget?.(r.item);
      q.done(r.item);
      processed++;
    }
  };
  const t0 = performance.now();
  const running = Array.from({ length: workers }, worker);
  const half = BATCH / 2;
  for (let added = 0; added < ADDS; added += BATCH) {
    if (duplicates)
      for (let i = 0; i < half; i++) {
        q.add(keys[i]);
        q.add(keys[i]);
      }
    else for (let i = 0; i < BATCH; i++) q.add(keys[i]);
    await new Promise<void>((r) => setImmediate(r));
  }
  q.shutDown();
  await Promise.all(running);
  const ms = performance.now() - t0;
  const expected = duplicates ? ADDS / 2 : ADDS;
  if (processed < expected) throw new Error(`processed ${processed} of ${expected}`);
  return { adds: (ADDS / ms) * 1000, cycles: (processed / ms) * 1000 };
}

async function main(): Promise<void> {
  const rt = await importDist<typeof Runtime>('runtime/index.js');
  const queues: { name: string; make: () => BenchQueue }[] = [
    { name: 'crdgen newQueue', make: () => rt.newQueue<string>() },
    { name: 'crdgen newRateLimitingQueue (get → forget → done)', make: () => rt.newRateLimitingQueue<string>() },
    { name: 'bare array queue (no de-dup; floor)', make: () => new BareQueue() },
  ];
  const configs = [1, 2, 8].flatMap((w) => [false, true].map((d) => ({ workers: w, duplicates: d })));
  console.log(`## workqueue — ${ROUNDS} rounds of ${fmt(ADDS)} adds (batches of ${BATCH}) per queue and configuration`);
  console.log(`machine: ${machine()}\n`);
  const rows: string[][] = [];
  let single = Number.NaN;
  for (const c of configs) {
    const res = queues.map(() => [] as number[]);
    const adds = queues.map(() => [] as number[]);
    await cycles(queues[0].make, c.workers, c.duplicates); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      for (let j = 0; j < queues.length; j++) {
        const i = (j + r) % queues.length;
        const m = await cycles(queues[i].make, c.workers, c.duplicates);
        res[i].push(m.cycles);
        adds[i].push(m.adds);
      }
    }
    if (c.workers === 1 && !c.duplicates) single = median(res[0]);
    queues.forEach((q, i) => {
      const { min, max } = range(res[i]);
      rows.push([
        q.name,
        String(c.workers),
        c.duplicates ? 'each key added twice' : 'no',
        fmt(median(res[i])),
        `${fmt(min)}–${fmt(max)}`,
        fmt(median(adds[i])),
        times(pairedRatio(adds[i], adds[0])),
      ]);
    });
  }
  console.log(
    table(
      ['queue', 'workers', 'duplicates', 'cycles/s (median)', 'min–max', 'adds/s (median)', 'adds/s vs newQueue'],
      rows,
    ),
  );
  console.log(
    '\nA cycle is one get → done of a processed item; with duplicates the crdgen queues process half the adds (de-duplication), the bare queue all of them.',
  );
  console.log(
    `\n- ${recordVerdict({ target: 'workqueue ≥ 1M add/get/done cycles/s, one worker', crdgen: `${fmt(single)} cycles/s`, peers: '—', judged: `${fmt(single / 1e6)}M (≥ 1M)`, met: single >= 1e6, command: 'npm run bench -- workqueue' })}`,
  );
}

await main();
