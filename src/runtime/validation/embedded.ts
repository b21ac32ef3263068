// x-kubernetes-embedded-resource objects carry their own TypeMeta: apiVersion and kind are required
// and checked as apiextensions-apiserver's objectmeta validation does (the resource root's own
// TypeMeta and ObjectMeta are the server's business, not this engine's).
import { invalid, required, type FieldError } from './field-error.js';
import { fieldPath } from './list-type.js';
import type { Node } from './node.js';

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkTypeMeta(x: Record<string, unknown>, path: string, errs: FieldError[]): void {
  const av = fieldPath.child(path, 'apiVersion');
  const k = fieldPath.child(path, 'kind');
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(required(av));
  if (!Object.hasOwn(x, 'kind')) errs.push(required(k));
  if (Object.hasOwn(x, 'apiVersion')) {
    const v = x.apiVersion;
    if (typeof v !== 'string') errs.push(invalid(av, v, 'must be a string'));
    else if (v === '') errs.push(required(av));
    else if (v !== '/' && v.split('/').length > 2) errs.push(invalid(av, v, `unexpected GroupVersion string: ${v}`));
  }
  if (Object.hasOwn(x, 'kind')) {
    const v = x.kind;
    if (typeof v !== 'string') errs.push(invalid(k, v, 'must be a string'));
    else if (v === '') errs.push(required(k));
    else {
      const lower = v.toLowerCase();
      const problems: string[] = [];
      if (lower.length > 63) problems.push('must be no more than 63 characters');
      if (!DNS1035.test(lower)) problems.push(DNS1035_MSG);
      if (problems.length)
        errs.push(invalid(k, v, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
    }
  }
}

/** True when some node below `n` is an embedded resource (computed once per node). */
const hasEmbeddedCache = new WeakMap<Node, boolean>();
function hasEmbedded(n: Node): boolean {
  let r = hasEmbeddedCache.get(n);
  if (r === undefined) {
    r =
      n.s['x-kubernetes-embedded-resource'] === true ||
      [...(n.props?.values() ?? [])].some(hasEmbedded) ||
      (n.addl !== undefined && hasEmbedded(n.addl)) ||
      (n.items !== undefined && hasEmbedded(n.items));
    hasEmbeddedCache.set(n, r);
  }
  return r;
}

/** Appends the TypeMeta errors of every embedded resource under `n` (not of the root itself). */
export function validateEmbedded(n: Node, x: unknown, path: string, errs: FieldError[], isRoot = true): void {
  if (!hasEmbedded(n)) return;
  if (Array.isArray(x)) {
    if (n.items) x.forEach((v, i) => validateEmbedded(n.items!, v, fieldPath.index(path, i), errs, false));
    return;
  }
  if (!isObject(x)) return;
  if (!isRoot && n.s['x-kubernetes-embedded-resource']) checkTypeMeta(x, path, errs);
  for (const k of Object.keys(x)) {
    const p = n.props?.get(k);
    if (p) validateEmbedded(p, x[k], fieldPath.child(path, k), errs, false);
    else if (n.addl) validateEmbedded(n.addl, x[k], fieldPath.key(path, k), errs, false);
  }
}
