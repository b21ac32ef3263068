// core/v1 Services as kube-apiserver v1.37.1 serves them (pkg/apis/core/v1 SetDefaults_Service,
// pkg/registry/core/service: the strategy, the REST storage's allocation hooks, ipallocator and
// portallocator; pkg/apis/core/validation ValidateService*), on the single-stack IPv4 control
// plane crdgen's real backend runs: service CIDR 10.0.0.0/24 (10.0.0.1 is the `kubernetes`
// Service), NodePorts 30000-32767.
// - Defaults at decode: type ClusterIP, sessionAffinity None, protocol TCP, targetPort = port,
//   internalTrafficPolicy Cluster, externalTrafficPolicy Cluster where externally accessible,
//   allocateLoadBalancerNodePorts for LoadBalancers, ipMode VIP for load-balancer IPs.
// - Allocation after the field manager ran (so nobody owns clusterIP, clusterIPs, ipFamilies,
//   nodePort): ipFamilies/ipFamilyPolicy, a cluster IP picked at random in the upper band
//   (10.0.0.17-254, then the lower one), node ports likewise (30086-32767, then 30000-30085),
//   a health-check node port for `LoadBalancer` + `Local`; a requested IP or port must be free
//   and in range. What is allocated is what the stored Services hold, plus what writes in
//   flight reserved (released when they end), so a deleted Service frees its IP and ports.
// - Then validation (the common mistakes: ports, names, protocols, types, cluster IPs that
//   change once set) and, on update, the strategy's type-dependent wiping.
import { isIPv4, isIPv6 } from 'node:net';
import type { KubeObject } from '../runtime/meta/types.js';
import {
  duplicate,
  forbidden,
  invalid as fieldInvalid,
  notSupported,
  required,
} from '../runtime/validation/field-error.js';
import { isObject, jsonEqual } from './meta.js';
import { ApiError, failure, internalError, invalid } from './status.js';
import type { FieldCause } from './status.js';
import type { Storage } from './storage/storage.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The service CIDR of the control plane crdgen runs (kube-apiserver's default). */
export const SERVICE_CIDR = '10.0.0.0/24';
/** The `kubernetes` Service's cluster IP: the first address of the range. */
export const KUBERNETES_SERVICE_IP = '10.0.0.1';
/** The NodePort range (kube-apiserver's default --service-node-port-range). */
export const NODE_PORT_RANGE = '30000-32767';

const NET = ipToInt('10.0.0.0')!;
const FIRST_IP = NET + 1;
const LAST_IP = NET + 254;
/** KEP-3070: the lower band of min(max(16, size/16), 256) addresses is left for static allocation. */
const IP_OFFSET = 16;
const PORT_BASE = 30000;
const PORT_SIZE = 2768;
/** KEP-3668: min(max(16, size/32), 128) ports of the lower band are left for static allocation. */
const PORT_OFFSET = 86;

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];
const POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const FAMILIES = ['IPv4', 'IPv6'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];
const TRAFFIC_DISTRIBUTIONS = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];
const IP_MESSAGE = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

function ipToInt(ip: string): number | undefined {
  if (!isIPv4(ip)) return undefined;
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

const spec = (o: KubeObject): Rec => rec((o as Rec).spec);
const typeOf = (o: KubeObject): string => str(spec(o).type);
const ports = (o: KubeObject): Rec[] => arr(spec(o).ports).map(rec);
const clusterIPs = (o: KubeObject): string[] => arr(spec(o).clusterIPs).map(str);
const isHeadless = (o: KubeObject): boolean => clusterIPs(o)[0] === 'None';
const hasSelector = (o: KubeObject): boolean => Object.keys(rec(spec(o).selector)).length > 0;
const externallyAccessible = (o: KubeObject): boolean =>
  typeOf(o) === 'LoadBalancer' ||
  typeOf(o) === 'NodePort' ||
  (typeOf(o) === 'ClusterIP' && arr(spec(o).externalIPs).length > 0);
const needsHealthCheck = (o: KubeObject): boolean =>
  typeOf(o) === 'LoadBalancer' && spec(o).externalTrafficPolicy === 'Local';
const needsNodePort = (o: KubeObject): boolean =>
  typeOf(o) === 'NodePort' || (typeOf(o) === 'LoadBalancer' && spec(o).allocateLoadBalancerNodePorts !== false);
const shouldAllocateNodePorts = (o: KubeObject): boolean =>
  typeOf(o) === 'NodePort' || (typeOf(o) === 'LoadBalancer' && spec(o).allocateLoadBalancerNodePorts === true);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** SetDefaults_Service: what decoding a v1 Service fills in (on every write, status ones too). */
export function defaultService(obj: KubeObject): void {
  const o = obj as Rec;
  if (!isObject(o.spec)) o.spec = {};
  const s = o.spec as Rec;
  if (!s.sessionAffinity) s.sessionAffinity = 'None';
  if (s.sessionAffinity === 'None') delete s.sessionAffinityConfig;
  if (s.sessionAffinity === 'ClientIP') {
    const c = rec(rec(s.sessionAffinityConfig).clientIP);
    if (typeof c.timeoutSeconds !== 'number') s.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (!s.type) s.type = 'ClusterIP';
  for (const p of arr(s.ports)) {
    if (!isObject(p)) continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '')
      p.targetPort = num(p.port);
  }
  if (externallyAccessible(obj) && !s.externalTrafficPolicy) s.externalTrafficPolicy = 'Cluster';
  if (s.internalTrafficPolicy === undefined || s.internalTrafficPolicy === null) {
    if (s.type === 'NodePort' || s.type === 'LoadBalancer' || s.type === 'ClusterIP')
      s.internalTrafficPolicy = 'Cluster';
  }
  if (
    s.type === 'LoadBalancer' &&
    (s.allocateLoadBalancerNodePorts === undefined || s.allocateLoadBalancerNodePorts === null)
  )
    s.allocateLoadBalancerNodePorts = true;
  if (s.type === 'LoadBalancer') {
    for (const ing of arr(rec(rec(o.status).loadBalancer).ingress))
      if (isObject(ing) && ing.ip && ing.ipMode === undefined) ing.ipMode = 'VIP';
  }
}

// ---- validation ---------------------------------------------------------------------------

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_KEY_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  return examples.length
    ? `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`
    : `${msg} (regex used for validation is '${fmt}')`;
}

/** validation.IsDNS1123Label's messages. */
export function dns1123LabelErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1123_LABEL.test(v)) {
    if (DNS1123_SUBDOMAIN.test(v)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          '[a-z0-9]([-a-z0-9]*[a-z0-9])?',
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

/** validation.IsDNS1123Subdomain's messages. */
export function dns1123SubdomainErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*',
        'example.com',
      ),
    );
  }
  return errs;
}

/** validation.IsQualifiedName's messages (a label key). */
export function qualifiedNameErrors(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  const keyMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  const keyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(keyMsg, keyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!LABEL_KEY_NAME.test(name)) errs.push(`name part ${regexError(keyMsg, keyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** validation.IsValidPortName's messages. */
function portNameErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(v)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.length > 0 && (v.startsWith('-') || v.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

const PORT_RANGE_MESSAGE = 'must be between 1 and 65535, inclusive';
const validPort = (p: number): boolean => Number.isInteger(p) && p >= 1 && p <= 65535;

/** ValidateLabels (keys and values) of a selector-like map at `field`. */
function labelsErrors(labels: Rec, field: string): FieldCause[] {
  const errs: FieldCause[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldInvalid(field, k, m));
    const value = str(v);
    if (value.length > 63) errs.push(fieldInvalid(field, value, 'must be no more than 63 characters'));
    if (!/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(value)) {
      errs.push(
        fieldInvalid(
          field,
          value,
          regexError(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?',
            'MyValue',
            'my_value',
            '12345',
          ),
        ),
      );
    }
  }
  return errs;
}

/** `{"Name":"","Protocol":"TCP",…}`: a core.ServicePort as the Duplicate error prints it (Go field order). */
function servicePortKey(protocol: string, port: number): string {
  return `{"Name":"","Protocol":${JSON.stringify(protocol)},"AppProtocol":null,"Port":${port},"TargetPort":0,"NodePort":0}`;
}

/** ValidateServiceClusterIPsRelatedFields. */
function clusterIPsRelatedErrors(svc: KubeObject, old: KubeObject | undefined): FieldCause[] {
  if (typeOf(svc) === 'ExternalName') return [];
  const s = spec(svc);
  const errs: FieldCause[] = [];
  const ips = clusterIPs(svc);
  const clusterIP = str(s.clusterIP);
  if (clusterIP) {
    if (ips.length === 0) errs.push(required('spec.clusterIPs'));
    else if (ips[0] !== clusterIP)
      errs.push(fieldInvalid('spec.clusterIPs', ips, 'first value must match `clusterIP`'));
  } else if (ips.length)
    errs.push(fieldInvalid('spec.clusterIPs', ips, 'must be empty when `clusterIP` is not specified'));
  const families = arr(s.ipFamilies).map(str);
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (!FAMILIES.includes(f)) errs.push(notSupported(`spec.ipFamilies[${i}]`, f, FAMILIES));
    if (seen.has(f)) errs.push(duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  if (s.ipFamilyPolicy !== undefined && s.ipFamilyPolicy !== null && !POLICIES.includes(str(s.ipFamilyPolicy)))
    errs.push(notSupported('spec.ipFamilyPolicy', s.ipFamilyPolicy, POLICIES));
  const existing = old ? clusterIPs(old) : [];
  let bad = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        bad = true;
        errs.push(fieldInvalid('spec.clusterIPs', ips, "'None' must be the first and only value"));
      }
      return;
    }
    if (!isIPv4(ip) && !isIPv6(ip) && !existing.includes(ip)) {
      bad = true;
      errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, ip, IP_MESSAGE));
    }
  });
  if (ips.length > 2) errs.push(fieldInvalid('spec.clusterIPs', ips, 'may only hold up to 2 values'));
  if (bad) return errs;
  if (ips.length > 1 && !(ips.length === 2 && isIPv4(ips[0]) !== isIPv4(ips[1])))
    errs.push(fieldInvalid('spec.clusterIPs', ips, 'may specify no more than one IP for each IP family'));
  if (!isHeadless(svc) && ips.length && families.length) {
    ips.forEach((ip, i) => {
      if (i >= families.length) return;
      if (families[i] === 'IPv4' && isIPv6(ip))
        errs.push(
          fieldInvalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``),
        );
      if (families[i] === 'IPv6' && !isIPv6(ip))
        errs.push(
          fieldInvalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``),
        );
    });
  }
  return errs;
}

/** validateService: the spec checks of create and update. */
function serviceErrors(svc: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const s = spec(svc);
  const errs: FieldCause[] = [];
  const type = typeOf(svc);
  const ps = ports(svc);
  const ips = clusterIPs(svc);
  if (ps.length === 0 && !isHeadless(svc) && type !== 'ExternalName') errs.push(required('spec.ports'));
  if (type === 'LoadBalancer' && isHeadless(svc))
    errs.push(fieldInvalid('spec.clusterIPs[0]', ips[0], "may not be set to 'None' for LoadBalancer services"));
  if (type === 'NodePort' && isHeadless(svc))
    errs.push(fieldInvalid('spec.clusterIPs[0]', ips[0], "may not be set to 'None' for NodePort services"));
  if (type === 'ExternalName') {
    if (ips.length) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (arr(s.ipFamilies).length) errs.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (s.ipFamilyPolicy !== undefined && s.ipFamilyPolicy !== null)
      errs.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    const cname = str(s.externalName).replace(/\.$/, '');
    if (cname) for (const m of dns1123SubdomainErrors(cname)) errs.push(fieldInvalid('spec.externalName', cname, m));
    else errs.push(required('spec.externalName'));
  }
  const names = new Set<string>();
  ps.forEach((p, i) => {
    const at = `spec.ports[${i}]`;
    const name = str(p.name);
    if (ps.length > 1 && !name) errs.push(required(`${at}.name`));
    else if (name) {
      for (const m of dns1123LabelErrors(name)) errs.push(fieldInvalid(`${at}.name`, name, m));
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
      else names.add(name);
    }
    if (!validPort(num(p.port))) errs.push(fieldInvalid(`${at}.port`, num(p.port), PORT_RANGE_MESSAGE));
    const protocol = str(p.protocol);
    if (!protocol) errs.push(required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    if (typeof p.targetPort === 'string') {
      for (const m of portNameErrors(p.targetPort)) errs.push(fieldInvalid(`${at}.targetPort`, p.targetPort, m));
    } else if (!validPort(num(p.targetPort)))
      errs.push(fieldInvalid(`${at}.targetPort`, num(p.targetPort), PORT_RANGE_MESSAGE));
    if (typeof p.appProtocol === 'string')
      for (const m of qualifiedNameErrors(p.appProtocol))
        errs.push(fieldInvalid(`${at}.appProtocol`, p.appProtocol, m));
  });
  if (isObject(s.selector)) errs.push(...labelsErrors(s.selector, 'spec.selector'));
  const affinity = str(s.sessionAffinity);
  if (!affinity) errs.push(required('spec.sessionAffinity'));
  else if (!AFFINITIES.includes(affinity)) errs.push(notSupported('spec.sessionAffinity', affinity, AFFINITIES));
  if (affinity === 'ClientIP') {
    const cfg = s.sessionAffinityConfig;
    const client = rec(cfg).clientIP;
    if (!isObject(cfg) || !isObject(client))
      errs.push(required(isObject(cfg) ? 'spec.sessionAffinityConfig.clientIP' : 'spec.sessionAffinityConfig'));
    else {
      const t = client.timeoutSeconds;
      if (typeof t !== 'number') errs.push(required('spec.sessionAffinityConfig.clientIP.timeoutSeconds'));
      else if (t <= 0 || t > 86400)
        errs.push(
          fieldInvalid(
            'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
            t,
            'must be greater than 0 and less than 86400',
          ),
        );
    }
  } else if (affinity === 'None' && s.sessionAffinityConfig !== undefined && s.sessionAffinityConfig !== null) {
    errs.push(forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...clusterIPsRelatedErrors(svc, old));
  const oldExternal = old ? arr(spec(old).externalIPs).map(str) : [];
  arr(s.externalIPs).forEach((ip, i) => {
    if (typeof ip !== 'string' || (!isIPv4(ip) && !isIPv6(ip) && !oldExternal.includes(ip)))
      errs.push(fieldInvalid(`spec.externalIPs[${i}]`, ip, IP_MESSAGE));
  });
  if (!type) errs.push(required('spec.type'));
  else if (!TYPES.includes(type)) errs.push(notSupported('spec.type', type, TYPES));
  if (type === 'ClusterIP')
    ps.forEach(
      (p, i) =>
        num(p.nodePort) !== 0 &&
        errs.push(forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'")),
    );
  const nodePorts = new Set<string>();
  ps.forEach((p, i) => {
    if (num(p.nodePort) === 0) return;
    const key = `${str(p.protocol)}/${num(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(duplicate(`spec.ports[${i}].nodePort`, num(p.nodePort)));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ps.forEach((p, i) => {
    const key = `${str(p.protocol)}/${num(p.port)}`;
    if (portKeys.has(key))
      errs.push({
        reason: 'FieldValueDuplicate',
        field: `spec.ports[${i}]`,
        message: `Duplicate value: ${servicePortKey(str(p.protocol), num(p.port))}`,
      });
    portKeys.add(key);
  });
  if (arr(s.loadBalancerSourceRanges).length && type !== 'LoadBalancer')
    errs.push(forbidden('spec.LoadBalancerSourceRanges', "may only be used when `type` is 'LoadBalancer'"));
  if (
    s.allocateLoadBalancerNodePorts !== undefined &&
    s.allocateLoadBalancerNodePorts !== null &&
    type !== 'LoadBalancer'
  ) {
    errs.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  if (
    type === 'LoadBalancer' &&
    (s.allocateLoadBalancerNodePorts === undefined || s.allocateLoadBalancerNodePorts === null)
  )
    errs.push(required('allocateLoadBalancerNodePorts'));
  if (s.loadBalancerClass !== undefined && s.loadBalancerClass !== null && type !== 'LoadBalancer')
    errs.push(forbidden('spec.loadBalancerClass', 'may only be used when `type` is `LoadBalancer`'));
  // external traffic policy
  const etp = str(s.externalTrafficPolicy);
  if (!externallyAccessible(svc)) {
    if (etp)
      errs.push(fieldInvalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (!etp) errs.push(required('spec.externalTrafficPolicy'));
  else if (!TRAFFIC_POLICIES.includes(etp))
    errs.push(notSupported('spec.externalTrafficPolicy', etp, TRAFFIC_POLICIES));
  const hc = num(s.healthCheckNodePort);
  if (!needsHealthCheck(svc)) {
    if (hc !== 0)
      errs.push(
        fieldInvalid(
          'spec.healthCheckNodePort',
          hc,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ),
      );
  } else if (hc === 0) errs.push(required('spec.healthCheckNodePort'));
  else if (!validPort(hc)) errs.push(fieldInvalid('spec.healthCheckNodePort', hc, PORT_RANGE_MESSAGE));
  // internal traffic policy
  if (s.internalTrafficPolicy === undefined || s.internalTrafficPolicy === null) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')
      errs.push(required('spec.internalTrafficPolicy'));
  } else if (!TRAFFIC_POLICIES.includes(str(s.internalTrafficPolicy)))
    errs.push(notSupported('spec.internalTrafficPolicy', s.internalTrafficPolicy, TRAFFIC_POLICIES));
  if (
    s.trafficDistribution !== undefined &&
    s.trafficDistribution !== null &&
    !TRAFFIC_DISTRIBUTIONS.includes(str(s.trafficDistribution))
  ) {
    errs.push(notSupported('spec.trafficDistribution', s.trafficDistribution, TRAFFIC_DISTRIBUTIONS));
  }
  return errs;
}

/** ValidateServiceUpdate's own checks (the upgrade/downgrade rules of clusterIPs and ipFamilies, the health-check port). */
function serviceUpdateErrors(svc: KubeObject, old: KubeObject): FieldCause[] {
  const errs: FieldCause[] = [];
  if (typeOf(svc) !== 'ExternalName' && typeOf(old) !== 'ExternalName' && !(isHeadless(svc) && isHeadless(old))) {
    const now = clusterIPs(svc);
    const was = clusterIPs(old);
    if (was.length === now.length) {
      was.forEach(
        (ip, i) => ip !== now[i] && errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, now, 'may not change once set')),
      );
    } else if (was.length > now.length) {
      if (now.length === 0) errs.push(fieldInvalid('spec.clusterIPs[0]', now, 'primary clusterIP can not be unset'));
      if (was.length && now.length && now[0] !== was[0])
        errs.push(fieldInvalid('spec.clusterIPs[0]', now, 'may not change once set'));
    } else if (was.length && now[0] !== was[0])
      errs.push(fieldInvalid('spec.clusterIPs[0]', now, 'may not change once set'));
    const nf = arr(spec(svc).ipFamilies).map(str);
    const of = arr(spec(old).ipFamilies).map(str);
    if (of.length && nf.length && nf[0] !== of[0])
      errs.push(fieldInvalid('spec.ipFamilies[0]', nf[0], 'may not change once set'));
  }
  if (
    needsHealthCheck(old) &&
    needsHealthCheck(svc) &&
    num(spec(svc).healthCheckNodePort) !== num(spec(old).healthCheckNodePort)
  ) {
    errs.push(forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return errs;
}

/** ValidateLoadBalancerStatus: what a status write is checked for. */
export function serviceStatusErrors(svc: KubeObject): FieldCause[] {
  const errs: FieldCause[] = [];
  arr(rec(rec((svc as Rec).status).loadBalancer).ingress).forEach((raw, i) => {
    const ing = rec(raw);
    const at = `status.loadBalancer.ingress[${i}]`;
    const ip = str(ing.ip);
    if (ip && !isIPv4(ip) && !isIPv6(ip)) errs.push(fieldInvalid(`${at}.ip`, ip, IP_MESSAGE));
    if (ing.ipMode !== undefined && ing.ipMode !== null) {
      if (!['Proxy', 'VIP'].includes(str(ing.ipMode)))
        errs.push(notSupported(`${at}.ipMode`, ing.ipMode, ['Proxy', 'VIP']));
      else if (!ip) errs.push(forbidden(`${at}.ipMode`, 'may not be specified when `ip` is not set'));
    } else if (ip && typeOf(svc) === 'LoadBalancer')
      errs.push(required(`${at}.ipMode`, 'must be specified when `ip` is set'));
    const host = str(ing.hostname);
    if (host) {
      for (const m of dns1123SubdomainErrors(host)) errs.push(fieldInvalid(`${at}.hostname`, host, m));
      if (isIPv4(host) || isIPv6(host))
        errs.push(fieldInvalid(`${at}.hostname`, host, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

// ---- allocation ---------------------------------------------------------------------------

/** What Services in flight have reserved, per server (the stored Services hold the rest). */
export interface ServiceReservations {
  ips: Set<string>;
  ports: Set<number>;
}

export function newServiceReservations(): ServiceReservations {
  return { ips: new Set(), ports: new Set() };
}

/** Random order over [lo, hi]: a random start, then on with wrap-around (the allocators' random scan). */
function* randomScan(lo: number, hi: number): Generator<number> {
  const n = hi - lo + 1;
  const start = Math.floor(Math.random() * n);
  for (let i = 0; i < n; i++) yield lo + ((start + i) % n);
}

class Allocation {
  private readonly ips = new Set<string>();
  private readonly ports = new Set<number>();
  constructor(
    private readonly used: { ips: Set<string>; ports: Set<number> },
    private readonly reservations: ServiceReservations,
    private readonly dryRun: boolean,
  ) {}

  private takeIp(ip: string): void {
    this.ips.add(ip);
    this.used.ips.add(ip);
    if (!this.dryRun) this.reservations.ips.add(ip);
  }

  private takePort(p: number): void {
    this.ports.add(p);
    this.used.ports.add(p);
    if (!this.dryRun) this.reservations.ports.add(p);
  }

  /** A requested IP: the error text, or undefined when it is now taken. */
  allocateIp(ip: string): string | undefined {
    // (the network and broadcast addresses are outside every range too)
    const n = ipToInt(ip);
    if (n === undefined || n < FIRST_IP || n > LAST_IP) return 'the provided network does not match the current range';
    if (this.used.ips.has(ip)) return 'provided IP is already allocated';
    this.takeIp(ip);
    return undefined;
  }

  /** The next free IP (upper band first), or undefined when the range is full. */
  nextIp(): string | undefined {
    for (const [lo, hi] of [
      [FIRST_IP + IP_OFFSET, LAST_IP],
      [FIRST_IP, FIRST_IP + IP_OFFSET - 1],
    ] as const) {
      for (const n of randomScan(lo, hi)) {
        const ip = intToIp(n);
        if (!this.used.ips.has(ip)) {
          this.takeIp(ip);
          return ip;
        }
      }
    }
    return undefined;
  }

  allocatePort(p: number): string | undefined {
    if (p < PORT_BASE || p >= PORT_BASE + PORT_SIZE)
      return `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE}`;
    if (this.used.ports.has(p)) return 'provided port is already allocated';
    this.takePort(p);
    return undefined;
  }

  nextPort(): number | undefined {
    for (const [lo, hi] of [
      [PORT_BASE + PORT_OFFSET, PORT_BASE + PORT_SIZE - 1],
      [PORT_BASE, PORT_BASE + PORT_OFFSET - 1],
    ] as const) {
      for (const p of randomScan(lo, hi)) {
        if (!this.used.ports.has(p)) {
          this.takePort(p);
          return p;
        }
      }
    }
    return undefined;
  }

  release(): void {
    for (const ip of this.ips) this.reservations.ips.delete(ip);
    for (const p of this.ports) this.reservations.ports.delete(p);
  }
}

/** The IPs and ports the stored Services hold, and those reserved by writes in flight. */
async function usedResources(
  storage: Storage,
  prefix: string,
  reservations: ServiceReservations,
): Promise<{ ips: Set<string>; ports: Set<number> }> {
  const ips = new Set(reservations.ips);
  const used = new Set(reservations.ports);
  for (const o of (await storage.list(prefix)).items) {
    for (const ip of clusterIPs(o)) if (ip && ip !== 'None') ips.add(ip);
    for (const p of ports(o)) if (num(p.nodePort)) used.add(num(p.nodePort));
    if (num(spec(o).healthCheckNodePort)) used.add(num(spec(o).healthCheckNodePort));
  }
  return { ips, ports: used };
}

function serviceInvalid(name: string, errs: FieldCause[]): ApiError {
  return invalid('', 'Service', name, errs);
}

/** initIPFamilyFields for a single-stack IPv4 cluster. */
function initIPFamilyFields(svc: KubeObject, old: KubeObject | undefined): void {
  if (typeOf(svc) === 'ExternalName') return;
  const s = spec(svc);
  const name = svc.metadata?.name ?? '';
  if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null) {
    if (old && spec(old).ipFamilyPolicy) s.ipFamilyPolicy = spec(old).ipFamilyPolicy;
    else if (s.clusterIP === 'None' && !hasSelector(svc)) s.ipFamilyPolicy = 'RequireDualStack';
    else s.ipFamilyPolicy = 'SingleStack';
  }
  const pre = clusterIPsRelatedErrors(svc, old);
  if (pre.length) throw serviceInvalid(name, pre);
  const errs: FieldCause[] = [];
  const policy = str(s.ipFamilyPolicy);
  let ips = clusterIPs(svc);
  let families = arr(s.ipFamilies).map(str);
  if (old) {
    if (policy === 'SingleStack') {
      if (jsonEqual(clusterIPs(old), ips) && ips.length > 1) s.clusterIPs = ips = ips.slice(0, 1);
      if (jsonEqual(arr(spec(old).ipFamilies), families) && families.length > 1)
        s.ipFamilies = families = families.slice(0, 1);
    } else {
      if (ips.length && ips.length < clusterIPs(old).length)
        errs.push(
          fieldInvalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary cluster IP"),
        );
      if (families.length && families.length < arr(spec(old).ipFamilies).length)
        errs.push(
          fieldInvalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary IP family"),
        );
    }
  }
  if (policy === 'SingleStack') {
    if (ips.length === 2)
      errs.push(
        fieldInvalid(
          'spec.ipFamilyPolicy',
          policy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
        ),
      );
    if (families.length === 2)
      errs.push(
        fieldInvalid(
          'spec.ipFamilyPolicy',
          policy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
        ),
      );
  }
  for (let i = 0; i < ips.length; i++) {
    if (ips[i] === 'None') break;
    if (i < families.length) continue;
    if (isIPv4(ips[i])) families.push('IPv4');
    else errs.push(fieldInvalid(`spec.clusterIPs[${i}]`, ips, 'IPv6 is not configured on this cluster'));
  }
  if (families.length) s.ipFamilies = families;
  if (errs.length) throw serviceInvalid(name, errs);
  if (s.clusterIP === 'None' && !hasSelector(svc)) {
    if (families.length === 0) families = ['IPv4'];
    if (families.length < 2 && policy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    s.ipFamilies = families;
    return;
  }
  if (policy === 'RequireDualStack')
    errs.push(fieldInvalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
  families.forEach(
    (f, i) => f !== 'IPv4' && errs.push(fieldInvalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster')),
  );
  if (errs.length) throw serviceInvalid(name, errs);
  if (families.length === 0) s.ipFamilies = ['IPv4'];
}

/** allocClusterIPs: the primary (IPv4) cluster IP, requested or the next free one. */
function allocClusterIPs(svc: KubeObject, a: Allocation): void {
  if (typeOf(svc) === 'ExternalName' || isHeadless(svc)) return;
  const s = spec(svc);
  const ips = clusterIPs(svc);
  const want = ips[0] ?? '';
  const name = svc.metadata?.name ?? '';
  if (!want) {
    const ip = a.nextIp();
    if (ip === undefined)
      throw internalError(`failed to allocate a serviceIP for Service ${JSON.stringify(name)}: range is full`);
    s.clusterIPs = [ip, ...ips.slice(1)];
    s.clusterIP = ip;
    return;
  }
  const why = a.allocateIp(want);
  if (why) throw serviceInvalid(name, [fieldInvalid('spec.clusterIPs', ips, `failed to allocate IP ${want}: ${why}`)]);
  s.clusterIP = want;
}

function allocHealthCheckNodePort(svc: KubeObject, a: Allocation): void {
  const s = spec(svc);
  const want = num(s.healthCheckNodePort);
  if (want) {
    const why = a.allocatePort(want);
    if (why) throw internalError(`failed to allocate requested HealthCheck NodePort ${want}: ${why}`);
  } else {
    const p = a.nextPort();
    if (p === undefined) throw internalError('failed to allocate a HealthCheck NodePort 0: range is full');
    s.healthCheckNodePort = p;
  }
}

function nodePortError(svc: KubeObject, i: number, np: number, why: string): ApiError {
  return serviceInvalid(svc.metadata?.name ?? '', [fieldInvalid(`spec.ports[${i}].nodePort`, np, why)]);
}

/** initNodePorts: a node port per service port number (one shared by the protocols of a port). */
function initNodePorts(svc: KubeObject, a: Allocation): void {
  const ps = ports(svc);
  const byPort = new Map<number, number>();
  ps.forEach((p, i) => {
    if (num(p.nodePort) === 0 && !shouldAllocateNodePorts(svc)) return;
    const allocated = byPort.get(num(p.port));
    if (allocated === undefined) {
      const np = num(ps.find((q) => num(q.port) === num(p.port) && num(q.nodePort) !== 0)?.nodePort);
      if (np) {
        const why = a.allocatePort(np);
        if (why) throw nodePortError(svc, i, np, why);
        p.nodePort = np;
        byPort.set(num(p.port), np);
      } else {
        const next = a.nextPort();
        if (next === undefined) throw internalError('failed to allocate a nodePort: range is full');
        p.nodePort = next;
        byPort.set(num(p.port), next);
      }
    } else if (num(p.nodePort) !== allocated) {
      if (num(p.nodePort) === 0) p.nodePort = allocated;
      else {
        const why = a.allocatePort(num(p.nodePort));
        if (why) throw nodePortError(svc, i, num(p.nodePort), why);
      }
    }
  });
}

/** updateNodePorts: new node ports for ports that have none, requested ones that are new. */
function updateNodePorts(svc: KubeObject, old: KubeObject, a: Allocation): void {
  const oldNums = ports(old)
    .map((p) => num(p.nodePort))
    .filter((n) => n !== 0);
  const taken = new Set<number>();
  ports(svc).forEach((p, i) => {
    const np = num(p.nodePort);
    if (np === 0 && !shouldAllocateNodePorts(svc)) return;
    if (np !== 0) {
      if (!oldNums.includes(np) && !taken.has(np)) {
        const why = a.allocatePort(np);
        if (why) throw nodePortError(svc, i, np, why);
        taken.add(np);
      }
    } else {
      const next = a.nextPort();
      if (next === undefined) throw internalError('failed to allocate a nodePort: range is full');
      p.nodePort = next;
    }
  });
}

/** normalizeClusterIPs: keeps clusterIP and clusterIPs in step for clients that set only one. */
function normalizeClusterIPs(svc: KubeObject, old: KubeObject | undefined): void {
  const s = spec(svc);
  const ip = str(s.clusterIP);
  const ips = clusterIPs(svc);
  if (!old) {
    if (ip && ips.length === 0) s.clusterIPs = [ip];
    return;
  }
  const o = spec(old);
  if (clusterIPs(old).length && ips.length === 0 && str(o.clusterIP) === ip) s.clusterIPs = o.clusterIPs;
  if (str(o.clusterIP) !== ip) {
    const same = jsonEqual(clusterIPs(old), clusterIPs(svc));
    if (str(o.clusterIP) && !ip) {
      if (same) delete s.clusterIPs;
    } else if (same) s.clusterIPs = [ip];
  }
}

/** patchAllocatedValues: what the client left out of an update keeps its allocated value. */
function patchAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const s = spec(svc);
  const o = spec(old);
  if (typeOf(old) !== 'ExternalName' && typeOf(svc) !== 'ExternalName') {
    if (!s.clusterIP && o.clusterIP) s.clusterIP = o.clusterIP;
    if (clusterIPs(svc).length === 0 && clusterIPs(old).length) s.clusterIPs = structuredClone(o.clusterIPs);
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const oldUsed = new Set(
      ports(old)
        .map((p) => num(p.nodePort))
        .filter((n) => n),
    );
    const newUsed = new Set(
      ports(svc)
        .map((p) => num(p.nodePort))
        .filter((n) => n),
    );
    const used = new Set([...oldUsed].filter((n) => newUsed.has(n)));
    const byName = new Map(ports(old).map((p) => [str(p.name), num(p.nodePort)]));
    for (const p of ports(svc)) {
      if (num(p.nodePort) === 0) {
        const was = byName.get(str(p.name)) ?? 0;
        if (!used.has(was) && was) p.nodePort = was;
      }
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !num(s.healthCheckNodePort) && num(o.healthCheckNodePort))
    s.healthCheckNodePort = o.healthCheckNodePort;
}

/** dropTypeDependentFields: what a type change wipes when the client did not change it too. */
function dropTypeDependentFields(svc: KubeObject, old: KubeObject): void {
  const s = spec(svc);
  const o = spec(old);
  const t = typeOf(svc);
  if (typeOf(old) !== 'ExternalName' && t === 'ExternalName') {
    if (str(o.clusterIP) === str(s.clusterIP) && jsonEqual(clusterIPs(old), clusterIPs(svc))) {
      delete s.clusterIP;
      delete s.clusterIPs;
    }
    if (jsonEqual(o.ipFamilies ?? [], s.ipFamilies ?? [])) delete s.ipFamilies;
    if (str(o.ipFamilyPolicy) === str(s.ipFamilyPolicy)) delete s.ipFamilyPolicy;
  }
  const nps = (x: KubeObject): number[] =>
    ports(x)
      .map((p) => num(p.nodePort))
      .filter((n) => n);
  const oldTypeNeeds = typeOf(old) === 'NodePort' || typeOf(old) === 'LoadBalancer';
  const newTypeNeeds = t === 'NodePort' || t === 'LoadBalancer';
  if (oldTypeNeeds && !newTypeNeeds && nps(svc).every((n) => nps(old).includes(n)))
    for (const p of ports(svc)) delete p.nodePort;
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && num(s.healthCheckNodePort) === num(o.healthCheckNodePort))
    delete s.healthCheckNodePort;
  if (typeOf(old) === 'LoadBalancer' && t !== 'LoadBalancer') {
    if (
      typeof s.allocateLoadBalancerNodePorts === 'boolean' &&
      s.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts
    )
      delete s.allocateLoadBalancerNodePorts;
    if (s.loadBalancerClass === o.loadBalancerClass) delete s.loadBalancerClass;
  }
  if (
    externallyAccessible(old) &&
    !externallyAccessible(svc) &&
    str(s.externalTrafficPolicy) === str(o.externalTrafficPolicy)
  )
    delete s.externalTrafficPolicy;
  if (t !== 'LoadBalancer') (svc as Rec).status = { ...rec((svc as Rec).status), loadBalancer: {} };
}

/**
 * What the Go struct does not keep: empty strings and zero ports of omitempty fields; and what
 * the registry's read decorator drops (internalTrafficPolicy of an ExternalName Service).
 */
function omitEmpty(svc: KubeObject): void {
  const s = spec(svc);
  for (const k of ['clusterIP', 'externalName', 'loadBalancerIP', 'externalTrafficPolicy', 'type', 'sessionAffinity'])
    if (s[k] === '') delete s[k];
  if (s.healthCheckNodePort === 0) delete s.healthCheckNodePort;
  for (const p of ports(svc)) {
    if (p.nodePort === 0) delete p.nodePort;
    if (p.name === '') delete p.name;
  }
  if (typeOf(svc) === 'ExternalName') delete s.internalTrafficPolicy;
}

/** What a Service write needs from the server. */
export interface ServiceWrite {
  storage: Storage;
  /** The storage prefix of Services (all namespaces). */
  prefix: string;
  reservations: ServiceReservations;
  obj: KubeObject;
  old: KubeObject | undefined;
  dryRun: boolean;
  /** `status` for /status writes (no allocation, the status checks). */
  scope: string;
  /** The errors found before (metadata), reported with the Service's own. */
  errors: FieldCause[];
}

/**
 * The Service registry's BeginCreate/BeginUpdate and strategy: allocates, then validates;
 * returns the function that releases the write's reservations (call it when the write ended).
 */
export async function beginServiceWrite(w: ServiceWrite): Promise<() => void> {
  const { obj, old } = w;
  const name = obj.metadata?.name ?? '';
  if (w.scope === 'status') {
    const errs = [...w.errors, ...serviceStatusErrors(obj)];
    if (errs.length) throw serviceInvalid(name, errs);
    return () => undefined;
  }
  const a = new Allocation(await usedResources(w.storage, w.prefix, w.reservations), w.reservations, w.dryRun);
  try {
    if (!old) {
      normalizeClusterIPs(obj, undefined);
      initIPFamilyFields(obj, undefined);
      allocClusterIPs(obj, a);
      if (typeOf(obj) === 'NodePort' || typeOf(obj) === 'LoadBalancer') initNodePorts(obj, a);
      if (needsHealthCheck(obj)) allocHealthCheckNodePort(obj, a);
      (obj as Rec).status = { loadBalancer: {} };
    } else {
      patchAllocatedValues(obj, old);
      normalizeClusterIPs(obj, old);
      initIPFamilyFields(obj, old);
      if (typeOf(old) === 'ExternalName' && typeOf(obj) !== 'ExternalName') allocClusterIPs(obj, a);
      if (typeOf(obj) === 'NodePort' || typeOf(obj) === 'LoadBalancer') updateNodePorts(obj, old, a);
      if (!needsHealthCheck(old) && needsHealthCheck(obj)) allocHealthCheckNodePort(obj, a);
      dropTypeDependentFields(obj, old);
    }
    const errs = [...w.errors, ...(old ? serviceUpdateErrors(obj, old) : []), ...serviceErrors(obj, old)];
    if (errs.length) throw serviceInvalid(name, errs);
    omitEmpty(obj);
  } catch (e) {
    a.release();
    throw e;
  }
  return () => a.release();
}

/** The `default/kubernetes` Service the apiserver keeps (its reconciler writes it as `kube-apiserver`). */
export function kubernetesService(port: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      sessionAffinity: 'None',
      clusterIP: KUBERNETES_SERVICE_IP,
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }],
    },
  } as KubeObject;
}

/** A 503 for /proxy: testenv runs no endpoints. */
export function noEndpoints(name: string): ApiError {
  return new ApiError(failure(503, 'ServiceUnavailable', `no endpoints available for service ${JSON.stringify(name)}`));
}
