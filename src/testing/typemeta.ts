// What the apiserver's decoder does with the apiVersion and kind of a create or update body
// (k8s.io/apimachinery's json serializer and the handlers' transformDecodeError), checked
// against kube-apiserver v1.37.1:
// - built-in kinds: a missing kind or apiVersion is taken from the endpoint (clients such as
//   the Python client send typed objects without them); a kind or version that is not the
//   endpoint's is `<Kind> in version "<v>" cannot be handled as a <EndpointKind>: …`;
// - custom resources (decoded as unstructured): the kind is required (`the object provided is
//   unrecognized (must be of type Foo): Object 'Kind' is missing in '…' (…)`), the apiVersion
//   must be the endpoint's (`the API version in the data () does not match …`), and another
//   kind is a 422 on `kind` (the custom resource validator's type-meta check).
import { isObject } from './meta.js';
import type { Registry } from './registry.js';
import { groupVersion } from './resource.js';
import { ApiError, badRequest, invalid } from './status.js';

/** What {@link completeTypeMeta} needs of the endpoint's resource. */
export interface TypeMetaTarget {
  group: string;
  version: string;
  kind: string;
  custom: boolean;
}

/** The scheme's name in the apiserver's "no kind … is registered" errors. */
const SCHEME = 'pkg/runtime/scheme.go:111';

/** Internal (hub) package of a built-in kind, by `group/kind` where it is not the group's first label. */
const INTERNAL_PACKAGE: Record<string, string> = { '/': 'core', 'events.k8s.io/Event': 'core' };

function internalType(group: string, kind: string): string {
  const pkg =
    INTERNAL_PACKAGE[`${group}/${kind}`] ?? INTERNAL_PACKAGE[`${group}/`] ?? (group ? group.split('.')[0] : 'core');
  return `${pkg}.${kind}`;
}

/** The apiserver's summarizeData: the first `max` bytes, as text when they start a JSON object, else in hex. */
function summarize(raw: Buffer, max = 30): string {
  if (raw.length === 0) return '<empty>';
  const head = raw.subarray(0, max);
  const text = raw[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return raw.length > max ? `${text} ...` : text;
}

/** 400 `the object provided is unrecognized (must be of type <Kind>): <why> (<the body's start>)`. */
export function unrecognized(target: TypeMetaTarget, why: string, raw: Buffer): ApiError {
  return badRequest(`the object provided is unrecognized (must be of type ${target.kind}): ${why} (${summarize(raw)})`);
}

/** Go's name of a JSON value's type in `json: cannot unmarshal <type> into …`. */
function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** `apps/v1` → {group: apps, version: v1}; `v1` → {group: '', version: v1}. */
function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/**
 * Checks a decoded create/update body's apiVersion and kind as the apiserver's decoder does
 * for `target`, filling them from the endpoint where the apiserver does; returns the body
 * (a copy when something was filled). `raw` is the request body as sent (for messages).
 */
export function completeTypeMeta(registry: Registry, target: TypeMetaTarget, body: unknown, raw: Buffer): unknown {
  if (body === undefined) return unrecognizedEmpty(target, raw);
  if (!isObject(body)) {
    throw unrecognized(
      target,
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(body)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      raw,
    );
  }
  const kind = typeof body.kind === 'string' ? body.kind : '';
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : '';
  const want = groupVersion(target);
  if (target.custom) {
    if (!kind) throw unrecognized(target, `Object 'Kind' is missing in '${raw.toString('utf8')}'`, raw);
    if (apiVersion !== want)
      throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${want})`);
    if (kind !== target.kind) {
      const name = isObject(body.metadata) && typeof body.metadata.name === 'string' ? body.metadata.name : '';
      throw invalid(target.group, kind, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'kind',
          message: `Invalid value: ${JSON.stringify(kind)}: must be ${target.kind}`,
        },
      ]);
    }
    return body;
  }
  // gvkWithDefaults: the kind, and the group/version when both are missing, come from the endpoint
  let gv = apiVersion ? parseApiVersion(apiVersion) : { group: target.group, version: target.version };
  if (!gv.version && gv.group === target.group) gv = { group: gv.group, version: target.version };
  const k = kind || target.kind;
  if (gv.group === target.group && gv.version === target.version && k === target.kind) {
    if (kind && apiVersion) return body;
    const { apiVersion: _v, kind: _k, ...rest } = body;
    return { apiVersion: want, kind: target.kind, ...rest };
  }
  const prefix = `${k} in version ${JSON.stringify(gv.version)} cannot be handled as a ${target.kind}`;
  const known =
    registry.all().find((r) => !r.custom && r.group === gv.group && r.version === gv.version && r.kind === k) ??
    (UNSERVED_SCHEME_KINDS.has(`${gv.group}/${gv.version}/${k}`) ? k : undefined);
  const gvText = gv.group ? `${gv.group}/${gv.version}` : gv.version;
  if (!known)
    throw badRequest(
      `${prefix}: no kind ${JSON.stringify(k)} is registered for version ${JSON.stringify(gvText)} in scheme ${JSON.stringify(SCHEME)}`,
    );
  if (internalType(gv.group, k) !== internalType(target.group, target.kind)) {
    throw badRequest(
      `${prefix}: converting (${gv.version}.${k}) to (${internalType(target.group, target.kind)}): unknown conversion`,
    );
  }
  throw badRequest(`the API version in the data (${gvText}) does not match the expected API version (${want})`);
}

/** Kinds the apiserver's scheme still decodes though no endpoint serves their version. */
const UNSERVED_SCHEME_KINDS = new Set(['apiextensions.k8s.io/v1beta1/CustomResourceDefinition']);

/** A body that is not JSON, as the apiserver answers it when it reads the kind. */
export function unrecognizedJson(target: TypeMetaTarget, syntax: string, raw: Buffer): ApiError {
  return unrecognized(target, `couldn't get version/kind; json parse error: ${syntax}`, raw);
}

function unrecognizedEmpty(target: TypeMetaTarget, raw: Buffer): never {
  throw unrecognized(target, `couldn't get version/kind; json parse error: unexpected end of JSON input`, raw);
}
