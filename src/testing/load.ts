// Objects given as objects or as paths of YAML/JSON files (several documents allowed).
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../runtime/meta/types.js';

/** Reads objects given as objects or file paths; `what` names them in errors (`CRD`). */
export async function loadObjectFiles(items: (KubeObject | string)[], what = 'object'): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const c of items) {
    if (typeof c !== 'string') {
      out.push(c);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(c, 'utf8');
    } catch (e) {
      throw new Error(`cannot read ${what} file ${c}: ${(e as Error).message}`);
    }
    // The CRD reader's fast path (js-yaml, a fifth of the cost of loading and running `yaml`),
    // or `yaml` where that declines (anchors, tags, errors: it words the error).
    const { fastLoadAll } = await import('../input/crd/yaml-fast.js');
    const fast = fastLoadAll(text);
    if (fast) {
      out.push(...(fast as KubeObject[]));
      continue;
    }
    const YAML = await import('yaml');
    const docs = YAML.parseAllDocuments(text);
    for (const d of docs) {
      if (d.errors.length) throw new Error(`${c}: ${d.errors[0].message}`);
      const v = d.toJSON() as unknown;
      if (v !== null && v !== undefined) out.push(v);
    }
  }
  return out;
}
