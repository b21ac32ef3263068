// Output: apis/<group>/<version>/validation.ts — per kind `validateDatabaseManager(obj, old?): FieldError[]`
// and `defaultDatabaseManager(obj)`, over the precompiled schema embedded as a literal and
// `lazyValidator` from `crdgen/runtime/validation` (compiled on first call, not at import).
import type { GroupVersion, Kind, Model } from '../model/types.js';
import { propertyKey, safeIdentifier, tsString, typeName } from '../model/naming.js';
import { generatedHeader } from '../emit/header.js';
import { atColumn, ImportTracker, renderCode, type AtColumn } from '../emit/code.js';
import { literal } from '../emit/ts-text.js';
import { callLine, fitsLine, importLines, scalarArray } from './layout.js';
import { textWidth } from './doc.js';
import {
  hasRules,
  precompileSchema,
  RuleCompileError,
  SchemaError,
  type PrecompiledSchema,
} from '../runtime/validation/index.js';
import { schemaToJson } from '../model/schema-json.js';
import { type Emitter, type GeneratedFile, emitsGroup } from './emitter.js';
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
 * the demo) → the `validation/index.js` beside it. With `core` (the file's schemas have no CEL
 * rules), the entry without the CEL engine: `crdgen/runtime/validation/core`, `validation/core.js`.
 */
export function validationImport(runtimeImport: string, core = false): string {
  const m = /^(.*\/)index\.(m?js|ts)$/.exec(runtimeImport);
  if (m) return `${m[1]}validation/${core ? 'core' : 'index'}.${m[2] === 'ts' ? 'js' : m[2]}`;
  return `${runtimeImport.replace(/\/$/, '')}/validation${core ? '/core' : ''}`;
}

/**
 * A TypeScript expression for a JSON value as prettier lays it out: objects one property per
 * line (prettier keeps an object expanded when its first key is on a new line), arrays on one
 * line when they fit (numbers filled), else one element per line. Leaves and keys go through
 * {@link literal} and {@link propertyKey}; `__proto__` becomes a computed key as in {@link literal}.
 * `prefix` is the text before the value on its first line (which starts at `indent` spaces),
 * `suffix` the text after it on its last line.
 */
export function schemaLiteral(value: unknown, indent: number, prefix: string, suffix: string): string {
  const out: string[] = [];
  writeLiteral(value, indent, prefix, suffix, out);
  return out.join('');
}

/**
 * {@link schemaLiteral} into one list of pieces, joined once at the end: building each level's
 * string from its children's copied every byte once per nesting level (~19% of the corpus's
 * generation CPU went to it).
 */
function writeLiteral(value: unknown, indent: number, prefix: string, suffix: string, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    out.push(prefix, literal(value), suffix);
    return;
  }
  const pad = ' '.repeat(indent);
  const inner = indent + 2;
  const innerPad = ' '.repeat(inner);
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push(prefix, '[]', suffix);
      return;
    }
    const broken = (): void => {
      out.push(prefix, '[\n');
      for (const v of value) {
        out.push(innerPad);
        writeLiteral(v, inner, '', ',', out);
        out.push('\n');
      }
      out.push(pad, ']', suffix);
    };
    if (value.some(isExpandedObject) || mustBreakArray(value)) return broken();
    if (!value.every((v) => v === null || typeof v !== 'object')) {
      const flat = `${prefix}[${value.map(flatLiteral).join(', ')}]${suffix}`;
      if (fitsLine(indent, flat)) out.push(flat);
      else broken();
      return;
    }
    out.push(
      scalarArray(
        indent,
        prefix,
        value.map((v) => literal(v)),
        suffix,
        value.length > 1 && value.every((v) => typeof v === 'number'),
      ),
    );
    return;
  }
  let empty = true;
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    if (empty) {
      out.push(prefix, '{\n');
      empty = false;
    }
    out.push(innerPad);
    writeProperty(
      inner,
      k === '__proto__' ? `[${tsString(k)}]` : propertyKey(k),
      (value as Record<string, unknown>)[k],
      out,
    );
    out.push('\n');
  }
  if (empty) out.push(prefix, '{}', suffix);
  else out.push(pad, '}', suffix);
}

/**
 * `key: value,` of an expanded object. A string value that does not fit goes to the next line
 * (prettier's break-after-operator layout), unless the key is shorter than 5 columns; so does
 * an object or array whose opening line does not fit.
 */
function writeProperty(indent: number, key: string, value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    const text = literal(value);
    if (!fitsLine(indent, `${key}: ${text},`) && textWidth(key) >= 5)
      out.push(key, ':\n', ' '.repeat(indent + 2), text, ',');
    else out.push(key, ': ', text, ',');
    return;
  }
  if (typeof value === 'object' && value !== null && hasKeys(value)) {
    // prettier's fluid layout: the value moves below the key when its opening line does not fit.
    if (!fitsLine(indent, `${key}: ${Array.isArray(value) ? '[' : '{'}`)) {
      out.push(key, ':\n', ' '.repeat(indent + 2));
      writeLiteral(value, indent + 2, '', ',', out);
      return;
    }
  }
  writeLiteral(value, indent, `${key}: `, ',', out);
}

/** Whether an object or array has an own enumerable key (without listing them). */
function hasKeys(v: object): boolean {
  if (Array.isArray(v)) return v.length > 0;
  for (const k in v) if (Object.hasOwn(v, k)) return true;
  return false;
}

function isExpandedObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && hasKeys(v);
}

/** prettier breaks an array of more than one array whose elements all have more than one element. */
function mustBreakArray(value: readonly unknown[]): boolean {
  return value.length > 1 && value.every((v) => Array.isArray(v) && v.length > 1);
}

/** One-line text of a value without non-empty objects (arrays of scalars, nested arrays, `{}`). */
function flatLiteral(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(flatLiteral).join(', ')}]`;
  return literal(v);
}

/** The precompiled schema of one kind, checked now; a bad schema or rule throws {@link ValidatorGenerationError}. */
function precompiled(group: string, version: string, kind: Kind): unknown {
  // the kind's one schema tree as JSON; compiled once per run (the CRD reader compiled this very
  // object when it checked the CRD, and precompileSchema memoizes frozen schemas)
  const raw = kind.schema ? schemaToJson(kind.schema) : ANY_OBJECT;
  try {
    return precompileSchema(raw);
  } catch (e) {
    if (e instanceof SchemaError || e instanceof RuleCompileError) {
      throw new ValidatorGenerationError(
        `cannot generate the validator of ${kind.kind} (${group}/${version}): ${e.message}`,
      );
    }
    throw e;
  }
}

/** Names every object has through Object.prototype (`constructor`, `toString`, `__proto__`, …). */
const OBJECT_PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

function hasPrototypeKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasPrototypeKey);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([k, v]) => OBJECT_PROTOTYPE_NAMES.has(k) || hasPrototypeKey(v));
}

/**
 * `const schemaOf<Kind>: PrecompiledSchema = {…};`. When a key of the schema is an
 * Object.prototype name (a property called `constructor` or `toString`), TypeScript types that
 * key's value by Object's member instead of the schema type, and the literal no longer
 * type-checks; such schemas are written `{…} as PrecompiledSchema` (checked at generation time).
 */
function schemaDeclaration(kind: string, schema: unknown): AtColumn {
  return atColumn(
    (w) =>
      ' '.repeat(w) +
      (hasPrototypeKey(schema)
        ? schemaLiteral(schema, w, `const schemaOf${kind} = `, ' as PrecompiledSchema;')
        : schemaLiteral(schema, w, `const schemaOf${kind}: PrecompiledSchema = `, ';')),
  );
}

/** Renders validation.ts for one group/version. */
export function renderValidators(group: string, gv: GroupVersion, header: string, runtimeImport: string): string {
  const apiVersion = group === '' ? gv.name : `${group}/${gv.name}`;
  let rules = false;
  const kinds = gv.kinds.map((k) => {
    const kind = safeIdentifier(typeName(k));
    const schema = precompiled(group, gv.name, k);
    rules ||= hasRules((schema as PrecompiledSchema).schema);
    return {
      kind,
      schemaDoc: `The ${k.kind} schema (${apiVersion}) reduced to what the apiserver checks:\nOpenAPI keywords, list types, defaults and CEL rules (checked when this file was generated).`,
      schema: schemaDeclaration(kind, schema),
      validatorLine: atColumn((w) => callLine(w, `const validatorOf${kind} = lazyValidator`, [`schemaOf${kind}`], ';')),
      validateHead: atColumn((w) =>
        callLine(w, `export function validate${kind}`, ['obj: unknown', 'old?: unknown'], ': FieldError[] {'),
      ),
      validateCall: atColumn((w) => callLine(w, `return validatorOf${kind}.validate`, ['obj', 'old'], ';')),
      defaultCall: atColumn((w) => callLine(w, `validatorOf${kind}.applyDefaults`, ['obj'], ';')),
    };
  });
  // schemas without CEL rules import the engine without CEL (it is most of the engine's load time)
  const imports = new ImportTracker();
  const validation = validationImport(runtimeImport, !rules);
  imports.use(validation, 'lazyValidator');
  for (const t of ['FieldError', 'PrecompiledSchema']) imports.use(validation, t, { type: true });
  return renderCode('validators', 'file', { header, imports: importLines(imports), kinds });
}

/** The validators emitter: one validation.ts per group/version that has kinds. */
export const validators: Emitter = (model: Model, ctx) => {
  const files: GeneratedFile[] = [];
  for (const g of model.groups) {
    if (!emitsGroup(ctx, g.name)) continue;
    for (const v of g.versions) {
      if (v.kinds.length === 0) continue;
      files.push({
        path: apiFilePath(g.name, v.name, 'validation.ts'),
        contents: renderValidators(g.name, v, generatedHeader(versionSources(v, ctx.sources)), ctx.runtimeImport),
      });
    }
  }
  return files;
};
