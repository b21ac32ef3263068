// The apiserver's error bodies for the fake tracker, worded as
// k8s.io/apimachinery/pkg/api/errors words them, so tests can match messages.
import { ApiError } from '../client/errors.js';
import type { ResourceDescriptor } from '../client/resource.js';

/** `databasemanagers.coolops.cn` (plural.group; the plural alone for the core group). */
export function qualified(d: Pick<ResourceDescriptor, 'group' | 'resource'>): string {
  return d.group ? `${d.resource}.${d.group}` : d.resource;
}

/** A Failure Status as an ApiError. */
export function statusError(
  code: number,
  reason: string,
  message: string,
  d?: ResourceDescriptor,
  name?: string,
): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(d ? { details: { ...(name !== undefined ? { name } : {}), group: d.group, kind: d.resource } } : {}),
    code,
  });
}

/** 404 `databasemanagers.coolops.cn "x" not found`. */
export function notFound(d: ResourceDescriptor, name: string): ApiError {
  return statusError(404, 'NotFound', `${qualified(d)} "${name}" not found`, d, name);
}

/** 409 `databasemanagers.coolops.cn "x" already exists`. */
export function alreadyExists(d: ResourceDescriptor, name: string): ApiError {
  return statusError(409, 'AlreadyExists', `${qualified(d)} "${name}" already exists`, d, name);
}

/** 409 `Operation cannot be fulfilled on databasemanagers.coolops.cn "x": <why>`. */
export function conflict(d: ResourceDescriptor, name: string, why: string): ApiError {
  return statusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(d)} "${name}": ${why}`, d, name);
}

/** The optimistic-concurrency message of the apiserver. */
export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422 `<Kind>.<group> "x" is invalid: <field>: <detail>`. */
export function invalid(d: ResourceDescriptor, name: string, field: string, detail: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${d.kind}.${d.group} "${name}" is invalid: ${field}: ${detail}`,
    reason: 'Invalid',
    details: { name, group: d.group, kind: d.kind, causes: [{ reason: 'FieldValueInvalid', message: detail, field }] },
    code: 422,
  });
}
