// The names sharding puts on objects and Leases: the shard label an object's shard is read
// from, the drain label that asks a shard to let an object go, the ring label of the shard
// Leases, and a default shard name per process.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { labelKeyErrors, labelValueErrors } from '../labels/selector.js';

/** `shard.crdgen.io/<ring>`: the shard an object is assigned to. */
export function shardLabel(ring: string): string {
  return `shard.crdgen.io/${ring}`;
}

/** `drain.shard.crdgen.io/<ring>`: set by the sharder while it moves an object off its shard. */
export function drainLabel(ring: string): string {
  return `drain.shard.crdgen.io/${ring}`;
}

/** The label every shard Lease of a ring carries, with the ring's name as its value. */
export const RING_LABEL = 'ring.shard.crdgen.io/name';

/** The Lease the sharder of `ring` is elected on. */
export function sharderLeaseName(ring: string): string {
  return `${ring}-sharder`;
}

/**
 * Throws unless `ring` can name the labels (a label key's name part: at most 63 characters
 * of `[a-z0-9A-Z-_.]`, alphanumeric at both ends) and `shard` is a label value and a Lease name.
 */
export function checkShardNames(ring: string, shard: string): void {
  const keyErrors = labelKeyErrors(drainLabel(ring));
  if (keyErrors.length > 0)
    throw new Error(`sharding: the ring ${JSON.stringify(ring)} cannot name a label: ${keyErrors[0]}`);
  const valueErrors = labelValueErrors(shard);
  if (valueErrors.length > 0 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(shard))
    throw new Error(
      `sharding: the shard name ${JSON.stringify(shard)} must be a label value and a Lease name (lowercase letters, digits and '-', at most 63)${valueErrors[0] ? `: ${valueErrors[0]}` : ''}`,
    );
}

/**
 * A shard name for this process: the host name (a pod's name in a cluster) made a valid label
 * value, and a random suffix, so two processes on one host are two shards.
 */
export function defaultShardName(host: string = hostname()): string {
  const base = host
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/, '');
  return `${base || 'shard'}-${randomBytes(3).toString('hex')}`;
}
