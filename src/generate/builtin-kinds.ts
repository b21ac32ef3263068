// The built-in kinds a generated operator can own (`--owns apps/v1/Deployment,v1/Service`):
// the typed descriptors and types crdgen/runtime exports for them (src/runtime/builtin, from
// kube-apiserver's OpenAPI document), with the resource and scope RBAC and the ownership
// checks need. A table rather than an import of the runtime, which the generator does not
// load; test/unit/runtime/builtins.test.ts compares it with the runtime's descriptors.

/** A built-in kind as crdgen/runtime exports it. */
export interface BuiltinOwnable {
  /** The export name of its `TypedResource` descriptor. */
  descriptor: string;
  /** The export name of its type. */
  type: string;
  /** The resource (plural). */
  resource: string;
  namespaced: boolean;
}

/** By `group/version/Kind` (`version/Kind` for the core group). */
export const BUILTIN_OWNABLE: Readonly<Record<string, BuiltinOwnable>> = {
  'apps/v1/DaemonSet': { descriptor: 'DaemonSetResource', type: 'DaemonSet', resource: 'daemonsets', namespaced: true },
  'apps/v1/Deployment': {
    descriptor: 'DeploymentResource',
    type: 'Deployment',
    resource: 'deployments',
    namespaced: true,
  },
  'apps/v1/ReplicaSet': {
    descriptor: 'ReplicaSetResource',
    type: 'ReplicaSet',
    resource: 'replicasets',
    namespaced: true,
  },
  'apps/v1/StatefulSet': {
    descriptor: 'StatefulSetResource',
    type: 'StatefulSet',
    resource: 'statefulsets',
    namespaced: true,
  },
  'batch/v1/CronJob': { descriptor: 'CronJobResource', type: 'CronJob', resource: 'cronjobs', namespaced: true },
  'batch/v1/Job': { descriptor: 'JobResource', type: 'Job', resource: 'jobs', namespaced: true },
  'coordination.k8s.io/v1/Lease': { descriptor: 'LeaseResource', type: 'Lease', resource: 'leases', namespaced: true },
  'events.k8s.io/v1/Event': {
    descriptor: 'EventsV1EventResource',
    type: 'EventsV1Event',
    resource: 'events',
    namespaced: true,
  },
  'networking.k8s.io/v1/Ingress': {
    descriptor: 'IngressResource',
    type: 'Ingress',
    resource: 'ingresses',
    namespaced: true,
  },
  'policy/v1/PodDisruptionBudget': {
    descriptor: 'PodDisruptionBudgetResource',
    type: 'PodDisruptionBudget',
    resource: 'poddisruptionbudgets',
    namespaced: true,
  },
  'v1/ConfigMap': { descriptor: 'ConfigMapResource', type: 'ConfigMap', resource: 'configmaps', namespaced: true },
  'v1/Event': { descriptor: 'CoreV1EventResource', type: 'CoreV1Event', resource: 'events', namespaced: true },
  'v1/Namespace': { descriptor: 'NamespaceResource', type: 'Namespace', resource: 'namespaces', namespaced: false },
  'v1/PersistentVolumeClaim': {
    descriptor: 'PersistentVolumeClaimResource',
    type: 'PersistentVolumeClaim',
    resource: 'persistentvolumeclaims',
    namespaced: true,
  },
  'v1/Pod': { descriptor: 'PodResource', type: 'Pod', resource: 'pods', namespaced: true },
  'v1/Secret': { descriptor: 'SecretResource', type: 'Secret', resource: 'secrets', namespaced: true },
  'v1/Service': { descriptor: 'ServiceResource', type: 'Service', resource: 'services', namespaced: true },
  'v1/ServiceAccount': {
    descriptor: 'ServiceAccountResource',
    type: 'ServiceAccount',
    resource: 'serviceaccounts',
    namespaced: true,
  },
};
