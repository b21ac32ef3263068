// Field managers on a ClientBackend: every write of a generated clientset names its field manager
// (`ClientsetOptions.fieldManager`), by default the one the apiserver would derive from the
// client's User-Agent (src/runtime/client/field-manager.ts).
import type { KubeList, KubeObject } from '../meta/types.js';
import type { ResourceClient, ResourceDescriptor } from '../client/resource.js';
import { applicationName, fieldManagerFromUserAgent } from '../client/field-manager.js';
import type { ClientBackend } from './backend.js';

type WriteOptions = { fieldManager?: string } | undefined;

/** Where the options argument is, for each write of a ResourceClient. */
const WRITE_OPTIONS_INDEX: Readonly<Record<string, number>> = {
  create: 1,
  update: 1,
  updateStatus: 1,
  patch: 3,
  patchStatus: 3,
  apply: 1,
  applyStatus: 1,
};

/**
 * `backend` with `fieldManager` on every write (create, update, updateStatus, patch,
 * patchStatus, apply, applyStatus, updateScale) that does not name its own.
 */
export function withFieldManager(backend: ClientBackend, fieldManager: string): ClientBackend {
  const withDefault = (o: WriteOptions): WriteOptions => (o?.fieldManager ? o : { ...(o ?? {}), fieldManager });
  const wrap = <T extends KubeObject, TList extends KubeList<T>>(
    client: ResourceClient<T, TList>,
  ): ResourceClient<T, TList> =>
    new Proxy(client, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        if (prop === 'namespace') return (ns: string) => wrap(target.namespace(ns));
        const at = typeof prop === 'string' ? WRITE_OPTIONS_INDEX[prop] : undefined;
        if (at === undefined) return (value as (...a: unknown[]) => unknown).bind(target);
        return (...args: unknown[]) => {
          const a = [...args];
          while (a.length < at) a.push(undefined);
          a[at] = withDefault(a[at] as WriteOptions);
          return (value as (...x: unknown[]) => unknown).apply(target, a);
        };
      },
    });
  return {
    resource<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
      descriptor: ResourceDescriptor,
      namespace?: string,
    ) {
      return wrap(backend.resource<T, TList>(descriptor, namespace));
    },
    scale(descriptor: ResourceDescriptor, namespace?: string) {
      const s = backend.scale(descriptor, namespace);
      return {
        getScale: (name, options) => s.getScale(name, options),
        updateScale: (name, scale, options) => s.updateScale(name, scale, withDefault(options)),
      };
    },
  };
}

/**
 * The field manager a clientset over `config` writes as by default: for a RestConfig, the one the
 * API server would derive from its User-Agent (`userAgent`, else `defaultUserAgent`'s
 * application name); for any other backend (a fake), {@link applicationName}.
 */
export function defaultFieldManager(config: { userAgent?: string } | ClientBackend): string {
  if ('resource' in config && typeof config.resource === 'function') return applicationName();
  const ua = (config as { userAgent?: string }).userAgent;
  return ua ? fieldManagerFromUserAgent(ua) : applicationName();
}
