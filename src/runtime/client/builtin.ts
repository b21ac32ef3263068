// Ready descriptors (and compact types) for the built-in resources a generated
// controller uses: apps/v1 Deployment, v1 Event, events.k8s.io/v1 Event,
// coordination.k8s.io/v1 Lease and v1 Namespace. The types cover the fields controllers
// commonly read and write; unknown fields pass through untouched.
import type { KubeList, KubeObject, ObjectMeta } from '../meta/types.js';
import type { ResourceDescriptor } from './resource.js';

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

/** apps/v1 deployments */
export const DeploymentResource: ResourceDescriptor = Object.freeze({
  group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', listKind: 'DeploymentList', namespaced: true,
});

/** core v1 events */
export const CoreEventResource: ResourceDescriptor = Object.freeze({
  group: '', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true,
});

/** events.k8s.io/v1 events */
export const EventsV1EventResource: ResourceDescriptor = Object.freeze({
  group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true,
});

/** coordination.k8s.io/v1 leases */
export const LeaseResource: ResourceDescriptor = Object.freeze({
  group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', listKind: 'LeaseList', namespaced: true,
});

/** core v1 namespaces (cluster-scoped) */
export const NamespaceResource: ResourceDescriptor = Object.freeze({
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
