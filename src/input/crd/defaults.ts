// The apiserver's check of every `default` in a CRD schema (apiextensions-apiserver's
// defaulting.ValidateDefaults, 1.37), walking the structural schema from its root (an embedded
// resource) through properties and items — not additionalProperties, whose defaults it does not
// check. A default must be pruned already (no field its schema does not know), hold its embedded
// resources' apiVersion and kind, pass the OpenAPI keywords (kube-openapi's validator alone: no
// list-type uniqueness), then its CEL rules. Defaults under an embedded resource's metadata,
// apiVersion or kind are checked as the metadata they make instead, without pruning.
import { compileValidator } from '../../runtime/validation/validator.js';
import { goBadValue } from '../../runtime/validation/go-format.js';
import { ROOT_FIELD, type FieldError } from '../../runtime/validation/field-error.js';
import { compileNode } from '../../runtime/validation/node.js';
import { reduceSchema } from '../../runtime/validation/schema.js';
import { validateEmbedded } from '../../runtime/validation/embedded.js';
// defaults are checked with their CEL rules, as the apiserver does
import '../../runtime/validation/index.js';
import { apiserverField, type Path } from './field-path.js';
import { pathSegmentErrors } from './k8s-names.js';
import { setOwn } from '../../model/schema-json.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One default the apiserver refuses: the internal path of its `default` (and of the field inside) and the error. */
export interface DefaultProblem {
  /** Path of the `default` keyword (segments from the document root). */
  at: Path;
  error: FieldError;
}

/** A copy of a schema node without its `default` (the validator of a default is its node's). */
function nodeSchema(s: Obj): Obj {
  const { default: _d, ...rest } = s;
  void _d;
  return rest;
}

/**
 * Problems of every default under `schema` (an openAPIV3Schema at `base`). Called on a
 * structural schema only (as the apiserver), so every node compiles.
 */
export function defaultProblems(schema: Obj, base: Path): DefaultProblem[] {
  const out: DefaultProblem[] = [];
  // the engine's fields are relative to the default (the root, or `a.b` inside it)
  const push = (path: Path, e: FieldError): void => {
    const root = apiserverField(path);
    out.push({
      at: path,
      error: { ...e, field: e.field === ROOT_FIELD || e.field === '' ? root : `${root}.${e.field}` },
    });
  };
  const walk = (s: Obj, path: Path, insideMeta: boolean, root: boolean): void => {
    const embedded = s['x-kubernetes-embedded-resource'] === true || root;
    const meta = embedded ? false : insideMeta;
    if (s.default !== undefined) checkDefault(s, [...path, 'default'], meta, embedded, push);
    if (isObj(s.items)) walk(s.items, [...path, 'items'], meta, false);
    if (isObj(s.properties))
      for (const [k, p] of Object.entries(s.properties))
        if (isObj(p))
          walk(
            p,
            [...path, 'properties', { key: k }],
            embedded && (k === 'metadata' || k === 'apiVersion' || k === 'kind') ? true : meta,
            false,
          );
  };
  walk(schema, base, false, true);
  return out;
}

function checkDefault(
  s: Obj,
  path: Path,
  insideMeta: boolean,
  isResourceRoot: boolean,
  push: (path: Path, e: FieldError) => void,
): void {
  const value = s.default;
  const schema = nodeSchema(s);
  let openapi;
  try {
    openapi = compileValidator(schema, { isResourceRoot, unsupportedRules: 'report' });
  } catch {
    return; // a schema the engine cannot read is reported by the schema checks
  }
  if (insideMeta) {
    // checked as part of the object it makes: metadata must be an object of valid names
    const problems = metadataProblems(value);
    if (problems) {
      push(path, {
        reason: 'FieldValueInvalid',
        field: ROOT_FIELD,
        message: `Invalid value: ${goBadValue(value)}: must result in valid metadata: ${problems}`,
      });
      return;
    }
  } else {
    const pruned = structuredClone(value);
    openapi.prune(pruned);
    if (JSON.stringify(pruned) !== JSON.stringify(value))
      push(path, {
        reason: 'FieldValueInvalid',
        field: ROOT_FIELD,
        message: `Invalid value: ${goBadValue(value)}: must not have unknown fields`,
      });
    // the embedded resources in the default (the node itself, when it is one) need apiVersion and kind
    const embeddedErrs: FieldError[] = [];
    // (the resource root is checked as an embedded resource itself, as ValidateDefaults marks it)
    const embeddedSchema =
      isResourceRoot && schema['x-kubernetes-embedded-resource'] !== true
        ? { ...schema, 'x-kubernetes-embedded-resource': true }
        : schema;
    validateEmbedded(compileNode(reduceSchema(embeddedSchema)), value, '', embeddedErrs, !isResourceRoot);
    if (embeddedErrs.length > 0) {
      for (const e of embeddedErrs) push(path, e);
      return;
    }
  }
  const errs = openApiPass(schema, openapi, isResourceRoot).validate(value, undefined, { only: 'openapi' });
  if (errs.length > 0) {
    for (const e of errs) push(path, e);
    return;
  }
  let rules = openapi.validate(value, value, { only: 'rules' });
  if (rules.length === 0) rules = openapi.validate(value, undefined, { only: 'rules' });
  for (const e of rules) push(path, e);
}

/**
 * The validator of the OpenAPI pass. Defaults are checked against the structural schema's
 * kube-openapi form, where an int-or-string node has no type (its anyOf, if any, still applies);
 * objects are validated with `integer,string` (the CRD's converted form), so a second validator
 * is made only for a schema with such nodes.
 */
function openApiPass(
  schema: Obj,
  validator: ReturnType<typeof compileValidator>,
  isResourceRoot: boolean,
): ReturnType<typeof compileValidator> {
  if (!JSON.stringify(schema).includes('"x-kubernetes-int-or-string":true')) return validator;
  return compileValidator(withoutIntOrString(schema), { isResourceRoot, unsupportedRules: 'report' });
}

function withoutIntOrString(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(withoutIntOrString);
  if (!isObj(s)) return s;
  const out: Obj = {};
  const put = (k: string, v: unknown): void => setOwn(out, k, v);
  for (const [k, v] of Object.entries(s)) {
    if (k === 'x-kubernetes-int-or-string') continue;
    if (SCHEMA_MAPS.has(k) && isObj(v))
      put(k, Object.fromEntries(Object.entries(v).map(([name, x]) => [name, withoutIntOrString(x)])));
    else if (SCHEMA_KEYS.has(k)) put(k, withoutIntOrString(v));
    else put(k, v);
  }
  return out;
}

/** The keywords whose value is a schema (or a list of them), and those whose values are schemas by name. */
const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'additionalItems', 'allOf', 'anyOf', 'oneOf', 'not']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);

/** Why a default under an embedded resource's metadata cannot be metadata (undefined when it can). */
function metadataProblems(value: unknown): string | undefined {
  if (!isObj(value)) return undefined;
  for (const k of ['name', 'generateName', 'namespace'] as const) {
    const v = value[k];
    if (v === undefined) continue;
    if (typeof v !== 'string')
      return `json: cannot unmarshal ${typeof v} into Go struct field ObjectMeta.${k} of type string`;
  }
  const errs: string[] = [];
  if (typeof value.name === 'string' && value.name !== '')
    for (const m of pathSegmentErrors(value.name, false))
      errs.push(`metadata.name: Invalid value: ${goBadValue(value.name)}: ${m}`);
  if (typeof value.generateName === 'string' && value.generateName !== '')
    for (const m of pathSegmentErrors(value.generateName, true))
      errs.push(`metadata.generateName: Invalid value: ${goBadValue(value.generateName)}: ${m}`);
  return errs.length === 0 ? undefined : errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
}
