// One version's (or the shared) schema checked as kube-apiserver 1.37 checks it
// (validateCustomResourceDefinitionValidation): the root's restrictions when the status
// subresource is on; the structural schema (NewStructural, ValidateStructural, the defaults);
// then ValidateCustomResourceDefinitionOpenAPISchema node by node — the keywords a CRD may not
// use, the x-kubernetes-* extensions, the rule entries — and, where the schema is sound, every
// x-kubernetes-validations rule compiled against its node's CEL type, with its cost (times how
// many times it can run in one object) and the schema's total; and the selectable fields.
import { invalid, ROOT_FIELD, type FieldError } from '../../runtime/validation/field-error.js';
import {
  compileRuleAtCreate,
  costError,
  elementRuleType,
  propertyRuleType,
  ruleTypeOf,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type RuleType,
} from '../../runtime/cel/crd-rules.js';
import { compileRe2 } from '../../runtime/validation/re2.js';
import type { Causes } from './check.js';
import { defaultProblems } from './defaults.js';
import { didYouMean } from './field-errors.js';
import { apiserverField, validFieldPath, type Path, type Seg } from './field-path.js';
import { internalSchemaJson } from './internal.js';

/** The OpenAPI types a CRD schema may use, sorted as the apiserver lists them. */
export const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'] as const;

type Obj = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const key = (k: string): Seg => ({ key: k });
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const props = (s: Obj): Obj => (isObj(s.properties) ? s.properties : {});
const nonEmpty = (v: unknown): boolean => isObj(v) && Object.keys(v).length > 0;

/** The internal JSONSchemaProps fields in Go's order, with their JSON names (for the status-root rule). */
const STRUCT_FIELDS: readonly [string, string][] = [
  ['ID', 'id'],
  ['Schema', '$schema'],
  ['Ref', '$ref'],
  ['Description', 'description'],
  ['Type', 'type'],
  ['Format', 'format'],
  ['Title', 'title'],
  ['Default', 'default'],
  ['Maximum', 'maximum'],
  ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'],
  ['ExclusiveMinimum', 'exclusiveMinimum'],
  ['MaxLength', 'maxLength'],
  ['MinLength', 'minLength'],
  ['Pattern', 'pattern'],
  ['MaxItems', 'maxItems'],
  ['MinItems', 'minItems'],
  ['UniqueItems', 'uniqueItems'],
  ['MultipleOf', 'multipleOf'],
  ['Enum', 'enum'],
  ['MaxProperties', 'maxProperties'],
  ['MinProperties', 'minProperties'],
  ['Required', 'required'],
  ['Items', 'items'],
  ['AllOf', 'allOf'],
  ['OneOf', 'oneOf'],
  ['AnyOf', 'anyOf'],
  ['Not', 'not'],
  ['Properties', 'properties'],
  ['AdditionalProperties', 'additionalProperties'],
  ['PatternProperties', 'patternProperties'],
  ['Dependencies', 'dependencies'],
  ['AdditionalItems', 'additionalItems'],
  ['Definitions', 'definitions'],
  ['ExternalDocs', 'externalDocs'],
  ['Example', 'example'],
  ['Nullable', 'nullable'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XEmbeddedResource', 'x-kubernetes-embedded-resource'],
  ['XIntOrString', 'x-kubernetes-int-or-string'],
  ['XListMapKeys', 'x-kubernetes-list-map-keys'],
  ['XListType', 'x-kubernetes-list-type'],
  ['XMapType', 'x-kubernetes-map-type'],
  ['XValidations', 'x-kubernetes-validations'],
];

const ROOT_ALLOWED_WITH_STATUS = new Set([
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
]);

/** Whether a decoded field holds Go's zero value (false, "", or absent; a pointer or slice that is set is not zero). */
function isGoZero(goName: string, v: unknown): boolean {
  if (v === undefined) return true;
  switch (goName) {
    case 'ID':
    case 'Schema':
    case 'Description':
    case 'Type':
    case 'Format':
    case 'Title':
    case 'Pattern':
      return v === '';
    case 'ExclusiveMaximum':
    case 'ExclusiveMinimum':
    case 'UniqueItems':
    case 'Nullable':
    case 'XEmbeddedResource':
    case 'XIntOrString':
      return v === false;
  }
  return false;
}

/** validateCustomResourceDefinitionValidation for `wrapper` (`{openAPIV3Schema}`) at `base`. */
export function checkSchemaWrapper(wrapper: Obj, statusEnabled: boolean, base: Path, out: Causes): void {
  const schema = wrapper.openAPIV3Schema;
  if (!isObj(schema)) return;
  const before = out.list.length;
  const root: Path = [...base, 'openAPIV3Schema'];
  if (statusEnabled) {
    for (const [goName, jsonName] of STRUCT_FIELDS) {
      const v = schema[jsonName];
      if (isGoZero(goName, v)) continue;
      if (goName === 'Type') {
        if (v !== 'object') {
          out.invalid(
            'CRD035',
            [...root, 'type'],
            v,
            'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
          );
          break;
        }
        continue;
      }
      if (!ROOT_ALLOWED_WITH_STATUS.has(goName)) {
        out.invalidText(
          'CRD035',
          root,
          internalSchemaJson(schema),
          `only [${[...ROOT_ALLOWED_WITH_STATUS].join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
          {
            value: 'the root schema',
            hint: `its ${JSON.stringify(jsonName)} is not allowed there: move it into a property, or drop the status subresource`,
          },
        );
        break;
      }
    }
  }
  if (schema.nullable === true) out.forbidden('CRD032', [...root, 'nullable'], 'nullable cannot be true at the root');
  // the structural schema: its conversion, its invariants, its defaults; rules only when all hold
  let initError: string | undefined = newStructuralError(schema);
  let ctx: CelContext | undefined;
  if (initError === undefined) {
    const structural = structuralErrors(schema, root);
    if (structural.length > 0) for (const c of structural) out.add(c.code, c.at, () => c.error, c.hint);
    else {
      const defaults = defaultProblems(schema, root);
      if (defaults.length > 0) for (const d of defaults) out.add('CRD040', d.at, () => d.error);
      else ctx = rootCelContext(schema);
    }
  }
  new OpenApiWalk(out).node(schema, root, SSV_ROOT, true, ctx);
  if (out.list.length === before && initError !== undefined) out.invalid('CRD035', root, '', initError);
  initError = undefined;
  if (ctx && ctx.total.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const m of ctx.total.mostExpensive)
      out.forbidden(
        'CRD038',
        m.at,
        'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      );
    out.forbidden(
      'CRD038',
      root,
      costError(
        'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
        ctx.total.total,
        STATIC_ESTIMATED_CRD_COST_LIMIT,
      )!,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// NewStructural

/** The error NewStructural returns for `s` (the first unsupported field on its walk), if any. */
export function newStructuralError(s: Obj): string | undefined {
  const unsupported = (x: Obj): string | undefined => {
    if (str(x.id) !== '') return "OpenAPIV3Schema 'id' is not supported";
    if (str(x.$schema) !== '') return "OpenAPIV3Schema 'schema' is not supported";
    if (str(x.$ref) !== '') return "OpenAPIV3Schema '$ref' is not supported";
    if (nonEmpty(x.patternProperties)) return "OpenAPIV3Schema 'patternProperties' is not supported";
    if (nonEmpty(x.dependencies)) return "OpenAPIV3Schema 'dependencies' is not supported";
    if (x.additionalItems !== undefined) return "OpenAPIV3Schema 'additionalItems' is not supported";
    if (nonEmpty(x.definitions)) return "OpenAPIV3Schema 'definitions' is not supported";
    return undefined;
  };
  const extensions = (x: Obj): string | undefined =>
    x['x-kubernetes-preserve-unknown-fields'] === false
      ? "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
      : undefined;
  const valueValidation = (x: Obj): string | undefined => {
    if (isObj(x.not)) {
      const e = nested(x.not);
      if (e) return e;
    }
    for (const j of ['allOf', 'anyOf', 'oneOf'])
      for (const c of Array.isArray(x[j]) ? (x[j] as unknown[]) : []) {
        const e = isObj(c) ? nested(c) : undefined;
        if (e) return e;
      }
    return undefined;
  };
  const children = (x: Obj, walk: (c: Obj) => string | undefined): string | undefined => {
    if (Array.isArray(x.items) && x.items.length > 0)
      return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    if (isObj(x.items)) {
      const e = walk(x.items);
      if (e) return e;
    }
    for (const p of Object.values(props(x))) {
      const e = isObj(p) ? walk(p) : undefined;
      if (e) return e;
    }
    if (isObj(x.additionalProperties)) return walk(x.additionalProperties);
    return undefined;
  };
  const nested = (x: Obj): string | undefined =>
    unsupported(x) ?? valueValidation(x) ?? extensions(x) ?? children(x, nested);
  const structural = (x: Obj): string | undefined =>
    unsupported(x) ?? valueValidation(x) ?? extensions(x) ?? children(x, structural);
  return structural(s);
}

// ---------------------------------------------------------------------------------------------
// ValidateStructural

type Level = 'root' | 'item' | 'field';

interface StructuralCause {
  code: 'CRD031' | 'CRD034' | 'CRD035' | 'CRD037';
  at: Path;
  error: FieldError;
  hint?: string;
}

/** validateStructuralInvariants + validateStructuralCompleteness, sorted as the apiserver sorts them. */
export function structuralErrors(schema: Obj, root: Path): StructuralCause[] {
  const out: StructuralCause[] = [];
  const f = (at: Path): string => apiserverField(at);
  const add = (code: StructuralCause['code'], at: Path, error: FieldError, hint?: string): void =>
    void out.push({ code, at, error, ...(hint ? { hint } : {}) });
  const req = (code: StructuralCause['code'], at: Path, detail: string, hint?: string): void =>
    add(code, at, { reason: 'FieldValueRequired', field: f(at), message: `Required value: ${detail}` }, hint);
  const forb = (at: Path, detail: string): void =>
    add('CRD035', at, { reason: 'FieldValueForbidden', field: f(at), message: `Forbidden: ${detail}` });
  const inv = (code: StructuralCause['code'], at: Path, value: unknown, detail: string): void =>
    add(code, at, invalid(f(at), value, detail));

  const invariants = (s: Obj, lvl: Level, at: Path): void => {
    const type = str(s.type);
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    const p = props(s);
    const items = isObj(s.items) ? s.items : undefined;
    if (type === 'array' && !items) req('CRD035', [...at, 'items'], 'must be specified');
    if (items) invariants(items, 'item', [...at, 'items']);
    for (const [k, v] of Object.entries(p)) if (isObj(v)) invariants(v, 'field', [...at, 'properties', key(k)]);
    if (s.additionalProperties !== undefined) {
      if (lvl === 'root') forb([...at, 'additionalProperties'], 'must not be used at the root');
      if (isObj(s.additionalProperties)) invariants(s.additionalProperties, 'field', [...at, 'additionalProperties']);
    }
    if (intOrString && preserve)
      inv(
        'CRD034',
        [...at, 'x-kubernetes-preserve-unknown-fields'],
        true,
        'must be false if x-kubernetes-int-or-string is true',
      );
    if (intOrString && embedded)
      inv(
        'CRD034',
        [...at, 'x-kubernetes-embedded-resource'],
        true,
        'must be false if x-kubernetes-int-or-string is true',
      );
    valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s.allOf), at);
    if (embedded && type !== 'object') {
      if (type === '') req('CRD034', [...at, 'type'], 'must be object if x-kubernetes-embedded-resource is true');
      else inv('CRD034', [...at, 'type'], type, 'must be object if x-kubernetes-embedded-resource is true');
    } else if (type === '' && !intOrString && !preserve) {
      const detail =
        lvl === 'root'
          ? 'must not be empty at the root'
          : lvl === 'item'
            ? 'must not be empty for specified array items'
            : 'must not be empty for specified object fields';
      req(
        'CRD031',
        [...at, 'type'],
        detail,
        'set "type" to one of "array", "boolean", "integer", "number", "object", "string"',
      );
    }
    if (embedded && s.additionalProperties !== undefined)
      forb([...at, 'additionalProperties'], 'must not be used if x-kubernetes-embedded-resource is set');
    if (lvl === 'root' && type !== '' && type !== 'object')
      inv('CRD035', [...at, 'type'], type, 'must be object at the root');
    const checkMeta = lvl === 'root' || embedded;
    if (checkMeta && isObj(p.kind) && p.kind.type !== 'string')
      inv('CRD035', [...at, 'properties', key('kind'), 'type'], str(p.kind.type), 'must be string');
    if (checkMeta && isObj(p.apiVersion) && p.apiVersion.type !== 'string')
      inv('CRD035', [...at, 'properties', key('apiVersion'), 'type'], str(p.apiVersion.type), 'must be string');
    if (isObj(p.metadata)) {
      const m = p.metadata;
      const mat: Path = [...at, 'properties', key('metadata')];
      if (checkMeta && m.type !== 'object') inv('CRD035', [...mat, 'type'], str(m.type), 'must be object');
      if (lvl === 'root') {
        const mp = Object.keys(props(m));
        const onlyNames =
          (mp.length === 2 && mp.includes('name') && mp.includes('generateName')) ||
          (mp.length === 1 && (mp[0] === 'name' || mp[0] === 'generateName')) ||
          mp.length === 0;
        const extra = Object.keys(m).filter(
          (k) => k !== 'type' && k !== 'properties' && k !== 'default' && !isStructuralZero(k, m[k]),
        );
        if (!onlyNames || extra.length > 0)
          forb(mat, 'must not specify anything other than name and generateName, but metadata is implicitly specified');
      }
    }
    if (embedded && !preserve && Object.keys(p).length === 0)
      req(
        'CRD034',
        [...at, 'properties'],
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      );
  };

  const valueValidation = (s: Obj, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, at: Path): void => {
    if (!skipAnyOf && Array.isArray(s.anyOf))
      s.anyOf.forEach((x, i) => isObj(x) && nestedValueValidation(x, false, false, [...at, 'anyOf', i]));
    if (Array.isArray(s.allOf))
      s.allOf.forEach(
        (x, i) => isObj(x) && nestedValueValidation(x, skipFirstAllOfAnyOf && i === 0, false, [...at, 'allOf', i]),
      );
    if (Array.isArray(s.oneOf))
      s.oneOf.forEach((x, i) => isObj(x) && nestedValueValidation(x, false, false, [...at, 'oneOf', i]));
    if (isObj(s.not)) nestedValueValidation(s.not, false, false, [...at, 'not']);
    const pattern = str(s.pattern);
    if (pattern !== '') {
      try {
        compileRe2(pattern);
      } catch (e) {
        inv(
          'CRD037',
          [...at, 'pattern'],
          pattern,
          `must be a valid regular expression, but isn't: ${(e as Error).message}`,
        );
      }
    }
  };

  const nestedValueValidation = (v: Obj, skipAnyOf: boolean, skipAllOfAnyOf: boolean, at: Path): void => {
    valueValidation(v, skipAnyOf, skipAllOfAnyOf, at);
    if (isObj(v.items)) nestedValueValidation(v.items, false, false, [...at, 'items']);
    for (const [k, p] of Object.entries(props(v)))
      if (isObj(p)) nestedValueValidation(p, false, false, [...at, 'properties', key(k)]);
    if (str(v.type) !== '') forb([...at, 'type'], 'must be empty to be structural');
    // additionalProperties: false is no nested value validation at all
    if (isObj(v.additionalProperties) || v.additionalProperties === true)
      forb([...at, 'additionalProperties'], 'must be undefined to be structural');
    if (v.default !== undefined) forb([...at, 'default'], 'must be undefined to be structural');
    if (str(v.title) !== '') forb([...at, 'title'], 'must be empty to be structural');
    if (str(v.description) !== '') forb([...at, 'description'], 'must be empty to be structural');
    if (v.nullable === true) forb([...at, 'nullable'], 'must be false to be structural');
    if (v['x-kubernetes-preserve-unknown-fields'] === true)
      forb([...at, 'x-kubernetes-preserve-unknown-fields'], 'must be false to be structural');
    if (v['x-kubernetes-embedded-resource'] === true)
      forb([...at, 'x-kubernetes-embedded-resource'], 'must be false to be structural');
    if (v['x-kubernetes-int-or-string'] === true)
      forb([...at, 'x-kubernetes-int-or-string'], 'must be false to be structural');
    if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0)
      forb([...at, 'x-kubernetes-list-map-keys'], 'must be empty to be structural');
    if (v['x-kubernetes-list-type'] !== undefined)
      forb([...at, 'x-kubernetes-list-type'], 'must be undefined to be structural');
    if (v['x-kubernetes-map-type'] !== undefined)
      forb([...at, 'x-kubernetes-map-type'], 'must be undefined to be structural');
    if (Array.isArray(v['x-kubernetes-validations']) && v['x-kubernetes-validations'].length > 0)
      forb([...at, 'x-kubernetes-validations'], 'must be empty to be structural');
    if (Object.hasOwn(props(v), 'metadata'))
      forb([...at, 'properties', key('metadata')], 'must not be specified in a nested context');
  };

  // validateStructuralCompleteness
  const completeness = (v: Obj, s: Obj | undefined, sAt: Path, vAt: Path): void => {
    if (!s) {
      req('CRD035', sAt, `because it is defined in ${apiserverField(vAt)}`);
      return;
    }
    if (isObj(v.not)) nestedCompleteness(v.not, s, sAt, [...vAt, 'not']);
    for (const j of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(v[j]))
        (v[j] as unknown[]).forEach((x, i) => isObj(x) && nestedCompleteness(x, s, sAt, [...vAt, j, i]));
  };
  const nestedCompleteness = (v: Obj, s: Obj | undefined, sAt: Path, vAt: Path): void => {
    if (!s) {
      req('CRD035', sAt, `because it is defined in ${apiserverField(vAt)}`);
      return;
    }
    completeness(v, s, sAt, vAt);
    if (isObj(v.items))
      nestedCompleteness(v.items, isObj(s.items) ? s.items : undefined, [...sAt, 'items'], [...vAt, 'items']);
    for (const [k, p] of Object.entries(props(v))) {
      if (!isObj(p)) continue;
      const sp = Object.hasOwn(props(s), k) ? props(s)[k] : undefined;
      if (!isObj(sp))
        req(
          'CRD035',
          [...sAt, 'properties', key(k)],
          `because it is defined in ${apiserverField([...vAt, 'properties', key(k)])}`,
        );
      else nestedCompleteness(p, sp, [...sAt, 'properties', key(k)], [...vAt, 'properties', key(k)]);
    }
  };

  invariants(schema, 'root', root);
  completeness(schema, schema, root, root);
  const text = (c: StructuralCause): string => `${c.error.field}: ${c.error.message}`;
  return out.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

/** Zero values for the root metadata rule (Go's DeepEqual with an empty Structural). */
function isStructuralZero(_k: string, v: unknown): boolean {
  return v === undefined || v === false || v === '';
}

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return (
    Array.isArray(anyOf) &&
    anyOf.length === 2 &&
    isObj(anyOf[0]) &&
    isObj(anyOf[1]) &&
    Object.keys(anyOf[0]).length === 1 &&
    anyOf[0].type === 'integer' &&
    Object.keys(anyOf[1]).length === 1 &&
    anyOf[1].type === 'string'
  );
}

function isIntOrStringAllOf(allOf: unknown): boolean {
  return Array.isArray(allOf) && allOf.length >= 1 && isObj(allOf[0]) && isIntOrStringAnyOf(allOf[0].anyOf);
}

// ---------------------------------------------------------------------------------------------
// The CEL context (CELSchemaContext): a node's CEL type, how many times its rules can run

interface TotalCost {
  total: number;
  mostExpensive: { at: Path; cost: number }[];
}

interface CelContext {
  /** The node's schema, and whether a rule is at or above it (so its type is needed). */
  schema: Obj;
  withinScope: boolean;
  parent?: CelContext;
  access?: { kind: 'property'; name: string } | { kind: 'items' } | { kind: 'values' };
  /** Computed type (undefined: none), or the error of computing it. */
  type?: { t: RuleType | undefined; error?: string };
  /** Product of maxItems/maxProperties above the node (undefined: unbounded). */
  card: number | undefined;
  total: TotalCost;
}

function rootCelContext(schema: Obj): CelContext {
  const rules = schema['x-kubernetes-validations'];
  return {
    schema,
    withinScope: Array.isArray(rules) && rules.length > 0,
    card: 1,
    total: { total: 0, mostExpensive: [] },
  };
}

/** extractMaxElements: how many values of a child one value of `s` can hold (undefined: unbounded). */
function maxElements(s: Obj): number | undefined {
  const type = str(s.type);
  if (type === 'object') {
    if (s.additionalProperties !== undefined)
      return typeof s.maxProperties === 'number' ? Math.max(0, s.maxProperties) : undefined;
    return 1;
  }
  if (type === 'array') return typeof s.maxItems === 'number' ? Math.max(0, s.maxItems) : undefined;
  return 1;
}

function childContext(
  parent: CelContext | undefined,
  child: Obj,
  access: CelContext['access'],
): CelContext | undefined {
  if (!parent) return undefined;
  const rules = child['x-kubernetes-validations'];
  const m = parent.card === undefined ? undefined : maxElements(parent.schema);
  return {
    schema: child,
    withinScope: parent.withinScope || (Array.isArray(rules) && rules.length > 0),
    parent,
    access,
    card: parent.card === undefined || m === undefined ? undefined : mulGuard(parent.card, m),
    total: parent.total,
  };
}

const MAX_UINT = 2 ** 64;
function mulGuard(a: number, b: number): number {
  if (a === 0) return 0;
  return MAX_UINT / a < b ? MAX_UINT : a * b;
}

/** CELSchemaContext.TypeInfo: through the parent's type where it has the child, else the node's own. */
function typeInfo(c: CelContext): { t: RuleType | undefined; error?: string } {
  if (c.type) return c.type;
  if (!c.withinScope) return (c.type = { t: undefined });
  if (c.parent) {
    const p = typeInfo(c.parent);
    if (p.error) return (c.type = p);
    if (p.t && c.access) {
      const t = c.access.kind === 'property' ? propertyRuleType(p.t, c.access.name) : elementRuleType(p.t);
      if (t) return (c.type = { t });
    }
  }
  const t = ruleTypeOf(c.schema, !c.parent || c.schema['x-kubernetes-embedded-resource'] === true);
  return (c.type = t ? { t } : { t: undefined, error: 'unable to convert structural schema to CEL declarations' });
}

// ---------------------------------------------------------------------------------------------
// ValidateCustomResourceDefinitionOpenAPISchema

/** specStandardValidatorV3's state. */
interface Ssv {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
  /** The first ancestor under which old and new values cannot be correlated. */
  uncorrelatable?: Path;
}

const SSV_ROOT: Ssv = { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false };
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** cel.MapIsCorrelatable: unset, granular and atomic maps correlate; an unknown map type does not. */
const mapCorrelatable = (t: unknown): boolean => t === undefined || t === 'granular' || t === 'atomic';

/** The rule as the apiserver prints it in errors (its internal ValidationRule, JSON-encoded). */
function goRule(r: Obj): string {
  const q = (v: string): string =>
    JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `{"Rule":${q(str(r.rule))},"Message":${q(str(r.message))},"MessageExpression":${q(str(r.messageExpression))},"Reason":${typeof r.reason === 'string' ? q(r.reason) : 'null'},"FieldPath":${q(str(r.fieldPath))},"OptionalOldSelf":${typeof r.optionalOldSelf === 'boolean' ? String(r.optionalOldSelf) : 'null'}}`;
}

class OpenApiWalk {
  constructor(private readonly out: Causes) {}

  /** Returns how many schema errors (not CEL errors) this node and its children have. */
  node(s: Obj, at: Path, ssv: Ssv, isRoot: boolean, ctx: CelContext | undefined): number {
    const out = this.out;
    let schemaErrors = 0;
    const schemaErr = (fn: () => void): void => {
      fn();
      schemaErrors++;
    };
    // specStandardValidatorV3.validate
    const type = str(s.type);
    if (type !== '' && !(OPENAPI_TYPES as readonly string[]).includes(type))
      schemaErr(() =>
        out.notSupported('CRD030', [...at, 'type'], type, OPENAPI_TYPES, didYouMean(type, OPENAPI_TYPES)),
      );
    if (s.default !== undefined && !ssv.allowDefaults)
      schemaErr(() =>
        out.forbidden(
          'CRD032',
          [...at, 'default'],
          `must not be set${ssv.disallowDefaultsReason ? ` ${ssv.disallowDefaultsReason}` : ''}`,
        ),
      );
    if (str(s.id) !== '') schemaErr(() => out.forbidden('CRD032', [...at, 'id'], 'id is not supported'));
    if (s.additionalItems !== undefined)
      schemaErr(() => out.forbidden('CRD032', [...at, 'additionalItems'], 'additionalItems is not supported'));
    if (nonEmpty(s.patternProperties))
      schemaErr(() => out.forbidden('CRD032', [...at, 'patternProperties'], 'patternProperties is not supported'));
    if (nonEmpty(s.definitions))
      schemaErr(() => out.forbidden('CRD032', [...at, 'definitions'], 'definitions is not supported'));
    if (s.dependencies !== undefined)
      schemaErr(() => out.forbidden('CRD032', [...at, 'dependencies'], 'dependencies is not supported'));
    if (s.$ref !== undefined)
      schemaErr(() =>
        out.forbidden(
          'CRD032',
          [...at, '$ref'],
          '$ref is not supported',
          'inline the referenced schema; CRD schemas cannot use references',
        ),
      );
    if (type === 'null')
      schemaErr(() =>
        out.forbidden('CRD030', [...at, 'type'], 'type cannot be set to null, use nullable as an alternative'),
      );
    if (Array.isArray(s.items) && s.items.length > 0)
      schemaErr(() => out.forbidden('CRD032', [...at, 'items'], 'items must be a schema object and not an array'));
    if (ssv.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true)
      schemaErr(() =>
        out.forbidden('CRD034', [...at, 'x-kubernetes-embedded-resource'], 'must not be used inside of resource meta'),
      );

    if (s.uniqueItems === true)
      schemaErr(() =>
        out.forbidden(
          'CRD032',
          [...at, 'uniqueItems'],
          'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
        ),
      );
    const p = props(s);
    const hasProps = Object.keys(p).length > 0;
    const ap = s.additionalProperties;
    if (ap !== undefined) {
      if (hasProps && (ap === false || isObj(ap)))
        schemaErr(() =>
          out.forbidden(
            'CRD033',
            [...at, 'additionalProperties'],
            'additionalProperties and properties are mutual exclusive',
            'use properties for a struct, additionalProperties for a map',
          ),
        );
      if (isObj(ap)) {
        const sub = ssv.insideResourceMeta
          ? {
              ...ssv,
              allowDefaults: false,
              disallowDefaultsReason: 'inside additionalProperties applying to object metadata',
            }
          : ssv;
        schemaErrors += this.node(
          ap,
          [...at, 'additionalProperties'],
          sub,
          false,
          childContext(ctx, ap, { kind: 'values' }),
        );
      }
    }
    for (const [name, child] of Object.entries(p)) {
      if (!isObj(child)) continue;
      let sub = ssv;
      if (!mapCorrelatable(s['x-kubernetes-map-type']) && !sub.uncorrelatable) sub = { ...sub, uncorrelatable: at };
      if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name)) {
        sub = { ...sub, insideResourceMeta: true };
        if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${name}` };
      }
      schemaErrors += this.node(
        child,
        [...at, 'properties', key(name)],
        sub,
        false,
        childContext(ctx, child, { kind: 'property', name }),
      );
    }
    if (isObj(s.not)) schemaErrors += this.node(s.not, [...at, 'not'], ssv, false, undefined);
    for (const j of ['allOf', 'oneOf', 'anyOf'] as const)
      if (Array.isArray(s[j]))
        (s[j] as unknown[]).forEach((x, i) => {
          if (isObj(x)) schemaErrors += this.node(x, [...at, j, i], ssv, false, undefined);
        });
    if (isObj(s.definitions))
      for (const [k, d] of Object.entries(s.definitions))
        if (isObj(d)) schemaErrors += this.node(d, [...at, 'definitions', key(k)], ssv, false, undefined);
    if (s.items !== undefined) {
      let sub = ssv;
      if (s['x-kubernetes-list-type'] !== 'map' && !sub.uncorrelatable) sub = { ...sub, uncorrelatable: at };
      if (isObj(s.items))
        schemaErrors += this.node(s.items, [...at, 'items'], sub, false, childContext(ctx, s.items, { kind: 'items' }));
      else if (Array.isArray(s.items))
        s.items.forEach((x, i) => {
          if (isObj(x))
            schemaErrors += this.node(x, [...at, 'items', i], sub, false, childContext(ctx, x, { kind: 'items' }));
        });
    }
    if (isObj(s.dependencies))
      for (const [k, d] of Object.entries(s.dependencies))
        if (isObj(d)) schemaErrors += this.node(d, [...at, 'dependencies', key(k)], ssv, false, undefined);
    schemaErrors += this.extensions(s, at);
    schemaErrors += this.rules(s, at, ssv, schemaErrors, ctx);
    return schemaErrors;
  }

  /** The x-kubernetes-* extension rules; returns the number of errors. */
  private extensions(s: Obj, at: Path): number {
    const out = this.out;
    const before = out.list.length;
    const type = str(s.type);
    if (s['x-kubernetes-preserve-unknown-fields'] === false)
      out.invalid('CRD034', [...at, 'x-kubernetes-preserve-unknown-fields'], false, 'must be true or undefined');
    const mapType = s['x-kubernetes-map-type'];
    if (mapType !== undefined && type !== 'object') {
      if (type === '') out.required('CRD034', [...at, 'type'], 'must be object if x-kubernetes-map-type is specified');
      else out.invalid('CRD034', [...at, 'type'], type, 'must be object if x-kubernetes-map-type is specified');
    }
    if (typeof mapType === 'string' && mapType !== 'atomic' && mapType !== 'granular')
      out.notSupported(
        'CRD034',
        [...at, 'x-kubernetes-map-type'],
        mapType,
        ['atomic', 'granular'],
        didYouMean(mapType, ['atomic', 'granular']),
      );
    const listType = s['x-kubernetes-list-type'];
    const items = isObj(s.items) ? s.items : undefined;
    if (listType !== undefined && type !== 'array') {
      if (type === '') out.required('CRD034', [...at, 'type'], 'must be array if x-kubernetes-list-type is specified');
      else out.invalid('CRD034', [...at, 'type'], type, 'must be array if x-kubernetes-list-type is specified');
    } else if (listType === 'set' && items) {
      if (items.type === 'array') {
        if (items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic')
          out.invalid(
            'CRD034',
            [...at, 'items', 'x-kubernetes-list-type'],
            items['x-kubernetes-list-type'],
            'must be atomic as item of a list with x-kubernetes-list-type=set',
          );
      } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
        out.invalid(
          'CRD034',
          [...at, 'items', 'x-kubernetes-map-type'],
          items['x-kubernetes-list-type'] ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        );
    }
    if (typeof listType === 'string' && !['atomic', 'set', 'map'].includes(listType))
      out.notSupported(
        'CRD034',
        [...at, 'x-kubernetes-list-type'],
        listType,
        ['atomic', 'set', 'map'],
        didYouMean(listType, ['atomic', 'set', 'map']),
      );
    const keys = Array.isArray(s['x-kubernetes-list-map-keys'])
      ? (s['x-kubernetes-list-map-keys'] as unknown[]).map(str)
      : [];
    if (keys.length > 0) {
      if (listType === undefined)
        out.required(
          'CRD034',
          [...at, 'x-kubernetes-list-type'],
          'must be map if x-kubernetes-list-map-keys is non-empty',
        );
      else if (listType !== 'map')
        out.invalid(
          'CRD034',
          [...at, 'x-kubernetes-list-type'],
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        );
    }
    if (listType === 'map') {
      if (keys.length === 0)
        out.required(
          'CRD034',
          [...at, 'x-kubernetes-list-map-keys'],
          'must not be empty if x-kubernetes-list-type is map',
        );
      if (s.items === undefined)
        out.required('CRD034', [...at, 'items'], 'must have a schema if x-kubernetes-list-type is map');
      else if (!items)
        out.invalid(
          'CRD034',
          [...at, 'items'],
          s.items,
          'must only have a single schema if x-kubernetes-list-type is map',
        );
      else if (items.type !== 'object')
        out.invalid(
          'CRD034',
          [...at, 'items', 'type'],
          str(items.type),
          "must be object if parent array's x-kubernetes-list-type is map",
        );
      else {
        const seen = new Set<string>();
        for (const k of keys) {
          const ip = props(items);
          const kp = Object.hasOwn(ip, k) ? ip[k] : undefined;
          if (isObj(kp)) {
            if (kp.type === 'array' || kp.type === 'object')
              out.invalid(
                'CRD034',
                [...at, 'items', 'properties', key(k), 'type'],
                str(items.type),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              );
          } else
            out.invalid(
              'CRD034',
              [...at, 'x-kubernetes-list-map-keys'],
              keys,
              'entries must all be names of item properties',
            );
          if (seen.has(k))
            out.invalid('CRD034', [...at, 'x-kubernetes-list-map-keys'], keys, 'must not contain duplicate entries');
          seen.add(k);
        }
      }
    }
    // validateMapListKeysMapSet
    if (items && (listType === 'set' || listType === 'map')) {
      if (items.nullable === true)
        out.forbidden(
          'CRD034',
          [...at, 'items', 'nullable'],
          `cannot be nullable when x-kubernetes-list-type is ${String(listType)}`,
        );
      if (listType === 'map') {
        const req = new Set(Array.isArray(items.required) ? items.required.map(str) : []);
        const ip = props(items);
        for (const k of keys) {
          const kp = Object.hasOwn(ip, k) ? ip[k] : undefined;
          if (!isObj(kp)) continue;
          if (!req.has(k) && kp.default === undefined)
            out.required(
              'CRD034',
              [...at, 'items', 'properties', key(k), 'default'],
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            );
          if (kp.nullable === true)
            out.forbidden(
              'CRD034',
              [...at, 'items', 'properties', key(k), 'nullable'],
              'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
            );
        }
      }
    }
    return out.list.length - before;
  }

  /** The rule entries, then (schema errors permitting) their compilation; returns the schema errors added. */
  private rules(s: Obj, at: Path, ssv: Ssv, schemaErrorsBelow: number, ctx: CelContext | undefined): number {
    const rules = Array.isArray(s['x-kubernetes-validations']) ? (s['x-kubernetes-validations'] as unknown[]) : [];
    if (rules.length === 0) return 0;
    const out = this.out;
    const before = out.list.length;
    const base: Path = [...at, 'x-kubernetes-validations'];
    rules.forEach((raw, i) => {
      const r = isObj(raw) ? raw : {};
      const rule = str(r.rule);
      const trimmedRule = rule.trim();
      const message = str(r.message);
      const trimmedMsg = message.trim();
      const messageExpression = str(r.messageExpression);
      if (trimmedRule === '') out.required('CRD036', [...base, i, 'rule'], 'rule is not specified');
      else if (message.length > 0 && trimmedMsg === '')
        out.invalid('CRD036', [...base, i, 'message'], message, 'must be non-empty if specified');
      else if (/[\n\r]/.test(trimmedMsg))
        out.invalid('CRD036', [...base, i, 'message'], message, 'must not contain line breaks');
      else if (/[\n\r]/.test(trimmedRule) && trimmedMsg === '')
        out.required('CRD036', [...base, i, 'message'], 'message must be specified if rule contains line breaks');
      if (messageExpression.length > 0 && messageExpression.trim() === '')
        out.required('CRD036', [...base, i, 'messageExpression'], 'messageExpression must be non-empty if specified');
      if (typeof r.reason === 'string' && !RULE_REASONS.includes(r.reason))
        out.notSupported('CRD036', [...base, i, 'reason'], r.reason, RULE_REASONS, didYouMean(r.reason, RULE_REASONS));
      const fieldPath = str(r.fieldPath);
      if (fieldPath.length > 0 && fieldPath.trim() === '')
        out.invalid('CRD036', [...base, i, 'fieldPath'], fieldPath, 'must be non-empty if specified');
      if (/[\n\r]/.test(fieldPath))
        out.invalid('CRD036', [...base, i, 'fieldPath'], fieldPath, 'must not contain line breaks');
      if (fieldPath.length > 0 && newStructuralError(s) === undefined) {
        try {
          validFieldPath(fieldPath, s);
        } catch {
          out.invalid('CRD036', [...base, i, 'fieldPath'], fieldPath, 'must be a valid path');
        }
      }
    });
    const added = out.list.length - before;
    if (schemaErrorsBelow + added > 0 || !ctx) return added;
    // compile (CEL errors: they do not count as schema errors)
    const info = typeInfo(ctx);
    if (info.error || !info.t) {
      out.add('CRD038', base, (f) => ({
        reason: 'InternalError' as FieldError['reason'],
        field: f,
        message: `Internal error: ${info.error ? `internal error: failed to construct type information for x-kubernetes-validations rules: ${info.error}` : 'internal error: failed to retrieve type information for x-kubernetes-validations'}`,
      }));
      return added;
    }
    rules.forEach((raw, i) => {
      const r = isObj(raw) ? raw : {};
      const res = compileRuleAtCreate(
        {
          rule: str(r.rule),
          ...(typeof r.messageExpression === 'string' ? { messageExpression: r.messageExpression } : {}),
          ...(r.optionalOldSelf === true ? { optionalOldSelf: true } : {}),
        },
        info.t!,
      );
      const cost = ctx.card !== undefined ? mulGuard(res.maxCost, ctx.card) : mulGuard(res.maxCost, res.maxCardinality);
      const ruleAt: Path = [...base, i, 'rule'];
      const over = costError('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT);
      if (over)
        out.forbidden(
          'CRD038',
          ruleAt,
          over,
          'bound the lists, maps and strings the rule reads (maxItems, maxProperties, maxLength)',
        );
      observe(ctx.total, ruleAt, cost);
      if (res.error !== undefined) out.invalidText('CRD038', ruleAt, goRule(r), res.error);
      if (res.messageError !== undefined)
        out.invalidText('CRD038', [...base, i, 'messageExpression'], goRule(r), res.messageError);
      else if (res.messageMaxCost !== undefined) {
        const mover = costError('estimated messageExpression cost', res.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT);
        if (mover) out.forbidden('CRD038', [...base, i, 'messageExpression'], mover);
        observe(ctx.total, [...base, i, 'messageExpression'], res.messageMaxCost);
      }
      if (res.usesOldSelf) {
        if (ssv.uncorrelatable)
          out.invalid(
            'CRD038',
            ruleAt,
            str(r.rule),
            `oldSelf cannot be used on the uncorrelatable portion of the schema within ${apiserverField(ssv.uncorrelatable)}`,
          );
      } else if (typeof r.optionalOldSelf === 'boolean')
        out.invalid(
          'CRD038',
          [...base, i, 'optionalOldSelf'],
          r.optionalOldSelf,
          'may not be set if oldSelf is not used in rule',
        );
    });
    return added;
  }
}

/** TotalCost.ObserveExpressionCost. */
function observe(total: TotalCost, at: Path, cost: number): void {
  total.total = total.total + cost >= MAX_UINT ? MAX_UINT : total.total + cost;
  if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
  total.mostExpensive.push({ at, cost });
  total.mostExpensive.sort((a, b) => b.cost - a.cost);
  if (total.mostExpensive.length > 4) total.mostExpensive.length = 4;
}

// ---------------------------------------------------------------------------------------------
// selectableFields

/** ValidateCustomResourceSelectableFields against a version's schema. */
export function selectableFieldErrors(fields: unknown[], schema: unknown, base: Path, out: Causes): void {
  const s = isObj(schema) ? schema : {};
  if (newStructuralError(s) !== undefined) {
    out.invalid('CRD029', [...base.slice(0, -1), 'schema', 'openAPIV3Schema'], '', newStructuralError(s)!);
  }
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const jsonPath = isObj(f) ? str(f.jsonPath) : '';
    const at: Path = [...base, i, 'jsonPath'];
    if (jsonPath === '') {
      out.required('CRD029', at);
      return;
    }
    let found;
    try {
      found = validFieldPath(jsonPath, s, { allowArrayNotation: false });
    } catch (e) {
      out.invalid('CRD029', at, jsonPath, `is an invalid path: ${(e as Error).message}`);
      return;
    }
    if (found.steps[0]?.name === 'metadata' && !found.steps[0].key)
      out.invalid('CRD029', at, jsonPath, 'must not point to fields in metadata');
    const t = found.schema ? str(found.schema.type) : '';
    if (!(t === 'string' || t === 'boolean' || t === 'integer'))
      out.invalid(
        'CRD029',
        at,
        jsonPath,
        'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      );
    const norm = found.steps.map((x) => (x.key ? `[${x.name}]` : `.${x.name}`)).join('');
    if (seen.has(norm)) out.duplicate('CRD029', at, jsonPath);
    else seen.add(norm);
  });
  if (seen.size > 8) out.tooMany('CRD029', base, seen.size, 8);
}

export { ROOT_FIELD };
