// The DatabaseManager operator written directly on @kubernetes/client-node (its makeInformer,
// its typed API clients), as a developer without crdgen would: the same job as the generated
// operator, for the operator benchmark's side-by-side rows. One Deployment per DatabaseManager
// (image and port per dbtype, replicas, controller ownerReference), replicas and image put back;
// a ClusterIP Service of the same name on the database port (type, selector and ports put back);
// status.availableReplicas and a Ready condition written through /status when they change.
// What client-node does not have is written here at its simplest: a de-duplicating queue
// that never hands one key to two workers, and a per-key exponential backoff on errors.
// It logs the generated operator's lines the benchmark reads ("caches synced; starting
// workers", "reconciled" with the key), as JSON on stdout.
//   node operator-client-node.mjs --kubeconfig <file> [--workers 4] [--namespace <ns>]
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';

const GROUP = 'coolops.cn';
const VERSION = 'v1alpha1';
const PLURAL = 'databasemanagers';
const IMAGES: Record<string, string> = {
  mysql: 'mysql:8.4',
  postgres: 'postgres:17',
  redis: 'redis:7.4',
  mongodb: 'mongo:8.0',
};
const PORTS: Record<string, number> = { mysql: 3306, postgres: 5432, redis: 6379, mongodb: 27017 };

interface DatabaseManager extends k8s.KubernetesObject {
  spec?: { deploymentName?: string; replicas?: number; dbtype?: string };
  status?: { availableReplicas?: number; observedGeneration?: number; conditions?: k8s.V1Condition[] };
}

function log(fields: Record<string, unknown>, msg: string): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg, ...fields })}\n`);
}

/** A queue of keys: a key waiting is not added twice; a key being processed is re-queued once when done. */
class KeyQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly waiters: Array<(key: string) => void> = [];
  private readonly failures = new Map<string, number>();

  add(key: string): void {
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queued.add(key);
    this.waiting.push(key);
  }

  get(): Promise<string> {
    const key = this.waiting.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  /** Re-adds `key` after 5 ms × 2^failures (at most 1000 s), as client-go's default item backoff. */
  retry(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    setTimeout(() => this.add(key), Math.min(5 * 2 ** n, 1_000_000)).unref();
  }

  forget(key: string): void {
    this.failures.delete(key);
  }
}

function statusCode(err: unknown): number | undefined {
  const e = err as { code?: number; statusCode?: number };
  return e.code ?? e.statusCode;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      workers: { type: 'string', default: '4' },
      namespace: { type: 'string' },
    },
  });
  const kc = new k8s.KubeConfig();
  if (values.kubeconfig) kc.loadFromFile(values.kubeconfig);
  else kc.loadFromDefault();
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const custom = kc.makeApiClient(k8s.CustomObjectsApi);
  const ns = values.namespace;
  const within = ns ? `/namespaces/${ns}` : '';
  const dms = k8s.makeInformer<DatabaseManager>(
    kc,
    `/apis/${GROUP}/${VERSION}${within}/${PLURAL}`,
    () =>
      (ns
        ? custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL })
        : custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })) as Promise<
        k8s.KubernetesListObject<DatabaseManager>
      >,
  );
  const deployments = k8s.makeInformer<k8s.V1Deployment>(kc, `/apis/apps/v1${within}/deployments`, () =>
    ns ? apps.listNamespacedDeployment({ namespace: ns }) : apps.listDeploymentForAllNamespaces(),
  );
  const services = k8s.makeInformer<k8s.V1Service>(kc, `/api/v1${within}/services`, () =>
    ns ? core.listNamespacedService({ namespace: ns }) : core.listServiceForAllNamespaces(),
  );
  const queue = new KeyQueue();
  const keyOf = (o: k8s.KubernetesObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  dms.on('add', (o) => queue.add(keyOf(o)));
  dms.on('update', (o) => queue.add(keyOf(o)));
  const owner = (d: k8s.V1Deployment | k8s.V1Service): void => {
    const ref = d.metadata?.ownerReferences?.find((r) => r.controller);
    if (ref?.kind === 'DatabaseManager' && ref.apiVersion.startsWith(`${GROUP}/`))
      queue.add(`${d.metadata?.namespace ?? ''}/${ref.name}`);
  };
  deployments.on('add', owner);
  deployments.on('update', owner);
  deployments.on('delete', owner);
  services.on('add', owner);
  services.on('update', owner);
  services.on('delete', owner);
  for (const inf of [dms, deployments, services] as k8s.Informer<k8s.KubernetesObject>[])
    inf.on('error', (e: unknown) => log({ err: String(e) }, 'informer error'));
  await Promise.all([dms.start(), deployments.start(), services.start()]);
  log({}, 'caches synced; starting workers');

  const reconcile = async (key: string): Promise<void> => {
    const [namespace, name] = key.split('/') as [string, string];
    const dm = dms.get(name, namespace);
    if (!dm) return;
    const depName = dm.spec?.deploymentName ?? '';
    const image = IMAGES[dm.spec?.dbtype ?? ''];
    const replicas = dm.spec?.replicas ?? 1;
    let dep = deployments.get(depName, namespace);
    if (image && depName) {
      const labels = { app: depName, controller: name };
      const dbtype = dm.spec?.dbtype ?? 'db';
      const port = PORTS[dbtype];
      const ownerReferences = [
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'DatabaseManager',
          name,
          uid: dm.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ];
      if (!dep) {
        const body: k8s.V1Deployment = {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: depName, namespace, labels, ownerReferences },
          spec: {
            replicas,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                containers: [{ name: dbtype, image, ports: [{ name: dbtype, containerPort: port, protocol: 'TCP' }] }],
              },
            },
          },
        };
        dep = await apps.createNamespacedDeployment({ namespace, body });
      }
      if (!dep.metadata?.ownerReferences?.some((r) => r.controller && r.uid === dm.metadata?.uid))
        throw new Error(`Deployment ${depName} is not controlled by ${name}`);
      const container = dep.spec?.template.spec?.containers[0];
      if (dep.spec?.replicas !== replicas || container?.image !== image) {
        const body = structuredClone(dep);
        body.spec!.replicas = replicas;
        body.spec!.template.spec!.containers[0].image = image;
        dep = await apps.replaceNamespacedDeployment({ name: depName, namespace, body });
      }
      const svcSpec: k8s.V1ServiceSpec = {
        type: 'ClusterIP',
        selector: labels,
        ports: [{ name: dbtype, port, targetPort: dbtype, protocol: 'TCP' }],
      };
      const svc = services.get(depName, namespace);
      if (!svc) {
        await core.createNamespacedService({
          namespace,
          body: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: depName, namespace, labels, ownerReferences },
            spec: svcSpec,
          },
        });
      } else {
        if (!svc.metadata?.ownerReferences?.some((r) => r.controller && r.uid === dm.metadata?.uid))
          throw new Error(`Service ${depName} is not controlled by ${name}`);
        const p = svc.spec?.ports?.[0];
        const drift =
          svc.spec?.type !== 'ClusterIP' ||
          JSON.stringify(svc.spec?.selector) !== JSON.stringify(labels) ||
          svc.spec?.ports?.length !== 1 ||
          p?.name !== dbtype ||
          p.port !== port ||
          String(p.targetPort) !== dbtype ||
          p.protocol !== 'TCP';
        if (drift) {
          const body = structuredClone(svc);
          body.spec = { ...body.spec, ...svcSpec };
          await core.replaceNamespacedService({ name: depName, namespace, body });
        }
      }
    }
    const available = dep?.status?.availableReplicas ?? 0;
    const ready = Boolean(image) && available === replicas;
    const prev = dm.status?.conditions?.find((c) => c.type === 'Ready');
    const status = ready ? 'True' : 'False';
    const reason = !image ? 'UnknownDBType' : ready ? 'DeploymentAvailable' : 'DeploymentProgressing';
    const generation = dm.metadata?.generation ?? 0;
    if (
      dm.status?.availableReplicas === available &&
      dm.status?.observedGeneration === generation &&
      prev?.status === status &&
      prev.reason === reason
    )
      return;
    const condition: k8s.V1Condition = {
      type: 'Ready',
      status,
      reason,
      message: `${available}/${replicas} replicas available`,
      observedGeneration: generation,
      lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : new Date(),
    };
    const body: DatabaseManager = {
      ...dm,
      status: { availableReplicas: available, observedGeneration: generation, conditions: [condition] },
    };
    await custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: PLURAL,
      name,
      body,
    });
  };

  const worker = async (): Promise<never> => {
    for (;;) {
      const key = await queue.get();
      const startedAt = new Date().toISOString();
      let result = 'success';
      try {
        await reconcile(key);
        queue.forget(key);
      } catch (err) {
        result = statusCode(err) === 409 ? 'requeue' : 'error';
        queue.retry(key);
      } finally {
        queue.done(key);
      }
      log({ key, result, startedAt }, 'reconciled');
    }
  };
  const workers = Math.max(1, Number(values.workers));
  await Promise.all(Array.from({ length: workers }, () => worker()));
}

process.on('SIGTERM', () => process.exit(0));
await main();
