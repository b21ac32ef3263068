// The two engines this server reuses instead of duplicating them, loaded on first use
// (so a server without CRDs starts without them):
//  - the foundation's CRD reader checks, `checkCrdObject(crd): Diagnostic[]` (src/input/crd), and
//  - the runtime's structural-schema engine, `compileValidator(schema)` (src/runtime/validation).
import type { KubeObject } from '../runtime/meta/types.js';
import type { ObjectSchema } from './resource.js';
import type { FieldCause } from './status.js';

let readerModule: Promise<typeof import('../input/crd/index.js')> | undefined;
let validationModule: Promise<typeof import('../runtime/validation/index.js')> | undefined;

/** The CRD reader's checks, as field errors (errors only; warnings are dropped). */
export async function checkCrdWithReader(crd: KubeObject): Promise<FieldCause[]> {
  readerModule ??= import('../input/crd/index.js');
  const mod = await readerModule;
  return mod
    .checkCrdObject(crd)
    .filter((d) => d.severity === 'error')
    .map((d) => ({ reason: reasonOf(d.message), field: d.field ?? d.path ?? '', message: d.message }));
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

/** Compiles a CRD version's openAPIV3Schema with the runtime's engine (throws on a schema it cannot compile). */
export async function compileCustomResourceSchema(openAPIV3Schema: Record<string, unknown>): Promise<ObjectSchema> {
  const key = JSON.stringify(openAPIV3Schema);
  const hit = compiled.get(key);
  if (hit) return hit;
  validationModule ??= import('../runtime/validation/index.js');
  const mod = await validationModule;
  const v = mod.compileValidator(openAPIV3Schema);
  const schema: ObjectSchema = {
    validate: (obj, old) => v.validate(obj, old).map((e) => ({ reason: e.reason, field: e.field, message: e.message })),
    applyDefaults: (obj) => v.applyDefaults(obj),
    prune: (obj) => {
      const before = structuredClone(obj);
      v.prune(obj);
      return removedPaths(before, obj, '');
    },
  };
  if (compiled.size > 200) compiled.clear();
  compiled.set(key, schema);
  return schema;
}

/** Compiled schemas by their JSON text (CRDs are compiled on check and again when served). */
const compiled = new Map<string, ObjectSchema>();

/** Whether `e` is the engine refusing a schema (as opposed to a failure of the engine itself). */
export async function isSchemaRejection(e: unknown): Promise<boolean> {
  validationModule ??= import('../runtime/validation/index.js');
  const mod = await validationModule;
  return e instanceof mod.SchemaError || e instanceof mod.RuleCompileError;
}

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
