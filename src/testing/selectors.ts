// Label selectors (`app=x,tier in (a,b),!legacy`) and field selectors
// (`metadata.name=x`, `metadata.namespace!=y`) as list and watch requests carry them.
import type { KubeObject } from '../runtime/meta/types.js';
import { badRequest } from './status.js';

/** A parsed selector: true when an object matches. */
export type Matcher = (obj: KubeObject) => boolean;

type Req =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string };

/** Parses a label selector; throws a 400 ApiError on bad syntax. Empty matches everything. */
export function parseLabelSelector(text: string | undefined): Matcher {
  if (!text || !text.trim()) return () => true;
  const reqs: Req[] = [];
  for (const part of splitTopLevel(text)) {
    const p = part.trim();
    if (!p) throw badRequest(`unable to parse requirement: found '', expected: identifier`);
    let m: RegExpExecArray | null;
    if ((m = /^([^\s=!(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      reqs.push({ op: m[2] as 'in' | 'notin', key: m[1]!, values: m[3]!.split(',').map((s) => s.trim()).filter(Boolean) });
    } else if ((m = /^([^\s=!(),]+)\s*(==|=|!=)\s*([^\s=!(),]*)$/.exec(p))) {
      reqs.push({ op: m[2] === '!=' ? 'neq' : 'eq', key: m[1]!, value: m[3]! });
    } else if ((m = /^!\s*([^\s=!(),]+)$/.exec(p))) {
      reqs.push({ op: 'notexists', key: m[1]! });
    } else if ((m = /^([^\s=!(),]+)$/.exec(p))) {
      reqs.push({ op: 'exists', key: m[1]! });
    } else {
      throw badRequest(`unable to parse requirement: <nil>: Invalid value: "${p}": invalid label selector`);
    }
  }
  return (obj) => {
    const labels = obj.metadata?.labels ?? {};
    return reqs.every((r) => {
      const has = Object.prototype.hasOwnProperty.call(labels, r.key);
      const v = labels[r.key];
      switch (r.op) {
        case 'eq':
          return has && v === r.value;
        case 'neq':
          return !has || v !== r.value;
        case 'in':
          return has && r.values.includes(v!);
        case 'notin':
          return !has || !r.values.includes(v!);
        case 'exists':
          return has;
        case 'notexists':
          return !has;
      }
    });
  };
}

function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
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
    if (!fields[m[1]!]) throw badRequest(`field label not supported: ${m[1]}`);
    reqs.push({ key: m[1]!, neq: m[2] === '!=', value: m[3]! });
  }
  return (obj) => reqs.every((r) => (fields[r.key]!(obj) === r.value) !== r.neq);
}
