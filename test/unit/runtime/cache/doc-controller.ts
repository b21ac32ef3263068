import { DeploymentResource, deletionHandlingMetaNamespaceKeyFunc, isNotFound, newControllerRef,
  newRateLimitingQueue, newSharedIndexInformer, resourceClient, splitMetaNamespaceKey, waitForCacheSync,
  type Deployment, type KubeObject, type RestConfig } from '../../../../src/runtime/index.js';

export interface DatabaseManager extends KubeObject {
  spec: { deploymentName: string; replicas: number; dbtype: string };
}
const GVK = { group: 'coolops.cn', version: 'v1alpha1', kind: 'DatabaseManager' };
const DM = { ...GVK, resource: 'databasemanagers', listKind: 'DatabaseManagerList', namespaced: true };

/** Keeps one Deployment per DatabaseManager, sized by spec.replicas, until `signal` aborts. */
export async function runController(config: RestConfig, workers: number, signal: AbortSignal): Promise<void> {
  const deployments = resourceClient<Deployment>(config, DeploymentResource);
  const informer = newSharedIndexInformer(resourceClient<DatabaseManager>(config, DM), { resyncPeriodMs: 30_000 });
  const queue = newRateLimitingQueue<string>(undefined, { name: 'databasemanagers' });
  const enqueue = (obj: unknown): void => queue.add(deletionHandlingMetaNamespaceKeyFunc(obj));
  informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: enqueue });

  async function syncHandler(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const dm = informer.getIndexer().getByKey(key);
    if (!dm) return; // deleted: the garbage collector removes the Deployment it owns
    const client = deployments.namespace(namespace);
    try {
      const current = await client.get(dm.spec.deploymentName);
      if (current.spec?.replicas !== dm.spec.replicas) await client.update({ ...current, spec: { ...current.spec, replicas: dm.spec.replicas } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const labels = { app: name };
      await client.create({ apiVersion: 'apps/v1', kind: 'Deployment',
        metadata: { name: dm.spec.deploymentName, namespace, ownerReferences: [newControllerRef(dm, GVK)] },
        spec: { replicas: dm.spec.replicas, selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'db', image: dm.spec.dbtype }] } } },
      });
    }
  }

  async function processNextWorkItem(): Promise<boolean> {
    const next = await queue.get();
    if (next.shutdown) return false;
    try {
      await syncHandler(next.item);
      queue.forget(next.item);
    } catch (err) {
      console.error(`sync ${next.item} failed, will retry: ${err instanceof Error ? err.message : JSON.stringify(err)}`);
      queue.addRateLimited(next.item);
    } finally {
      queue.done(next.item);
    }
    return true;
  }
  const informerDone = informer.run(signal);
  signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  if (await waitForCacheSync(signal, () => informer.hasSynced())) {
    await Promise.all(Array.from({ length: workers }, async () => { while (await processNextWorkItem()); }));
  }
  queue.shutDown();
  await informerDone;
}
