// A consistent-hash ring over the live shards: each shard stands on the ring at a number of
// points (virtual nodes) hashed from its name; an object belongs to the first point at or after
// its key's hash. Adding or removing one shard of N moves about 1/N of the objects, and only
// to or from that shard.
import { createHash } from 'node:crypto';

/** Points per shard: enough that 3 shards hold their thirds within a few per cent. */
export const DEFAULT_VIRTUAL_NODES = 100;

/** The 32-bit hash of `text` (the first 4 bytes of its SHA-1: stable across processes and versions). */
export function hash32(text: string): number {
  return createHash('sha1').update(text).digest().readUInt32BE(0);
}

/** An object's hash key: group, kind, namespace and name (the sharder's and the shard's). */
export function objectHashKey(group: string, kind: string, namespace: string, name: string): string {
  return `${group}/${kind}/${namespace}/${name}`;
}

/** An immutable ring over `shards`. */
export class HashRing {
  /** Sorted points, and the shard at each. */
  private readonly points: number[] = [];
  private readonly owners: string[] = [];
  /** The shards, sorted. */
  readonly shards: readonly string[];

  constructor(shards: Iterable<string>, virtualNodes: number = DEFAULT_VIRTUAL_NODES) {
    this.shards = [...new Set(shards)].sort();
    const all: Array<[number, string]> = [];
    for (const s of this.shards) for (let i = 0; i < virtualNodes; i++) all.push([hash32(`${s}#${i}`), s]);
    // ties (two shards on one point) go to the smaller name, the same in every process
    all.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    for (const [p, s] of all) {
      this.points.push(p);
      this.owners.push(s);
    }
  }

  /** The shard of `key`, or undefined when the ring is empty. */
  shardFor(key: string): string | undefined {
    if (this.points.length === 0) return undefined;
    const h = hash32(key);
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid] < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === this.points.length ? 0 : lo];
  }

  /** True when both rings have the same shards. */
  sameShards(other: HashRing): boolean {
    return this.shards.length === other.shards.length && this.shards.every((s, i) => s === other.shards[i]);
  }
}
