// Benchmark (on demand, not part of `npm test`): workqueue add/get/done cycles (one and
// four workers), delaying-queue addAfter, indexer writes with the namespace index, and
// DeltaFIFO add/pop.
//   node --import tsx bench/runtime-cache.ts [n=1000000]
import { performance } from 'node:perf_hooks';
import { newQueue } from '../src/runtime/workqueue/queue.js';
import { newDelayingQueue } from '../src/runtime/workqueue/delaying-queue.js';
import { FakeClock } from '../src/runtime/workqueue/clock.js';
import { newIndexer } from '../src/runtime/cache/thread-safe-store.js';
import { DeltaFIFO } from '../src/runtime/cache/delta-fifo.js';
import type { KubeObject } from '../src/runtime/meta/types.js';

const n = Number(process.argv[2] ?? 1_000_000);

async function timed(name: string, ops: number, fn: () => Promise<void> | void): Promise<void> {
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  console.log(
    `${name.padEnd(44)} ${(ops / ms / 1000).toFixed(2).padStart(7)} M ops/s  (${ops} in ${ms.toFixed(0)} ms)`,
  );
}

await timed('queue add/get/done, 1 worker', n, async () => {
  const q = newQueue<number>();
  for (let i = 0; i < n; i++) {
    q.add(i & 1023);
    const r = await q.get();
    q.done(r.item as number);
  }
});

await timed('queue add/get/done, 4 workers, 1024 keys', n, async () => {
  const q = newQueue<number>();
  let left = n;
  const worker = async (): Promise<void> => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      q.done(r.item);
    }
  };
  const ws = [worker(), worker(), worker(), worker()];
  while (left > 0) {
    for (let i = 0; i < 1024 && left > 0; i++, left--) q.add(i);
    await new Promise((r) => setImmediate(r));
  }
  q.shutDown();
  await Promise.all(ws);
});

await timed('delaying queue addAfter + fire (fake clock)', n / 10, async () => {
  const clock = new FakeClock();
  const q = newDelayingQueue<number>({ clock });
  for (let i = 0; i < n / 10; i++) q.addAfter(i, (i * 7919) % 10_000);
  clock.step(10_000);
  q.shutDown();
});

const objs: KubeObject[] = Array.from({ length: 10_000 }, (_, i) => ({
  metadata: { namespace: `ns${i % 50}`, name: `o${i}`, resourceVersion: String(i) },
}));

await timed('indexer add/update (namespace index)', n, () => {
  const idx = newIndexer<KubeObject>();
  for (let i = 0; i < n; i++) idx.update(objs[i % objs.length]);
});

await timed('DeltaFIFO add + pop', n / 2, async () => {
  const f = new DeltaFIFO<KubeObject>();
  for (let i = 0; i < n / 2; i++) {
    f.add(objs[i % objs.length]);
    if (f.len() >= 1000) while (f.len() > 0) await f.pop(() => {});
  }
  while (f.len() > 0) await f.pop(() => {});
});
