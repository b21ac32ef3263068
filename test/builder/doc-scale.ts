import { ConfigMapResource, ServiceResource, isNotFound, newControllerManagedBy, newManager, setControllerReference,
  type Manager, type RestConfig } from '../../src/runtime/index.js';

/** An operator that gives each ConfigMap of shard `a` a Service on the port its data names. */
export function shardManager(config: RestConfig): Manager {
  const manager = newManager({ client: config, name: 'exposer', cacheOptions: {
    byObject: [
      { resource: ConfigMapResource, labelSelector: 'shard=a' }, // this replica's shard: the server filters
      { resource: ServiceResource, keepManagedFields: true }, // what createOrUpdate judges them by
    ],
  } });
  newControllerManagedBy(manager)
    .for(ConfigMapResource)
    .owns(ServiceResource, { metadataOnly: true }) // PartialObjectMetadata: no Service is cached whole
    .withOptions({ maxConcurrentReconciles: 4 }) // the priority queue: new events before a backlog
    .complete(async (req, { client }) => {
      const cm = await client.get(ConfigMapResource, req).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
      if (!cm) return; // deleted: the garbage collector removes its Service
      await client.createOrUpdate(ServiceResource, req, (svc) => {
        setControllerReference(cm, svc, ConfigMapResource);
        svc.spec = { ...svc.spec, selector: { app: req.name }, ports: [{ port: Number(cm.data?.port) }] };
      });
    });
  return manager;
}
