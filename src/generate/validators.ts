// Output: apis/<group>/<version>/validation.ts — per kind `validateDatabaseManager(obj, old?): FieldError[]`
// and `defaultDatabaseManager(obj)`, over the precompiled schema embedded as a literal and
// `lazyValidator` from `crdgen/runtime/validation` (compiled on first call, not at import).
import type { GroupVersion, Kind, Model } from '../model/types.js';
import { propertyKey, safeIdentifier, tsString } from '../model/naming.js';
import { generatedHeader } from '../emit/header.js';
import { render } from '../emit/handlebars.js';
import { literal } from '../emit/ts-text.js';
import { precompileSchema, RuleCompileError, SchemaError } from '../runtime/validation/index.js';
import { schemaToJson } from './crd.js';
import type { Emitter, GeneratedFile } from './emitter.js';
import { apiFilePath } from './paths.js';
import { versionSources } from './walk.js';

/** A kind's schema cannot be turned into a validator (a bad schema, or CEL rules that do not compile). */
export class ValidatorGenerationError extends Error {
  override readonly name = 'ValidatorGenerationError';
}

/** The schema of a kind without one: any object (what the apiserver accepts for it). */
const ANY_OBJECT = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/**
 * Where generated code imports the validation entry point from, given the runtime import:
 * `crdgen/runtime` → `crdgen/runtime/validation`; a path to the runtime's `index.js` (tests,
 * the demo) → the `validation/index.js` beside it.
 */
export function validationImport(runtimeImport: string): string {
  const m = /^(.*\/)index\.(m?js|ts)$/.exec(runtimeImport);
  return m ? `${m[1]}validation/index.${m[2] === 'ts' ? 'js' : m[2]}` : `${runtimeImport.replace(/\/$/, '')}/validation`;
}

/**
 * A TypeScript expression for a JSON value, laid out one property per line (arrays of scalars on
 * one line), so generated schemas diff well. Leaves and keys go through {@link literal} and
 * {@link propertyKey}; `__proto__` becomes a computed key as in {@link literal}.
 */
export function schemaLiteral(value: unknown, indent = ''): string {
  if (value === null || typeof value !== 'object') return literal(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => v === null || typeof v !== 'object')) return literal(value);
    return `[\n${value.map((v) => `${inner}${schemaLiteral(v, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  const key = (k: string) => (k === '__proto__' ? `[${tsString(k)}]` : propertyKey(k));
  return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${schemaLiteral(v, inner)},`).join('\n')}\n${indent}}`;
}

/** The precompiled schema of one kind, checked now; a bad schema or rule throws {@link ValidatorGenerationError}. */
function precompiled(group: string, version: string, kind: Kind): unknown {
  const raw = kind.rawSchema ?? (kind.schema ? schemaToJson(kind.schema) : ANY_OBJECT);
  try {
    return precompileSchema(raw);
  } catch (e) {
    if (e instanceof SchemaError || e instanceof RuleCompileError) {
      throw new ValidatorGenerationError(`cannot generate the validator of ${kind.kind} (${group}/${version}): ${e.message}`);
    }
    throw e;
  }
}

/** Renders validation.ts for one group/version. */
export function renderValidators(group: string, gv: GroupVersion, header: string, runtimeImport: string): string {
  const apiVersion = group === '' ? gv.name : `${group}/${gv.name}`;
  const kinds = gv.kinds.map((k) => ({
    kind: safeIdentifier(k.kind),
    schemaDoc: `The ${k.kind} schema (${apiVersion}) reduced to what the apiserver checks:\nOpenAPI keywords, list types, defaults and CEL rules (checked when this file was generated).`,
    schema: schemaLiteral(precompiled(group, gv.name, k)),
  }));
  return render('validators', 'file', { header, validationImport: validationImport(runtimeImport), kinds });
}

/** The validators emitter: one validation.ts per group/version that has kinds. */
export const validators: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    for (const v of g.versions) {
      if (v.kinds.length === 0) continue;
      files.push({ path: apiFilePath(g.name, v.name, 'validation.ts'), contents: renderValidators(g.name, v, generatedHeader(versionSources(v, ctx.sources)), ctx.runtimeImport) });
    }
  }
  return files;
};
