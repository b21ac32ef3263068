// The cells of the built-in kinds' Table rows, computed as kube-apiserver's printers
// (pkg/printers/internalversion) compute them, for the columns table-columns.json lists.
import type { KubeObject } from '../runtime/meta/types.js';
import { age, isObject } from './meta.js';

/** The Kubernetes version whose schemas and columns crdgen/testing serves (schema/kubernetes/<version>/). */
export const KUBERNETES_VERSION = 'v1.37.1';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const count = (v: unknown): number => Object.keys(rec(v)).length;

/** A timestamp as `kubectl get` prints it (`translateTimestampSince`): `<unknown>` when unset. */
function since(v: unknown, now: number): string {
  return typeof v === 'string' && v ? age(v, now) : '<unknown>';
}

/** metav1.FormatLabelSelector: `app=db,tier in (a,b)`, `<none>` for an empty selector. */
export function formatLabelSelector(sel: unknown): string {
  if (!isObject(sel)) return '<none>';
  const parts: string[] = [];
  for (const k of Object.keys(rec(sel.matchLabels)).sort()) parts.push(`${k}=${str(rec(sel.matchLabels)[k])}`);
  for (const e of arr(sel.matchExpressions).map(rec)) {
    const values = arr(e.values).map(str);
    const key = str(e.key);
    switch (e.operator) {
      case 'In':
        parts.push(`${key} in (${values.join(',')})`);
        break;
      case 'NotIn':
        parts.push(`${key} notin (${values.join(',')})`);
        break;
      case 'Exists':
        parts.push(key);
        break;
      case 'DoesNotExist':
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.length ? parts.join(',') : '<none>';
}

/** labels.FormatLabels: `k=v` sorted by key, `<none>` when empty. */
function formatLabels(m: unknown): string {
  const keys = Object.keys(rec(m)).sort();
  return keys.length ? keys.map((k) => `${k}=${str(rec(m)[k])}`).join(',') : '<none>';
}

const containers = (o: KubeObject): Rec[] => arr(rec(rec(rec((o as Rec).spec).template).spec).containers).map(rec);

/** The core/v1 Event printer's cells (Last Seen … Name), for core and events.k8s.io events alike. */
function eventCells(
  e: {
    firstTimestamp: unknown;
    lastTimestamp: unknown;
    eventTime: unknown;
    series: unknown;
    count: unknown;
    type: unknown;
    reason: unknown;
    involved: Rec;
    message: unknown;
    component: string;
    host: string;
    name: unknown;
  },
  now: number,
): unknown[] {
  let first = since(e.firstTimestamp, now);
  if (!e.firstTimestamp) first = since(e.eventTime, now);
  let last = since(e.lastTimestamp, now);
  if (!e.lastTimestamp) last = first;
  let n = num(e.count);
  if (isObject(e.series)) {
    last = since(e.series.lastObservedTime, now);
    n = num(e.series.count);
  } else if (n === 0) n = 1;
  const kind = str(e.involved.kind).toLowerCase();
  const target = str(e.involved.name) ? `${kind}/${str(e.involved.name)}` : kind;
  const source = e.host ? `${e.component}, ${e.host}` : e.component;
  return [
    last,
    str(e.type),
    str(e.reason),
    target,
    str(e.involved.fieldPath),
    source,
    str(e.message).trim(),
    first,
    n,
    str(e.name),
  ];
}

/** Cells by resource (`group/version/resource`, `v1/<resource>` for the core group). */
export const BUILTIN_CELLS: Record<string, (o: KubeObject, now: number) => unknown[]> = {
  'v1/namespaces': (o, now) => [
    o.metadata?.name ?? '',
    str(rec((o as Rec).status).phase),
    since(o.metadata?.creationTimestamp, now),
  ],
  'v1/configmaps': (o, now) => [
    o.metadata?.name ?? '',
    count((o as Rec).data) + count((o as Rec).binaryData),
    since(o.metadata?.creationTimestamp, now),
  ],
  'v1/services': (o, now) => {
    const spec = rec((o as Rec).spec);
    const type = str(spec.type);
    const ips = arr(spec.clusterIPs).map(str);
    const externalIPs = arr(spec.externalIPs).map(str);
    let external: string;
    if (type === 'ClusterIP' || type === 'NodePort') external = externalIPs.length ? externalIPs.join(',') : '<none>';
    else if (type === 'LoadBalancer') {
      // loadBalancerStatusStringer (wide, as the table convertor asks): ingress IPs or hostnames, sorted and unique, then the external IPs
      const lb = [
        ...new Set(
          arr(rec(rec((o as Rec).status).loadBalancer).ingress)
            .map(rec)
            .map((i) => str(i.ip) || str(i.hostname))
            .filter(Boolean),
        ),
      ].sort();
      const lbText = lb.join(',');
      if (externalIPs.length) external = [...(lbText ? lbText.split(',') : []), ...externalIPs].join(',');
      else external = lbText || '<pending>';
    } else if (type === 'ExternalName') external = str(spec.externalName);
    else external = '<unknown>';
    const ports = arr(spec.ports)
      .map(rec)
      .map((p) =>
        num(p.nodePort) > 0
          ? `${num(p.port)}:${num(p.nodePort)}/${str(p.protocol)}`
          : `${num(p.port)}/${str(p.protocol)}`,
      )
      .join(',');
    return [
      o.metadata?.name ?? '',
      type,
      ips[0] ?? '<none>',
      external,
      ports || '<none>',
      since(o.metadata?.creationTimestamp, now),
      formatLabels(spec.selector),
    ];
  },
  'v1/secrets': (o, now) => [
    o.metadata?.name ?? '',
    str((o as Rec).type),
    count((o as Rec).data),
    since(o.metadata?.creationTimestamp, now),
  ],
  'apps/v1/deployments': (o, now) => {
    const spec = rec((o as Rec).spec);
    const status = rec((o as Rec).status);
    return [
      o.metadata?.name ?? '',
      `${num(status.readyReplicas)}/${num(spec.replicas)}`,
      num(status.updatedReplicas),
      num(status.availableReplicas),
      since(o.metadata?.creationTimestamp, now),
      containers(o)
        .map((c) => str(c.name))
        .join(','),
      containers(o)
        .map((c) => str(c.image))
        .join(','),
      formatLabelSelector(spec.selector),
    ];
  },
  'coordination.k8s.io/v1/leases': (o, now) => [
    o.metadata?.name ?? '',
    str(rec((o as Rec).spec).holderIdentity),
    since(o.metadata?.creationTimestamp, now),
  ],
  'v1/events': (o, now) => {
    const e = o as Rec;
    const src = rec(e.source);
    return eventCells(
      {
        firstTimestamp: e.firstTimestamp,
        lastTimestamp: e.lastTimestamp,
        eventTime: e.eventTime,
        series: e.series,
        count: e.count,
        type: e.type,
        reason: e.reason,
        involved: rec(e.involvedObject),
        message: e.message,
        component: str(src.component) || str(e.reportingComponent),
        host: str(src.host) || str(e.reportingInstance),
        name: o.metadata?.name,
      },
      now,
    );
  },
  'events.k8s.io/v1/events': (o, now) => {
    const e = o as Rec;
    const src = rec(e.deprecatedSource);
    return eventCells(
      {
        firstTimestamp: e.deprecatedFirstTimestamp,
        lastTimestamp: e.deprecatedLastTimestamp,
        eventTime: e.eventTime,
        series: e.series,
        count: e.deprecatedCount,
        type: e.type,
        reason: e.reason,
        involved: rec(e.regarding),
        message: e.note,
        component: str(src.component) || str(e.reportingController),
        host: str(src.host) || str(e.reportingInstance),
        name: o.metadata?.name,
      },
      now,
    );
  },
  'apiextensions.k8s.io/v1/customresourcedefinitions': (o) => {
    const spec = rec((o as Rec).spec);
    const names = rec(spec.names);
    const established = arr(rec((o as Rec).status).conditions)
      .map(rec)
      .find((c) => c.type === 'Established');
    return [
      o.metadata?.name ?? '',
      str(spec.scope),
      arr(spec.versions)
        .map((v) => `${str(rec(v).name)}${rec(v).storage === true ? '(storage)' : ''}`)
        .join(','),
      // a date column: the timestamp itself (clients print the age)
      o.metadata?.creationTimestamp ?? null,
      str(spec.group),
      str(names.kind),
      arr(names.shortNames).map(str).join(','),
      established?.status === 'True',
    ];
  },
};
