// The runtime's structural-schema engine, `compileValidator(schema)`
// (src/runtime/validation/core), loaded when the first custom resource is written, and its CEL
// rule engine, loaded only for a schema with `x-kubernetes-validations`. (CRDs themselves are
// checked by the CRD checker, ./crd.ts.)
import { jsonCopy } from '../runtime/meta/json.js';
import type { ValidationContext } from '../runtime/validation/validator.js';
import type { ObjectSchema } from './resource.js';

let schemaModule: Promise<typeof import('../runtime/validation/schema.js')> | undefined;
let validationModule: Promise<typeof import('../runtime/validation/core.js')> | undefined;
let celEngine: Promise<unknown> | undefined;

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
