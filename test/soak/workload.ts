// The soak's driver of DatabaseManagers: keeps `objects` of them alive in three namespaces and,
// one operation per step, creates, scales, changes the database type of, and deletes them.
// Every choice comes from the soak's PRNG; failed requests (faults are on) are counted, not retried.
import { PatchType, type ResourceClient, type KubeObject, type Condition } from '../../src/runtime/index.js';
import type { Prng } from './prng.js';

/** The DatabaseManager as the soak sees it. */
export interface DM extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: { availableReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
}

/** The resource of DatabaseManagers. */
export const DM_RESOURCE = {
  group: 'coolops.cn',
  version: 'v1alpha1',
  resource: 'databasemanagers',
  kind: 'DatabaseManager',
  listKind: 'DatabaseManagerList',
  namespaced: true,
};
/** Namespaces the driver spreads objects over. */
export const SOAK_NAMESPACES = ['default', 'soak-a', 'soak-b'];
/** The database types the generated operator knows (a spec with another one is a different test). */
export const DB_TYPES = ['mysql', 'postgres', 'redis', 'mongodb'];

/** What the driver did. */
export interface WorkloadCounts {
  create: number;
  scale: number;
  retype: number;
  delete: number;
  /** Requests of the driver that failed (injected faults, a restarting server). */
  failed: number;
}

/** The driver. `live` holds `namespace/name` of objects it believes exist (sorted for stable picks). */
export class Workload {
  readonly counts: WorkloadCounts = { create: 0, scale: 0, retype: 0, delete: 0, failed: 0 };
  private readonly live: string[] = [];
  private seq = 0;

  constructor(
    private readonly dms: ResourceClient<DM>,
    private readonly objects: number,
    private readonly prng: Prng,
  ) {}

  /** Objects the driver believes exist (`namespace/name`). */
  liveKeys(): readonly string[] {
    return this.live;
  }

  /** One operation: create while fewer than `objects` live, else scale 45%, retype 25%, delete 30%. */
  async step(): Promise<void> {
    if (this.live.length < this.objects) return this.create();
    const r = this.prng.next();
    const key = this.prng.pick(this.live);
    if (r < 0.45) return this.scale(key);
    if (r < 0.7) return this.retype(key);
    return this.remove(key);
  }

  private async create(): Promise<void> {
    const ns = this.prng.pick(SOAK_NAMESPACES);
    const name = `dm-${this.seq++}`;
    const spec = { deploymentName: `${name}-db`, replicas: this.prng.int(1, 10), dbtype: this.prng.pick(DB_TYPES) };
    this.counts.create++;
    try {
      await this.dms.namespace(ns).create({
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'DatabaseManager',
        metadata: { name, namespace: ns },
        spec,
      });
      this.insert(`${ns}/${name}`);
    } catch {
      // A failed create may still have happened (connection dropped after the write): the
      // final check reads the server, so such an object is checked like any other.
      this.counts.failed++;
    }
  }

  private async scale(key: string): Promise<void> {
    const [ns, name] = key.split('/') as [string, string];
    this.counts.scale++;
    await this.patch(ns, name, { spec: { replicas: this.prng.int(1, 10) } });
  }

  private async retype(key: string): Promise<void> {
    const [ns, name] = key.split('/') as [string, string];
    this.counts.retype++;
    await this.patch(ns, name, { spec: { dbtype: this.prng.pick(DB_TYPES) } });
  }

  private async remove(key: string): Promise<void> {
    const [ns, name] = key.split('/') as [string, string];
    this.counts.delete++;
    try {
      await this.dms.namespace(ns).delete(name);
      this.live.splice(this.live.indexOf(key), 1);
    } catch (e) {
      if ((e as { code?: number }).code === 404) this.live.splice(this.live.indexOf(key), 1);
      else this.counts.failed++;
    }
  }

  private async patch(ns: string, name: string, body: unknown): Promise<void> {
    try {
      await this.dms.namespace(ns).patch(name, PatchType.Merge, body);
    } catch {
      this.counts.failed++;
    }
  }

  private insert(key: string): void {
    let lo = 0;
    let hi = this.live.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.live[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    this.live.splice(lo, 0, key);
  }
}
