// x-kubernetes-list-type set/map uniqueness, as apiextensions-apiserver's listtype validation:
// the second occurrence of each duplicated value (or map key) is reported once, `Duplicate value: …`.
import { duplicate, invalid, type FieldError } from './field-error.js';
import type { Node } from './node.js';

/** Field paths as `field.Path` prints them: `spec.listeners[1]`, `spec.labels[app]`. */
export const fieldPath = {
  /** `parent.name` (or `name` at the root). */
  child: (parent: string, name: string): string => (parent ? `${parent}.${name}` : name),
  /** `parent[i]`. */
  index: (parent: string, i: number): string => `${parent}[${i}]`,
  /** `parent[key]`. */
  key: (parent: string, k: string): string => `${parent}[${k}]`,
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Canonical text of a JSON value for set membership (object keys sorted; 1 and 1.0 are the same). */
function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** Indices of second occurrences (each duplicated value once). */
function nonUnique(values: readonly string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((v, i) => {
    const times = seen.get(v);
    if (times === undefined) seen.set(v, 1);
    else {
      seen.set(v, times + 1);
      if (times === 1) out.push(i);
    }
  });
  return out;
}

/** Walks `value` along `n` and appends the set/map duplicate errors. `path` is a field.Path string. */
export function validateListTypes(n: Node, value: unknown, path: string, errs: FieldError[]): void {
  if (!n.hasListTypes || value === null || value === undefined) return;
  if (Array.isArray(value)) {
    const lt = n.s['x-kubernetes-list-type'];
    if (lt === 'set') {
      for (const i of nonUnique(value.map(canon))) errs.push(duplicate(fieldPath.index(path, i), value[i]));
    } else if (lt === 'map') {
      validateListMap(n, value, path, errs);
    }
    if (n.items) value.forEach((v, i) => validateListTypes(n.items!, v, fieldPath.index(path, i), errs));
    return;
  }
  if (isObject(value)) {
    if (n.props) {
      for (const [k, child] of n.props)
        if (Object.hasOwn(value, k)) validateListTypes(child, value[k], fieldPath.child(path, k), errs);
    }
    if (n.addl) {
      for (const k of Object.keys(value))
        if (!n.props?.has(k)) validateListTypes(n.addl, value[k], fieldPath.key(path, k), errs);
    }
  }
}

function validateListMap(n: Node, list: unknown[], path: string, errs: FieldError[]): void {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) {
      errs.push(invalid(fieldPath.index(path, i), x, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1) return;
  const keyFields = n.s['x-kubernetes-list-map-keys'] ?? [];
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) key[f] = x[f];
    return key;
  });
  for (const i of nonUnique(keys.map(canon))) errs.push(duplicate(fieldPath.index(path, i), keys[i]));
}
