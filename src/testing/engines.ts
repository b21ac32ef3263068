// The two engines this server reuses instead of duplicating them, each loaded on first use
// so that starting a server loads neither more than it needs:
//  - the foundation's CRD reader checks, `checkCrdObject(crd): Diagnostic[]` (src/input/crd),
//    loaded when the first CRD is created, and
//  - the runtime's structural-schema engine, `compileValidator(schema)` (src/runtime/validation/core),
//    loaded when the first custom resource is written, and its CEL rule engine, loaded only for a
//    schema with `x-kubernetes-validations` (when such a CRD is created, since the apiserver refuses
//    rules that do not compile).
import { jsonCopy } from '../runtime/meta/json.js';
import type { KubeObject } from '../runtime/meta/types.js';
import type { ValidationContext } from '../runtime/validation/validator.js';
import type { ObjectSchema } from './resource.js';
import type { FieldCause } from './status.js';

let readerModule: Promise<typeof import('../input/crd/check.js')> | undefined;
let schemaModule: Promise<typeof import('../runtime/validation/schema.js')> | undefined;
let validationModule: Promise<typeof import('../runtime/validation/core.js')> | undefined;
let celEngine: Promise<unknown> | undefined;

/** The CRD reader's checks, as field errors with the reader's code (errors only; warnings are dropped). */
export async function checkCrdWithReader(crd: KubeObject): Promise<(FieldCause & { code: string })[]> {
  // check.js rather than the reader's index: the index also loads the YAML reader.
  readerModule ??= import('../input/crd/check.js');
  const mod = await readerModule;
  return mod
    .checkCrdObject(crd)
    .filter((d) => d.severity === 'error')
    .map((d) => ({ reason: reasonOf(d.message), field: d.field ?? d.path ?? '', message: d.message, code: d.code }));
}

/** The field error reason the apiserver gives a message (`Unsupported value: …` → FieldValueNotSupported). */
export function reasonOf(message: string): string {
  const table: [string, string][] = [
    ['Unsupported value', 'FieldValueNotSupported'],
    ['Required value', 'FieldValueRequired'],
    ['Duplicate value', 'FieldValueDuplicate'],
    ['Forbidden', 'FieldValueForbidden'],
    ['Too long', 'FieldValueTooLong'],
    ['Too many', 'FieldValueTooMany'],
    ['Not found', 'FieldValueNotFound'],
    ['Internal error', 'InternalError'],
    ['Invalid value', 'FieldValueInvalid'],
  ];
  for (const [prefix, reason] of table) if (message.startsWith(prefix)) return reason;
  return 'FieldValueInvalid';
}

/**
 * Why the engine would refuse a CRD version's `openAPIV3Schema` (`field` is where, under
 * `spec.versions[i].schema`), as field errors; none when it accepts it. Checks the structural
 * reduction (cheap, no CEL); compiles the validator only when the schema has CEL rules, which
 * the apiserver compiles on CRD create (one error per rule that does not compile). Throws when
 * the engine itself fails (a server error, not the client's).
 */
export async function schemaRejection(openAPIV3Schema: Record<string, unknown>, field: string): Promise<FieldCause[]> {
  const { reduceSchema, SchemaError, hasRules } = await loadSchemaModule();
  try {
    reduceSchema(openAPIV3Schema);
  } catch (e) {
    if (e instanceof SchemaError)
      return [
        { reason: 'FieldValueInvalid', field: `${field}.openAPIV3Schema`, message: `Invalid value: "": ${e.message}` },
      ];
    throw e;
  }
  if (!hasRules(openAPIV3Schema)) return [];
  try {
    await compileCustomResourceSchema(openAPIV3Schema);
    return [];
  } catch (e) {
    const mod = await loadValidation(true);
    if (e instanceof mod.RuleCompileError) {
      // the CEL layer words each problem as the apiserver does (`detail`: the whole cause)
      return e.problems.map((p) => ({ reason: reasonOf(p.detail), field: `${field}.${p.field}`, message: p.detail }));
    }
    if (e instanceof mod.SchemaError)
      return [
        { reason: 'FieldValueInvalid', field: `${field}.openAPIV3Schema`, message: `Invalid value: "": ${e.message}` },
      ];
    throw e;
  }
}

/** The schema reduction alone (no validator, no CEL). */
function loadSchemaModule(): Promise<typeof import('../runtime/validation/schema.js')> {
  return (schemaModule ??= import('../runtime/validation/schema.js'));
}

/** The engine without CEL; with `withRules`, the CEL rule engine too (most of the engine's load time). */
async function loadValidation(withRules = false): Promise<typeof import('../runtime/validation/core.js')> {
  validationModule ??= import('../runtime/validation/core.js');
  if (withRules) await (celEngine ??= import('../runtime/validation/index.js'));
  return validationModule;
}

/** Compiles a CRD version's openAPIV3Schema with the runtime's engine (throws on a schema it cannot compile). */
export async function compileCustomResourceSchema(
  openAPIV3Schema: Record<string, unknown>,
  options: { isResourceRoot?: boolean } = {},
): Promise<ObjectSchema> {
  const isResourceRoot = options.isResourceRoot ?? true;
  const key = `${isResourceRoot ? 'root' : 'node'} ${JSON.stringify(openAPIV3Schema)}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const mod = await loadValidation((await loadSchemaModule()).hasRules(openAPIV3Schema));
  const v = mod.compileValidator(openAPIV3Schema, { isResourceRoot });
  const schema: ObjectSchema = {
    validate: (obj, old, context) =>
      v
        .validate(obj, old, context as ValidationContext | undefined)
        .map((e) => ({ reason: e.reason, field: e.field, message: e.message })),
    applyDefaults: (obj) => v.applyDefaults(obj),
    prune: (obj) => {
      const before = jsonCopy(obj);
      v.prune(obj);
      return removedPaths(before, obj, '');
    },
  };
  if (compiled.size > 200) compiled.clear();
  compiled.set(key, schema);
  return schema;
}

/**
 * A schema compiled on the first call (the first write of a custom resource of that version),
 * then kept; concurrent first calls share one compilation. A schema the engine refuses (which
 * the CRD checks should have caught) is a clear server error on every write, not a crash.
 */
export function lazyCustomResourceSchema(openAPIV3Schema: Record<string, unknown>): () => Promise<ObjectSchema> {
  let pending: Promise<ObjectSchema> | undefined;
  return () => (pending ??= compileCustomResourceSchema(openAPIV3Schema));
}

/** Compiled schemas by their JSON text (shared by every server in the process). */
const compiled = new Map<string, ObjectSchema>();

/** Paths present in `before` and gone from `after` (what pruning dropped), e.g. `spec.foo`. */
export function removedPaths(before: unknown, after: unknown, path: string): string[] {
  const out: string[] = [];
  if (Array.isArray(before) && Array.isArray(after)) {
    before.forEach((b, i) => out.push(...removedPaths(b, after[i], `${path}[${i}]`)));
  } else if (isRec(before) && isRec(after)) {
    for (const k of Object.keys(before)) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in after)) out.push(p);
      else out.push(...removedPaths(before[k], after[k], p));
    }
  }
  return out;
}

function isRec(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
