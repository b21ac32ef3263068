// Shared by the client emitter tests: models from fixture CRDs, files by path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext, type EmitContext, type GeneratedFile } from '../../../src/generate/emitter.js';
import type { Model } from '../../../src/model/types.js';
import { ROOT } from '../../golden/support.js';

/** The model of fixture files (repo-relative). */
export function fixtureModel(...files: string[]): Model {
  const r = readCrdInputs(files.map((file) => ({ file, content: readFileSync(join(ROOT, file)) })));
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  return r.model;
}

/** The model of a CRD given as YAML text. */
export function yamlModel(yaml: string): Model {
  const r = readCrdInputs([{ file: 'inline.yaml', content: yaml }]);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  return r.model;
}

/** A minimal CRD as YAML. */
export function crdYaml(o: {
  group: string;
  kind: string;
  plural?: string;
  listKind?: string;
  scope?: 'Namespaced' | 'Cluster';
  versions?: string[];
  status?: boolean;
}): string {
  const plural = o.plural ?? `${o.kind.toLowerCase()}s`;
  const versions = (o.versions ?? ['v1'])
    .map(
      (v, i) => `
    - name: ${v}
      served: true
      storage: ${i === 0}
${o.status ? '      subresources:\n        status: {}\n' : ''}      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
            status:
              type: object
              properties:
                ready: {type: boolean}`,
    )
    .join('');
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${o.group}
spec:
  group: ${o.group}
  scope: ${o.scope ?? 'Namespaced'}
  names:
    kind: ${o.kind}
    plural: ${plural}
    singular: ${o.kind.toLowerCase()}${o.listKind ? `\n    listKind: ${o.listKind}` : ''}
  versions:${versions}
`;
}

/** An emit context with client options. */
export function ctxWith(client?: EmitContext['client']): EmitContext {
  return createEmitContext({ sources: ['inline.yaml'], ...(client ? { client } : {}) });
}

/** The file at `path` (throws when missing). */
export function file(files: GeneratedFile[], path: string): string {
  const f = files.find((x) => x.path === path);
  if (!f) throw new Error(`no ${path}; have ${files.map((x) => x.path).join(', ')}`);
  return f.contents;
}

/** The method names declared in an `export interface <name> { … }` block. */
export function interfaceMethods(text: string, name: string): string[] {
  const m = new RegExp(`export interface ${name}[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(text);
  if (!m) throw new Error(`no interface ${name}`);
  return [...m[1].matchAll(/^ {2}([A-Za-z]+)\(/gm)].map((x) => x[1]);
}
