// What sharding records: per shard the objects it holds by kind, objects moved in and out,
// drains and how long they took; for the sharder the ring's size and how long objects waited
// for an assignment. runOperator backs it with its Prometheus registry.

/** A shard's and the sharder's metrics. */
export interface ShardingMetrics {
  /** The shard holds `count` objects of `kind` in its cache. */
  setObjects(kind: string, count: number): void;
  /** An object came to the shard (assigned to it while it runs) or left it (a drain it acknowledged). */
  moved(direction: 'in' | 'out'): void;
  /** The shard acknowledged a drain `seconds` after it saw the drain label. */
  observeDrain(seconds: number): void;
  /** The sharder's ring has `size` live shards. */
  setRingSize(size: number): void;
  /** An object waited `seconds` from when the sharder saw it unassigned (or on a dead shard) to its assignment. */
  observeAssignmentLag(seconds: number): void;
}

/** Records nothing. */
export const noopShardingMetrics: ShardingMetrics = {
  setObjects: () => undefined,
  moved: () => undefined,
  observeDrain: () => undefined,
  setRingSize: () => undefined,
  observeAssignmentLag: () => undefined,
};
