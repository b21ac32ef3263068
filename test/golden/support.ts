// Shared by the golden, compile and property tests: generating a fixture case
// in-process and reading/writing whole trees.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readApiInputs } from '../../src/input/read-inputs.js';
import { createEmitContext, type GeneratedFile } from '../../src/generate/emitter.js';
import { runEmitters } from '../../src/generate/registry.js';
import type { Model } from '../../src/model/types.js';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { CACHE_DIR } from '../../src/cli/cache-dir.js';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** ../shared/corpus/crds beside the repository (CI puts shared/ beside the clone). */
export const CORPUS = join(ROOT, '..', 'shared', 'corpus', 'crds');

/** Every `.yaml`/`.yml` file under `dir`, sorted, recursively; none when `dir` does not exist. */
export function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}
/** fixtures/ */
export const FIXTURES = join(ROOT, 'fixtures');
/** True when golden files should be rewritten instead of compared. */
export const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Fixture cases with CRD YAML or OpenAPI (JSON) inputs (every folder of fixtures/ but invalid/), sorted. */
export function yamlCases(): string[] {
  return readdirSync(FIXTURES)
    .filter((d) => d !== 'invalid' && statSync(join(FIXTURES, d)).isDirectory())
    .filter((d) => caseInputs(d).length > 0)
    .sort();
}

/** The YAML (CRD) or JSON (OpenAPI) input files of a case, as repo-relative POSIX paths. */
export function caseInputs(name: string): string[] {
  return readdirSync(join(FIXTURES, name))
    .filter((f) => /\.(ya?ml|json)$/.test(f) && f !== 'options.json')
    .sort()
    .map((f) => `fixtures/${name}/${f}`);
}

/** Generates a case in-process exactly as `crdgen generate <inputs> --out …` would. */
export function generateCase(name: string): { model: Model; files: GeneratedFile[]; diagnostics: Diagnostic[] } {
  const inputs = caseInputs(name);
  const r = readApiInputs(inputs.map((file) => ({ file, content: readFileSync(join(ROOT, file)) })));
  const files = r.diagnostics.some((d) => d.severity === 'error')
    ? []
    : runEmitters(r.model, createEmitContext({ sources: r.model.sources, ...caseOptions(name) }));
  return { model: r.model, files, diagnostics: r.diagnostics };
}

/**
 * Generator options of a case from `fixtures/<case>/options.json`, if present: what the CLI
 * flags would give, e.g. `{ "controllers": ["DatabaseManager"] }` for `--controller DatabaseManager`
 * (`"webhooks": true` for `--webhooks`).
 */
export function caseOptions(name: string): { controllers?: string[]; webhooks?: boolean } {
  const p = join(FIXTURES, name, 'options.json');
  if (!existsSync(p)) return {};
  const o = JSON.parse(readFileSync(p, 'utf8')) as { controllers?: string[]; webhooks?: boolean };
  return { ...(o.controllers ? { controllers: o.controllers } : {}), ...(o.webhooks ? { webhooks: true } : {}) };
}

/** Every file under `dir` as POSIX relative path → contents (empty when missing); generate's cache folder left out. */
export function readTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries.sort()) {
      if (e === CACHE_DIR) continue; // generate's cache: not part of the output
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p).split(sep).join('/'), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** Replaces `dir` with exactly `files`. */
export function writeTree(dir: string, files: readonly GeneratedFile[]): void {
  rmSync(dir, { recursive: true, force: true });
  for (const f of files) {
    const p = join(dir, ...f.path.split('/'));
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.contents);
  }
}
