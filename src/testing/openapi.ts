// The OpenAPI documents testenv publishes, as kube-apiserver v1.37 builds them, so that
// `kubectl explain` and clients that read schemas find the served kinds:
//   /openapi/v3                 the index: one entry per served group version, with a hash
//   /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>
//                               that group version's schemas: a built-in's from the committed
//                               schemas of the real server (schema/kubernetes/<version>/), a
//                               CRD's built from its schema as apiextensions-apiserver does
//   /openapi/v2                 every schema as Swagger 2.0 definitions (JSON)
// Each resource's paths list its operations with their kind and action (what `kubectl explain`
// looks the kind up by), without the query parameters' descriptions (docs/testing.md lists it).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KUBERNETES_VERSION } from './printers.js';
import type { Registry } from './registry.js';
import type { ResourceInfo } from './resource.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

let builtin: Record<string, Rec> | undefined;
/** The real server's built-in schemas (components.schemas of the committed document). */
function builtinSchemas(): Record<string, Rec> {
  builtin ??= (
    JSON.parse(
      readFileSync(new URL(`../../schema/kubernetes/${KUBERNETES_VERSION}/openapi-v3.json`, import.meta.url), 'utf8'),
    ) as { components: { schemas: Record<string, Rec> } }
  ).components.schemas;
  return builtin;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const REF = '#/components/schemas/';
const DOC_API_VERSION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const DOC_KIND =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const DOC_METADATA =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const DOC_LIST_METADATA =
  'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const DOC_EMBEDDED_API_VERSION =
  'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const DOC_EMBEDDED_KIND =
  'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** kube-openapi's spec.Schema field order, then the vendor extensions sorted. */
const ORDER = [
  'id',
  '$ref',
  '$schema',
  'description',
  'type',
  'nullable',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
  'discriminator',
  'readOnly',
  'xml',
  'externalDocs',
  'example',
];
/** Swagger 2.0's order (go-openapi): a reference after the description. */
const ORDER_V2 = ['description', ...ORDER.filter((k) => k !== 'description')];
function ordered(s: Rec, order = ORDER): Rec {
  const out: Rec = {};
  for (const k of order) if (s[k] !== undefined) out[k] = s[k];
  for (const k of Object.keys(s)
    .filter((x) => x.startsWith('x-'))
    .sort())
    out[k] = s[k];
  return out;
}

/** `fidelity.crdgen.dev` → `dev.crdgen.fidelity` (the definition name prefix of a group). */
function reverseGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

/** A CRD schema node as published (v3): embedded resources with their type and object metadata, int-or-string as anyOf. */
function publish(node: unknown): unknown {
  if (!isRec(node)) return node;
  const out: Rec = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties' && isRec(v))
      out[k] = Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((p) => [p, publish(v[p])]),
      );
    else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isRec(v)) out[k] = publish(v);
    else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) out[k] = v.map(publish);
    else out[k] = v;
  }
  if (node['x-kubernetes-embedded-resource'] === true) {
    const props = isRec(out.properties) ? { ...out.properties } : {};
    props.apiVersion = { description: DOC_EMBEDDED_API_VERSION, type: 'string' };
    props.kind = { description: DOC_EMBEDDED_KIND, type: 'string' };
    props.metadata = { description: DOC_METADATA, allOf: [{ $ref: `${REF}${META}.ObjectMeta` }] };
    out.properties = Object.fromEntries(
      Object.keys(props)
        .sort()
        .map((p) => [p, props[p]]),
    );
    const req = Array.isArray(out.required) ? [...(out.required as string[])] : [];
    for (const r of ['kind', 'apiVersion']) if (!req.includes(r)) req.push(r);
    out.required = req;
  }
  if (out['x-kubernetes-int-or-string'] === true && out.anyOf === undefined)
    out.anyOf = [{ type: 'integer' }, { type: 'string' }];
  return ordered(out);
}

/** The schemas of a CRD version: the kind, its list, and what their references need. */
function crdSchemas(r: ResourceInfo): Record<string, Rec> {
  const prefix = `${reverseGroup(r.group)}.${r.version}`;
  const root = isRec(r.openAPIV3Schema)
    ? r.openAPIV3Schema
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const published = publish(root) as Rec;
  const props: Rec = isRec(published.properties) ? { ...published.properties } : {};
  props.apiVersion = { description: DOC_API_VERSION, type: 'string' };
  props.kind = { description: DOC_KIND, type: 'string' };
  props.metadata = { description: DOC_METADATA, allOf: [{ $ref: `${REF}${META}.ObjectMeta` }] };
  const selectable = (r.selectableFields ?? []).map((p) => ({ fieldPath: p.replace(/^\./, '') }));
  const gvk = (kind: string): Rec => ({
    'x-kubernetes-group-version-kind': [{ group: r.group, kind, version: r.version }],
    ...(selectable.length ? { 'x-kubernetes-selectable-fields': selectable } : {}),
  });
  const kind = ordered({
    ...published,
    properties: Object.fromEntries(
      Object.keys(props)
        .sort()
        .map((p) => [p, props[p]]),
    ),
    ...gvk(r.kind),
  });
  const list = ordered({
    description: `${r.listKind} is a list of ${r.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: DOC_API_VERSION, type: 'string' },
      items: {
        description: `List of ${r.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: 'array',
        items: { $ref: `${REF}${prefix}.${r.kind}` },
      },
      kind: { description: DOC_KIND, type: 'string' },
      metadata: { description: DOC_LIST_METADATA, allOf: [{ $ref: `${REF}${META}.ListMeta` }] },
    },
    ...gvk(r.listKind),
  });
  const out: Record<string, Rec> = { [`${prefix}.${r.kind}`]: kind, [`${prefix}.${r.listKind}`]: list };
  // what the apiserver's CRD document carries for the operations it lists
  const needs = [`${META}.ObjectMeta`, `${META}.ListMeta`, `${META}.DeleteOptions`, `${META}.Patch`, `${META}.Status`];
  if (r.scale) needs.push('io.k8s.api.autoscaling.v1.Scale');
  Object.assign(out, closure(needs));
  return out;
}

/** `names` and every schema they reference, transitively, from the built-in schemas. */
function closure(names: string[]): Record<string, Rec> {
  const all = builtinSchemas();
  const out: Record<string, Rec> = {};
  const visit = (n: string): void => {
    if (out[n] || !all[n]) return;
    out[n] = all[n]!;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (isRec(v)) {
        if (typeof v.$ref === 'string' && v.$ref.startsWith(REF)) visit(v.$ref.slice(REF.length));
        for (const x of Object.values(v)) walk(x);
      }
    };
    walk(all[n]);
  };
  names.forEach(visit);
  return out;
}

/** The built-in schemas of one group version (the kinds it serves and what they reference). */
function builtinGroupVersion(group: string, version: string): Record<string, Rec> {
  const names = Object.entries(builtinSchemas())
    .filter(
      ([, s]) =>
        Array.isArray(s['x-kubernetes-group-version-kind']) &&
        (s['x-kubernetes-group-version-kind'] as Rec[]).some((g) => g.group === group && g.version === version),
    )
    .map(([n]) => n);
  return closure(names);
}

/** The path of a group version under /openapi/v3 (`api/v1`, `apis/apps/v1`). */
function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** The served group versions, each with its resources. */
function groupVersions(registry: Registry): Map<string, ResourceInfo[]> {
  const out = new Map<string, ResourceInfo[]>();
  for (const r of registry.all()) {
    const p = gvPath(r.group, r.version);
    out.set(p, [...(out.get(p) ?? []), r]);
  }
  return out;
}

/** `coolops.cn` → `CoolopsCn`, as operation ids spell a group. */
function pascal(s: string): string {
  return s
    .split(/[.-]/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
}

/** The operations of one resource (and its status and scale subresources), by path. */
function resourcePaths(r: ResourceInfo, schemaName: (kind: string) => string): Rec {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const tag = `${r.group ? r.group.replace(/\.([a-z])/g, (_, c: string) => c.toUpperCase()) : 'core'}_${r.version}`;
  const id = `${pascal(r.group || 'core')}${pascal(r.version)}`;
  const gvk = (kind: string): Rec => ({ group: r.group, version: r.version, kind });
  const body = (kind: string): Rec => ({
    'application/json': { schema: { $ref: `${REF}${schemaName(kind)}` } },
    'application/yaml': { schema: { $ref: `${REF}${schemaName(kind)}` } },
  });
  const op = (verb: string, action: string, what: string, kind: string, description: string): Rec => ({
    tags: [tag],
    description,
    operationId: `${verb}${id}${r.namespaced ? 'Namespaced' : ''}${what}`,
    responses: { '200': { description: 'OK', content: body(kind) }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    // every operation names the resource's kind, whatever it answers with
    'x-kubernetes-group-version-kind': gvk(r.kind),
  });
  const scope = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
  const out: Rec = {
    [scope]: {
      get: op('list', 'list', r.kind, r.listKind, `list or watch objects of kind ${r.kind}`),
      post: op('create', 'post', r.kind, r.kind, `create a ${r.kind}`),
      delete: op('deleteCollection', 'deletecollection', r.kind, 'Status', `delete collection of ${r.kind}`),
    },
    [`${scope}/{name}`]: {
      get: op('read', 'get', r.kind, r.kind, `read the specified ${r.kind}`),
      put: op('replace', 'put', r.kind, r.kind, `replace the specified ${r.kind}`),
      delete: op('delete', 'delete', r.kind, 'Status', `delete a ${r.kind}`),
      patch: op('patch', 'patch', r.kind, r.kind, `partially update the specified ${r.kind}`),
    },
  };
  if (r.namespaced)
    out[`${base}/${r.resource}`] = {
      get: op('list', 'list', `${r.kind}ForAllNamespaces`, r.listKind, `list or watch objects of kind ${r.kind}`),
    };
  for (const [sub, kind] of [
    ['status', r.kind],
    ['scale', 'Scale'],
  ] as const) {
    if ((sub === 'status' && !r.statusSubresource) || (sub === 'scale' && !r.scale)) continue;
    const what = `${r.kind}${sub === 'status' ? 'Status' : 'Scale'}`;
    out[`${scope}/{name}/${sub}`] = {
      get: op('read', 'get', what, kind, `read ${sub} of the specified ${r.kind}`),
      put: op('replace', 'put', what, kind, `replace ${sub} of the specified ${r.kind}`),
      patch: op('patch', 'patch', what, kind, `partially update ${sub} of the specified ${r.kind}`),
    };
  }
  return out;
}

/** The /openapi/v3/<gv> document of a group version; undefined when it is not served. */
export function openApiV3Document(registry: Registry, path: string): Rec | undefined {
  const resources = groupVersions(registry).get(path);
  if (!resources) return undefined;
  const custom = resources.filter((r) => r.custom);
  const schemas: Record<string, Rec> = {};
  if (custom.length) for (const r of custom) Object.assign(schemas, crdSchemas(r));
  else Object.assign(schemas, builtinGroupVersion(resources[0].group, resources[0].version));
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]]),
  );
  // a kind's schema by name: the CRD's own, the built-in's by its group-version-kind, or meta's
  const byGvk = new Map<string, string>();
  for (const [n, sc] of Object.entries(sorted))
    for (const g of (Array.isArray(sc['x-kubernetes-group-version-kind'])
      ? sc['x-kubernetes-group-version-kind']
      : []) as Rec[])
      byGvk.set(`${String(g.group)}/${String(g.version)}/${String(g.kind)}`, n);
  const paths: Rec = {};
  for (const r of resources) {
    const name = (kind: string): string =>
      byGvk.get(`${r.group}/${r.version}/${kind}`) ??
      (kind === 'Scale'
        ? 'io.k8s.api.autoscaling.v1.Scale'
        : kind === 'Status'
          ? `${META}.Status`
          : `${reverseGroup(r.group)}.${r.version}.${kind}`);
    Object.assign(paths, resourcePaths(r, name));
  }
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((k) => [k, paths[k]]),
  );
  return {
    openapi: '3.0.0',
    info: {
      title: custom.length ? 'Kubernetes CRD Swagger' : 'Kubernetes',
      version: custom.length ? 'v0.1.0' : KUBERNETES_VERSION,
    },
    paths: sortedPaths,
    components: { schemas: sorted },
  };
}

/** The /openapi/v3 index: each served group version with the hash of its document. */
export function openApiV3Index(registry: Registry): Rec {
  const paths: Rec = {};
  for (const p of [...groupVersions(registry).keys()].sort()) {
    const hash = createHash('sha512')
      .update(JSON.stringify(openApiV3Document(registry, p)))
      .digest('hex')
      .toUpperCase();
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
  }
  return { paths };
}

/**
 * A v3 schema as a Swagger 2.0 definition: `#/definitions/` references, a lone allOf reference
 * inlined, no nullable, default or oneOf/anyOf/not; a node that keeps unknown fields keeps only its
 * extensions, and int-or-string has no type (what v2 can say).
 */
function toV2(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toV2);
  if (!isRec(v)) return v;
  if (v['x-kubernetes-preserve-unknown-fields'] === true)
    return ordered(
      Object.fromEntries(Object.entries(v).filter(([k]) => k.startsWith('x-') || k === 'description')),
      ORDER_V2,
    );
  const out: Rec = {};
  const node: Rec =
    v['x-kubernetes-int-or-string'] === true ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'type')) : v;
  for (const [k, x] of Object.entries(node)) {
    if (k === 'nullable' || k === 'oneOf' || k === 'anyOf' || k === 'not' || k === 'default') continue;
    if (k.startsWith('x-')) {
      out[k] = sortDeep(x); // extensions are values (Go maps in v2: keys sorted), not schemas
      continue;
    }
    if (k === '$ref' && typeof x === 'string') out.$ref = x.replace(REF, '#/definitions/');
    else if (k === 'allOf' && Array.isArray(x) && x.length === 1 && isRec(x[0]) && typeof x[0].$ref === 'string')
      out.$ref = String(x[0].$ref).replace(REF, '#/definitions/');
    else if (k === 'properties' && isRec(x))
      out[k] = Object.fromEntries(Object.entries(x).map(([p, s]) => [p, toV2(s)]));
    else out[k] = toV2(x);
  }
  return ordered(out, ORDER_V2);
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (isRec(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortDeep(v[k])]),
    );
  return v;
}

/** /openapi/v2 as JSON: every built-in definition of the real server and every served CRD version's. */
export function openApiV2Document(registry: Registry): Rec {
  const defs: Record<string, Rec> = { ...builtinSchemas() };
  for (const r of registry.all().filter((x) => x.custom)) Object.assign(defs, crdSchemas(r));
  const definitions = Object.fromEntries(
    Object.keys(defs)
      .sort()
      .map((k) => [k, toV2(defs[k])]),
  );
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION.replace(/^v(\d+\.\d+)\..*$/, '$1') },
    paths: {},
    definitions,
  };
}

// ---- /openapi/v2 in protobuf: gnostic's openapi_v2.Document (github.com/google/gnostic-models
// openapiv2/OpenAPIv2.proto), what kubectl < 1.27 reads for `kubectl explain`.

function varint(n: number): number[] {
  const out: number[] = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}
const key = (field: number, wire: number): number[] => varint((field << 3) | wire);
const bytes = (field: number, payload: Buffer): Buffer =>
  Buffer.concat([Buffer.from([...key(field, 2), ...varint(payload.length)]), payload]);
const str = (field: number, s: unknown): Buffer =>
  typeof s === 'string' && s !== '' ? bytes(field, Buffer.from(s)) : Buffer.alloc(0);
const bool = (field: number, b: unknown): Buffer => (b === true ? Buffer.from([...key(field, 0), 1]) : Buffer.alloc(0));
const int = (field: number, n: unknown): Buffer =>
  typeof n === 'number' ? Buffer.from([...key(field, 0), ...varint(Math.trunc(n))]) : Buffer.alloc(0);
function dbl(field: number, n: unknown): Buffer {
  if (typeof n !== 'number') return Buffer.alloc(0);
  const b = Buffer.alloc(8);
  b.writeDoubleLE(n);
  return Buffer.concat([Buffer.from(key(field, 1)), b]);
}
/** gnostic's Any: the value as YAML (JSON is YAML). */
const any = (v: unknown): Buffer => bytes(2, Buffer.from(JSON.stringify(v)));

function schemaProto(s: Rec): Buffer {
  const parts: Buffer[] = [str(1, s.$ref), str(2, s.format), str(3, s.title), str(4, s.description)];
  if (s.default !== undefined) parts.push(bytes(5, any(s.default)));
  parts.push(
    dbl(6, s.multipleOf),
    dbl(7, s.maximum),
    bool(8, s.exclusiveMaximum),
    dbl(9, s.minimum),
    bool(10, s.exclusiveMinimum),
  );
  parts.push(
    int(11, s.maxLength),
    int(12, s.minLength),
    str(13, s.pattern),
    int(14, s.maxItems),
    int(15, s.minItems),
    bool(16, s.uniqueItems),
    int(17, s.maxProperties),
    int(18, s.minProperties),
  );
  for (const r of Array.isArray(s.required) ? s.required : []) parts.push(str(19, r));
  for (const e of Array.isArray(s.enum) ? s.enum : []) parts.push(bytes(20, any(e)));
  if (s.additionalProperties !== undefined)
    parts.push(
      bytes(
        21,
        typeof s.additionalProperties === 'boolean'
          ? Buffer.from([...key(2, 0), s.additionalProperties ? 1 : 0])
          : bytes(1, schemaProto(s.additionalProperties as Rec)),
      ),
    );
  if (s.type !== undefined)
    parts.push(bytes(22, Buffer.concat((Array.isArray(s.type) ? s.type : [s.type]).map((t) => str(1, t)))));
  if (isRec(s.items)) parts.push(bytes(23, bytes(1, schemaProto(s.items))));
  for (const a of Array.isArray(s.allOf) ? s.allOf : []) parts.push(bytes(24, schemaProto(a as Rec)));
  if (isRec(s.properties))
    parts.push(
      bytes(
        25,
        Buffer.concat(
          Object.entries(s.properties).map(([n, p]) =>
            bytes(1, Buffer.concat([str(1, n), bytes(2, schemaProto(p as Rec))])),
          ),
        ),
      ),
    );
  parts.push(bool(27, s.readOnly));
  if (s.example !== undefined) parts.push(bytes(30, any(s.example)));
  for (const [n, v] of Object.entries(s).filter(([k]) => k.startsWith('x-')))
    parts.push(bytes(31, Buffer.concat([str(1, n), bytes(2, any(v))])));
  return Buffer.concat(parts);
}

/** /openapi/v2 as gnostic protobuf: the same definitions as the JSON document. */
export function openApiV2Protobuf(registry: Registry): Buffer {
  const doc = openApiV2Document(registry) as { info: Rec; definitions: Record<string, Rec> };
  const info = Buffer.concat([str(1, doc.info.title), str(2, doc.info.version)]);
  const defs = Buffer.concat(
    Object.entries(doc.definitions).map(([n, s]) => bytes(1, Buffer.concat([str(1, n), bytes(2, schemaProto(s))]))),
  );
  return Buffer.concat([str(1, '2.0'), bytes(2, info), bytes(8, Buffer.alloc(0)), bytes(9, defs)]);
}
