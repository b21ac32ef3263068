// Output: config/crd/<plural>.<group>.yaml — one apiextensions.k8s.io/v1 CustomResourceDefinition
// per kind, every version of the kind in it, as YAML. The CRD itself is the model's writer's
// (src/model/crd-json.ts): for CRD input, the CRD that was read; reading it back gives the same model.
import { createRequire } from 'node:module';
import type { Group, Kind } from '../model/types.js';
import { isSafePathSegment } from '../model/naming.js';
import { compareStrings } from '../model/order.js';
import { crdObject } from '../model/crd-json.js';
import { GENERATED_HASH_HEADER } from '../emit/header.js';
import { emitsGroup, type Emitter, type GeneratedFile } from './emitter.js';
import { kindSources } from './walk.js';

/** First line of every generated YAML file (YAML's comment form of the generated header). */
export const GENERATED_YAML_HEADER = GENERATED_HASH_HEADER;

/** The header block of a generated YAML file: the marker line, one `# Source:` line per input. */
export function generatedYamlHeader(sources: readonly string[]): string {
  const lines = [GENERATED_YAML_HEADER];
  for (const s of sources) lines.push(`# Source: ${s.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, '?')}`);
  return `${lines.join('\n')}\n`;
}

/** One CRD per (group, kind) of the model, as `config/crd/<plural>.<group>.yaml`. */
export const crd: Emitter = (model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const group of model.groups) {
    if (!emitsGroup(ctx, group.name)) continue;
    for (const versions of kindsOf(group).values()) {
      const doc = crdObject(group.name, versions);
      const spec = doc['spec'] as { names: { plural: string } };
      const name = `${spec.names.plural}.${group.name}`;
      if (!isSafePathSegment(`${name}.yaml`)) throw new Error(`unsafe CRD file name ${JSON.stringify(name)}`);
      const sources = kindSources(
        versions.map((v) => v.kind),
        ctx.sources,
      );
      files.push({ path: `config/crd/${name}.yaml`, contents: renderYaml(doc, sources) });
    }
  }
  return files.sort((a, b) => compareStrings(a.path, b.path));
};

/** A kind's versions, keyed by kind, in the model's (kube-aware) version order. */
function kindsOf(group: Group): Map<string, { version: string; kind: Kind }[]> {
  const out = new Map<string, { version: string; kind: Kind }[]>();
  for (const v of group.versions) {
    for (const k of v.kinds) {
      const list = out.get(k.kind) ?? [];
      list.push({ version: v.name, kind: k });
      out.set(k.kind, list);
    }
  }
  return out;
}

/**
 * YAML text: the generated header (naming `sources`), then the document. YAML 1.1 quoting (so `yes`, `on`, `0755`
 * stay strings for Kubernetes' YAML 1.1 reader), no line folding, sequences not indented, no
 * anchors (a value the input shared through an alias is written out each time).
 */
function renderYaml(doc: Record<string, unknown>, sources: readonly string[]): string {
  // yaml is loaded when this opt-in emitter runs, not with the registry (CLI start-up)
  const { Document } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const text = new Document(doc, { version: '1.1', aliasDuplicateObjects: false }).toString({
    lineWidth: 0,
    indentSeq: true,
  });
  return `${generatedYamlHeader(sources)}---\n${text}`;
}
