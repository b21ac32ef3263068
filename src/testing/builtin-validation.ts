// Validation of the built-in kinds testenv serves, as kube-apiserver v1.37.1 validates them
// (pkg/apis/core/validation, pkg/apis/apps/validation, pkg/apis/coordination/validation): the
// checks users and operators meet, with the apiserver's paths and messages. Map keys are
// checked in sorted order (Go's is random; the apiserver's answer lists them in any order).
import { goJsonSyntaxError } from './json-syntax.js';
import { duplicate, forbidden, invalid, notSupported, required } from '../runtime/validation/field-error.js';
import type { KubeObject } from '../runtime/meta/types.js';
import { isObject, jsonEqual } from './meta.js';
import { dns1123LabelErrors, qualifiedNameErrors } from './services.js';
import type { FieldCause } from './status.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** core.MaxSecretSize: the limit of a ConfigMap's or Secret's data (1 MiB). */
const MAX_DATA_SIZE = 1024 * 1024;
const IMMUTABLE = 'field is immutable when `immutable` is set';

/** validation.IsConfigMapKey's messages. */
function configMapKeyErrors(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const sortedKeys = (m: unknown): string[] => Object.keys(rec(m)).sort();
/** Bytes of a base64 value (what a []byte holds). */
const base64Bytes = (v: unknown): number => Buffer.from(str(v), 'base64').length;

/** ValidateConfigMap, and ValidateConfigMapUpdate's immutability with `old`. */
export function configMapErrors(cm: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const o = cm as Rec;
  const errs: FieldCause[] = [];
  if (old && (old as Rec).immutable === true) {
    if (o.immutable !== true) errs.push(forbidden('immutable', IMMUTABLE));
    if (!jsonEqual(o.data ?? {}, (old as Rec).data ?? {})) errs.push(forbidden('data', IMMUTABLE));
    if (!jsonEqual(o.binaryData ?? {}, (old as Rec).binaryData ?? {})) errs.push(forbidden('binaryData', IMMUTABLE));
  }
  let size = 0;
  const binary = rec(o.binaryData);
  for (const k of sortedKeys(o.data)) {
    for (const m of configMapKeyErrors(k)) errs.push(invalid(`data[${k}]`, k, m));
    if (Object.prototype.hasOwnProperty.call(binary, k))
      errs.push(invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(str(rec(o.data)[k]));
  }
  for (const k of sortedKeys(binary)) {
    for (const m of configMapKeyErrors(k)) errs.push(invalid(`binaryData[${k}]`, k, m));
    size += base64Bytes(binary[k]);
  }
  if (size > MAX_DATA_SIZE)
    errs.push({
      reason: 'FieldValueTooLong',
      field: '<nil>',
      message: `Too long: may not be more than ${MAX_DATA_SIZE} bytes`,
    });
  return errs;
}

/** ValidateSecret (its data after stringData was merged in), and ValidateSecretUpdate's rules with `old`. */
export function secretErrors(secret: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const o = secret as Rec;
  const errs: FieldCause[] = [];
  if (old) {
    const was = (old as Rec).type;
    if (o.type !== was) errs.push(invalid('type', o.type, 'field is immutable'));
    if ((old as Rec).immutable === true) {
      if (o.immutable !== true) errs.push(forbidden('immutable', IMMUTABLE));
      if (!jsonEqual(o.data ?? {}, (old as Rec).data ?? {})) errs.push(forbidden('data', IMMUTABLE));
    }
  }
  const data = rec(o.data);
  let size = 0;
  for (const k of sortedKeys(data)) {
    for (const m of configMapKeyErrors(k)) errs.push(invalid(`data[${k}]`, k, m));
    size += base64Bytes(data[k]);
  }
  if (size > MAX_DATA_SIZE)
    errs.push({
      reason: 'FieldValueTooLong',
      field: 'data',
      message: `Too long: may not be more than ${MAX_DATA_SIZE} bytes`,
    });
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(data, k);
  const json = (k: string): void => {
    if (!has(k)) {
      errs.push(required(`data[${k}]`));
      return;
    }
    try {
      const v = JSON.parse(Buffer.from(str(data[k]), 'base64').toString('utf8')) as unknown;
      if (!isObject(v))
        throw new SyntaxError(
          `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type map[string]interface {}`,
        );
    } catch (e) {
      errs.push(
        invalid(
          `data[${k}]`,
          '<secret contents redacted>',
          (e as Error).message.startsWith('json: ')
            ? (e as Error).message
            : (goJsonSyntaxError(Buffer.from(str(data[k]), 'base64')) ?? (e as Error).message),
        ),
      );
    }
  };
  switch (o.type) {
    case 'kubernetes.io/service-account-token':
      if (!str(rec(secret.metadata?.annotations)['kubernetes.io/service-account.name']))
        errs.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case 'kubernetes.io/dockercfg':
      json('.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      json('.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(required('data[username]'), required('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (base64Bytes(data['ssh-privatekey']) === 0) errs.push(required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(required('data[tls.key]'));
      break;
  }
  return errs;
}

/** ValidateLeaseSpec. */
export function leaseErrors(lease: KubeObject): FieldCause[] {
  const s = rec((lease as Rec).spec);
  const errs: FieldCause[] = [];
  if (typeof s.leaseDurationSeconds === 'number' && s.leaseDurationSeconds <= 0)
    errs.push(invalid('spec.leaseDurationSeconds', s.leaseDurationSeconds, 'must be greater than 0'));
  if (typeof s.leaseTransitions === 'number' && s.leaseTransitions < 0)
    errs.push(invalid('spec.leaseTransitions', s.leaseTransitions, 'must be greater than or equal to 0'));
  return errs;
}

const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** A finalizer name (ValidateFinalizerName and the core check of standard names), each error at `field`. */
export function finalizerNameErrors(name: string, field: string): FieldCause[] {
  const errs = qualifiedNameErrors(name).map((m) => invalid(field, name, m));
  if (!name.includes('/') && !STANDARD_FINALIZERS.includes(name))
    errs.push(invalid(field, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  return errs;
}

/** ValidateNamespace's spec check: each finalizer a standard or a fully qualified name (reported at spec.finalizers). */
export function namespaceErrors(ns: KubeObject): FieldCause[] {
  return arr(rec((ns as Rec).spec).finalizers).flatMap((f) => finalizerNameErrors(str(f), 'spec.finalizers'));
}

// ---- Deployments ------------------------------------------------------------------------------

/** metav1 LabelSelector semantics: does `sel` select `labels`? (nil selects nothing, {} everything) */
function selects(sel: unknown, labels: Rec): boolean {
  if (!isObject(sel)) return false;
  for (const [k, v] of Object.entries(rec(sel.matchLabels))) if (labels[k] !== v) return false;
  for (const e of arr(sel.matchExpressions).map(rec)) {
    const k = str(e.key);
    const has = Object.prototype.hasOwnProperty.call(labels, k);
    const values = arr(e.values).map(str);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(str(labels[k]))) return false;
        break;
      case 'NotIn':
        if (has && values.includes(str(labels[k]))) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
    }
  }
  return true;
}

/** A selector as the apiserver prints it in errors (the Go struct as JSON, empty fields left out). */
function selectorValue(sel: unknown): unknown {
  return sel === undefined ? null : sel;
}

const PORT_RANGE = 'must be between 1 and 65535, inclusive';
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

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

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A resource.Quantity's value (approximately; enough to compare requests with limits). */
function quantityValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  const m = /^([+-]?[0-9.]+)(([eE][-+]?[0-9]+)|[a-zA-Z]*)$/.exec(str(v).trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  if (m[3]) return n * 10 ** Number(m[3].slice(1));
  const f = SUFFIXES[m[2] ?? ''];
  return f === undefined ? undefined : n * f;
}

/** The checks of one container (validateContainerCommon's common cases). */
function containerErrors(c: Rec, at: string, volumes: Set<string>): FieldCause[] {
  const errs: FieldCause[] = [];
  const name = str(c.name);
  if (!name) errs.push(required(`${at}.name`));
  else for (const m of dns1123LabelErrors(name)) errs.push(invalid(`${at}.name`, name, m));
  if (!str(c.image)) errs.push(required(`${at}.image`));
  const tmp = c.terminationMessagePolicy;
  if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') {
    if (!tmp) errs.push(required(`${at}.terminationMessagePolicy`));
    else errs.push(notSupported(`${at}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  }
  const portNames = new Set<string>();
  arr(c.ports)
    .map(rec)
    .forEach((p, i) => {
      const pa = `${at}.ports[${i}]`;
      const pn = str(p.name);
      if (pn) {
        const msgs = portNameErrors(pn);
        if (msgs.length) for (const m of msgs) errs.push(invalid(`${pa}.name`, pn, m));
        else if (portNames.has(pn)) errs.push(duplicate(`${pa}.name`, pn));
        else portNames.add(pn);
      }
      const cp = num(p.containerPort);
      if (cp === 0) errs.push(required(`${pa}.containerPort`));
      else if (cp < 1 || cp > 65535) errs.push(invalid(`${pa}.containerPort`, cp, PORT_RANGE));
      const hp = num(p.hostPort);
      if (hp !== 0 && (hp < 1 || hp > 65535)) errs.push(invalid(`${pa}.hostPort`, hp, PORT_RANGE));
      const proto = str(p.protocol);
      if (!proto) errs.push(required(`${pa}.protocol`));
      else if (!PROTOCOLS.includes(proto)) errs.push(notSupported(`${pa}.protocol`, proto, PROTOCOLS));
    });
  arr(c.env)
    .map(rec)
    .forEach((e, i) => {
      const en = str(e.name);
      if (!en) errs.push(required(`${at}.env[${i}].name`));
      else if (en.includes('=') || !/^[\x20-\x7e]+$/.test(en))
        errs.push(
          invalid(
            `${at}.env[${i}].name`,
            en,
            "a valid environment variable name must consist only of printable ASCII characters other than '='",
          ),
        );
    });
  const mountPaths = new Set<string>();
  arr(c.volumeMounts)
    .map(rec)
    .forEach((m, i) => {
      const ma = `${at}.volumeMounts[${i}]`;
      const mn = str(m.name);
      if (!mn) errs.push(required(`${ma}.name`));
      else if (!volumes.has(mn))
        errs.push({ reason: 'FieldValueNotFound', field: `${ma}.name`, message: `Not found: ${JSON.stringify(mn)}` });
      const mp = str(m.mountPath);
      if (!mp) errs.push(required(`${ma}.mountPath`));
      else if (mountPaths.has(mp)) errs.push(invalid(`${ma}.mountPath`, mp, 'must be unique'));
      mountPaths.add(mp);
    });
  const pp = str(c.imagePullPolicy);
  if (!pp) errs.push(required(`${at}.imagePullPolicy`));
  else if (!PULL_POLICIES.includes(pp)) errs.push(notSupported(`${at}.imagePullPolicy`, pp, PULL_POLICIES));
  const res = rec(c.resources);
  const limits = rec(res.limits);
  for (const [k, req] of Object.entries(rec(res.requests)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!(k in limits)) continue;
    const rv = quantityValue(req);
    const lv = quantityValue(limits[k]);
    if (rv !== undefined && lv !== undefined && rv > lv)
      errs.push(
        invalid(
          `${at}.resources.requests`,
          String(req),
          `must be less than or equal to ${k} limit of ${String(limits[k])}`,
        ),
      );
  }
  return errs;
}

/** ValidatePodTemplateSpec's common cases for a Deployment's template, and the ReplicaSet rules. */
function podTemplateErrors(tmpl: Rec, at: string): FieldCause[] {
  const errs: FieldCause[] = [];
  const meta = rec(tmpl.metadata);
  for (const [k, v] of Object.entries(rec(meta.labels))) {
    for (const m of qualifiedNameErrors(k)) errs.push(invalid(`${at}.metadata.labels`, k, m));
    if (typeof v === 'string' && v.length > 63)
      errs.push(invalid(`${at}.metadata.labels`, v, 'must be no more than 63 characters'));
  }
  const spec = rec(tmpl.spec);
  const volumes = new Set<string>();
  arr(spec.volumes)
    .map(rec)
    .forEach((v, i) => {
      const vn = str(v.name);
      if (!vn) errs.push(required(`${at}.spec.volumes[${i}].name`));
      else {
        for (const m of dns1123LabelErrors(vn)) errs.push(invalid(`${at}.spec.volumes[${i}].name`, vn, m));
        if (volumes.has(vn)) errs.push(duplicate(`${at}.spec.volumes[${i}].name`, vn));
      }
      volumes.add(vn);
    });
  const containers = arr(spec.containers).map(rec);
  if (containers.length === 0) errs.push(required(`${at}.spec.containers`));
  const names = new Set<string>();
  for (const c of arr(spec.initContainers).map(rec)) names.add(str(c.name));
  arr(spec.initContainers)
    .map(rec)
    .forEach((c, i) => errs.push(...containerErrors(c, `${at}.spec.initContainers[${i}]`, volumes)));
  containers.forEach((c, i) => {
    const ca = `${at}.spec.containers[${i}]`;
    errs.push(...containerErrors(c, ca, volumes));
    if (names.has(str(c.name))) errs.push(duplicate(`${ca}.name`, str(c.name)));
    else names.add(str(c.name));
  });
  const rp = str(spec.restartPolicy);
  if (!['Always', 'OnFailure', 'Never'].includes(rp)) {
    if (!rp) errs.push(required(`${at}.spec.restartPolicy`));
    else errs.push(notSupported(`${at}.spec.restartPolicy`, rp, ['Always', 'OnFailure', 'Never']));
  }
  const dns = str(spec.dnsPolicy);
  if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dns)) {
    if (!dns) errs.push(required(`${at}.spec.dnsPolicy`));
    else
      errs.push(
        notSupported(`${at}.spec.dnsPolicy`, dns, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']),
      );
  }
  if (rp && rp !== 'Always') errs.push(notSupported(`${at}.spec.restartPolicy`, rp, ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null)
    errs.push(forbidden(`${at}.spec.activeDeadlineSeconds`, 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  return errs;
}

/** An IntOrString percent or count: its value for the `maxSurge`/`maxUnavailable` checks, or an error. */
function intOrPercent(v: unknown, field: string, errs: FieldCause[]): number {
  if (typeof v === 'number') {
    if (v < 0) errs.push(invalid(field, v, 'must be greater than or equal to 0'));
    return v;
  }
  if (typeof v === 'string') {
    if (!/^[0-9]+%$/.test(v)) {
      errs.push(
        invalid(
          field,
          v,
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ),
      );
      return -1;
    }
    return Number(v.slice(0, -1));
  }
  return 0;
}

/** ValidateDeployment / ValidateDeploymentUpdate (on the defaulted object). */
export function deploymentErrors(d: KubeObject, old: KubeObject | undefined): FieldCause[] {
  const spec = rec((d as Rec).spec);
  const errs: FieldCause[] = [];
  const replicas = spec.replicas;
  if (typeof replicas === 'number' && replicas < 0)
    errs.push(invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  const sel = spec.selector;
  if (!isObject(sel)) errs.push(required('spec.selector'));
  else {
    for (const [k, v] of Object.entries(rec(sel.matchLabels))) {
      for (const m of qualifiedNameErrors(k)) errs.push(invalid('spec.selector.matchLabels', k, m));
      if (str(v).length > 63)
        errs.push(invalid('spec.selector.matchLabels', str(v), 'must be no more than 63 characters'));
    }
    arr(sel.matchExpressions)
      .map(rec)
      .forEach((e, i) => {
        const at = `spec.selector.matchExpressions[${i}]`;
        const op = str(e.operator);
        if ((op === 'In' || op === 'NotIn') && arr(e.values).length === 0)
          errs.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        else if ((op === 'Exists' || op === 'DoesNotExist') && arr(e.values).length > 0)
          errs.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        else if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(op))
          errs.push(invalid(`${at}.operator`, op, 'not a valid selector operator'));
        for (const m of qualifiedNameErrors(str(e.key))) errs.push(invalid(`${at}.key`, str(e.key), m));
      });
    if (Object.keys(rec(sel.matchLabels)).length + arr(sel.matchExpressions).length === 0)
      errs.push(invalid('spec.selector', sel, 'empty selector is invalid for deployment'));
  }
  const tmpl = rec(spec.template);
  const everything = isObject(sel) && Object.keys(rec(sel.matchLabels)).length + arr(sel.matchExpressions).length === 0;
  if (!everything && !selects(sel, rec(rec(tmpl.metadata).labels))) {
    errs.push(
      invalid(
        'spec.template.metadata.labels',
        rec(tmpl.metadata).labels ?? null,
        '`selector` does not match template `labels`',
      ),
    );
  }
  errs.push(...podTemplateErrors(tmpl, 'spec.template'));
  const strategy = rec(spec.strategy);
  if (strategy.type === 'Recreate') {
    if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null)
      errs.push(forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
  } else if (strategy.type === 'RollingUpdate') {
    const ru = rec(strategy.rollingUpdate);
    const mu = intOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable', errs);
    const ms = intOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge', errs);
    if (mu === 0 && ms === 0)
      errs.push(
        invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'),
      );
    if (typeof ru.maxUnavailable === 'string' && mu > 100)
      errs.push(
        invalid('spec.strategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'must not be greater than 100%'),
      );
  } else {
    errs.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.strategy',
      message: `Unsupported value: {"Type":${JSON.stringify(str(strategy.type))},"RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"`,
    });
  }
  const mrs = num(spec.minReadySeconds);
  if (mrs < 0) errs.push(invalid('spec.minReadySeconds', mrs, 'must be greater than or equal to 0'));
  if (typeof spec.revisionHistoryLimit === 'number' && spec.revisionHistoryLimit < 0)
    errs.push(invalid('spec.revisionHistoryLimit', spec.revisionHistoryLimit, 'must be greater than or equal to 0'));
  if (typeof spec.progressDeadlineSeconds === 'number') {
    if (spec.progressDeadlineSeconds < 0)
      errs.push(
        invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than or equal to 0'),
      );
    if (spec.progressDeadlineSeconds <= mrs)
      errs.push(
        invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'),
      );
  }
  if (old) {
    const was = rec((old as Rec).spec).selector;
    if (!jsonEqual(selectorValue(sel), selectorValue(was)))
      errs.push(invalid('spec.selector', selectorValue(sel), 'field is immutable'));
  }
  return errs;
}
