// The HTTP front of the test server: routes discovery, OpenAPI and resource paths
// (/api/v1/..., /apis/<g>/<v>/..., namespaced or not, with /status and /scale), maps
// each request to a verb, and writes objects, lists, Tables and Status errors as the
// apiserver does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../runtime/meta/types.js';
import { decodeBody, JsonBodyError, readBody, YamlSyntaxError } from './body.js';
import { goParseInt64 } from './go-strconv.js';
import { decodeObjectBody, duplicateFields } from './decode.js';
import { coreEventFields, eventsV1Fields } from './events.js';
import { deleteObject, parseDeleteOptions } from './deletion.js';
import { SERVER_VERSION, apiGroupDoc, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { openApiV2Document, openApiV2Protobuf, openApiV3Document, openApiV3Index } from './openapi.js';
import { listDocument, listDocumentJson, listObjects, validateListOptions } from './list.js';
import { isObject, jsonText, readJsonPath, writeJsonPath } from './meta.js';
import { patchTypeOf, viewJson } from './objects.js';
import type { ObjectService, PatchType, WriteOptions } from './objects.js';
import { decodeJsonPatch } from './patch.js';
import type { Registry } from './registry.js';
import type { ResourceInfo } from './resource.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { FieldGetters } from './selectors.js';
import {
  ApiError,
  badRequest,
  cleanStatus,
  failure,
  internalError,
  invalidOptions,
  methodNotSupported,
  notFound,
  pathNotFound,
  success,
  unsupportedMediaType,
} from './status.js';
import type { Storage } from './storage/storage.js';
import { toTable, wantsTable } from './table.js';
import type { IncludeObject } from './table.js';
import { completeTypeMeta, unrecognized, unrecognizedJson } from './typemeta.js';
import { serveWatch } from './watch.js';
import type { WatchConnection } from './watch.js';

/** What the HTTP layer needs from the server. */
export interface HttpContext {
  svc: ObjectService;
  storage: Storage;
  registry: Registry;
  watches: Set<WatchConnection>;
  bookmarkIntervalMs: number;
  /** `host:port` for /api's serverAddressByClientCIDRs. */
  address(): string;
}

/** Writes a JSON response. */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, code, JSON.stringify(body), headers);
}

/** Writes a JSON response given as text. */
function sendJsonText(res: ServerResponse, code: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Writes an ApiError (or any error, as a 500) as a Status. */
export function sendError(res: ServerResponse, e: unknown): void {
  const err = e instanceof ApiError ? e : internalError(e instanceof Error ? e.message : String(e));
  if (res.headersSent) {
    res.end();
    return;
  }
  if (err.text !== undefined) {
    res.writeHead(err.code, {
      'Content-Type': 'text/plain; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Content-Length': Buffer.byteLength(err.text),
      ...err.headers,
    });
    res.end(err.text);
    return;
  }
  sendJson(res, err.code, cleanStatus(err.status), err.headers);
}

/** Parsed resource path. */
interface ResourcePath {
  resource: ResourceInfo;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  legacyWatch: boolean;
}

function str(o: KubeObject, path: string): string {
  const v = readJsonPath(o, path);
  return v === undefined || v === null ? '' : jsonText(v);
}

function fieldGetters(r: ResourceInfo): FieldGetters {
  if (r.custom) {
    // a CRD's selectableFields: `spec.color=blue` selects by the value at `.spec.color`, printed as text
    const out: FieldGetters = {};
    for (const path of r.selectableFields ?? []) {
      out[path.replace(/^\./, '')] = (o) => {
        const v = readJsonPath(o, path);
        return v === undefined || v === null ? '' : jsonText(v);
      };
    }
    return out;
  }
  if (r.resource === 'events' && !r.group) return coreEventFields();
  if (r.resource === 'events' && r.group === 'events.k8s.io') return eventsV1Fields();
  if (r.resource === 'namespaces' && !r.group) return { 'status.phase': (o) => str(o, 'status.phase') };
  if (r.resource === 'services' && !r.group)
    return { 'spec.clusterIP': (o) => str(o, 'spec.clusterIP'), 'spec.type': (o) => str(o, 'spec.type') };
  return {};
}

/** Handles one request; never throws. */
export async function handleRequest(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let segs: string[];
    try {
      segs = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      throw badRequest(`invalid path: ${url.pathname}`);
    }
    if (serveNonResource(ctx, req, res, url, segs)) return;
    const rp = parseResourcePath(ctx.registry, segs);
    if (!rp) throw notFoundAt(ctx.registry, segs);
    await serveResource(ctx, req, res, url.searchParams, rp);
  } catch (e) {
    sendError(res, e);
  }
}

function serveNonResource(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  segs: string[],
): boolean {
  const p = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  if (
    method !== 'GET' &&
    method !== 'HEAD' &&
    (segs[0] === 'version' || segs[0] === 'openapi' || p === '/api' || p === '/apis')
  ) {
    throw new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      code: 405,
    });
  }
  if (p === '/healthz' || p === '/livez' || p === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('ok');
    return true;
  }
  if (p === '/version') return (sendJson(res, 200, SERVER_VERSION), true);
  if (p === '/openapi/v2') {
    const accept = String(req.headers.accept ?? '');
    if (accept.includes('protobuf')) {
      const buf = openApiV2Protobuf(ctx.registry);
      res.writeHead(200, {
        'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
        'Content-Length': buf.length,
      });
      res.end(buf);
    } else sendJson(res, 200, openApiV2Document(ctx.registry));
    return true;
  }
  if (p === '/openapi/v3') return (sendJson(res, 200, openApiV3Index(ctx.registry)), true);
  if (segs[0] === 'openapi' && segs[1] === 'v3') {
    const doc = openApiV3Document(ctx.registry, segs.slice(2).join('/'));
    if (!doc) throw pathNotFound();
    return (sendJson(res, 200, doc), true);
  }
  if (segs[0] === 'openapi') throw pathNotFound();
  if (p === '/api') return (sendJson(res, 200, apiVersions(ctx.address())), true);
  if (p === '/apis') return (sendJson(res, 200, apiGroupList(ctx.registry)), true);
  if (segs[0] === 'api' && segs.length === 2) {
    const doc = apiResourceList(ctx.registry, '', segs[1]);
    if (!doc) throw notFoundAt(ctx.registry, segs);
    return (sendJson(res, 200, doc), true);
  }
  if (segs[0] === 'apis' && segs.length === 2) {
    const doc = apiGroupDoc(ctx.registry, segs[1]);
    if (!doc) throw notFoundAt(ctx.registry, segs);
    return (sendJson(res, 200, doc), true);
  }
  if (segs[0] === 'apis' && segs.length === 3) {
    const doc = apiResourceList(ctx.registry, segs[1], segs[2]);
    if (!doc) throw notFoundAt(ctx.registry, segs);
    return (sendJson(res, 200, doc), true);
  }
  return false;
}

/**
 * The 404 of a path nothing serves, as kube-apiserver's handlers answer it: under /api and
 * under a built-in group (kube-apiserver's own API groups) a JSON Status `the server could not
 * find the requested resource`; anywhere else (custom resource groups, unknown groups) the
 * mux's text `404 page not found`.
 */
function notFoundAt(reg: Registry, segs: string[]): ApiError {
  const builtinGroup =
    segs[0] === 'apis' && segs[1] !== undefined && reg.all().some((r) => !r.custom && r.group === segs[1]);
  if (segs[0] === 'api' || builtinGroup)
    return new ApiError(failure(404, 'NotFound', 'the server could not find the requested resource', {}));
  return pathNotFound();
}

function parseResourcePath(reg: Registry, segs: string[]): ResourcePath | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 3) {
    group = '';
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 4) {
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // /api/v1/namespaces/<name>[/status|/finalize] names a Namespace itself.
  const nsItself =
    group === '' &&
    rest[0] === 'namespaces' &&
    (rest.length <= 2 || (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize')));
  if (rest[0] === 'namespaces' && !nsItself) {
    if (rest.length < 3) return undefined;
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest;
  if (!resource) return undefined;
  const info = reg.lookup(group, version, resource);
  if (!info) return undefined;
  if (namespace !== undefined && !info.namespaced) return undefined;
  // a namespaced resource has no named object outside a namespace
  if (namespace === undefined && info.namespaced && name !== undefined) return undefined;
  if (subresource !== undefined && info.fixedSubresources?.[subresource] && name !== undefined) {
    // (any path below it too: services/<name>/proxy/<path>)
    throw info.fixedSubresources[subresource].answer(name);
  }
  if (subresource !== undefined || extra.length) {
    const ok =
      !extra.length &&
      ((subresource === 'status' && info.statusSubresource) ||
        (subresource === 'scale' && info.scale) ||
        (subresource === 'finalize' && nsItself));
    // the CRD handler answers a subresource the CRD does not serve with its object's NotFound
    if (!ok && info.custom && !legacyWatch) throw notFound(info, name);
    if (!ok) return undefined;
  }
  return { resource: info, namespace, name, subresource, legacyWatch };
}

/**
 * A boolean query parameter as the apiserver reads one (Convert_Slice_string_To_bool): absent
 * is undefined; `0` and `false` in any case are false; anything else, even empty, is true
 * (the Python client sends `watch=True`).
 */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** The media types a create or update body may come in (none given: JSON). */
const BODY_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** A create or update body, decoded and with apiVersion/kind checked (and filled for built-ins) as the apiserver's decoder does. */
async function readObjectBody(
  ctx: HttpContext,
  req: IncomingMessage,
  target: ResourceInfo | typeof SCALE,
  opts: WriteOptions,
): Promise<unknown> {
  const raw = await readBody(req);
  const ct = req.headers['content-type'];
  const media = (ct ?? '').split(';')[0].trim().toLowerCase();
  // protobuf and CBOR variants have their own answers (decodeBody)
  if (media !== '' && !BODY_TYPES.includes(media) && !media.includes('protobuf') && !media.includes('cbor'))
    throw unsupportedMediaType(BODY_TYPES);
  let decoded: unknown;
  try {
    decoded = await decodeBody(raw, ct);
  } catch (e) {
    // the decoder's error, as the handlers' transformDecodeError words it
    if (e instanceof JsonBodyError) throw unrecognizedJson(target, e.syntax, raw);
    if (e instanceof YamlSyntaxError) throw unrecognized(target, `yaml: ${e.detail}`, raw);
    throw e;
  }
  const body = completeTypeMeta(ctx.registry, target, decoded, raw);
  const json = (ct ?? 'application/json').split(';')[0].trim().toLowerCase() === 'application/json';
  return decodeObjectBody(target, body, json ? raw.toString('utf8') : undefined, opts.fieldValidation, opts.warnings);
}

const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale', custom: false } as const;

/** The meta.k8s.io options kind of a write, for its validation errors. */
function optionsKind(method: string): string {
  return method === 'POST' ? 'CreateOptions' : method === 'PUT' ? 'UpdateOptions' : 'PatchOptions';
}

function writeOptions(
  q: URLSearchParams,
  req: IncomingMessage,
  subresource: string | undefined,
): WriteOptions & { force: boolean } {
  const kind = optionsKind(req.method ?? 'POST');
  const fv = q.get('fieldValidation') ?? undefined;
  if (fv !== undefined && fv !== '' && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') {
    throw invalidOptions(kind, [
      {
        reason: 'FieldValueNotSupported',
        field: 'fieldValidation',
        message: `Unsupported value: ${JSON.stringify(fv)}: supported values: "", "Ignore", "Strict", "Warn"`,
      },
    ]);
  }
  const dry = q.getAll('dryRun');
  if (dry.some((d) => d !== 'All')) {
    throw invalidOptions(kind, [
      {
        reason: 'FieldValueNotSupported',
        field: 'dryRun',
        message: `Unsupported value: ${JSON.stringify(dry)}: supported values: "All"`,
      },
    ]);
  }
  const ua = String(req.headers['user-agent'] ?? '');
  const opts: WriteOptions & { force: boolean } = {
    fieldManager: q.get('fieldManager') ?? (ua ? ua.split('/')[0] : 'unknown'),
    fieldValidation: fv || 'Warn',
    dryRun: dry.includes('All'),
    warnings: [],
    force: queryBool(q, 'force') === true,
    admission: {},
  };
  if (subresource === 'status') opts.subresource = 'status';
  return opts;
}

function warningHeaders(opts: WriteOptions): Record<string, string> {
  if (!opts.warnings?.length) return {};
  return { Warning: opts.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}

function includeObject(q: URLSearchParams): IncludeObject {
  const v = q.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

/** The request methods the apiserver maps to verbs; any other is a verb of "" to the CRD handler. */
const VERB_OF_METHOD: Record<string, string> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** go-restful's 405 for a method no route of the path takes (built-in resources). */
function noRoute(): ApiError {
  return new ApiError(
    failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),
  );
}

/**
 * Whether the path takes the method, as kube-apiserver routes it: built-ins through go-restful,
 * whose routes are collection GET/POST/DELETE (GET only across namespaces for a namespaced
 * resource), object GET/PUT/PATCH/DELETE, subresource GET/PUT/PATCH (405 for any other); custom
 * resources through the CRD handler, which serves a namespaced resource across namespaces only
 * to GET (`404 page not found` else), needs a name for update and patch, and refuses methods
 * that map to no verb with a verb of "".
 */
function checkRoute(r: ResourceInfo, rp: ResourcePath, method: string): void {
  const collection = rp.name === undefined;
  if (r.custom) {
    if (collection && rp.namespace === undefined && r.namespaced && method !== 'GET' && method !== 'HEAD')
      throw pathNotFound();
    if (VERB_OF_METHOD[method] === undefined) throw methodNotSupported(r, '');
    if (collection && (method === 'PUT' || method === 'PATCH')) throw badRequest('name must be provided');
    return;
  }
  const allowed =
    rp.subresource !== undefined
      ? ['GET', 'PUT', 'PATCH']
      : !collection
        ? ['GET', 'PUT', 'PATCH', 'DELETE']
        : rp.namespace === undefined && r.namespaced
          ? ['GET']
          : ['GET', 'POST', 'DELETE'];
  if (method !== 'HEAD' && !allowed.includes(method)) throw noRoute();
}

/** The media types the apiserver writes objects in. */
const SERVED_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
/** The `as=` forms of a JSON answer the apiserver can give (Table, object metadata only). */
const AS_FORMS = ['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'];

/**
 * Refuses an Accept header no answer satisfies, as kube-apiserver does: for built-ins go-restful
 * first (a clause naming a served type, or `*\/*`; else its text `406: Not Acceptable`), then
 * the apiserver's negotiation (a served type or wildcard whose `as=` is a form it writes; else
 * `only the following media types are accepted`).
 */
function checkAccept(r: ResourceInfo, accept: string | undefined): void {
  if (accept === undefined || accept.trim() === '') return;
  const clauses = accept.split(',').map((c) => {
    const [type = '', ...params] = c.split(';').map((x) => x.trim());
    const p = new Map(
      params.map((x) => {
        const eq = x.indexOf('=');
        return eq < 0 ? [x.toLowerCase(), ''] : [x.slice(0, eq).trim().toLowerCase(), x.slice(eq + 1).trim()];
      }),
    );
    return { type: type.toLowerCase(), params: p };
  });
  const listed = `${SERVED_TYPES.join(', ')}`;
  if (!r.custom && !clauses.some((c) => c.type === '*/*' || SERVED_TYPES.includes(c.type))) {
    throw new ApiError(
      failure(
        406,
        'NotAcceptable',
        `406: Not Acceptable

Available representations: ${listed}`,
        {},
      ),
    );
  }
  const served = clauses.some(
    (c) =>
      (c.type === '*/*' || c.type === 'application/*' || SERVED_TYPES.includes(c.type)) &&
      (!c.params.has('as') || AS_FORMS.includes(c.params.get('as')!)),
  );
  if (!served)
    throw new ApiError(failure(406, 'NotAcceptable', `only the following media types are accepted: ${listed}`));
}

/** The integer options of the request (ListOptions' limit and timeoutSeconds, DeleteOptions' gracePeriodSeconds), parsed as Go's strconv does. */
function checkIntegerOptions(q: URLSearchParams, method: string, collection: boolean): void {
  const names = [
    ...(method === 'DELETE' ? ['gracePeriodSeconds'] : []),
    ...(collection && (method === 'GET' || method === 'DELETE') ? ['limit', 'timeoutSeconds'] : []),
  ];
  for (const n of names) {
    const v = q.get(n);
    if (v === null) continue;
    const parsed = goParseInt64(v);
    if ('error' in parsed) throw badRequest(parsed.error);
  }
}

async function serveResource(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  rp: ResourcePath,
): Promise<void> {
  const { svc } = ctx;
  const r = rp.resource;
  const method = req.method ?? 'GET';
  const ns = rp.namespace;
  checkRoute(r, rp, method);
  checkAccept(r, req.headers.accept);
  checkIntegerOptions(q, method, rp.name === undefined);
  const table = wantsTable(req.headers.accept);
  const isWatch = rp.legacyWatch || queryBool(q, 'watch') === true;
  if (rp.subresource === 'scale') return serveScale(ctx, req, res, q, rp);
  if (method === 'GET' && rp.name === undefined) {
    const labelText = q.get('labelSelector') ?? undefined;
    const fieldText = q.get('fieldSelector') ?? undefined;
    const labels = parseLabelSelector(labelText);
    const fields = parseFieldSelector(fieldText, fieldGetters(r));
    if (isWatch) {
      const rv = q.get('resourceVersion');
      // the watch cache answers an unparsable version with a 500 that has no reason
      if (rv && !/^\d+$/.test(rv)) {
        throw new ApiError({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`,
          code: 500,
        });
      }
      validateListOptions({
        resourceVersion: rv ?? undefined,
        resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
        sendInitialEvents: queryBool(q, 'sendInitialEvents') === true,
        watch: true,
      });
      const ts = q.get('timeoutSeconds');
      await serveWatch(
        svc,
        ctx.storage,
        {
          resource: r,
          namespace: ns,
          resourceVersion: q.get('resourceVersion') ?? undefined,
          labels,
          fields,
          bookmarks: queryBool(q, 'allowWatchBookmarks') === true,
          sendInitialEvents: queryBool(q, 'sendInitialEvents') === true,
          timeoutSeconds: ts ? Number(ts) : undefined,
          table: table ? includeObject(q) : undefined,
          bookmarkIntervalMs: ctx.bookmarkIntervalMs,
        },
        res,
        ctx.watches,
      );
      return;
    }
    const limit = q.get('limit');
    const result = await listObjects(svc, ctx.storage, {
      resource: r,
      namespace: ns,
      labels,
      fields,
      filtered: !!(labelText || fieldText),
      limit: limit ? Number(limit) : undefined,
      continueToken: q.get('continue') || undefined,
      resourceVersion: q.get('resourceVersion') ?? undefined,
      resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
    });
    if (table)
      return sendJson(
        res,
        200,
        toTable(
          r,
          result.items,
          { resourceVersion: result.resourceVersion, continue: result.continue },
          includeObject(q),
        ),
      );
    return sendJsonText(res, 200, listDocumentJson(r, result));
  }
  if (method === 'GET') {
    const obj = await svc.get(r, ns, rp.name!);
    if (table)
      return sendJson(
        res,
        200,
        toTable(r, [obj], { resourceVersion: obj.metadata?.resourceVersion }, includeObject(q)),
      );
    return sendJsonText(res, 200, viewJson(obj));
  }
  if (method === 'POST' && rp.subresource === undefined) {
    if (!r.verbs.includes('create')) throw methodNotSupported(r, 'create');
    const opts = writeOptions(q, req, undefined);
    const body = await readObjectBody(ctx, req, r, opts);
    // POST to a named path creates that object (the apiserver's create route takes the name too)
    if (rp.name !== undefined && isObject(body)) {
      const given = isObject(body.metadata) ? body.metadata.name : undefined;
      if (given !== undefined && given !== rp.name)
        throw badRequest(`the name of the object (${jsonText(given)}) does not match the name on the URL (${rp.name})`);
      body.metadata = { ...(isObject(body.metadata) ? body.metadata : {}), name: rp.name };
    }
    const obj = await svc.create(r, ns, body, opts);
    return sendJson(res, 201, obj, warningHeaders(opts));
  }
  if (method === 'PUT' && rp.name !== undefined) {
    const opts = writeOptions(q, req, rp.subresource);
    const body = await readObjectBody(ctx, req, r, opts);
    const out = await svc.update(r, ns, rp.name, body, opts);
    return sendJson(res, out.created ? 201 : 200, out.object, warningHeaders(opts));
  }
  if (method === 'PATCH' && rp.name !== undefined) {
    const ct = String(req.headers['content-type'] ?? '');
    const type = patchTypeOf(ct);
    // go-restful's own 415 for a built-in's route, whose Consumes lists the patch types
    if (!type && !r.custom) throw new ApiError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}));
    if (!type) {
      throw unsupportedMediaType(
        r.strategicMerge
          ? [
              'application/json-patch+json',
              'application/merge-patch+json',
              'application/apply-patch+yaml',
              'application/strategic-merge-patch+json',
            ]
          : ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'],
      );
    }
    const opts = writeOptions(q, req, rp.subresource);
    const patch = await decodePatch(await readBody(req), ct, type, opts);
    if (type !== 'apply' && q.has('force'))
      throw invalidOptions('PatchOptions', [
        {
          reason: 'FieldValueForbidden',
          field: 'force',
          message: 'Forbidden: may not be specified for non-apply patch',
        },
      ]);
    if (type === 'apply' && !q.get('fieldManager'))
      throw invalidOptions('PatchOptions', [
        { reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
      ]);
    const out = await svc.patch(r, ns, rp.name, type, patch, opts);
    return sendJson(res, out.created ? 201 : 200, out.object, warningHeaders(opts));
  }
  if (method === 'DELETE') {
    const raw = await readBody(req);
    const body = raw.length ? await decodeBody(raw, req.headers['content-type']) : undefined;
    const opts = { ...parseDeleteOptions(body, q), admission: {} };
    if (rp.name !== undefined) {
      if (rp.subresource) throw methodNotSupported(r, 'delete');
      const out = await deleteObject(svc, r, ns, rp.name, opts);
      // Still there (finalizers): the object, 200 (202 only for the deprecated orphanDependents=false); gone: a Success Status.
      if (!out.deleted) return sendJson(res, opts.orphanDependents === false ? 202 : 200, out.object);
      // (the object itself for kinds whose registry returns it: Services)
      if (r.returnDeletedObject) return sendJson(res, 200, out.object);
      return sendJson(
        res,
        200,
        success({ name: rp.name, group: r.group || undefined, kind: r.resource, uid: out.object.metadata?.uid }),
      );
    }
    const listed = await listObjects(svc, ctx.storage, {
      resource: r,
      namespace: ns,
      labels: parseLabelSelector(q.get('labelSelector') ?? undefined),
      fields: parseFieldSelector(q.get('fieldSelector') ?? undefined, fieldGetters(r)),
      filtered: true,
      limit: undefined,
      continueToken: undefined,
      resourceVersion: undefined,
      resourceVersionMatch: undefined,
    });
    // As the registry's DeleteCollection: the list it deleted from (its version), each object as
    // listed when it went at once, or as marked when finalizers keep it.
    const deleted: KubeObject[] = [];
    for (const o of listed.items) {
      try {
        const out = await deleteObject(svc, r, o.metadata?.namespace, o.metadata!.name!, opts);
        deleted.push(out.deleted ? o : out.object);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return sendJson(res, 200, listDocument(r, { items: deleted, resourceVersion: listed.resourceVersion }));
  }
  throw methodNotSupported(r, VERB_OF_METHOD[method] ?? '');
}

/**
 * A patch body as the patch handler reads it: any patch but an apply patch must be valid JSON
 * (`invalid JSON patch`); with fieldValidation Strict or Warn a JSON patch is decoded into the
 * handler's operations and a merge patch into a map first (`error decoding patch: …`), their
 * strict errors (unknown operation members, duplicate members) kept for the result's decoding.
 */
async function decodePatch(raw: Buffer, contentType: string, type: PatchType, opts: WriteOptions): Promise<unknown> {
  if (type === 'apply') {
    // an empty apply patch is an object of no kind to the apply handler
    if (raw.toString('utf8').trim() === '') throw badRequest('invalid object type: /, Kind=');
    try {
      return await decodeBody(raw, contentType);
    } catch (e) {
      if (e instanceof YamlSyntaxError) throw badRequest(`error encoding patch: yaml: ${e.detail}`);
      throw e;
    }
  }
  let patch: unknown;
  try {
    patch = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('invalid JSON patch');
  }
  const strictDecoding = opts.fieldValidation !== 'Ignore';
  if (type === 'json') opts.patchStrict = decodeJsonPatch(patch, strictDecoding);
  else if (type === 'merge' && strictDecoding && patch !== null && !isObject(patch)) {
    throw badRequest(
      `error decoding patch: json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch === 'boolean' ? 'bool' : typeof patch} into Go value of type map[string]interface {}`,
    );
  } else if (strictDecoding) opts.patchStrict = duplicateFields(raw.toString('utf8'));
  return patch;
}

/** The autoscaling/v1 Scale view of an object. */
function toScale(r: ResourceInfo, obj: KubeObject): Record<string, unknown> {
  const spec = r.scale!;
  let selector: unknown = spec.labelSelectorPath ? readJsonPath(obj, spec.labelSelectorPath) : undefined;
  if (r.resource === 'deployments' && !r.custom) {
    const ml = readJsonPath(obj, '.spec.selector.matchLabels');
    selector = isObject(ml)
      ? Object.entries(ml)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',')
      : undefined;
  }
  const m = obj.metadata ?? {};
  const status: Record<string, unknown> = { replicas: Number(readJsonPath(obj, spec.statusReplicasPath) ?? 0) };
  if (typeof selector === 'string' && selector) status.selector = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: Number(readJsonPath(obj, spec.specReplicasPath) ?? 0) },
    status,
  };
}

async function serveScale(
  ctx: HttpContext,
  req: IncomingMessage,
  res: ServerResponse,
  q: URLSearchParams,
  rp: ResourcePath,
): Promise<void> {
  const { svc } = ctx;
  const r = rp.resource;
  const method = req.method ?? 'GET';
  const name = rp.name!;
  const cur = await svc.get(r, rp.namespace, name);
  if (method === 'GET') return sendJson(res, 200, toScale(r, cur));
  let scale: unknown;
  const opts = writeOptions(q, req, undefined);
  if (method === 'PUT') {
    scale = await readObjectBody(ctx, req, SCALE, opts);
  } else if (method === 'PATCH') {
    const ct = String(req.headers['content-type'] ?? '');
    const type = patchTypeOf(ct);
    const patch = await decodeBody(await readBody(req), ct);
    const { jsonPatch, mergePatch } = await import('./patch.js');
    const base = toScale(r, cur);
    if (type === 'json') scale = jsonPatch(base, patch);
    else if (type === 'merge' || type === 'strategic' || type === 'apply') scale = mergePatch(base, patch);
    else throw unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']);
  } else throw methodNotSupported(r, VERB_OF_METHOD[method] ?? '');
  if (!isObject(scale) || scale.kind !== 'Scale')
    throw badRequest('the body of the request must be an autoscaling/v1 Scale');
  // a Scale is a Go struct: no spec.replicas is 0 (what protobuf and omitempty JSON send for 0)
  const replicas = readJsonPath(scale, '.spec.replicas') ?? 0;
  const rv = readJsonPath(scale, '.metadata.resourceVersion');
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    const { invalid } = await import('./status.js');
    throw invalid('autoscaling', 'Scale', name, [
      {
        reason: 'FieldValueInvalid',
        field: 'spec.replicas',
        message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
      },
    ]);
  }
  const next = structuredClone(cur) as Record<string, unknown>;
  writeJsonPath(next, r.scale!.specReplicasPath, replicas);
  if (typeof rv === 'string' && rv) (next.metadata as Record<string, unknown>).resourceVersion = rv;
  opts.subresource = 'scale';
  const out = await svc.update(r, rp.namespace, name, next, opts);
  return sendJson(res, 200, toScale(r, out.object));
}
