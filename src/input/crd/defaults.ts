// The apiserver's check of every `default` in a CRD schema (apiextensions-apiserver's
// defaulting validation): each default must be pruned already (no fields its schema does not
// know) and valid under its own schema, CEL rules included. Shared by `crdgen generate`'s reader
// (CRD040) and crdgen/testing's CRD create (the same 422 causes).
import { compileValidator } from '../../runtime/validation/validator.js';
import { goBadValue } from '../../runtime/validation/go-format.js';
import { ROOT_FIELD } from '../../runtime/validation/field-error.js';
import { keyedPath, type Path } from './field-path.js';
import { setOwn } from '../../model/schema-json.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One default the apiserver refuses: where (`…, 'default'[, field path inside]`) and its message. */
export interface DefaultProblem {
  /** Path from the openAPIV3Schema to the default (`properties`, `{key: spec}`, …, `default`). */
  path: Path;
  /** A field path inside the default value (`a.b`), when the problem is there. */
  inside?: string;
  reason: string;
  message: string;
}

/** Problems of every default under `schema` (an openAPIV3Schema); none for a schema it cannot compile. */
export function defaultProblems(schema: unknown): DefaultProblem[] {
  const out: DefaultProblem[] = [];
  const walk = (node: unknown, segments: string[], inMeta: boolean): void => {
    const path = keyedPath([...segments, 'default']);
    if (!isObj(node)) return;
    if (node.default !== undefined && node.default !== null && !inMeta) {
      const { default: value, ...rest } = node;
      // the schema's own checks first; its CEL rules only when those pass (as the apiserver)
      let schemaOnly;
      let withRules;
      try {
        schemaOnly = compileValidator(withoutRules(rest), { isResourceRoot: false });
        withRules = compileValidator(rest, { isResourceRoot: false });
      } catch {
        schemaOnly = undefined; // a schema the engine refuses is reported by the schema checks
      }
      if (schemaOnly && withRules) {
        const pruned = structuredClone(value);
        schemaOnly.prune(pruned);
        if (JSON.stringify(pruned) !== JSON.stringify(value)) {
          out.push({
            path,
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${goBadValue(value)}: must not have unknown fields`,
          });
        } else {
          const errs = schemaOnly.validate(value);
          for (const e of errs.length ? errs : withRules.validate(value)) {
            const inside = e.field && e.field !== ROOT_FIELD ? e.field : undefined;
            out.push({ path, ...(inside ? { inside } : {}), reason: e.reason, message: e.message });
          }
        }
      }
    }
    const props = isObj(node.properties) ? node.properties : {};
    // defaults under the resource root's metadata are checked as metadata (not here)
    for (const k of Object.keys(props))
      walk(props[k], [...segments, 'properties', k], inMeta || (segments.length === 0 && k === 'metadata'));
    if (isObj(node.items)) walk(node.items, [...segments, 'items'], inMeta);
    if (isObj(node.additionalProperties))
      walk(node.additionalProperties, [...segments, 'additionalProperties'], inMeta);
  };
  walk(schema, [], false);
  return out;
}

/** A schema without its x-kubernetes-validations rules, at every level. */
function withoutRules(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutRules);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'x-kubernetes-validations') continue;
    setOwn(out, k, k === 'default' || k === 'enum' || k === 'example' ? x : withoutRules(x));
  }
  return out;
}
