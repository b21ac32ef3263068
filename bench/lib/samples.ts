// Sample custom resources for the deepcopy and informer benchmarks, built the way the API
// server returns them (metadata with managedFields, ownerReferences, labels).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { CORPUS, DM_CRD } from './env.js';

/** A JSON object. */
export type Json = { [k: string]: unknown };

function meta(name: string, namespace: string, extra: Json = {}): Json {
  return {
    name,
    namespace,
    uid: `3f1c9a52-7d4e-4b8a-9c0f-${name.padStart(12, '0').slice(-12)}`,
    resourceVersion: '184467',
    generation: 2,
    creationTimestamp: '2026-11-30T08:00:00Z',
    labels: { app: name, tier: 'database', 'app.kubernetes.io/managed-by': 'crdgen' },
    annotations: { 'coolops.cn/owner': 'team-data' },
    ownerReferences: [
      {
        apiVersion: 'coolops.cn/v1alpha1',
        kind: 'Tenant',
        name: 'acme',
        uid: '0b8e6b2c-1f35-4d0e-a7a4-5c7e9d2b1a00',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: ['coolops.cn/cleanup'],
    ...extra,
  };
}

function managed(manager: string, fields: Json, subresource?: string): Json {
  return {
    manager,
    operation: 'Update',
    apiVersion: 'coolops.cn/v1alpha1',
    time: '2026-11-30T08:00:01Z',
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
    ...(subresource ? { subresource } : {}),
  };
}

/** A DatabaseManager as `GET` returns it (~1.1 KB of JSON). */
export function databaseManager(name = 'orders-db', namespace = 'default'): Json {
  return {
    apiVersion: 'coolops.cn/v1alpha1',
    kind: 'DatabaseManager',
    metadata: meta(name, namespace, {
      managedFields: [
        managed('kubectl-client-side-apply', {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } },
          'f:spec': { '.': {}, 'f:dbtype': {}, 'f:deploymentName': {}, 'f:replicas': {} },
        }),
        managed('databasemanager-controller', { 'f:status': { '.': {}, 'f:availableReplicas': {} } }, 'status'),
      ],
    }),
    spec: { deploymentName: `${name}-deploy`, replicas: 3, dbtype: 'mysql' },
    status: { availableReplicas: 3 },
  };
}

function probe(path: string, port: number): Json {
  return {
    httpGet: { path, port, scheme: 'HTTP' },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  };
}

/** A container spec of the usual size (~1.4 KB of JSON). */
function container(name: string, i: number): Json {
  return {
    name,
    image: `registry.example.com/team/${name}:v1.${i}.0`,
    imagePullPolicy: 'IfNotPresent',
    args: [`--listen=:${8080 + i}`, '--log-level=info', `--config=/etc/${name}/config.yaml`],
    env: [
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } } },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `${name}-secret`, key: 'password' } } },
      { name: 'MODE', value: 'production' },
    ],
    ports: [
      { name: 'http', containerPort: 8080 + i, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090 + i, protocol: 'TCP' },
    ],
    resources: { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    readinessProbe: probe('/readyz', 8080 + i),
    livenessProbe: probe('/healthz', 8080 + i),
    volumeMounts: [
      { name: 'config', mountPath: `/etc/${name}`, readOnly: true },
      { name: 'data', mountPath: '/var/lib/data' },
    ],
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

function condition(type: string): Json {
  return {
    type,
    status: 'True',
    lastTransitionTime: '2026-11-30T08:00:05Z',
    reason: 'Ready',
    message: `${type} is true`,
  };
}

/**
 * A knative-serving Configuration the size of an apps/v1 Deployment (~4.5 KB of JSON): a pod
 * template with two containers, volumes, tolerations and status conditions.
 */
export function deploymentSized(name = 'checkout', namespace = 'default'): Json {
  return {
    apiVersion: 'serving.knative.dev/v1',
    kind: 'Configuration',
    metadata: meta(name, namespace, {
      managedFields: [
        managed('kn', { 'f:spec': { '.': {}, 'f:template': { '.': {}, 'f:spec': { '.': {}, 'f:containers': {} } } } }),
      ],
    }),
    spec: {
      template: {
        metadata: { labels: { app: name, version: 'v3' }, annotations: { 'autoscaling.knative.dev/max-scale': '10' } },
        spec: {
          containerConcurrency: 100,
          timeoutSeconds: 300,
          serviceAccountName: `${name}-sa`,
          containers: [container(name, 0), container(`${name}-sidecar`, 1)],
          volumes: [
            {
              name: 'config',
              configMap: { name: `${name}-config`, items: [{ key: 'config.yaml', path: 'config.yaml' }] },
            },
            { name: 'data', emptyDir: {} },
          ],
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
        },
      },
    },
    status: {
      observedGeneration: 2,
      latestCreatedRevisionName: `${name}-00003`,
      latestReadyRevisionName: `${name}-00003`,
      conditions: [condition('Ready'), condition('ConfigurationsReady')],
    },
  };
}

function relabel(i: number): Json {
  return {
    sourceLabels: ['__name__', 'job'],
    separator: ';',
    regex: `metric_${i}_(.*)`,
    targetLabel: `label_${i}`,
    replacement: '$1',
    action: 'replace',
  };
}

/**
 * A Prometheus (monitoring.coreos.com/v1) of ~100 KB of JSON: sidecar containers, remote
 * writes with relabelling, affinity, tolerations, storage and status.
 */
export function prometheus(name = 'k8s', namespace = 'monitoring'): Json {
  const term = (k: string): Json => ({
    labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: [k, `${k}-2`] }] },
    topologyKey: 'kubernetes.io/hostname',
  });
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'Prometheus',
    metadata: meta(name, namespace, {
      managedFields: [
        managed('helm', { 'f:spec': { '.': {}, 'f:replicas': {}, 'f:remoteWrite': {}, 'f:containers': {} } }),
      ],
    }),
    spec: {
      replicas: 2,
      version: 'v2.54.1',
      image: 'quay.io/prometheus/prometheus:v2.54.1',
      serviceAccountName: 'prometheus-k8s',
      retention: '15d',
      scrapeInterval: '30s',
      evaluationInterval: '30s',
      externalLabels: { cluster: 'prod-eu-1', region: 'eu-west-1' },
      podMetadata: {
        labels: { app: 'prometheus' },
        annotations: { 'kubectl.kubernetes.io/default-container': 'prometheus' },
      },
      serviceMonitorSelector: { matchLabels: { team: 'platform' } },
      ruleSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['alert-rules', 'recording-rules'] }] },
      resources: { limits: { cpu: '4', memory: '16Gi' }, requests: { cpu: '1', memory: '8Gi' } },
      securityContext: { fsGroup: 2000, runAsNonRoot: true, runAsUser: 1000 },
      storage: {
        volumeClaimTemplate: {
          spec: {
            storageClassName: 'ssd',
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '200Gi' } },
          },
        },
      },
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [term('prometheus')],
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term('alertmanager') }],
        },
      },
      tolerations: Array.from({ length: 4 }, (_, i) => ({
        key: `dedicated-${i}`,
        operator: 'Equal',
        value: 'monitoring',
        effect: 'NoSchedule',
      })),
      containers: Array.from({ length: 34 }, (_, i) => container(`sidecar-${i}`, i)),
      initContainers: Array.from({ length: 4 }, (_, i) => container(`init-${i}`, i)),
      volumes: Array.from({ length: 16 }, (_, i) => ({
        name: `config-${i}`,
        configMap: { name: `prometheus-config-${i}`, defaultMode: 420 },
      })),
      remoteWrite: Array.from({ length: 28 }, (_, i) => ({
        name: `remote-${i}`,
        url: `https://metrics-${i}.example.com/api/v1/push`,
        remoteTimeout: '30s',
        headers: { 'X-Scope-OrgID': `tenant-${i}` },
        basicAuth: {
          username: { name: 'remote-auth', key: 'user' },
          password: { name: 'remote-auth', key: 'password' },
        },
        tlsConfig: { ca: { secret: { name: 'remote-ca', key: 'ca.crt' } }, insecureSkipVerify: false },
        queueConfig: { capacity: 10000, maxShards: 50, minShards: 1, maxSamplesPerSend: 2000, batchSendDeadline: '5s' },
        writeRelabelConfigs: Array.from({ length: 6 }, (_, j) => relabel(i * 6 + j)),
      })),
    },
    status: {
      availableReplicas: 2,
      paused: false,
      replicas: 2,
      unavailableReplicas: 0,
      updatedReplicas: 2,
      conditions: [condition('Available'), condition('Reconciled')],
      shardStatuses: [{ shardID: '0', replicas: 2, availableReplicas: 2, updatedReplicas: 2, unavailableReplicas: 0 }],
    },
  };
}

/** The CRD file that defines each sample's kind. */
export const SAMPLE_CRDS = {
  databaseManager: DM_CRD,
  deploymentSized: join(CORPUS, 'knative-serving', 'configuration.yaml'),
  prometheus: join(CORPUS, 'prometheus-operator', 'monitoring.coreos.com_prometheuses.yaml'),
};

/** The `openAPIV3Schema` of `obj`'s kind and version, from the sample CRDs. */
export function kindSchema(obj: Json): unknown {
  const [group, version] = String(obj.apiVersion).split('/');
  for (const file of Object.values(SAMPLE_CRDS)) {
    for (const doc of loadAll(readFileSync(file, 'utf8')) as (Json | null)[]) {
      const spec = doc?.spec as
        | {
            group?: string;
            names?: { kind?: string };
            versions?: { name: string; schema?: { openAPIV3Schema?: unknown } }[];
          }
        | undefined;
      if (spec?.group !== group || spec.names?.kind !== obj.kind) continue;
      const schema = spec.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
      if (schema !== undefined) return schema;
    }
  }
  throw new Error(`no sample CRD has a schema for ${String(obj.apiVersion)} ${String(obj.kind)}`);
}
