// A worker thread of a streaming run (stream.ts): checks inputs and generates clusters of groups
// as the main thread sends them (stream-jobs.ts), one message at a time, and stages their files
// itself; it keeps the checked CRDs of the inputs it checks, within its budget, for the clusters
// the main thread then sends it. The main thread keeps the transaction and commits it.

import { parentPort, workerData } from 'node:worker_threads';
import { failureOf, jobHandler, Keeper, type WorkerRequest } from './stream-jobs.js';

// the share of the budgets for kept inputs this thread has (every thread of the run keeps)
const handle = jobHandler(new Keeper((workerData as { keepShare: number }).keepShare));
let queue = Promise.resolve();
parentPort!.on('message', (msg: WorkerRequest) => {
  queue = queue.then(async () => {
    try {
      const reply = await handle(msg);
      if (reply !== undefined) parentPort!.postMessage(reply);
    } catch (e) {
      parentPort!.postMessage({ id: 'id' in msg ? msg.id : -1, failure: failureOf(e) });
    }
  });
});
