// The Storage contract on both backends: memory, and etcd (an etcd process started here).
import { after } from 'node:test';
import { openEtcdStorage } from '../../src/testing/storage/etcd.js';
import type { EtcdProcess } from '../../src/testing/storage/etcd-server.js';
import { MemoryStorage } from '../../src/testing/index.js';
import { storageContract } from './contract.js';
import { startTestEtcd } from './support.js';

storageContract({
  name: 'memory',
  make: async () => ({ storage: new MemoryStorage(), dispose: async () => undefined }),
});

let etcd: EtcdProcess | undefined;
after(async () => {
  await etcd?.stop();
});
storageContract({
  name: 'etcd',
  make: async () => {
    etcd ??= await startTestEtcd();
    const storage = await openEtcdStorage({ endpoints: [etcd.endpoint], prefix: '/contract' });
    return { storage, dispose: () => storage.close() };
  },
});
