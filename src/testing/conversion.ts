// Custom resource conversion as apiextensions-apiserver does it: objects are stored in the
// CRD's storage version; a read or write in another served version converts — strategy None
// by relabelling apiVersion, strategy Webhook by a ConversionReview to the CRD's webhook (one
// review for a whole list). The webhook's answer is checked as the apiserver checks it (uid,
// result, count, apiVersion, kind, metadata other than labels and annotations unchanged), and
// a failure is the apiserver's conversion error.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../runtime/meta/types.js';
import { isObject, jsonText } from './meta.js';
import { groupVersion } from './resource.js';
import type { ResourceInfo } from './resource.js';
import { ApiError, failure } from './status.js';
import { callWebhook, WebhookCallError, type WebhookClientConfig } from './webhook-client.js';

type Rec = Record<string, unknown>;

/** A CRD's conversion, as its served versions' resources carry it. */
export interface CrdConversion {
  strategy: 'None' | 'Webhook';
  storageVersion: string;
  webhook?: { clientConfig: WebhookClientConfig; conversionReviewVersions: string[] };
}

/** The conversion stanza of a CRD spec. */
export function crdConversion(spec: Rec, storageVersion: string): CrdConversion {
  const c = isObject(spec.conversion) ? spec.conversion : {};
  if (c.strategy !== 'Webhook') return { strategy: 'None', storageVersion };
  const w = isObject(c.webhook) ? c.webhook : {};
  return {
    strategy: 'Webhook',
    storageVersion,
    webhook: {
      clientConfig: isObject(w.clientConfig) ? w.clientConfig : {},
      conversionReviewVersions: Array.isArray(w.conversionReviewVersions)
        ? w.conversionReviewVersions.filter((v): v is string => typeof v === 'string')
        : [],
    },
  };
}

function apiVersionOf(res: ResourceInfo, version: string): string {
  return groupVersion({ group: res.group, version });
}

/** The apiserver's 500 for a conversion that failed; `detail` is the conversion's own error (what a storage read wraps). */
export class ConversionWebhookError extends ApiError {
  constructor(readonly detail: string) {
    super(failure(500, 'InternalError', `Internal error occurred: ${detail}`, { causes: [{ message: detail }] }));
  }
}

function conversionFailed(res: ResourceInfo, fromVersion: string, why: string): ApiError {
  return new ConversionWebhookError(
    `conversion webhook for ${res.group}/${fromVersion}, Kind=${res.kind} failed: ${why}`,
  );
}

/**
 * Converts `objects` (each of `res`'s group and kind, in any version) to `version`. Objects
 * already in it are returned as they are; the rest go in one review per source version.
 */
export async function convertObjects(res: ResourceInfo, objects: KubeObject[], version: string): Promise<KubeObject[]> {
  const conv = res.conversion;
  const target = apiVersionOf(res, version);
  const out = objects.slice();
  const byFrom = new Map<string, number[]>();
  objects.forEach((o, i) => {
    if (o.apiVersion === target) return;
    if (!conv || conv.strategy === 'None') {
      out[i] = { ...o, apiVersion: target };
      return;
    }
    const from = String(o.apiVersion ?? '');
    if (!byFrom.has(from)) byFrom.set(from, []);
    byFrom.get(from)!.push(i);
  });
  for (const [from, idx] of byFrom) {
    const converted = await callConversion(
      res,
      conv!,
      idx.map((i) => objects[i]),
      target,
      from,
    );
    idx.forEach((i, k) => (out[i] = converted[k]!));
  }
  return out;
}

async function callConversion(
  res: ResourceInfo,
  conv: CrdConversion,
  objects: KubeObject[],
  target: string,
  from: string,
): Promise<KubeObject[]> {
  const fromVersion = from.includes('/') ? from.slice(from.indexOf('/') + 1) : from;
  const w = conv.webhook!;
  const reviewVersion = w.conversionReviewVersions.includes('v1')
    ? 'v1'
    : w.conversionReviewVersions.includes('v1beta1')
      ? 'v1beta1'
      : undefined;
  if (!reviewVersion)
    throw conversionFailed(res, fromVersion, `webhook does not accept v1 or v1beta1 ConversionReview`);
  const uid = randomUUID();
  const review = {
    apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: target, objects },
  };
  let answer: unknown;
  try {
    answer = await callWebhook(w.clientConfig, 30, review);
  } catch (e) {
    throw conversionFailed(res, fromVersion, e instanceof WebhookCallError ? e.message : String(e));
  }
  const gvk = `${from}, Kind=${res.kind}`;
  const invalid = (why: string): ApiError => new ConversionWebhookError(`conversion webhook for ${gvk} ${why}`);
  const a = isObject(answer) ? answer : {};
  const expectedGvk = `apiextensions.k8s.io/${reviewVersion}, Kind=ConversionReview`;
  if (reviewVersion === 'v1' && (a.apiVersion !== 'apiextensions.k8s.io/v1' || a.kind !== 'ConversionReview')) {
    throw conversionFailed(
      res,
      fromVersion,
      `expected webhook response of ${expectedGvk}, got ${typeof a.apiVersion === 'string' ? a.apiVersion : ''}, Kind=${typeof a.kind === 'string' ? a.kind : ''}`,
    );
  }
  const response = isObject(a.response) ? a.response : undefined;
  if (!response) throw conversionFailed(res, fromVersion, 'no response provided');
  if (reviewVersion === 'v1' && response.uid !== uid)
    throw conversionFailed(
      res,
      fromVersion,
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof response.uid === 'string' ? response.uid : '')}`,
    );
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    throw conversionFailed(
      res,
      fromVersion,
      typeof result.message === 'string' && result.message
        ? result.message
        : `response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`,
    );
  }
  const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  if (converted.length !== objects.length)
    throw invalid(`returned ${converted.length} objects, expected ${objects.length}`);
  return converted.map((c, i) => {
    const orig = objects[i];
    if (!isObject(c))
      throw invalid(
        `returned invalid converted object at index ${i}: invalid type, expected=Unstructured, got=${c === null ? '<nil>' : typeof c}`,
      );
    const o = c as KubeObject;
    if (o.apiVersion !== target)
      throw invalid(
        `returned invalid converted object at index ${i}: invalid groupVersion (expected ${target}, received ${String(o.apiVersion ?? '')})`,
      );
    if (o.kind !== orig.kind)
      throw invalid(
        `returned invalid converted object at index ${i}: invalid kind (expected ${String(orig.kind)}, received ${String(o.kind ?? '')})`,
      );
    // only labels and annotations of metadata may change; the rest is the original's
    const om = (orig.metadata ?? {}) as Rec;
    if (!isObject(o.metadata))
      throw invalid(`returned invalid metadata in object at index ${i}: missing metadata in converted object`);
    const cm = o.metadata;
    for (const [k, label] of [
      ['name', 'name'],
      ['namespace', 'namespace'],
      ['uid', 'UID'],
    ] as const) {
      if ((cm[k] ?? '') !== (om[k] ?? ''))
        throw invalid(
          `returned invalid metadata in object at index ${i}: must have the same ${label}: ${jsonText(om[k] ?? '')} != ${jsonText(cm[k] ?? '')}`,
        );
    }
    const meta: Rec = { ...om };
    for (const k of ['labels', 'annotations'] as const) {
      if (cm[k] === undefined) delete meta[k];
      else meta[k] = cm[k];
    }
    return { ...o, metadata: meta };
  });
}
