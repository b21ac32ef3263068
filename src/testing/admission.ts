// Admission webhooks as kube-apiserver calls them: the stored
// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfigurations, matched by
// rules (operations, apiGroups, apiVersions, resources with subresources and wildcards, scope),
// matchPolicy (Equivalent: another served version of the same CRD, the object converted to it),
// namespaceSelector and objectSelector; mutating webhooks in order of configuration name and
// position, their JSON patches applied, reinvoked once with reinvocationPolicy IfNeeded when a
// later one changed the object; validating webhooks together. failurePolicy decides whether a
// webhook that cannot be called refuses the request; dry runs reach only webhooks without side
// effects. Errors are worded as the apiserver's.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../runtime/meta/types.js';
import { labelSelectorAsSelector } from '../runtime/labels/label-selector.js';
import { applyPatchTolerant } from '../runtime/webhook/json-patch.js';
import { convertObjects } from './conversion.js';
import { isObject } from './meta.js';
import type { Registry } from './registry.js';
import { groupVersion, storageKey } from './resource.js';
import type { ResourceInfo } from './resource.js';
import { ApiError, badRequest, failure, internalError } from './status.js';
import { anyUnder } from './storage/storage.js';
import type { Storage } from './storage/storage.js';
import { callWebhook, type WebhookClientConfig } from './webhook-client.js';

type Rec = Record<string, unknown>;

/** What a write tells admission about itself. */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  /** `status`, `scale` or undefined for the main resource. */
  subresource?: string;
  dryRun: boolean;
  userInfo: { username: string; uid?: string; groups: string[] };
  /** The request's options object (CreateOptions, UpdateOptions, …). */
  options?: Rec;
  /** Warnings for the response (appended to). */
  warnings?: string[];
  /** A create whose name comes from generateName: mutating webhooks see the object without it (the apiserver names it later). */
  nameGenerated?: boolean;
}

/** The user testenv's token stands for. */
export const TESTENV_USER = { username: 'crdgen-testenv', groups: ['system:masters', 'system:authenticated'] };

interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

interface Webhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: Rule[];
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: Rec;
  objectSelector?: Rec;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  reinvocationPolicy?: string;
}

const MUTATING = '/admissionregistration.k8s.io/mutatingwebhookconfigurations/';
const VALIDATING = '/admissionregistration.k8s.io/validatingwebhookconfigurations/';

/** Calls the configured webhooks for writes through the HTTP API. */
export class AdmissionWebhooks {
  constructor(
    private readonly storage: Storage,
    private readonly registry: Registry,
  ) {}

  private async hooks(prefix: string): Promise<Webhook[]> {
    const listed = await this.storage.list(prefix);
    const configs = [...listed.items].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const out: Webhook[] = [];
    for (const c of configs)
      for (const w of Array.isArray((c as Rec).webhooks) ? ((c as Rec).webhooks as Webhook[]) : []) out.push(w);
    return out;
  }

  /** Whether any configuration exists (a fast path: no webhooks, nothing to do). */
  private async any(prefix: string): Promise<boolean> {
    return anyUnder(this.storage, prefix);
  }

  /**
   * Runs the mutating webhooks on `obj` (in `res`'s version); returns the object they left, or
   * undefined when none changed it. Throws the apiserver's error when one refuses or fails closed.
   */
  async mutate(
    res: ResourceInfo,
    obj: KubeObject,
    old: KubeObject | undefined,
    attrs: AdmissionAttributes,
  ): Promise<KubeObject | undefined> {
    if (!(await this.any(MUTATING))) return undefined;
    const hooks = await this.hooks(MUTATING);
    let cur = obj;
    let changed = false;
    const invoked: { hook: Webhook; at: number }[] = [];
    let lastChange = -1;
    let step = 0;
    const run = async (hook: Webhook): Promise<void> => {
      const target = await this.match(hook, res, cur, old, attrs);
      if (!target) return;
      const at = step++;
      invoked.push({ hook, at });
      const next = await this.call(hook, res, target, cur, old, attrs, true);
      if (next && JSON.stringify(next) !== JSON.stringify(cur)) {
        cur = next;
        changed = true;
        lastChange = at;
      }
    };
    for (const h of hooks) await run(h);
    // reinvocation: once, for IfNeeded webhooks that ran before the last change
    if (changed) {
      const again = invoked
        .filter((i) => i.hook.reinvocationPolicy === 'IfNeeded' && i.at < lastChange)
        .map((i) => i.hook);
      for (const h of again) await run(h);
    }
    return changed ? cur : undefined;
  }

  /** Runs the validating webhooks (concurrently); throws the first refusal. */
  async validate(
    res: ResourceInfo,
    obj: KubeObject | undefined,
    old: KubeObject | undefined,
    attrs: AdmissionAttributes,
  ): Promise<void> {
    if (!(await this.any(VALIDATING))) return;
    const hooks = await this.hooks(VALIDATING);
    const subject = obj ?? old!;
    const calls: Promise<void>[] = [];
    for (const h of hooks) {
      const target = await this.match(h, res, subject, old, attrs);
      if (!target) continue;
      calls.push(this.call(h, res, target, obj, old, attrs, false).then(() => undefined));
    }
    const results = await Promise.allSettled(calls);
    for (const r of results) if (r.status === 'rejected') throw r.reason;
  }

  /** The resource (version) the webhook is called for, or undefined when it does not match. */
  private async match(
    hook: Webhook,
    res: ResourceInfo,
    obj: KubeObject,
    old: KubeObject | undefined,
    attrs: AdmissionAttributes,
  ): Promise<ResourceInfo | undefined> {
    let target: ResourceInfo | undefined;
    if (rulesMatch(hook.rules, res, attrs)) target = res;
    else if ((hook.matchPolicy ?? 'Equivalent') === 'Equivalent' && res.custom) {
      for (const other of this.registry.crdResources(`${res.resource}.${res.group}`)) {
        if (other.version !== res.version && rulesMatch(hook.rules, other, attrs)) {
          target = other;
          break;
        }
      }
    }
    if (!target) return undefined;
    if (!(await this.namespaceMatches(hook, res, obj))) return undefined;
    const objSel = selector(hook.objectSelector);
    if (objSel && !(objSel.matches(labelsOf(obj)) || (old !== undefined && objSel.matches(labelsOf(old)))))
      return undefined;
    return target;
  }

  private async namespaceMatches(hook: Webhook, res: ResourceInfo, obj: KubeObject): Promise<boolean> {
    const sel = selector(hook.namespaceSelector);
    if (!sel) return true;
    const isNamespace = res.group === '' && res.resource === 'namespaces';
    if (!res.namespaced && !isNamespace) return true;
    if (isNamespace) return sel.matches(labelsOf(obj));
    const nsRes = this.registry.lookup('', 'v1', 'namespaces')!;
    const ns = await this.storage.get(storageKey(nsRes, undefined, obj.metadata?.namespace ?? ''));
    return sel.matches(labelsOf(ns ?? {}));
  }

  /**
   * Calls one webhook with the object in `target`'s version. A mutating call resolves with the
   * patched object in `res`'s version (undefined: no patch); a refusal or a failed call
   * (failurePolicy Fail) rejects with the apiserver's error.
   */
  private async call(
    hook: Webhook,
    res: ResourceInfo,
    target: ResourceInfo,
    obj: KubeObject | undefined,
    old: KubeObject | undefined,
    attrs: AdmissionAttributes,
    mutating: boolean,
  ): Promise<KubeObject | undefined> {
    if (attrs.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
    }
    const convert = async (o: KubeObject | undefined, to: ResourceInfo): Promise<KubeObject | undefined> => {
      if (!o || (to.version === res.version && o.apiVersion === groupVersion(to))) return o;
      return (await convertObjects(res, [o], to.version))[0];
    };
    const ignore = hook.failurePolicy === 'Ignore';
    let object: KubeObject | undefined;
    let oldObject: KubeObject | undefined;
    try {
      object = await convert(obj, target);
      oldObject = await convert(old, target);
    } catch (e) {
      if (ignore) return undefined;
      throw e;
    }
    if (mutating && attrs.nameGenerated && object?.metadata) {
      object = { ...object, metadata: { ...object.metadata } };
      delete object.metadata!.name;
    }
    const name = mutating && attrs.nameGenerated ? '' : ((obj ?? old)?.metadata?.name ?? '');
    const namespace = res.namespaced
      ? ((obj ?? old)?.metadata?.namespace ?? '')
      : res.group === '' && res.resource === 'namespaces'
        ? ((obj ?? old)?.metadata?.name ?? '')
        : '';
    const uid = randomUUID();
    const versions = hook.admissionReviewVersions ?? ['v1'];
    const reviewVersion = versions.includes('v1') ? 'v1' : 'v1beta1';
    const request: Rec = {
      uid,
      kind: { group: target.group, version: target.version, kind: target.kind },
      resource: { group: target.group, version: target.version, resource: target.resource },
      ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
      requestKind: { group: res.group, version: res.version, kind: res.kind },
      requestResource: { group: res.group, version: res.version, resource: res.resource },
      ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
      // name and namespace are omitempty; a Namespace's admission attributes name it as their namespace
      ...(name ? { name } : {}),
      ...(namespace ? { namespace } : {}),
      operation: attrs.operation,
      userInfo: attrs.userInfo,
      object: object ?? null,
      oldObject: oldObject ?? null,
      dryRun: attrs.dryRun,
      options: attrs.options ?? null,
    };
    const failed = (why: string): ApiError =>
      internalError(`failed calling webhook ${JSON.stringify(hook.name)}: ${why}`);
    let answer: unknown;
    try {
      answer = await callWebhook(hook.clientConfig ?? {}, hook.timeoutSeconds ?? 10, {
        apiVersion: `admission.k8s.io/${reviewVersion}`,
        kind: 'AdmissionReview',
        request,
      });
    } catch (e) {
      if (ignore) return undefined;
      throw failed(`failed to call webhook: ${e instanceof Error ? e.message : String(e)}`);
    }
    let response: Rec;
    try {
      response = verifyAdmissionResponse(answer, uid, reviewVersion, mutating);
    } catch (e) {
      if (ignore) return undefined;
      throw failed(`received invalid webhook response: ${(e as Error).message}`);
    }
    if (Array.isArray(response.warnings))
      for (const w of response.warnings) if (typeof w === 'string' && w) attrs.warnings?.push(w);
    if (response.allowed !== true)
      throw deniedError(hook.name, isObject(response.status) ? response.status : undefined);
    if (!mutating || typeof response.patch !== 'string' || response.patch === '') return undefined;
    let ops: unknown;
    try {
      ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
      if (!Array.isArray(ops))
        throw new Error(
          `json: cannot unmarshal ${ops === null ? 'null' : typeof ops === 'object' ? 'object' : typeof ops} into Go value of type jsonpatch.Patch`,
        );
    } catch (e) {
      if (ignore) return undefined;
      throw failed(`received undecodable patch in webhook response: ${(e as Error).message}`);
    }
    if (ops.length === 0) return undefined;
    if (!object)
      throw internalError(
        `admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`,
      );
    let patched: KubeObject;
    try {
      patched = applyStrict(object, ops as Rec[]);
    } catch (e) {
      throw internalError((e as Error).message);
    }
    return (await convertObjects(res, [patched], res.version))[0];
  }
}

/** The apiserver's VerifyAdmissionResponse: the review's response, or why it is not a valid one. */
function verifyAdmissionResponse(answer: unknown, uid: string, reviewVersion: string, mutating: boolean): Rec {
  const a = isObject(answer) ? answer : {};
  const response = isObject(a.response) ? a.response : undefined;
  if (!response) throw new Error('webhook response was absent');
  if (reviewVersion === 'v1') {
    if (response.uid !== uid)
      throw new Error(
        `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof response.uid === 'string' ? response.uid : '')}`,
      );
    if (a.apiVersion !== 'admission.k8s.io/v1' || a.kind !== 'AdmissionReview') {
      const got = typeof a.apiVersion === 'string' ? a.apiVersion : '';
      throw new Error(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${got}, Kind=${typeof a.kind === 'string' ? a.kind : ''}`,
      );
    }
    const hasPatch = typeof response.patch === 'string' && response.patch !== '';
    const hasType = response.patchType !== undefined && response.patchType !== null;
    if (mutating) {
      if (hasPatch && !hasType) throw new Error('webhook returned response.patch but not response.patchType');
      if (!hasPatch && hasType) throw new Error('webhook returned response.patchType but not response.patch');
      if (hasType && response.patchType !== 'JSONPatch')
        throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(String(response.patchType))}`);
    } else {
      if (hasPatch) throw new Error('validating webhook may not return response.patch');
      if (hasType) throw new Error('validating webhook may not return response.patchType');
    }
  }
  return response;
}

/**
 * Applies a webhook's JSON patch as the apiserver does (gopkg.in/evanphx/json-patch.v4): a failed
 * operation fails with that library's message; `replace` of a missing member adds it (v4).
 */
function applyStrict(doc: KubeObject, ops: Rec[]): KubeObject {
  let out: unknown = structuredClone(doc);
  const container = (path: string): { parent: unknown; key: string } | undefined => {
    const t = tokens(path);
    if (t.length === 0) return undefined;
    const parent = valueAt(
      out,
      t
        .slice(0, -1)
        .map((x) => `/${x.replace(/~/g, '~0').replace(/\//g, '~1')}`)
        .join(''),
    );
    return isObject(parent) || Array.isArray(parent) ? { parent, key: t[t.length - 1] } : undefined;
  };
  const badIndex = (parent: unknown, key: string, adding: boolean): string | undefined => {
    if (!Array.isArray(parent)) return undefined;
    if (adding && key === '-') return undefined;
    const idx = Number(key);
    if (!/^-?\d+$/.test(key))
      return `value was not a proper array index: '${key}': strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
    const max = adding ? parent.length : parent.length - 1;
    return idx < -parent.length || idx > max
      ? `Unable to access invalid index: ${idx}: invalid index referenced`
      : undefined;
  };
  for (const op of ops) {
    const kind = op.op;
    const path = typeof op.path === 'string' ? op.path : '';
    if (kind === 'add' || kind === 'remove' || kind === 'replace') {
      const c = container(path);
      if (!c) {
        if (kind === 'add')
          throw new Error(`add operation does not apply: doc is missing path: "${path}": missing value`);
        if (kind === 'remove')
          throw new Error(`remove operation does not apply: doc is missing path: "${path}": missing value`);
        throw new Error(`replace operation does not apply: doc is missing path: ${path}: missing value`);
      }
      const bad = badIndex(c.parent, c.key, kind === 'add');
      if (bad) throw new Error(`error in ${kind === 'add' ? 'add' : 'remove'} for path: '${path}': ${bad}`);
      if (kind === 'remove' && isObject(c.parent) && !Object.hasOwn(c.parent, c.key)) {
        throw new Error(
          `error in remove for path: '${path}': Unable to remove nonexistent key: ${c.key}: missing value`,
        );
      }
      const v4Replace = kind === 'replace' && isObject(c.parent) && !Object.hasOwn(c.parent, c.key) ? 'add' : kind;
      out = applyPatchTolerant(out, [
        v4Replace === 'remove' ? { op: 'remove', path } : { op: v4Replace, path, value: op.value },
      ]);
    } else if (kind === 'test') {
      if (JSON.stringify(valueAt(out, path) ?? null) !== JSON.stringify(op.value ?? null))
        throw new Error(`testing value ${path} failed: test failed`);
    } else if (kind === 'copy' || kind === 'move') {
      const from = typeof op.from === 'string' ? op.from : '';
      if (!exists(out, from))
        throw new Error(`${kind} operation does not apply: doc is missing from path: ${from}: missing value`);
      if (!container(path))
        throw new Error(`${kind} operation does not apply: doc is missing destination path: ${path}: missing value`);
      const v = valueAt(out, from);
      if (kind === 'move') out = applyPatchTolerant(out, [{ op: 'remove', path: from }]);
      out = applyPatchTolerant(out, [{ op: 'add', path, value: structuredClone(v) }]);
    } else throw new Error(`Unexpected kind: ${String(kind)}`);
  }
  return out as KubeObject;
}

function tokens(path: string): string[] {
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const t of tokens(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else return undefined;
  }
  return cur;
}

function exists(doc: unknown, path: string): boolean {
  let cur = doc;
  for (const t of tokens(path)) {
    if (Array.isArray(cur) && /^\d+$/.test(t) && Number(t) < cur.length) cur = cur[Number(t)];
    else if (isObject(cur) && Object.hasOwn(cur, t)) cur = cur[t];
    else return false;
  }
  return true;
}

/** The apiserver's webhookerrors.ToStatusErr. */
export function deniedError(name: string, status: Rec | undefined): ApiError {
  const s: Rec = { ...(status ?? {}) };
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  let code = typeof s.code === 'number' ? s.code : 0;
  if (code < 400) code = 400;
  const message =
    typeof s.message === 'string' && s.message
      ? `${deniedBy}: ${s.message}`
      : typeof s.reason === 'string' && s.reason
        ? `${deniedBy}: ${s.reason}`
        : `${deniedBy} without explanation`;
  const out = failure(
    code,
    typeof s.reason === 'string' ? s.reason : '',
    message,
    isObject(s.details) ? s.details : undefined,
  );
  if (!out.reason) delete out.reason;
  return new ApiError(out);
}

function labelsOf(o: KubeObject): Record<string, string> {
  return o.metadata?.labels ?? {};
}

function selector(ls: Rec | undefined): ReturnType<typeof labelSelectorAsSelector> | undefined {
  if (!ls || Object.keys(ls).length === 0) return undefined;
  return labelSelectorAsSelector(ls);
}

function rulesMatch(rules: Rule[] | undefined, res: ResourceInfo, attrs: AdmissionAttributes): boolean {
  return (rules ?? []).some((r) => ruleMatches(r, res, attrs));
}

function ruleMatches(r: Rule, res: ResourceInfo, attrs: AdmissionAttributes): boolean {
  const has = (list: string[] | undefined, v: string): boolean => (list ?? []).some((x) => x === '*' || x === v);
  if (!has(r.operations, attrs.operation)) return false;
  if (!has(r.apiGroups, res.group)) return false;
  if (!has(r.apiVersions, res.version)) return false;
  const scope = r.scope ?? '*';
  if (scope === 'Cluster' && res.namespaced) return false;
  if (scope === 'Namespaced' && !res.namespaced) return false;
  const sub = attrs.subresource ?? '';
  return (r.resources ?? []).some((pattern) => {
    const [pr, ps] = pattern.includes('/')
      ? [pattern.slice(0, pattern.indexOf('/')), pattern.slice(pattern.indexOf('/') + 1)]
      : [pattern, ''];
    if (pr !== '*' && pr !== res.resource) return false;
    if (ps === '*') return true;
    return ps === sub;
  });
}
