// validatingBackend: a ClientBackend that checks objects against their generated validator before
// create/update/updateStatus sends them (the generated clientset's `validate: true`). It imports no
// validation code itself: the validators are loaded on first use through `load`, so a clientset
// that does not validate never loads the CEL layer.
import type { KubeList, KubeObject, Status } from '../meta/types.js';
import type { ResourceClient, ResourceDescriptor } from '../client/resource.js';
import { ApiError } from '../client/errors.js';
import type { ClientBackend } from '../typed/backend.js';
import { formatInvalidMessage, type FieldError } from './field-error.js';

/** What a generated `validation.ts` offers for one kind: `validate<Kind>` and `default<Kind>`. */
export interface KindValidator {
  /** Field errors of `obj` (empty when valid). */
  validate(obj: unknown, old?: unknown): FieldError[];
  /** Applies schema defaults to `obj` in place (the apiserver defaults before it validates). */
  applyDefaults?(obj: unknown): void;
}

/** Finds the validator of a resource, or undefined to send its objects unchecked. Called once per descriptor. */
export type KindValidatorLoader = (descriptor: ResourceDescriptor) => Promise<KindValidator | undefined>;

/**
 * Wraps `backend` so `create`, `update` and `updateStatus` validate the object first, on a
 * defaulted copy (the object sent is unchanged), and reject with a 422 Invalid {@link ApiError}
 * (`isInvalid(err)`, `details.causes`, the apiserver's wording) without sending it. Patches and
 * server-side apply are partial objects and are sent unchecked, as are transition rules (no old
 * object on the client): the server stays the authority.
 */
export function validatingBackend(backend: ClientBackend, load: KindValidatorLoader): ClientBackend {
  const cache = new Map<string, Promise<KindValidator | undefined>>();
  const validatorOf = (d: ResourceDescriptor) => {
    const key = `${d.group}/${d.version}/${d.kind}`;
    let p = cache.get(key);
    if (!p) cache.set(key, (p = load(d)));
    return p;
  };
  const check = async (d: ResourceDescriptor, obj: KubeObject): Promise<void> => {
    const v = await validatorOf(d);
    if (!v) return;
    const copy = structuredClone(obj);
    v.applyDefaults?.(copy);
    const errors = v.validate(copy);
    if (errors.length > 0) throw invalidError(d, obj.metadata?.name ?? '', errors);
  };
  const wrap = <T extends KubeObject, TList extends KubeList<T>>(
    d: ResourceDescriptor,
    client: ResourceClient<T, TList>,
  ): ResourceClient<T, TList> =>
    new Proxy(client, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        if (prop === 'namespace') return (ns: string) => wrap(d, target.namespace(ns));
        if (prop === 'create' || prop === 'update' || prop === 'updateStatus') {
          return async (obj: T, options?: unknown) => {
            await check(d, obj);
            return (value as (o: T, opts?: unknown) => Promise<T>).call(target, obj, options);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  return {
    resource<T extends KubeObject, TList extends KubeList<T> = KubeList<T>>(
      descriptor: ResourceDescriptor,
      namespace?: string,
    ) {
      return wrap(descriptor, backend.resource<T, TList>(descriptor, namespace));
    },
    scale: (descriptor, namespace) => backend.scale(descriptor, namespace),
  };
}

/** The 422 Invalid error the apiserver would answer, built on the client. */
function invalidError(d: ResourceDescriptor, name: string, errors: readonly FieldError[]): ApiError {
  const qualifiedKind = d.group === '' ? d.kind : `${d.kind}.${d.group}`;
  const status: Status = {
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    code: 422,
    reason: 'Invalid',
    message: formatInvalidMessage(qualifiedKind, name, errors),
    details: {
      name,
      group: d.group,
      kind: d.kind,
      causes: errors.map((e) => ({ reason: e.reason, field: e.field, message: e.message })),
    },
    metadata: {},
  };
  return new ApiError(status);
}
