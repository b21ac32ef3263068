// LIST as the apiserver answers it: label and field selectors, limit/continue pages (none at
// resourceVersion "0", which the watch cache serves whole), and resourceVersion semantics
// ("" latest, "0" any, N not-older-than or Exact).
import type { KubeObject } from '../runtime/meta/types.js';
import { viewJson } from './objects.js';
import type { ObjectService } from './objects.js';
import { groupVersion, listPrefix } from './resource.js';
import type { ResourceInfo } from './resource.js';
import type { Matcher } from './selectors.js';
import { ApiError, badRequest, failure, invalidOptions, tooLargeResourceVersion } from './status.js';
import { StorageError, listShared } from './storage/storage.js';
import type { Storage } from './storage/storage.js';

/** A list request. */
export interface ListRequest {
  resource: ResourceInfo;
  namespace: string | undefined;
  labels: Matcher;
  fields: Matcher;
  /** Whether any selector was given (remainingItemCount is only reported without). */
  filtered: boolean;
  limit: number | undefined;
  continueToken: string | undefined;
  resourceVersion: string | undefined;
  resourceVersionMatch: string | undefined;
  /** `sendInitialEvents` as given (forbidden for a list: 422). */
  sendInitialEvents?: boolean;
}

/** A list result before serialisation. */
export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** What a continue token carries: the list's revision (-1: continue at the latest) and the next key. */
interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

/** Go's quoting of a byte in encoding/json's syntax errors (`'x'`, `'\u0081'`). */
function goQuoteChar(b: number): string {
  if (b === 0x27) return "'\\''";
  if (b === 0x22) return `'"'`;
  const q = JSON.stringify(String.fromCharCode(b));
  const inner = b >= 0x7f && b < 0xa0 ? `\\u${b.toString(16).padStart(4, '0')}` : q.slice(1, -1);
  return `'${inner}'`;
}

function decodeContinue(s: string): ContinueToken {
  const invalid = (why: string): ApiError => badRequest(`invalid continue token: continue key is not valid: ${why}`);
  // base64.RawURLEncoding, as the apiserver: no padding, URL alphabet
  const bad = s.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0 || s.length % 4 === 1)
    throw invalid(`illegal base64 data at input byte ${bad >= 0 ? bad : s.length - 1}`);
  const bytes = Buffer.from(s, 'base64url');
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (i < bytes.length && !'{["-0123456789tfn'.includes(String.fromCharCode(bytes[i])))
    throw invalid(`invalid character ${goQuoteChar(bytes[i])} looking for beginning of value`);
  let t: ContinueToken;
  try {
    t = JSON.parse(bytes.toString('utf8')) as ContinueToken;
  } catch {
    throw invalid('unexpected end of JSON input');
  }
  if (t?.v !== 'meta.k8s.io/v1') throw invalid(`server does not recognize this encoded version ${String(t?.v ?? '')}`);
  if (!Number.isInteger(t.rv) || t.rv === 0)
    throw invalid('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof t.start !== 'string' || t.start === '') throw invalid('encoded start key empty (version meta.k8s.io/v1)');
  return t;
}

/** The list and watch options the apiserver validates, as their query parameters read. */
export interface ListOptionsQuery {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  continueToken?: string;
  /** `sendInitialEvents` given (true or false) or not (undefined): its presence matters. */
  sendInitialEvents?: boolean;
  watch?: boolean;
}

/**
 * What the apiserver's defaulting does to list options before validating them
 * (SetListOptionsDefaults): with the WatchList feature on, a watch from "" or "0" that names
 * neither `sendInitialEvents` nor `resourceVersionMatch` becomes a watch list
 * (`sendInitialEvents=true`, `NotOlderThan`), so it ends its initial events with a bookmark.
 */
export function defaultListOptions(q: ListOptionsQuery, watchList: boolean): ListOptionsQuery {
  if (!watchList || !q.watch || q.sendInitialEvents !== undefined || q.resourceVersionMatch) return q;
  if (q.resourceVersion && q.resourceVersion !== '0') return q;
  return { ...q, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' };
}

/**
 * metav1.ListOptions as the apiserver validates it (422 ListOptions.meta.k8s.io, every
 * problem at once, in the apiserver's order); `watchList`: the WatchList feature gate.
 */
export function validateListOptions(q: ListOptionsQuery, watchList = true): void {
  const causes: { reason: string; field: string; message: string }[] = [];
  const forbid = (field: string, message: string): void => {
    causes.push({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${message}` });
  };
  const unsupported = (value: string, supported: string[]): void => {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'resourceVersionMatch',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
    });
  };
  const rvm = q.resourceVersionMatch;
  if (q.watch) {
    if (q.sendInitialEvents !== undefined) {
      if (rvm !== 'NotOlderThan')
        forbid('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
      if (!watchList)
        forbid(
          'sendInitialEvents',
          'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        );
    }
    if (rvm) {
      if (q.sendInitialEvents === undefined)
        forbid(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        );
      if (rvm !== 'NotOlderThan') unsupported(rvm, ['NotOlderThan']);
      if (q.continueToken)
        forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
  } else {
    if (rvm) {
      if (!q.resourceVersion)
        forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
      if (q.continueToken)
        forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
      if (rvm !== 'Exact' && rvm !== 'NotOlderThan') unsupported(rvm, ['Exact', 'NotOlderThan', '']);
      if (rvm === 'Exact' && q.resourceVersion === '0')
        forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
    if (q.sendInitialEvents !== undefined) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (causes.length) throw invalidOptions('ListOptions', causes);
}

/** A resourceVersion query value as a number; the apiserver's 400 (its strconv.ParseUint wording) otherwise. */
export function parseResourceVersion(rv: string): number {
  if (/^\d+$/.test(rv) && Number.isSafeInteger(Number(rv))) return Number(rv);
  throw badRequest(
    `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`,
  );
}

/** Runs a list request against the store. */
export async function listObjects(svc: ObjectService, storage: Storage, req: ListRequest): Promise<ListResult> {
  const r = req.resource;
  const prefix = listPrefix(r, req.namespace);
  const current = await storage.currentRevision();
  let atRevision: number | undefined;
  let start = '';
  validateListOptions({
    resourceVersion: req.resourceVersion,
    resourceVersionMatch: req.resourceVersionMatch,
    continueToken: req.continueToken,
    sendInitialEvents: req.sendInitialEvents,
  });
  if (req.continueToken) {
    if (req.resourceVersion && req.resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    const t = decodeContinue(req.continueToken);
    // As the apiserver: a negative revision continues at the latest one.
    if (t.rv > 0) atRevision = t.rv;
    start = t.start;
  } else if (req.resourceVersion && req.resourceVersion !== '0') {
    const rv = parseResourceVersion(req.resourceVersion);
    if (rv > current) throw tooLargeResourceVersion(rv, current);
    if (req.resourceVersionMatch === 'Exact') atRevision = rv;
  }
  // As the watch cache: a list at resourceVersion "0" ignores the limit (one page of everything).
  const limit =
    req.limit && req.limit > 0 && !(req.resourceVersion === '0' && !req.continueToken) ? req.limit : undefined;
  let listed;
  try {
    listed = await listShared(storage, prefix, atRevision, {
      start: start || undefined,
      limit,
      predicate: (o) => req.labels(o) && req.fields(o),
    });
  } catch (e) {
    if (e instanceof StorageError && e.code === 'Expired') {
      if (!req.continueToken)
        throw new ApiError(failure(410, 'Expired', 'The resourceVersion for the provided list is too old.'));
      // As the apiserver: the Status carries a token that continues from the same key at the latest revision.
      const status = failure(410, 'Expired', INCONSISTENT_CONTINUE);
      status.metadata = { continue: encodeContinue({ v: 'meta.k8s.io/v1', rv: -1, start }) };
      throw new ApiError(status);
    }
    throw e;
  }
  const result: ListResult = { items: await svc.viewAll(r, listed.items), resourceVersion: String(listed.revision) };
  // As the apiserver's etcd3 store: a continue token when keys follow the page's last item,
  // and remainingItemCount (how many) only when no selector filtered the list.
  if (limit && listed.more && listed.keys.length > 0) {
    result.continue = encodeContinue({
      v: 'meta.k8s.io/v1',
      rv: listed.revision,
      start: `${listed.keys[listed.keys.length - 1]}\u0000`,
    });
    if (!req.filtered && listed.remaining !== undefined) result.remainingItemCount = listed.remaining;
  }
  return result;
}

/** {@link listDocument} as JSON text (a custom resource's items from their stored objects' texts). */
export function listDocumentJson(r: ResourceInfo, l: ListResult): string {
  if (!r.custom) return JSON.stringify(listDocument(r, l));
  const { items, ...rest } = listDocument(r, l);
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)},"items":[${(items as unknown[]).map(viewJson).join(',')}]}`;
}

/** The JSON list document (`DatabaseManagerList`). Built-in kinds' items carry no apiVersion/kind, as typed lists. */
export function listDocument(r: ResourceInfo, l: ListResult): Record<string, unknown> {
  // custom resources are served as unstructured lists, which always carry `continue`
  const metadata: Record<string, unknown> = r.custom
    ? { continue: l.continue ?? '', resourceVersion: l.resourceVersion }
    : { resourceVersion: l.resourceVersion };
  if (l.continue) metadata.continue = l.continue;
  if (l.remainingItemCount !== undefined) metadata.remainingItemCount = l.remainingItemCount;
  const items = r.custom
    ? l.items
    : l.items.map((o) => {
        const c = { ...o };
        delete c.apiVersion;
        delete c.kind;
        return c;
      });
  return { apiVersion: groupVersion(r), kind: r.listKind, metadata, items };
}
