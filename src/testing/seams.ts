// Seams to the two engines this server reuses instead of duplicating them:
//  - the foundation's CRD reader checks, `checkCrdObject(crd): Diagnostic[]` (src/input/crd), and
//  - the runtime's structural-schema engine, `compileValidator(schema)` (src/runtime/validation).
// SEAM: both are loaded lazily by a computed specifier, so this package builds and runs while
// they are still being written; when a module is missing, its checks are skipped.
import type { KubeObject } from '../runtime/meta/types.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ObjectSchema } from './resource.js';
import type { FieldCause } from './status.js';

interface CrdReaderModule {
  checkCrdObject(crd: unknown): Diagnostic[];
}

interface EngineFieldError {
  reason?: string;
  field?: string;
  message?: string;
}

interface CompiledValidator {
  validate(obj: unknown, old?: unknown): EngineFieldError[];
  applyDefaults(obj: unknown): void;
  prune(obj: unknown): void;
}

interface ValidationModule {
  compileValidator(schema: unknown): CompiledValidator;
}

// Specifiers in variables: TypeScript does not resolve them, so a missing module is not a build error.
const READER_MODULE: string = '../input/crd/index.js';
const VALIDATION_MODULE: string = '../runtime/validation/index.js';

let readerModule: Promise<CrdReaderModule | undefined> | undefined;
let validationModule: Promise<ValidationModule | undefined> | undefined;

async function tryImport<T>(spec: string, has: string): Promise<T | undefined> {
  try {
    const m = (await import(spec)) as Record<string, unknown>;
    return typeof m[has] === 'function' ? (m as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The CRD reader's checks, as field errors (errors only; warnings are dropped). */
export async function checkCrdWithReader(crd: KubeObject): Promise<FieldCause[]> {
  readerModule ??= tryImport<CrdReaderModule>(READER_MODULE, 'checkCrdObject');
  const mod = await readerModule;
  if (!mod) return [];
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

/** Compiles a CRD version's openAPIV3Schema with the runtime's engine, or undefined when it is not available. */
export async function compileCustomResourceSchema(openAPIV3Schema: Record<string, unknown>): Promise<ObjectSchema | undefined> {
  validationModule ??= tryImport<ValidationModule>(VALIDATION_MODULE, 'compileValidator');
  const mod = await validationModule;
  if (!mod) return undefined;
  const v = mod.compileValidator(openAPIV3Schema);
  return {
    validate: (obj, old) =>
      v.validate(obj, old).map((e) => ({
        reason: e.reason ?? reasonOf(e.message ?? ''),
        field: e.field ?? '',
        message: e.message ?? '',
      })),
    applyDefaults: (obj) => v.applyDefaults(obj),
    prune: (obj) => {
      const before = structuredClone(obj);
      v.prune(obj);
      return removedPaths(before, obj, '');
    },
  };
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
