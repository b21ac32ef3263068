// The two backends a suite runs on: crdgen's in-process test server and the real control
// plane (etcd + kube-apiserver, with kube-controller-manager, kube-scheduler and kwok when
// `workloads`). Both return the same handle.
import type { KubeObject } from '../../src/runtime/index.js';
import { startControlPlane, startTestApiServer } from '../../src/testing/index.js';
import type { ApiServerHandle, WebhookInstallOptions } from '../../src/testing/index.js';
import { controlPlaneAssets } from './assets.js';

export interface BackendOptions {
  crds?: (KubeObject | string)[];
  objects?: KubeObject[];
  /** Deployments become available: testenv's simulator, or the real controllers and kwok. */
  workloads?: boolean;
  /** Real only: run these kube-controller-manager controllers (and no others), without the workload simulation on testenv. */
  controllers?: string[];
  /** kube-apiserver's --etcd-compaction-interval in seconds (real only). */
  etcdCompactionIntervalSeconds?: number;
  /** Serve HTTPS (the in-process server; the real one always does). */
  https?: boolean;
  /** Install webhook configurations (the servers' `webhooks` option). */
  webhooks?: WebhookInstallOptions;
}

export interface Backend {
  name: 'testenv' | 'real';
  start(options?: BackendOptions): Promise<ApiServerHandle>;
}

export const testenvBackend: Backend = {
  name: 'testenv',
  start: (o = {}) =>
    startTestApiServer({
      crds: o.crds,
      objects: o.objects,
      simulateWorkloads: o.workloads ? 50 : false,
      https: o.https,
      webhooks: o.webhooks,
    }),
};

export const realBackend: Backend = {
  name: 'real',
  start: (o = {}) =>
    startControlPlane({
      assets: controlPlaneAssets(),
      crds: o.crds,
      objects: o.objects,
      workloads: o.controllers ? { controllers: o.controllers } : o.workloads,
      etcdCompactionIntervalSeconds: o.etcdCompactionIntervalSeconds,
      webhooks: o.webhooks,
    }),
};

/** Both backends, the in-process server first. */
export const BACKENDS: readonly Backend[] = [testenvBackend, realBackend];
