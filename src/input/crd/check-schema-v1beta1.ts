// apiserver-equivalent checks of one openAPIV3Schema: the generic OpenAPI rules
// (ValidateCustomResourceDefinitionOpenAPISchema) and, when required, the
// structural-schema invariants (ValidateStructural). Pure; findings carry paths.

import { apiserverField, child, type Path, type Seg } from './field-path.js';
import { didYouMean, forbidden, invalid, notSupported, required, type Finding } from './field-errors.js';
import { compileRe2 } from '../../runtime/validation/re2.js';

/** The OpenAPI types a CRD schema may use, sorted as the apiserver lists them. */
export const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'] as const;

type Obj = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

interface Ctx {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const key = (k: string): Seg => ({ key: k });

/** Options for {@link checkSchema}. */
export interface SchemaCheckOptions {
  /** Structural-schema invariants apply (always for v1; for v1beta1 only when pruning is on). */
  requireStructural: boolean;
  /** The version has the status subresource (restricts the root schema). */
  statusEnabled: boolean;
}

/** All findings for the schema at `path` (`…openAPIV3Schema`). */
export function checkSchema(schema: unknown, path: Path, opts: SchemaCheckOptions): Finding[] {
  const out: Finding[] = [];
  if (!isObj(schema)) return out;
  if (opts.statusEnabled) checkStatusRoot(schema, path, out);
  if (schema.nullable === true)
    out.push(forbidden('CRD032', child(path, 'nullable'), 'nullable cannot be true at the root'));
  checkProps(schema, path, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, true, out);
  if (opts.requireStructural) {
    structuralInvariants(schema, 'root', path, out);
    completeness(schema, schema, path, path, out);
  }
  return out;
}

/**
 * validateStructuralCompleteness: every property or items named inside a value
 * validation (anyOf/allOf/oneOf/not) of `v` must also be specified in the
 * structural schema `s`.
 */
function completeness(v: Obj, s: Obj | undefined, sPath: Path, vPath: Path, out: Finding[]): void {
  const junctors: [string, Obj, Path][] = [];
  if (isObj(v.not)) junctors.push(['not', v.not, child(vPath, 'not')]);
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = v[j];
    if (Array.isArray(list)) list.forEach((x, i) => isObj(x) && junctors.push([j, x, child(vPath, j, i)]));
  }
  for (const [, nested, nPath] of junctors) nestedCompleteness(nested, s, sPath, nPath, out);
}

function nestedCompleteness(v: Obj, s: Obj | undefined, sPath: Path, vPath: Path, out: Finding[]): void {
  if (!s) {
    out.push(required('CRD035', sPath, `because it is defined in ${apiserverField(vPath)}`));
    return;
  }
  completeness(v, s, sPath, vPath, out);
  if (isObj(v.items))
    nestedCompleteness(
      v.items,
      isObj(s.items) ? s.items : undefined,
      child(sPath, 'items'),
      child(vPath, 'items'),
      out,
    );
  if (isObj(v.properties)) {
    const sProps = isObj(s.properties) ? s.properties : {};
    for (const [k, p] of Object.entries(v.properties)) {
      if (!isObj(p)) continue;
      const sp = sProps[k];
      if (!isObj(sp))
        out.push(
          required(
            'CRD035',
            child(sPath, 'properties', key(k)),
            `because it is defined in ${apiserverField(child(vPath, 'properties', key(k)))}`,
          ),
        );
      else nestedCompleteness(p, sp, child(sPath, 'properties', key(k)), child(vPath, 'properties', key(k)), out);
    }
  }
}

const ROOT_ALLOWED_WITH_STATUS = [
  ['Description', 'description'],
  ['Type', 'type'],
  ['Format', 'format'],
  ['Title', 'title'],
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
  ['Required', 'required'],
  ['Items', 'items'],
  ['Properties', 'properties'],
  ['ExternalDocs', 'externalDocs'],
  ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XValidations', 'x-kubernetes-validations'],
] as const;

function checkStatusRoot(schema: Obj, path: Path, out: Finding[]): void {
  if (schema.type !== undefined && schema.type !== '' && schema.type !== 'object') {
    out.push(
      invalid(
        'CRD035',
        child(path, 'type'),
        schema.type,
        'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ),
    );
    return;
  }
  const allowed = new Set<string>(ROOT_ALLOWED_WITH_STATUS.map((p) => p[1]));
  const bad = Object.keys(schema).filter((k) => !allowed.has(k) && !isZero(schema[k]));
  if (bad.length > 0) {
    const names = ROOT_ALLOWED_WITH_STATUS.map((p) => p[0]).join(' ');
    out.push(
      invalid(
        'CRD035',
        path,
        schema,
        `only [${names}] fields are allowed at the root of the schema if the status subresource is enabled`,
      ),
    );
  }
}

function isZero(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === false ||
    v === '' ||
    v === 0 ||
    (Array.isArray(v) && v.length === 0) ||
    (isObj(v) && Object.keys(v).length === 0)
  );
}

/** ValidateCustomResourceDefinitionOpenAPISchema + specStandardValidatorV3.validate. */
function checkProps(s: Obj, path: Path, ctx: Ctx, isRoot: boolean, out: Finding[]): void {
  const type = s.type;
  if (typeof type === 'string' && type !== '' && !(OPENAPI_TYPES as readonly string[]).includes(type)) {
    out.push(notSupported('CRD030', child(path, 'type'), type, OPENAPI_TYPES, didYouMean(type, OPENAPI_TYPES)));
  }
  if (s.default !== undefined && !ctx.allowDefaults) {
    out.push(
      forbidden(
        'CRD032',
        child(path, 'default'),
        `must not be set${ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : ''}`,
      ),
    );
  }
  if (typeof s.id === 'string' && s.id !== '') out.push(forbidden('CRD032', child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    out.push(forbidden('CRD032', child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length > 0)
    out.push(forbidden('CRD032', child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (isObj(s.definitions) && Object.keys(s.definitions).length > 0)
    out.push(forbidden('CRD032', child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined)
    out.push(forbidden('CRD032', child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined)
    out.push(
      forbidden(
        'CRD032',
        child(path, '$ref'),
        '$ref is not supported',
        'inline the referenced schema; CRD schemas cannot use references',
      ),
    );
  if (type === 'null')
    out.push(forbidden('CRD030', child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0)
    out.push(forbidden('CRD032', child(path, 'items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    out.push(
      forbidden('CRD034', child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'),
    );
  }
  if (s.uniqueItems === true)
    out.push(
      forbidden(
        'CRD032',
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  if (typeof s.pattern === 'string') {
    try {
      compileRe2(s.pattern);
    } catch (e) {
      out.push(
        invalid(
          'CRD037',
          child(path, 'pattern'),
          s.pattern,
          `must be a valid regular expression, but isn't: ${(e as Error).message}`,
        ),
      );
    }
  }

  const properties = isObj(s.properties) ? s.properties : {};
  const hasProps = Object.keys(properties).length > 0;
  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (hasProps && (ap === false || isObj(ap))) {
      out.push(
        forbidden(
          'CRD033',
          child(path, 'additionalProperties'),
          'additionalProperties and properties are mutual exclusive',
          'use properties for a struct, additionalProperties for a map',
        ),
      );
    }
    if (isObj(ap)) {
      const sub = ctx.insideResourceMeta
        ? {
            ...ctx,
            allowDefaults: false,
            disallowDefaultsReason: 'inside additionalProperties applying to object metadata',
          }
        : ctx;
      checkProps(ap, child(path, 'additionalProperties'), sub, false, out);
    }
  }
  for (const [name, p] of Object.entries(properties)) {
    if (!isObj(p)) continue;
    let sub = ctx;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${name}` };
    }
    checkProps(p, child(path, 'properties', key(name)), sub, false, out);
  }
  if (isObj(s.not)) checkProps(s.not, child(path, 'not'), ctx, false, out);
  for (const junctor of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[junctor];
    if (Array.isArray(list))
      list.forEach((x, i) => isObj(x) && checkProps(x, child(path, junctor, i), ctx, false, out));
  }
  if (isObj(s.definitions))
    for (const [k, d] of Object.entries(s.definitions))
      if (isObj(d)) checkProps(d, child(path, 'definitions', key(k)), ctx, false, out);
  if (isObj(s.items)) checkProps(s.items, child(path, 'items'), ctx, false, out);
  else if (Array.isArray(s.items))
    s.items.forEach((x, i) => isObj(x) && checkProps(x, child(path, 'items', i), ctx, false, out));
  if (isObj(s.dependencies))
    for (const [k, d] of Object.entries(s.dependencies))
      if (isObj(d)) checkProps(d, child(path, 'dependencies', key(k)), ctx, false, out);

  checkExtensions(s, path, out);
}

function checkExtensions(s: Obj, path: Path, out: Finding[]): void {
  const type = typeof s.type === 'string' ? s.type : '';
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    out.push(
      invalid('CRD034', child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'),
    );
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && type !== 'object') {
    if (type === '')
      out.push(required('CRD034', child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else out.push(invalid('CRD034', child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (typeof mapType === 'string' && mapType !== 'atomic' && mapType !== 'granular') {
    out.push(
      notSupported(
        'CRD034',
        child(path, 'x-kubernetes-map-type'),
        mapType,
        ['atomic', 'granular'],
        didYouMean(mapType, ['atomic', 'granular']),
      ),
    );
  }
  const listType = s['x-kubernetes-list-type'];
  const items = isObj(s.items) ? s.items : undefined;
  if (listType !== undefined && type !== 'array') {
    if (type === '')
      out.push(required('CRD034', child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else out.push(invalid('CRD034', child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-kubernetes-list-type'] !== undefined &&
      items['x-kubernetes-list-type'] !== 'atomic'
    ) {
      out.push(
        invalid(
          'CRD034',
          child(path, 'items', 'x-kubernetes-list-type'),
          items['x-kubernetes-list-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      out.push(
        invalid(
          'CRD034',
          child(path, 'items', 'x-kubernetes-map-type'),
          items['x-kubernetes-map-type'] ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
  }
  if (typeof listType === 'string' && !['atomic', 'set', 'map'].includes(listType)) {
    out.push(
      notSupported(
        'CRD034',
        child(path, 'x-kubernetes-list-type'),
        listType,
        ['atomic', 'set', 'map'],
        didYouMean(listType, ['atomic', 'set', 'map']),
      ),
    );
  }
  const keys = Array.isArray(s['x-kubernetes-list-map-keys'])
    ? (s['x-kubernetes-list-map-keys'] as unknown[]).filter((k): k is string => typeof k === 'string')
    : [];
  if (keys.length > 0) {
    if (listType === undefined)
      out.push(
        required(
          'CRD034',
          child(path, 'x-kubernetes-list-type'),
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    else if (listType !== 'map')
      out.push(
        invalid(
          'CRD034',
          child(path, 'x-kubernetes-list-type'),
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
  }
  if (listType === 'map') {
    if (keys.length === 0)
      out.push(
        required(
          'CRD034',
          child(path, 'x-kubernetes-list-map-keys'),
          'must not be empty if x-kubernetes-list-type is map',
        ),
      );
    if (s.items === undefined)
      out.push(required('CRD034', child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (!items)
      out.push(
        invalid(
          'CRD034',
          child(path, 'items'),
          s.items,
          'must only have a single schema if x-kubernetes-list-type is map',
        ),
      );
    else if (items.type !== 'object')
      out.push(
        invalid(
          'CRD034',
          child(path, 'items', 'type'),
          items.type ?? '',
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    else {
      const itemProps = isObj(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      for (const k of keys) {
        const p = itemProps[k];
        if (isObj(p)) {
          if (p.type === 'array' || p.type === 'object') {
            out.push(
              invalid(
                'CRD034',
                child(path, 'items', 'properties', key(k), 'type'),
                items.type,
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          out.push(
            invalid(
              'CRD034',
              child(path, 'x-kubernetes-list-map-keys'),
              keys,
              'entries must all be names of item properties',
            ),
          );
        }
        if (seen.has(k))
          out.push(
            invalid('CRD034', child(path, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'),
          );
        seen.add(k);
      }
    }
  }
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      if (!isObj(r)) return;
      const rule = typeof r.rule === 'string' ? r.rule.trim() : '';
      const rawMsg = typeof r.message === 'string' ? r.message : '';
      const msg = rawMsg.trim();
      if (rule === '')
        out.push(required('CRD036', child(path, 'x-kubernetes-validations', i, 'rule'), 'rule is not specified'));
      else if (rawMsg.length > 0 && msg === '')
        out.push(
          invalid(
            'CRD036',
            child(path, 'x-kubernetes-validations', i, 'message'),
            rawMsg,
            'message must be non-empty if specified',
          ),
        );
      else if (/[\n\r]/.test(msg))
        out.push(
          invalid(
            'CRD036',
            child(path, 'x-kubernetes-validations', i, 'message'),
            rawMsg,
            'message must not contain line breaks',
          ),
        );
      else if (/[\n\r]/.test(rule) && msg === '')
        out.push(
          required(
            'CRD036',
            child(path, 'x-kubernetes-validations', i, 'message'),
            'message must be specified if rule contains line breaks',
          ),
        );
    });
  }
  // validateMapListKeysMapSet
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true)
      out.push(
        forbidden(
          'CRD034',
          child(path, 'items', 'nullable'),
          `cannot be nullable when x-kubernetes-list-type is ${listType}`,
        ),
      );
    if (listType === 'map') {
      const req = new Set(Array.isArray(items.required) ? (items.required as unknown[]) : []);
      const itemProps = isObj(items.properties) ? items.properties : {};
      for (const k of keys) {
        const p = itemProps[k];
        if (!isObj(p)) continue;
        if (!req.has(k) && p.default === undefined) {
          out.push(
            required(
              'CRD034',
              child(path, 'items', 'properties', key(k), 'default'),
              'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
            ),
          );
        }
        if (p.nullable === true)
          out.push(
            forbidden(
              'CRD034',
              child(path, 'items', 'properties', key(k), 'nullable'),
              'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
            ),
          );
      }
    }
  }
}

type Level = 'root' | 'item' | 'field';

/** validateStructuralInvariants over the structural part (properties, items, additionalProperties). */
function structuralInvariants(s: Obj, lvl: Level, path: Path, out: Finding[]): void {
  const type = typeof s.type === 'string' ? s.type : '';
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  const properties = isObj(s.properties) ? s.properties : {};

  // `items: []` decodes upstream to an empty schema list, which the structural
  // conversion treats as no items at all
  const noItems = s.items === undefined || (Array.isArray(s.items) && s.items.length === 0);
  if (type === 'array' && noItems) out.push(required('CRD035', child(path, 'items'), 'must be specified'));
  if (isObj(s.items)) structuralInvariants(s.items, 'item', child(path, 'items'), out);
  for (const [name, p] of Object.entries(properties))
    if (isObj(p)) structuralInvariants(p, 'field', child(path, 'properties', key(name)), out);

  const ap = s.additionalProperties;
  if (ap !== undefined) {
    if (lvl === 'root')
      out.push(forbidden('CRD035', child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObj(ap)) structuralInvariants(ap, 'field', child(path, 'additionalProperties'), out);
  }
  if (intOrString && preserve)
    out.push(
      invalid(
        'CRD034',
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  if (intOrString && embedded)
    out.push(
      invalid(
        'CRD034',
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );

  checkValueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s.allOf), path, out);

  if (embedded && type !== 'object') {
    if (type === '')
      out.push(required('CRD034', child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else
      out.push(
        invalid('CRD034', child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'),
      );
  } else if (type === '' && !intOrString && !preserve) {
    const detail =
      lvl === 'root'
        ? 'must not be empty at the root'
        : lvl === 'item'
          ? 'must not be empty for specified array items'
          : 'must not be empty for specified object fields';
    out.push(
      required(
        'CRD031',
        child(path, 'type'),
        detail,
        'set "type" to one of "array", "boolean", "integer", "number", "object", "string"',
      ),
    );
  }
  if (embedded && ap !== undefined)
    out.push(
      forbidden(
        'CRD034',
        child(path, 'additionalProperties'),
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  if (lvl === 'root' && type !== '' && type !== 'object')
    out.push(invalid('CRD035', child(path, 'type'), type, 'must be object at the root'));

  if (lvl === 'root' || embedded) {
    const kind = properties.kind;
    if (isObj(kind) && kind.type !== 'string')
      out.push(invalid('CRD035', child(path, 'properties', key('kind'), 'type'), kind.type ?? '', 'must be string'));
    const apiVersion = properties.apiVersion;
    if (isObj(apiVersion) && apiVersion.type !== 'string')
      out.push(
        invalid(
          'CRD035',
          child(path, 'properties', key('apiVersion'), 'type'),
          apiVersion.type ?? '',
          'must be string',
        ),
      );
    const metadata = properties.metadata;
    if (isObj(metadata) && metadata.type !== 'object')
      out.push(
        invalid('CRD035', child(path, 'properties', key('metadata'), 'type'), metadata.type ?? '', 'must be object'),
      );
  }
  const metadata = properties.metadata;
  if (lvl === 'root' && isObj(metadata)) {
    const mprops = isObj(metadata.properties) ? Object.keys(metadata.properties) : [];
    const onlyNames = mprops.every((k) => k === 'name' || k === 'generateName');
    const extra = Object.keys(metadata).filter(
      (k) => k !== 'type' && k !== 'properties' && k !== 'default' && !isZero(metadata[k]),
    );
    if (!onlyNames || extra.length > 0) {
      out.push(
        forbidden(
          'CRD035',
          child(path, 'properties', key('metadata')),
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  if (embedded && !preserve && Object.keys(properties).length === 0) {
    out.push(
      required(
        'CRD034',
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
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

function checkValueValidation(
  s: Obj,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: Path,
  out: Finding[],
): void {
  if (!skipAnyOf && Array.isArray(s.anyOf))
    s.anyOf.forEach((x, i) => isObj(x) && nestedValueValidation(x, false, false, child(path, 'anyOf', i), out));
  if (Array.isArray(s.allOf))
    s.allOf.forEach(
      (x, i) =>
        isObj(x) && nestedValueValidation(x, skipFirstAllOfAnyOf && i === 0, false, child(path, 'allOf', i), out),
    );
  if (Array.isArray(s.oneOf))
    s.oneOf.forEach((x, i) => isObj(x) && nestedValueValidation(x, false, false, child(path, 'oneOf', i), out));
  if (isObj(s.not)) nestedValueValidation(s.not, false, false, child(path, 'not'), out);
}

function nestedValueValidation(v: Obj, skipAnyOf: boolean, skipAllOfAnyOf: boolean, path: Path, out: Finding[]): void {
  checkValueValidation(v, skipAnyOf, skipAllOfAnyOf, path, out);
  if (isObj(v.items)) nestedValueValidation(v.items, false, false, child(path, 'items'), out);
  if (isObj(v.properties))
    for (const [k, p] of Object.entries(v.properties))
      if (isObj(p)) nestedValueValidation(p, false, false, child(path, 'properties', key(k)), out);
  if (typeof v.type === 'string' && v.type !== '')
    out.push(forbidden('CRD035', child(path, 'type'), 'must be empty to be structural'));
  if (v.additionalProperties !== undefined)
    out.push(forbidden('CRD035', child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (v.default !== undefined)
    out.push(forbidden('CRD035', child(path, 'default'), 'must be undefined to be structural'));
  if (typeof v.title === 'string' && v.title !== '')
    out.push(forbidden('CRD035', child(path, 'title'), 'must be empty to be structural'));
  if (typeof v.description === 'string' && v.description !== '')
    out.push(forbidden('CRD035', child(path, 'description'), 'must be empty to be structural'));
  if (v.nullable === true) out.push(forbidden('CRD035', child(path, 'nullable'), 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields'] === true)
    out.push(
      forbidden('CRD035', child(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'),
    );
  if (v['x-kubernetes-embedded-resource'] === true)
    out.push(forbidden('CRD035', child(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string'] === true)
    out.push(forbidden('CRD035', child(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0)
    out.push(forbidden('CRD035', child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined)
    out.push(forbidden('CRD035', child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (isObj(v.properties) && 'metadata' in v.properties)
    out.push(
      forbidden('CRD035', child(path, 'properties', key('metadata')), 'must not be specified in a nested context'),
    );
}
