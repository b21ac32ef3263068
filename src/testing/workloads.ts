// Workload simulation (opt-in): a stand-in for the deployment and replicaset controllers
// that, after a delay, sets a Deployment's status to match its spec, so an operator sees
// Deployments become available as in a cluster.
import type { KubeObject } from '../runtime/meta/types.js';
import type { ObjectService } from './objects.js';
import { nowRfc3339 } from './meta.js';
import type { Storage } from './storage/storage.js';
import type { StorageWatch } from './storage/storage.js';

type Rec = Record<string, unknown>;

/** Simulates the deployment controller for every Deployment in the store. */
export class WorkloadSimulator {
  private watch: StorageWatch | undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly svc: ObjectService,
    private readonly storage: Storage,
    private readonly delayMs: number,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Starts following Deployments. */
  async start(): Promise<void> {
    const snap = await this.storage.list('/apps/deployments/');
    snap.items.forEach((o, i) => this.consider(snap.keys[i], o));
    this.watch = this.storage.watch('/apps/deployments/', snap.revision, (e) => {
      if (e.type === 'DELETED') this.cancel(e.key);
      else this.consider(e.key, e.object);
    });
  }

  /** Stops; pending status updates are dropped. */
  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private cancel(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  private consider(key: string, obj: KubeObject): void {
    if (obj.metadata?.deletionTimestamp) return;
    const spec = (obj as { spec?: Rec }).spec ?? {};
    const status = (obj as { status?: Rec }).status ?? {};
    const want = Number(spec.replicas ?? 1);
    const settled =
      status.observedGeneration === obj.metadata?.generation &&
      Number(status.replicas ?? 0) === want &&
      Number(status.readyReplicas ?? 0) === want &&
      Number(status.availableReplicas ?? 0) === want &&
      Number(status.updatedReplicas ?? 0) === want &&
      Array.isArray(status.conditions);
    if (settled) return;
    this.cancel(key);
    const ns = obj.metadata?.namespace;
    const name = obj.metadata?.name ?? '';
    const t = setTimeout(() => {
      this.timers.delete(key);
      if (this.stopped) return;
      this.settle(ns, name).catch(this.onError);
    }, this.delayMs);
    this.timers.set(key, t);
  }

  private async settle(ns: string | undefined, name: string): Promise<void> {
    const res = this.svc.registry.lookup('apps', 'v1', 'deployments')!;
    await this.svc.guaranteedUpdate(
      res,
      ns,
      name,
      (cur) => {
        const spec = (cur as { spec?: Rec }).spec ?? {};
        const prev = (cur as { status?: Rec }).status ?? {};
        const want = Number(spec.replicas ?? 1);
        const now = nowRfc3339();
        const prevConds = Array.isArray(prev.conditions) ? (prev.conditions as Rec[]) : [];
        const since = (type: string): string =>
          (prevConds.find((c) => c.type === type && c.status === 'True')?.lastTransitionTime as string) ?? now;
        const rsName = `${name}-${hashName(JSON.stringify(spec.template ?? {}))}`;
        const status: Rec = {
          observedGeneration: cur.metadata?.generation ?? 1,
          replicas: want,
          updatedReplicas: want,
          readyReplicas: want,
          availableReplicas: want,
          conditions: [
            {
              type: 'Available',
              status: 'True',
              lastUpdateTime: now,
              lastTransitionTime: since('Available'),
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
            },
            {
              type: 'Progressing',
              status: 'True',
              lastUpdateTime: now,
              lastTransitionTime: since('Progressing'),
              reason: 'NewReplicaSetAvailable',
              message: `ReplicaSet "${rsName}" has successfully progressed.`,
            },
          ],
        };
        if (want === 0) {
          delete status.readyReplicas;
          delete status.availableReplicas;
          delete status.updatedReplicas;
          delete status.replicas;
        }
        (cur as { status?: Rec }).status = status;
        return cur;
      },
      { subresource: 'status', fieldManager: 'kube-controller-manager' },
    );
  }
}

function hashName(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  const chars = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let i = 0; i < 10; i++) {
    out += chars[h % chars.length];
    h = Math.floor(h / chars.length) || (h ^ 0x9e3779b9) >>> 0;
  }
  return out;
}
