// Label selectors (`app=x,tier in (a,b),!legacy`: the runtime's, src/runtime/labels) and field
// selectors (`metadata.name=x`, `metadata.namespace!=y`) as list and watch requests carry them.
import type { KubeObject } from '../runtime/meta/types.js';
import { parseSelector } from '../runtime/labels/parse.js';
import { SelectorError, type Selector } from '../runtime/labels/selector.js';
import { badRequest } from './status.js';

/** A parsed selector: true when an object matches. */
export type Matcher = (obj: KubeObject) => boolean;

/**
 * Parses a label selector with crdgen/runtime's grammar (apimachinery's labels.Parse); throws a
 * 400 ApiError worded as kube-apiserver answers on bad syntax or an invalid key or value. Empty
 * matches everything.
 */
export function parseLabelSelector(text: string | undefined): Matcher {
  if (!text || !text.trim()) return () => true;
  let selector: Selector;
  try {
    selector = parseSelector(text);
  } catch (e) {
    if (e instanceof SelectorError) throw badRequest(e.apiserverMessage);
    throw e;
  }
  return (obj) => selector.matches(obj.metadata?.labels ?? {});
}

/** Field getters per field path; `metadata.name` and `metadata.namespace` always. */
export type FieldGetters = Record<string, (obj: KubeObject) => string | undefined>;

const COMMON: FieldGetters = {
  'metadata.name': (o) => o.metadata?.name ?? '',
  'metadata.namespace': (o) => o.metadata?.namespace ?? '',
};

/** Parses a field selector against the fields the resource supports; throws 400 for others. */
export function parseFieldSelector(text: string | undefined, extra: FieldGetters = {}): Matcher {
  if (!text || !text.trim()) return () => true;
  const fields: FieldGetters = { ...COMMON, ...extra };
  const reqs: { key: string; neq: boolean; value: string }[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    if (!fields[m[1]]) throw badRequest(`field label not supported: ${m[1]}`);
    reqs.push({ key: m[1], neq: m[2] === '!=', value: m[3] });
  }
  return (obj) => reqs.every((r) => (fields[r.key](obj) === r.value) !== r.neq);
}
