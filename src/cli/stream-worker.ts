// A worker thread of a streaming run (stream.ts): checks inputs and generates clusters of groups
// as the main thread sends them (stream-jobs.ts), one message at a time, and stages their files
// itself. The main thread keeps the transaction and commits it.

import { parentPort } from 'node:worker_threads';
import { failureOf, jobHandler, type WorkerRequest } from './stream-jobs.js';

const handle = jobHandler();
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
