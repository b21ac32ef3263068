// The metadata-only forms the apiserver serves when the Accept header asks for them
// (`application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1`, and `…List` for lists):
// an object's metadata alone, as client-go's metadata client and controller-runtime's
// metadata-only informers read it.
import type { KubeObject } from '../runtime/meta/types.js';
import { ApiError, failure } from './status.js';

/** What the Accept header asks for: the object as stored, or its PartialObjectMetadata form. */
export type OutputForm = { kind: 'object' } | { kind: 'metadata'; version: 'v1' | 'v1beta1'; list: boolean };

const OBJECT: OutputForm = { kind: 'object' };

/** The apiserver's 406 when no media type of the Accept header can be served. */
function notAcceptable(message: string): ApiError {
  return new ApiError(failure(406, 'NotAcceptable', message));
}

/**
 * The form the Accept header asks for, as the apiserver negotiates it: its media ranges in
 * order, the first one served wins. A range with `as=PartialObjectMetadata` or
 * `as=PartialObjectMetadataList` is served for `g=meta.k8s.io` and `v=v1` or `v1beta1`
 * (JSON); other `as=` targets are someone else's business (Tables) or unknown: skipped here.
 * When every range names an unknown target, the apiserver's 406.
 */
export function outputForm(accept: string | undefined): OutputForm {
  if (!accept) return OBJECT;
  let sawUnknown = false;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim());
    const p = new Map(
      params.map((kv) => {
        const at = kv.indexOf('=');
        return at < 0 ? [kv.toLowerCase(), ''] : [kv.slice(0, at).trim().toLowerCase(), kv.slice(at + 1).trim()];
      }),
    );
    const as = p.get('as');
    if (as === undefined) return OBJECT;
    if (as === 'Table') return OBJECT;
    const json = type === 'application/json' || type === '*/*' || type === 'application/*';
    const version = p.get('v');
    if (
      (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') &&
      json &&
      p.get('g') === 'meta.k8s.io' &&
      (version === 'v1' || version === 'v1beta1')
    ) {
      return { kind: 'metadata', version, list: as === 'PartialObjectMetadataList' };
    }
    sawUnknown = true;
  }
  if (sawUnknown)
    throw notAcceptable(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  return OBJECT;
}

/** The Go type the apiserver names in its 406 for a form that does not fit (`*core.ConfigMapList`). */
function goType(custom: boolean, group: string, kind: string, list: boolean): string {
  if (custom) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = group === '' ? 'core' : group.split('.')[0];
  return `*${pkg}.${kind}${list ? 'List' : ''}`;
}

/** The 406 for a list asked for as one object, or an object asked for as a list. */
export function checkForm(
  form: OutputForm,
  isList: boolean,
  r: { custom: boolean; group: string; kind: string },
): void {
  if (form.kind !== 'metadata' || form.list === isList) return;
  // a custom resource is unstructured: its conversion to a list fails as an internal error
  if (r.custom && !isList)
    throw new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'content is not a list',
      code: 500,
    });
  const t = goType(r.custom, r.group, r.kind, isList);
  throw notAcceptable(
    isList
      ? `you requested PartialObjectMetadata, but the requested object is a list (${t})`
      : `you requested PartialObjectMetadataList, but the requested object is not a list (${t})`,
  );
}

/** `obj` as a PartialObjectMetadata of `version` (its metadata, nothing else). */
export function partialObjectMetadata(obj: KubeObject, version: 'v1' | 'v1beta1'): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/** A list as a PartialObjectMetadataList (its resourceVersion, continue and remainingItemCount kept). */
export function partialObjectMetadataList(
  items: readonly KubeObject[],
  meta: { resourceVersion: string; continue?: string; remainingItemCount?: number },
  version: 'v1' | 'v1beta1',
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) metadata.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata.remainingItemCount = meta.remainingItemCount;
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    items: items.map((o) => partialObjectMetadata(o, version)),
  };
}
