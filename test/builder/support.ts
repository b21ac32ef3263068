// What the controller-builder suites share: a kind of our own (Widget), the three backends
// (the fake clientset's backend, crdgen/testing's server, the real control plane), a backend
// wrapper that counts list/watch calls, reconcile recorders, and bounded waits on conditions
// (never on wall-clock speed).
import {
  type KubeList,
  type KubeObject,
  type ResourceClient,
  type ResourceDescriptor,
  typedResource,
  ConfigMapResource,
  DeploymentResource,
  NamespaceResource,
  SecretResource,
  ServiceResource,
  type Deployment,
  restBackend,
  type ClientBackend,
  FakeClientBackend,
  type Controller,
  type ReconcileRequest,
} from '../../src/runtime/index.js';
import { startControlPlane, startTestApiServer, type ApiServerHandle } from '../../src/testing/index.js';
import { controlPlaneAssets } from '../support/assets.js';

/** A kind of our own: namespaced, with a status subresource (so status writes leave the generation alone). */
export interface Widget extends KubeObject {
  spec?: { size?: number; note?: string };
  status?: { observed?: number };
}

export const WidgetResource = typedResource<Widget>({
  group: 'test.crdgen.dev',
  version: 'v1',
  resource: 'widgets',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: true,
});

export const WIDGET_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.crdgen.dev' },
  spec: {
    group: 'test.crdgen.dev',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, note: { type: 'string' } } },
              status: { type: 'object', properties: { observed: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
} as KubeObject;

export function widget(
  namespace: string,
  name: string,
  spec: Widget['spec'] = {},
  labels?: Record<string, string>,
): Widget {
  return {
    apiVersion: 'test.crdgen.dev/v1',
    kind: 'Widget',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    spec,
  };
}

/** One backend the suite runs on. */
export interface BuilderEnv {
  name: 'fake' | 'testenv' | 'real';
  /** The API for the test's own writes (a user's kubectl). */
  admin: ClientBackend;
  /** True when the server keeps server-side apply's field ownership (the fake's apply is a merge patch). */
  fieldOwnership: boolean;
  /** A fresh namespace (created on a server); every test works in its own. */
  newNamespace(): Promise<string>;
  stop(): Promise<void>;
}

let nsCounter = 0;

const FAKE_RESOURCES = [
  { ...WidgetResource, subresources: { status: true } },
  { ...DeploymentResource, subresources: { status: true, scale: true } },
  ConfigMapResource,
  SecretResource,
  ServiceResource,
];

export async function fakeEnv(): Promise<BuilderEnv> {
  const fake = new FakeClientBackend(FAKE_RESOURCES);
  return {
    name: 'fake',
    admin: fake,
    fieldOwnership: false,
    newNamespace: async () => `ns-${++nsCounter}`,
    stop: async () => undefined,
  };
}

function serverEnv(name: 'testenv' | 'real', handle: ApiServerHandle): BuilderEnv {
  const admin = restBackend(handle.clientConfig);
  return {
    name,
    admin,
    fieldOwnership: true,
    newNamespace: async () => {
      const ns = `ns-${process.pid}-${++nsCounter}`;
      await admin.resource(NamespaceResource).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      return ns;
    },
    stop: () => handle.stop(),
  };
}

export async function testenvEnv(): Promise<BuilderEnv> {
  return serverEnv('testenv', await startTestApiServer({ crds: [WIDGET_CRD] }));
}

export async function realEnv(): Promise<BuilderEnv> {
  return serverEnv('real', await startControlPlane({ assets: controlPlaneAssets(), crds: [WIDGET_CRD] }));
}

/**
 * `backend` with a count of the list and watch calls per resource (`widgets`, `configmaps`, …);
 * a streaming list (a watch with sendInitialEvents, kept as the informer's watch) counts as both.
 */
export function countingBackend(backend: ClientBackend): {
  backend: ClientBackend;
  lists: Map<string, number>;
  watches: Map<string, number>;
} {
  const lists = new Map<string, number>();
  const watches = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  const wrap = <T extends KubeObject, L extends KubeList<T>>(
    c: ResourceClient<T, L>,
    d: ResourceDescriptor,
  ): ResourceClient<T, L> =>
    new Proxy(c, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        if (prop === 'namespace') return (ns: string) => wrap(target.namespace(ns), d);
        if (prop === 'list')
          return (...a: unknown[]) => (bump(lists, d.resource), (v as (...x: unknown[]) => unknown).apply(target, a));
        if (prop === 'watch')
          return (...a: unknown[]) => {
            if ((a[0] as { sendInitialEvents?: boolean } | undefined)?.sendInitialEvents) bump(lists, d.resource);
            bump(watches, d.resource);
            return (v as (...x: unknown[]) => unknown).apply(target, a);
          };
        return (v as (...x: unknown[]) => unknown).bind(target);
      },
    });
  return {
    lists,
    watches,
    backend: {
      resource: <T extends KubeObject, L extends KubeList<T> = KubeList<T>>(d: ResourceDescriptor, ns?: string) =>
        wrap(backend.resource<T, L>(d, ns), d),
      scale: (d, ns) => backend.scale(d, ns),
      ...(backend.metadata ? { metadata: backend.metadata.bind(backend) } : {}),
    },
  };
}

/**
 * Polls `probe` (every 10 ms) until it returns something other than undefined/false; errors
 * count as not yet. Fails after `timeoutMs` (generous: a busy 2-core machine is slow) with `what`.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastErr = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? ` (last error: ${(lastErr as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The reconciles a test's reconciler saw, by key (`namespace/name`), in the order they started. */
export class Reconciles {
  readonly started: string[] = [];

  record(r: ReconcileRequest): void {
    this.started.push(`${r.namespace}/${r.name}`);
  }

  count(namespace: string, name: string): number {
    const k = `${namespace}/${name}`;
    return this.started.filter((x) => x === k).length;
  }

  /** Waits until `namespace/name` has been reconciled at least `n` times. */
  async atLeast(
    namespace: string,
    name: string,
    n: number,
    what = `${n} reconcile(s) of ${namespace}/${name}`,
  ): Promise<void> {
    await waitFor(
      () => this.count(namespace, name) >= n,
      `${what} (saw ${this.count(namespace, name)}; all: ${this.started.slice(-20).join(' ')})`,
    );
  }
}

/** True while `controller` has nothing waiting, delayed or running. */
export function idle(controller: Controller): boolean {
  return (
    controller.queue.len() === 0 &&
    controller.queue.waitingCount() === 0 &&
    controller.inFlight.size === 0 &&
    controller.queue.processingCount() === 0
  );
}

/** A Deployment the API server accepts. */
export function deploymentFor(namespace: string, name: string, labels: Record<string, string>): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
    },
  };
}
