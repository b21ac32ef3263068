// What the prettier-stability test checks: every fixture case (with its options) and every
// corpus CRD (all generators, a controller with webhooks for every kind, owning a Deployment and
// a Service), generated in-process.

import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readCrdInputs } from '../../src/input/crd/index.js';
import { readOpenApiInputs } from '../../src/input/openapi/index.js';
import { readTypeScript } from '../../src/input/ts/reader.js';
import { createEmitContext, type GeneratedFile } from '../../src/generate/emitter.js';
import { EMITTERS, runEmitters } from '../../src/generate/registry.js';
import type { Model } from '../../src/model/types.js';
import { CORPUS, generateCase, ROOT, yamlCases, yamlFiles } from '../golden/support.js';

export { CORPUS };

/** A generated file and the case it came from (for messages). */
export interface CheckedFile {
  origin: string;
  file: GeneratedFile;
}

/** `group/Kind` for every kind of the model (what `--controller` takes), unique. */
export function allControllers(model: Model): string[] {
  return [
    ...new Set(model.groups.flatMap((g) => g.versions.flatMap((v) => v.kinds.map((k) => `${g.name}/${k.kind}`)))),
  ];
}

/** Every fixture case as the golden test generates it, plus the TypeScript fixture. */
export function fixtureFiles(): CheckedFile[] {
  const out: CheckedFile[] = [];
  for (const name of yamlCases()) {
    for (const file of generateCase(name).files) out.push({ origin: `fixtures/${name}`, file });
  }
  const ts = readTypeScript(['fixtures/databasemanager-ts/types.ts'], { cwd: ROOT });
  if (ts.diagnostics.some((d) => d.severity === 'error')) throw new Error('fixtures/databasemanager-ts does not read');
  const ctx = createEmitContext({ sources: ts.model.sources, controllers: ['DatabaseManager'] });
  for (const file of runEmitters(ts.model, ctx, EMITTERS)) out.push({ origin: 'fixtures/databasemanager-ts', file });
  return out;
}

/** Every corpus CRD file generated on its own with every generator and a controller (with webhooks) per kind. */
export function corpusFiles(): CheckedFile[] {
  if (!existsSync(CORPUS)) throw new Error(`corpus not found at ${CORPUS}`);
  const out: CheckedFile[] = [];
  for (const f of yamlFiles(CORPUS)) {
    const rel = relative(CORPUS, f).split(sep).join('/');
    const r = readCrdInputs([{ file: rel, content: readFileSync(f), fromDirectory: true }]);
    if (r.diagnostics.some((d) => d.severity === 'error')) throw new Error(`corpus ${rel} does not read`);
    if (r.model.groups.length === 0) continue;
    // each controller owning two built-ins: the owned-kind code of controller.ts at every name length
    const ctx = createEmitContext({
      sources: r.model.sources,
      controllers: allControllers(r.model),
      webhooks: true,
      owns: ['apps/v1/Deployment', 'v1/Service'],
    });
    for (const file of runEmitters(r.model, ctx, EMITTERS)) out.push({ origin: `corpus/${rel}`, file });
  }
  return out;
}

/** The Kubernetes OpenAPI document (schema/kubernetes/…) generated with the default generators. */
export function kubernetesFiles(): CheckedFile[] {
  const file = 'schema/kubernetes/v1.37.1/openapi-v3.json';
  const r = readOpenApiInputs([{ file, content: readFileSync(join(ROOT, file)) }]);
  if (r.diagnostics.some((d) => d.severity === 'error')) throw new Error(`${file} does not read`);
  return runEmitters(r.model, createEmitContext({ sources: r.model.sources })).map((f) => ({ origin: file, file: f }));
}
