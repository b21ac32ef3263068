// Ready descriptors (and compact types) for the built-in resources a generated
// controller uses: apps/v1 Deployment, v1 Service, ConfigMap, Secret, Event and Namespace,
// events.k8s.io/v1 Event and coordination.k8s.io/v1 Lease. The types are hand-written and
// cover the fields controllers commonly read and write; unknown fields pass through
// untouched. (#24: they are to be replaced by types generated from the apiserver's
// OpenAPI v3 documents.) Each descriptor is a TypedResource of its type.
import type { KubeList, KubeObject, ObjectMeta } from '../meta/types.js';
import type { TypedResource } from './resource.js';

/** metav1.LabelSelector */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

/** A container of a pod template (the common fields; the rest pass through). */
export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: Record<string, unknown> }>;
  ports?: Array<{ name?: string; containerPort: number; protocol?: string }>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  [field: string]: unknown;
}

/** core/v1 PodTemplateSpec, pod spec loosely typed. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: { containers: Container[]; [field: string]: unknown };
}

/** apps/v1 Deployment */
export interface Deployment extends KubeObject {
  spec?: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    strategy?: Record<string, unknown>;
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastUpdateTime?: string; lastTransitionTime?: string }>;
  };
}

/** core/v1 ObjectReference (Event.involvedObject). */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** core/v1 Event */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count?: number;
  /** `Normal` or `Warning`. */
  type?: string;
  action?: string;
  reportingComponent?: string;
  reportingInstance?: string;
  related?: ObjectReference;
}

/** events.k8s.io/v1 Event */
export interface EventsV1Event extends KubeObject {
  /** RFC 3339 with microseconds (MicroTime); required. */
  eventTime: string;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  /** `Normal` or `Warning`. */
  type?: string;
  series?: { count: number; lastObservedTime: string };
  deprecatedCount?: number;
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedSource?: { component?: string; host?: string };
}

/** coordination.k8s.io/v1 Lease (leader election). */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** MicroTime */
    acquireTime?: string;
    /** MicroTime */
    renewTime?: string;
    leaseTransitions?: number;
    strategy?: string;
    preferredHolder?: string;
  };
}

/** core/v1 Namespace */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating'; conditions?: Array<Record<string, unknown>> };
}

/** core/v1 ServicePort */
export interface ServicePort {
  name?: string;
  /** `TCP` (default), `UDP` or `SCTP`. */
  protocol?: string;
  appProtocol?: string;
  port: number;
  /** A port number or the name of a container port. */
  targetPort?: number | string;
  nodePort?: number;
}

/** core/v1 Service */
export interface Service extends KubeObject {
  spec?: {
    /** `ClusterIP` (default), `NodePort`, `LoadBalancer` or `ExternalName`. */
    type?: string;
    selector?: Record<string, string>;
    ports?: ServicePort[];
    /** Allocated by the API server unless set (`None`: a headless Service). */
    clusterIP?: string;
    clusterIPs?: string[];
    externalName?: string;
    sessionAffinity?: string;
    publishNotReadyAddresses?: boolean;
    [field: string]: unknown;
  };
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> }; conditions?: Array<Record<string, unknown>> };
}

/** core/v1 ConfigMap */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  /** Base64-encoded values. */
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** core/v1 Secret */
export interface Secret extends KubeObject {
  /** Base64-encoded values. */
  data?: Record<string, string>;
  /** Plain values, merged into `data` by the API server on write (never returned). */
  stringData?: Record<string, string>;
  /** `Opaque` (default), `kubernetes.io/tls`, … */
  type?: string;
  immutable?: boolean;
}

/** apps/v1 deployments */
export const DeploymentResource: TypedResource<Deployment> = Object.freeze({
  group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', listKind: 'DeploymentList', namespaced: true,
});

/** core v1 services */
export const ServiceResource: TypedResource<Service> = Object.freeze({
  group: '', version: 'v1', resource: 'services', kind: 'Service', listKind: 'ServiceList', namespaced: true,
});

/** core v1 configmaps */
export const ConfigMapResource: TypedResource<ConfigMap> = Object.freeze({
  group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true,
});

/** core v1 secrets */
export const SecretResource: TypedResource<Secret> = Object.freeze({
  group: '', version: 'v1', resource: 'secrets', kind: 'Secret', listKind: 'SecretList', namespaced: true,
});

/** core v1 events */
export const CoreEventResource: TypedResource<CoreEvent> = Object.freeze({
  group: '', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true,
});

/** events.k8s.io/v1 events */
export const EventsV1EventResource: TypedResource<EventsV1Event> = Object.freeze({
  group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true,
});

/** coordination.k8s.io/v1 leases */
export const LeaseResource: TypedResource<Lease> = Object.freeze({
  group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', listKind: 'LeaseList', namespaced: true,
});

/** core v1 namespaces (cluster-scoped) */
export const NamespaceResource: TypedResource<Namespace> = Object.freeze({
  group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', listKind: 'NamespaceList', namespaced: false,
});

/** List types of the built-ins. */
export type DeploymentList = KubeList<Deployment>;
/** List of core/v1 Events. */
export type CoreEventList = KubeList<CoreEvent>;
/** List of events.k8s.io/v1 Events. */
export type EventsV1EventList = KubeList<EventsV1Event>;
/** List of Leases. */
export type LeaseList = KubeList<Lease>;
/** List of Namespaces. */
export type NamespaceList = KubeList<Namespace>;
/** List of Services. */
export type ServiceList = KubeList<Service>;
/** List of ConfigMaps. */
export type ConfigMapList = KubeList<ConfigMap>;
/** List of Secrets. */
export type SecretList = KubeList<Secret>;
