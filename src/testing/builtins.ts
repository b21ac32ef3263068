// The built-in resources the test server serves: core v1 namespaces, events, configmaps,
// secrets and services; apps/v1 deployments; coordination.k8s.io/v1 leases; events.k8s.io/v1
// events; apiextensions.k8s.io/v1 customresourcedefinitions; admissionregistration.k8s.io/v1
// mutating and validating webhook configurations.
import type { KubeObject } from '../runtime/meta/types.js';
import { age, isObject, jsonText } from './meta.js';
import type { ResourceInfo, PrinterColumn } from './resource.js';
import type { FieldCause } from './status.js';
import { configMapErrors, deploymentErrors, leaseErrors, namespaceErrors, secretErrors } from './builtin-validation.js';
import { eventFromCore, eventToCore, prepareCoreEvent, prepareEventsV1 } from './events.js';
import { beginServiceWrite, defaultService, newServiceReservations, noEndpoints } from './services.js';
import { defaultWebhookConfiguration, webhookConfigurationErrors } from './webhook-configs.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const AGE: PrinterColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  value: (o) => age(o.metadata?.creationTimestamp),
};

function base(p: Partial<ResourceInfo> & Pick<ResourceInfo, 'group' | 'version' | 'resource' | 'kind'>): ResourceInfo {
  return {
    singular: p.kind.toLowerCase(),
    listKind: `${p.kind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    statusSubresource: false,
    hasGeneration: false,
    strategicMerge: true,
    custom: false,
    columns: [AGE],
    storagePrefix: `/${p.group || 'core'}/${p.resource}`,
    ...p,
  };
}

function rec(v: unknown): Record<string, unknown> {
  return isObject(v) ? v : {};
}

function prepareDeployment(obj: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const o = obj as KubeObject & { spec?: Record<string, unknown>; status?: unknown };
  // the Go struct always has a status (`status: {}` until the controller writes one)
  if (!old && o.status === undefined) o.status = {};
  if (!isObject(o.spec)) o.spec = {};
  const spec = o.spec;
  if (spec.replicas === undefined) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined) spec.progressDeadlineSeconds = 600;
  if (!isObject(spec.strategy)) spec.strategy = { type: 'RollingUpdate' };
  const strategy = rec(spec.strategy);
  if (strategy.type === undefined || strategy.type === '') strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    const ru = strategy.rollingUpdate as Record<string, unknown>;
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  const tmpl = rec(spec.template);
  const podSpec = rec(tmpl.spec);
  if (Array.isArray(podSpec.containers) && podSpec.containers.length > 0) {
    podSpec.containers.forEach((c: unknown) => {
      const cc = rec(c);
      if (cc.terminationMessagePath === undefined) cc.terminationMessagePath = '/dev/termination-log';
      if (cc.resources === undefined) cc.resources = {};
      if (Array.isArray(cc.ports))
        for (const p of cc.ports) if (isObject(p) && p.protocol === undefined) p.protocol = 'TCP';
      if (cc.terminationMessagePolicy === undefined) cc.terminationMessagePolicy = 'File';
      if (cc.imagePullPolicy === undefined) {
        cc.imagePullPolicy =
          typeof cc.image === 'string' && (cc.image.endsWith(':latest') || !cc.image.includes(':'))
            ? 'Always'
            : 'IfNotPresent';
      }
    });
  }
  if (isObject(tmpl.spec)) {
    defaultPodSpec(podSpec);
    if (podSpec.restartPolicy === undefined) podSpec.restartPolicy = 'Always';
    if (podSpec.dnsPolicy === undefined) podSpec.dnsPolicy = 'ClusterFirst';
    if (podSpec.terminationGracePeriodSeconds === undefined) podSpec.terminationGracePeriodSeconds = 30;
    if (podSpec.schedulerName === undefined) podSpec.schedulerName = 'default-scheduler';
    if (podSpec.securityContext === undefined) podSpec.securityContext = {};
  }
  return deploymentErrors(obj, old);
}

/** 0644, the default mode of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_VOLUME_MODE = 0o644;

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  for (const [k, v] of [
    ['timeoutSeconds', 1],
    ['periodSeconds', 10],
    ['successThreshold', 1],
    ['failureThreshold', 3],
  ] as const) {
    if (p[k] === undefined || p[k] === 0) p[k] = v;
  }
  defaultHandler(p);
}

function defaultHandler(h: unknown): void {
  if (!isObject(h) || !isObject(h.httpGet)) return;
  if (h.httpGet.path === undefined || h.httpGet.path === '') h.httpGet.path = '/';
  if (h.httpGet.scheme === undefined || h.httpGet.scheme === '') h.httpGet.scheme = 'HTTP';
}

function defaultFieldRefs(env: unknown): void {
  if (!Array.isArray(env)) return;
  for (const e of env) {
    const ref = isObject(e) && isObject(e.valueFrom) ? e.valueFrom.fieldRef : undefined;
    if (isObject(ref) && (ref.apiVersion === undefined || ref.apiVersion === '')) ref.apiVersion = 'v1';
  }
}

/**
 * The core/v1 defaults of a pod template (k8s.io/kubernetes pkg/apis/core/v1 SetDefaults_*) beyond
 * the pod-level ones: every container, init and ephemeral container, probe, handler, fieldRef
 * and volume; serviceAccount mirrors serviceAccountName (the v1 conversion).
 */
function defaultPodSpec(podSpec: Record<string, unknown>): void {
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    const cs = podSpec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObject(c)) continue;
      if (list !== 'containers') {
        if (c.terminationMessagePath === undefined) c.terminationMessagePath = '/dev/termination-log';
        if (c.terminationMessagePolicy === undefined) c.terminationMessagePolicy = 'File';
        if (c.imagePullPolicy === undefined) {
          c.imagePullPolicy =
            typeof c.image === 'string' && (c.image.endsWith(':latest') || !c.image.includes(':'))
              ? 'Always'
              : 'IfNotPresent';
        }
        if (c.resources === undefined) c.resources = {};
        if (Array.isArray(c.ports))
          for (const p of c.ports) if (isObject(p) && p.protocol === undefined) p.protocol = 'TCP';
      }
      if (podSpec.hostNetwork === true && Array.isArray(c.ports)) {
        for (const p of c.ports)
          if (isObject(p) && (p.hostPort === undefined || p.hostPort === 0)) p.hostPort = p.containerPort;
      }
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
      if (isObject(c.lifecycle)) for (const h of ['postStart', 'preStop']) defaultHandler(c.lifecycle[h]);
      defaultFieldRefs(c.env);
    }
  }
  if (Array.isArray(podSpec.volumes)) {
    for (const v of podSpec.volumes) {
      if (!isObject(v)) continue;
      const sources = Object.keys(v).filter((k) => k !== 'name');
      if (sources.length === 0) v.emptyDir = {};
      for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
        const src = v[k];
        if (isObject(src) && src.defaultMode === undefined) src.defaultMode = DEFAULT_VOLUME_MODE;
      }
      if (isObject(v.downwardAPI) && Array.isArray(v.downwardAPI.items)) {
        for (const it of v.downwardAPI.items)
          if (isObject(it) && isObject(it.fieldRef) && !it.fieldRef.apiVersion) it.fieldRef.apiVersion = 'v1';
      }
      if (isObject(v.projected) && Array.isArray(v.projected.sources)) {
        for (const ps of v.projected.sources) {
          if (
            isObject(ps) &&
            isObject(ps.serviceAccountToken) &&
            ps.serviceAccountToken.expirationSeconds === undefined
          )
            ps.serviceAccountToken.expirationSeconds = 3600;
        }
      }
    }
  }
  if (!podSpec.serviceAccountName && typeof podSpec.serviceAccount === 'string' && podSpec.serviceAccount)
    podSpec.serviceAccountName = podSpec.serviceAccount;
  if (typeof podSpec.serviceAccountName === 'string' && podSpec.serviceAccountName)
    podSpec.serviceAccount = podSpec.serviceAccountName;
}

function prepareNamespace(obj: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const o = obj as KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
  // on update the strategy keeps the finalizers (only /finalize changes them); on create it adds
  // `kubernetes` after the field manager ran (prepareForCreate), so nobody owns it
  if (old) o.spec = { ...rec(o.spec), finalizers: rec((old as { spec?: unknown }).spec).finalizers ?? ['kubernetes'] };
  o.status = { ...rec(old ? (old as { status?: unknown }).status : undefined), ...rec(o.status) };
  if (o.status.phase === undefined) o.status.phase = 'Active';
  o.metadata = o.metadata ?? {};
  o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': o.metadata.name ?? '' };
  return old ? [] : namespaceErrors(obj);
}

/** Secrets as v1 → internal conversion and defaulting leave them: stringData merged into data (base64), type Opaque. */
function prepareSecret(obj: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const o = obj as KubeObject & Record<string, unknown>;
  if (isObject(o.stringData)) {
    const data = { ...rec(o.data) };
    for (const [k, v] of Object.entries(o.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    o.data = data;
  }
  delete o.stringData;
  if (o.type === undefined || o.type === '') o.type = 'Opaque';
  return secretErrors(obj, old);
}

/** core/v1 services: defaults at decode, then allocation and validation after the field manager (services.ts). */
function serviceResource(): ResourceInfo {
  // what Service writes in flight have reserved (per server: each registry builds its own)
  const reservations = newServiceReservations();
  const r = base({
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    shortNames: ['svc'],
    categories: ['all'],
    statusSubresource: true,
    returnDeletedObject: true,
    nameIsLabel: true,
    prepare: (o) => {
      defaultService(o);
      return [];
    },
    fixedSubresources: {
      proxy: {
        kind: 'ServiceProxyOptions',
        verbs: ['create', 'delete', 'get', 'patch', 'update'],
        answer: noEndpoints,
      },
    },
  });
  r.beginWrite = (w) => beginServiceWrite({ ...w, prefix: `${r.storagePrefix}/`, reservations });
  return r;
}

/** The built-in resources, freshly built (callers may keep them). */
export function builtinResources(): ResourceInfo[] {
  return [
    base({
      group: '',
      version: 'v1',
      resource: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      statusSubresource: true,
      prepare: prepareNamespace,
      prepareForCreate: (o) => {
        const spec = ((o as { spec?: Record<string, unknown> }).spec ??= {});
        const fins: unknown[] = Array.isArray(spec.finalizers) ? spec.finalizers : [];
        spec.finalizers = fins.includes('kubernetes') ? fins : [...fins, 'kubernetes'];
      },
      columns: [
        {
          name: 'Status',
          type: 'string',
          description: 'The status of the namespace',
          value: (o) => rec((o as { status?: unknown }).status).phase,
        },
        AGE,
      ],
    }),
    base({
      group: '',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      shortNames: ['ev'],
      prepare: prepareCoreEvent,
      columns: [
        {
          name: 'Last Seen',
          type: 'string',
          value: (o) =>
            age((o as { lastTimestamp?: unknown }).lastTimestamp ?? (o as { eventTime?: unknown }).eventTime),
        },
        { name: 'Type', type: 'string', value: (o) => (o as { type?: unknown }).type },
        { name: 'Reason', type: 'string', value: (o) => (o as { reason?: unknown }).reason },
        {
          name: 'Object',
          type: 'string',
          value: (o) => {
            const io = rec((o as { involvedObject?: unknown }).involvedObject);
            return `${jsonText(io.kind ?? '').toLowerCase()}/${jsonText(io.name ?? '')}`;
          },
        },
        { name: 'Message', type: 'string', value: (o) => (o as { message?: unknown }).message },
      ],
    }),
    base({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      shortNames: ['cm'],
      strategicMerge: true,
      prepare: configMapErrors,
    }),
    serviceResource(),
    base({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', prepare: prepareSecret }),
    base({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      shortNames: ['deploy'],
      categories: ['all'],
      statusSubresource: true,
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
      hasGeneration: true,
      prepare: prepareDeployment,
      columns: [
        {
          name: 'Ready',
          type: 'string',
          description: 'Number of the pod with ready state',
          value: (o) => {
            const st = rec((o as { status?: unknown }).status);
            const sp = rec((o as { spec?: unknown }).spec);
            return `${Number(st.readyReplicas ?? 0)}/${Number(sp.replicas ?? 0)}`;
          },
        },
        {
          name: 'Up-to-date',
          type: 'string',
          value: (o) => Number(rec((o as { status?: unknown }).status).updatedReplicas ?? 0),
        },
        {
          name: 'Available',
          type: 'string',
          value: (o) => Number(rec((o as { status?: unknown }).status).availableReplicas ?? 0),
        },
        AGE,
      ],
    }),
    base({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      kind: 'Lease',
      prepare: (o, old) => {
        // the CoordinatedLeaderElection fields are dropped while the gate is off (its default)
        const spec = rec((o as { spec?: unknown }).spec);
        const was = rec((old as { spec?: unknown } | undefined)?.spec);
        if (old && was.strategy === undefined) delete spec.strategy;
        if (old && was.preferredHolder === undefined) delete spec.preferredHolder;
        return leaseErrors(o);
      },
      prepareForCreate: (o) => {
        const spec = rec((o as { spec?: unknown }).spec);
        delete spec.strategy;
        delete spec.preferredHolder;
      },
      columns: [
        { name: 'Holder', type: 'string', value: (o) => rec((o as { spec?: unknown }).spec).holderIdentity ?? '' },
        AGE,
      ],
    }),
    // one resource with core/v1 events: the same storage (in the core/v1 form), converted on the way in and out
    base({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      shortNames: ['ev'],
      strategicMerge: true,
      storagePrefix: '/core/events',
      toStorage: eventToCore,
      fromStorage: eventFromCore,
      errorGroup: '',
      prepare: prepareEventsV1,
    }),
    ...(['Mutating', 'Validating'] as const).map((k) =>
      base({
        group: 'admissionregistration.k8s.io',
        version: 'v1',
        resource: `${k.toLowerCase()}webhookconfigurations`,
        kind: `${k}WebhookConfiguration`,
        namespaced: false,
        categories: ['api-extensions'],
        prepare: (o) => {
          defaultWebhookConfiguration(o, k === 'Mutating');
          return webhookConfigurationErrors(o, k === 'Mutating');
        },
        columns: [
          {
            name: 'Webhooks',
            type: 'integer',
            value: (o) =>
              Array.isArray((o as { webhooks?: unknown }).webhooks)
                ? (o as { webhooks: unknown[] }).webhooks.length
                : 0,
          },
          AGE,
        ],
      }),
    ),
    base({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      statusSubresource: true,
      hasGeneration: true,
      columns: [{ name: 'Created At', type: 'date', value: (o) => o.metadata?.creationTimestamp }],
    }),
  ];
}
