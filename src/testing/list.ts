// LIST as the apiserver answers it: label and field selectors, limit/continue pages,
// and resourceVersion semantics ("" latest, "0" any, N not-older-than or Exact).
import type { KubeObject } from '../runtime/meta/types.js';
import type { ObjectService } from './objects.js';
import { groupVersion, listPrefix } from './resource.js';
import type { ResourceInfo } from './resource.js';
import type { Matcher } from './selectors.js';
import { ApiError, badRequest, failure, tooLargeResourceVersion } from './status.js';
import { StorageError } from './storage/storage.js';
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
}

/** A list result before serialisation. */
export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

function decodeContinue(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as ContinueToken;
    if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

/** Runs a list request against the store. */
export async function listObjects(svc: ObjectService, storage: Storage, req: ListRequest): Promise<ListResult> {
  const r = req.resource;
  const prefix = listPrefix(r, req.namespace);
  const current = await storage.currentRevision();
  let atRevision: number | undefined;
  let start = '';
  if (req.continueToken) {
    if (req.resourceVersion && req.resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    const t = decodeContinue(req.continueToken);
    atRevision = t.rv;
    start = t.start;
  } else if (req.resourceVersion && req.resourceVersion !== '0') {
    const rv = Number(req.resourceVersion);
    if (!Number.isInteger(rv) || rv < 0) throw badRequest(`invalid resource version: ${req.resourceVersion}`);
    if (rv > current) throw tooLargeResourceVersion(rv, current);
    if (req.resourceVersionMatch === 'Exact') atRevision = rv;
  } else if (req.resourceVersionMatch === 'Exact') {
    throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion ""');
  }
  let listed;
  try {
    listed = await storage.list(prefix, atRevision);
  } catch (e) {
    if (e instanceof StorageError && e.code === 'Expired') {
      const msg = req.continueToken
        ? 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.'
        : `The resourceVersion for the provided list is too old.`;
      throw new ApiError(failure(410, 'Expired', msg));
    }
    throw e;
  }
  const keyOf = (o: KubeObject): string => svc.key(r, o.metadata?.namespace, o.metadata?.name ?? '');
  const candidates = listed.items.filter((o) => keyOf(o) >= start && req.labels(o) && req.fields(o));
  const limit = req.limit && req.limit > 0 ? req.limit : undefined;
  const page = limit ? candidates.slice(0, limit) : candidates;
  const result: ListResult = { items: page.map((o) => svc.present(r, o)), resourceVersion: String(listed.revision) };
  if (limit && candidates.length > limit) {
    const last = page[page.length - 1]!;
    result.continue = encodeContinue({ v: 'meta.k8s.io/v1', rv: listed.revision, start: `${keyOf(last)}\u0000` });
    if (!req.filtered) result.remainingItemCount = candidates.length - limit;
  }
  return result;
}

/** The JSON list document (`DatabaseManagerList`). Built-in kinds' items carry no apiVersion/kind, as typed lists. */
export function listDocument(r: ResourceInfo, l: ListResult): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: l.resourceVersion };
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
