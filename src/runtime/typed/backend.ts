// ClientBackend: where a generated clientset's typed clients get their generic
// resource clients from. The real one talks HTTP (RestClient); the fake one
// (runtime/fake) answers from an in-memory object tracker. Generated code only ever
// sees this interface, so the real and fake clientsets share every line.
import type { KubeList, KubeObject } from '../meta/types.js';
import type { RestConfig } from '../client/config.js';
import { RestClient } from '../client/rest-client.js';
import type { ResourceClient, ResourceDescriptor, GetOptions, UpdateOptions } from '../client/resource.js';
import { groupVersionPath, ResourceClientImpl } from '../client/resource-client.js';
import type { Scale, ScaleClient } from './scale.js';

/** Source of resource clients for one cluster (or one fake). */
export interface ClientBackend {
  /**
   * A client of `descriptor`, bound to `namespace` when given and not `''` (`''` means all
   * namespaces, as metav1.NamespaceAll). Cluster-scoped resources ignore the namespace.
   */
  resource<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
    descriptor: ResourceDescriptor,
    namespace?: string,
  ): ResourceClient<T, TList>;
  /** The scale subresource client of `descriptor` in `namespace`. */
  scale(descriptor: ResourceDescriptor, namespace?: string): ScaleClient;
  /**
   * A metadata-only client of `descriptor` (its get, list, watch and patch return
   * PartialObjectMetadata; see `metadataOnlyClient`). Optional: without it, metadata-only
   * informers read whole objects and cut them down to their metadata on the client.
   */
  metadata?<T extends KubeObject = KubeObject>(descriptor: ResourceDescriptor, namespace?: string): ResourceClient<T>;
}

function scalePath(d: ResourceDescriptor, namespace: string | undefined, name: string): string {
  if (typeof name !== 'string' || name === '' || name.includes('/') || name === '.' || name === '..') {
    throw new Error(`scale ${d.resource}: invalid name ${JSON.stringify(name)}`);
  }
  const base = groupVersionPath(d.group, d.version);
  if (!d.namespaced) return `${base}/${d.resource}/${encodeURIComponent(name)}/scale`;
  if (!namespace)
    throw new Error(
      `scale ${d.resource} ${JSON.stringify(name)}: ${d.resource} are namespaced; a namespace is required`,
    );
  return `${base}/namespaces/${encodeURIComponent(namespace)}/${d.resource}/${encodeURIComponent(name)}/scale`;
}

class RestScaleClient implements ScaleClient {
  constructor(
    private readonly rest: RestClient,
    private readonly d: ResourceDescriptor,
    private readonly ns: string | undefined,
  ) {}

  getScale(name: string, options: GetOptions = {}): Promise<Scale> {
    return this.rest.request<Scale>({
      method: 'GET',
      path: scalePath(this.d, this.ns, name),
      query: { resourceVersion: options.resourceVersion },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  updateScale(name: string, scale: Scale, options: UpdateOptions = {}): Promise<Scale> {
    return this.rest.request<Scale>({
      method: 'PUT',
      path: scalePath(this.d, this.ns, name),
      query: {
        dryRun: options.dryRun ? 'All' : undefined,
        fieldManager: options.fieldManager,
        fieldValidation: options.fieldValidation,
      },
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', ...scale },
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
  }
}

/** The HTTP backend: resource clients over one shared RestClient for `config`. */
export function restBackend(config: RestConfig | RestClient): ClientBackend {
  const rest = config instanceof RestClient ? config : RestClient.for(config);
  return {
    resource<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
      descriptor: ResourceDescriptor,
      namespace?: string,
    ) {
      return new ResourceClientImpl<T, TList>(rest, descriptor, namespace ? { namespace } : {});
    },
    metadata<T extends KubeObject = KubeObject>(descriptor: ResourceDescriptor, namespace?: string) {
      return new ResourceClientImpl<T>(rest, descriptor, { ...(namespace ? { namespace } : {}), metadataOnly: true });
    },
    scale(descriptor: ResourceDescriptor, namespace?: string) {
      return new RestScaleClient(rest, descriptor, descriptor.namespaced && namespace ? namespace : undefined);
    },
  };
}

/** True for a ClientBackend (as opposed to a RestConfig). */
export function isClientBackend(v: unknown): v is ClientBackend {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ClientBackend).resource === 'function' &&
    typeof (v as ClientBackend).scale === 'function'
  );
}
