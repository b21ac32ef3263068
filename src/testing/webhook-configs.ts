// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations as
// kube-apiserver v1.37 stores them: the v1 defaults (failurePolicy Fail, matchPolicy Equivalent,
// empty selectors, timeoutSeconds 10, reinvocationPolicy Never, a rule's scope "*", a Service's
// port 443) and the checks of pkg/apis/admissionregistration/validation that users meet (names,
// sideEffects, timeouts, policies, clientConfig, admissionReviewVersions, rules), with its paths
// and messages. admission.ts calls the webhooks they configure.
import { duplicate, invalid, notSupported, required } from '../runtime/validation/field-error.js';
import type { KubeObject } from '../runtime/meta/types.js';
import { isObject } from './meta.js';
import { dns1123SubdomainErrors } from './services.js';
import type { FieldCause } from './status.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (isObject(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Applies the v1 defaults in place. */
export function defaultWebhookConfiguration(obj: KubeObject, mutating: boolean): void {
  for (const h of arr((obj as Rec).webhooks)) {
    if (!isObject(h)) continue;
    h.failurePolicy ??= 'Fail';
    h.matchPolicy ??= 'Equivalent';
    h.namespaceSelector ??= {};
    h.objectSelector ??= {};
    h.timeoutSeconds ??= 10;
    if (mutating) h.reinvocationPolicy ??= 'Never';
    for (const r of arr(h.rules)) if (isObject(r)) r.scope ??= '*';
    const svc = rec(rec(h.clientConfig).service);
    if (isObject(rec(h.clientConfig).service)) svc.port ??= 443;
  }
}

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

function fullyQualifiedNameErrors(at: string, name: unknown): FieldCause[] {
  const n = typeof name === 'string' ? name : '';
  if (n === '') return [required(at)];
  const sub = dns1123SubdomainErrors(n);
  if (sub.length) return sub.map((m) => invalid(at, n, m));
  if (n.split('.').length < 3)
    return [invalid(at, n, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function ruleErrors(r: Rec, at: string): FieldCause[] {
  const errs: FieldCause[] = [];
  const ops = arr(r.operations);
  if (ops.length === 0) errs.push(required(`${at}.operations`));
  else if (ops.length > 1 && ops.includes('*'))
    errs.push(invalid(`${at}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((o, i) => {
    if (!OPERATIONS.includes(String(o))) errs.push(notSupported(`${at}.operations[${i}]`, o, OPERATIONS));
  });
  const groups = arr(r.apiGroups);
  if (groups.length === 0) errs.push(required(`${at}.apiGroups`));
  const versions = arr(r.apiVersions);
  if (versions.length === 0) errs.push(required(`${at}.apiVersions`));
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(`${at}.apiVersions[${i}]`));
  });
  const resources = arr(r.resources);
  if (resources.length === 0) errs.push(required(`${at}.resources`));
  resources.forEach((v, i) => {
    if (v === '') errs.push(required(`${at}.resources[${i}]`));
  });
  if (r.scope !== undefined && (typeof r.scope !== 'string' || !SCOPES.includes(r.scope)))
    errs.push(notSupported(`${at}.scope`, r.scope, SCOPES));
  return errs;
}

function clientConfigErrors(cc: Rec, at: string): FieldCause[] {
  const hasUrl = typeof cc.url === 'string';
  const hasSvc = isObject(cc.service);
  if (hasUrl === hasSvc) return [required(at, 'exactly one of url or service is required')];
  const errs: FieldCause[] = [];
  if (hasUrl) {
    const form = '; desired format: https://host[/path]';
    let u: URL | undefined;
    try {
      u = new URL(String(cc.url));
    } catch {
      errs.push(
        required(
          `${at}.url`,
          `url must be a valid URL: parse ${JSON.stringify(cc.url)}: invalid URI for request${form}`,
        ),
      );
    }
    if (u) {
      if (u.protocol !== 'https:')
        errs.push(invalid(`${at}.url`, u.protocol.replace(/:$/, ''), `'https' is the only allowed URL scheme${form}`));
      if (!u.host) errs.push(invalid(`${at}.url`, u.host, `host must be specified${form}`));
      if (u.username || u.password)
        errs.push(
          invalid(
            `${at}.url`,
            u.username + (u.password ? `:${u.password}` : ''),
            'user information is not permitted in the URL',
          ),
        );
      if (u.hash) errs.push(invalid(`${at}.url`, u.hash.slice(1), 'fragments are not permitted in the URL'));
      if (u.search) errs.push(invalid(`${at}.url`, u.search.slice(1), 'query parameters are not permitted in the URL'));
    }
  } else {
    const s = rec(cc.service);
    if (!s.name) errs.push(required(`${at}.service.name`));
    if (!s.namespace) errs.push(required(`${at}.service.namespace`));
    const port = s.port;
    if (typeof port === 'number' && (port < 1 || port > 65535 || !Number.isInteger(port)))
      errs.push(invalid(`${at}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  return errs;
}

function reviewVersionErrors(versions: unknown, at: string): FieldCause[] {
  const list = arr(versions);
  const accepted = ['v1', 'v1beta1'];
  if (list.length === 0) return [required(at, `must specify one of ${accepted.join(', ')}`)];
  const errs: FieldCause[] = [];
  const seen = new Set<unknown>();
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(`${at}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
  });
  if (!list.some((v) => accepted.includes(String(v)))) {
    errs.push(invalid(at, list, `must include at least one of ${accepted.join(', ')}`));
  }
  return errs;
}

/** The field errors of a configuration (kube-apiserver's ValidateMutating/ValidatingWebhookConfiguration). */
export function webhookConfigurationErrors(obj: KubeObject, mutating: boolean): FieldCause[] {
  const errs: FieldCause[] = [];
  const names = new Set<string>();
  arr((obj as Rec).webhooks).forEach((raw, i) => {
    const at = `webhooks[${i}]`;
    const h = rec(raw);
    errs.push(...fullyQualifiedNameErrors(`${at}.name`, h.name));
    arr(h.rules).forEach((r, j) => errs.push(...ruleErrors(rec(r), `${at}.rules[${j}]`)));
    if (h.failurePolicy !== undefined && h.failurePolicy !== 'Fail' && h.failurePolicy !== 'Ignore')
      errs.push(notSupported(`${at}.failurePolicy`, h.failurePolicy, ['Fail', 'Ignore']));
    if (h.matchPolicy !== undefined && h.matchPolicy !== 'Equivalent' && h.matchPolicy !== 'Exact')
      errs.push(notSupported(`${at}.matchPolicy`, h.matchPolicy, ['Equivalent', 'Exact']));
    if (h.sideEffects === undefined || h.sideEffects === null)
      errs.push(required(`${at}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    else if (h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun')
      errs.push(notSupported(`${at}.sideEffects`, h.sideEffects, ['None', 'NoneOnDryRun']));
    if (typeof h.timeoutSeconds === 'number' && (h.timeoutSeconds > 30 || h.timeoutSeconds < 1))
      errs.push(
        invalid(`${at}.timeoutSeconds`, h.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'),
      );
    if (
      mutating &&
      h.reinvocationPolicy !== undefined &&
      h.reinvocationPolicy !== 'Never' &&
      h.reinvocationPolicy !== 'IfNeeded'
    ) {
      errs.push(notSupported(`${at}.reinvocationPolicy`, h.reinvocationPolicy, ['IfNeeded', 'Never']));
    }
    errs.push(...clientConfigErrors(rec(h.clientConfig), `${at}.clientConfig`));
    errs.push(...reviewVersionErrors(h.admissionReviewVersions, `${at}.admissionReviewVersions`));
    if (typeof h.name === 'string' && h.name !== '') {
      if (names.has(h.name)) errs.push(duplicate(`${at}.name`, h.name));
      names.add(h.name);
    }
  });
  return errs;
}
