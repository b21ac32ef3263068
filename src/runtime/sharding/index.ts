// Sharding a controller over its replicas on Kubernetes Leases: the ring, the shard member,
// the sharder, their labels and metrics.
export * from './names.js';
export * from './ring.js';
export * from '../metrics/sharding.js';
export * from './shard.js';
export * from './sharder.js';
