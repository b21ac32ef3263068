// The schema server-side apply and managedFields follow: for every type, whether it is a
// scalar, a list (atomic, a set, or a map keyed by some fields) or a map (a struct with named
// fields and/or free-form entries; granular or atomic). It is structured-merge-diff's schema
// model, built the way kube-openapi's schemaconv builds it from OpenAPI: from the built-ins'
// OpenAPI v3 documents (schema/kubernetes/<version>/openapi-v3.json, fetched from the real
// kube-apiserver by scripts/fetch-kubernetes-openapi.ts) and from a CRD version's structural
// schema (with ObjectMeta, apiVersion and kind added as the apiextensions-apiserver does).
import { readFileSync } from 'node:fs';
import { jsonText } from './meta.js';

export type Scalar = 'numeric' | 'string' | 'boolean' | 'untyped';

/** `separable` (granular, the default) or `atomic`. */
export type MapRelationship = 'separable' | 'atomic';

export interface StructField {
  type: TypeRef;
  /** The field's default (used for missing list-map keys). */
  default?: unknown;
}

export interface MapType {
  fields: Map<string, StructField>;
  /** The type of entries that are not fields; none: such entries are not allowed. */
  elementType?: TypeRef;
  relationship: MapRelationship;
}

export interface ListType {
  elementType: TypeRef;
  relationship: 'atomic' | 'associative';
  /** The keys of a map list; empty for a set. */
  keys: string[];
}

/** One type: any of a scalar, a list and a map form (the value decides which applies). */
export interface Atom {
  scalar?: Scalar;
  list?: ListType;
  map?: MapType;
}

/** A reference to a named type or an inlined one; `relationship` overrides the map's (or list's). */
export interface TypeRef {
  named?: string;
  inlined?: Atom;
  relationship?: MapRelationship | 'atomic';
}

export const UNTYPED_ATOMIC = '__untyped_atomic_';
export const UNTYPED_DEDUCED = '__untyped_deduced_';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

type OpenApi = Record<string, unknown>;

const isRec = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Thrown for a schema the converter cannot use (the apiserver then has no typed schema either). */
export class FieldSchemaError extends Error {}

/**
 * A set of named types, converted from OpenAPI models on first use. Lookups of names the
 * models do not have fail (as `schema error: no type found matching`).
 */
export class TypeSchema {
  private readonly types = new Map<string, Atom | undefined>();
  private readonly overridden = new Map<string, Atom | undefined>();

  constructor(
    private readonly models: Record<string, OpenApi>,
    private readonly preserveUnknownFields = false,
    private readonly extra: Record<string, Atom> = {},
  ) {
    this.types.set(UNTYPED_ATOMIC, {
      scalar: 'untyped',
      list: { elementType: { named: UNTYPED_ATOMIC }, relationship: 'atomic', keys: [] },
      map: { fields: new Map(), elementType: { named: UNTYPED_ATOMIC }, relationship: 'atomic' },
    });
    this.types.set(UNTYPED_DEDUCED, {
      scalar: 'untyped',
      list: { elementType: { named: UNTYPED_ATOMIC }, relationship: 'atomic', keys: [] },
      map: { fields: new Map(), elementType: { named: UNTYPED_DEDUCED }, relationship: 'separable' },
    });
  }

  /** The named type, converted on first use. */
  named(name: string): Atom | undefined {
    if (this.types.has(name)) return this.types.get(name);
    let atom: Atom | undefined;
    if (this.extra[name]) atom = this.extra[name];
    else {
      const model = this.models[name];
      if (!isRec(model) || typeof model.$ref === 'string') atom = undefined;
      else if (name === QUANTITY) atom = { scalar: 'untyped' };
      else if (name === RAW_EXTENSION) atom = this.named(UNTYPED_ATOMIC);
      else {
        // a placeholder first: recursive types (JSONSchemaProps) refer to themselves
        const placeholder: Atom = {};
        this.types.set(name, placeholder);
        Object.assign(placeholder, convertSchema(model, this.preserveUnknownFields));
        atom = placeholder;
      }
    }
    this.types.set(name, atom);
    return atom;
  }

  /** The atom a reference stands for; undefined when the named type does not exist. */
  resolve(tr: TypeRef): Atom | undefined {
    const base = tr.named !== undefined ? this.named(tr.named) : (tr.inlined ?? {});
    if (!base || !tr.relationship) return base;
    const key = `${tr.named ?? ''}\u0000${tr.relationship}`;
    if (tr.named !== undefined && this.overridden.has(key)) return this.overridden.get(key);
    let out: Atom | undefined;
    if (base.map)
      out = { ...base, map: { ...base.map, relationship: tr.relationship === 'atomic' ? 'atomic' : 'separable' } };
    else if (base.list)
      out = { ...base, list: { ...base.list, relationship: tr.relationship === 'atomic' ? 'atomic' : 'associative' } };
    else out = undefined;
    if (tr.named !== undefined) this.overridden.set(key, out);
    return out;
  }
}

function mapRelationship(s: OpenApi): MapRelationship | undefined {
  const v = s['x-kubernetes-map-type'];
  if (v === undefined) return undefined;
  if (v === 'atomic') return 'atomic';
  if (v === 'granular') return 'separable';
  throw new FieldSchemaError(`unknown map type ${jsonText(v)}`);
}

function refName(s: OpenApi): string | undefined {
  let ref = typeof s.$ref === 'string' ? s.$ref : '';
  const allOf = s.allOf;
  if (!ref && Array.isArray(allOf) && allOf.length === 1 && isRec(allOf[0]) && typeof allOf[0].$ref === 'string')
    ref = allOf[0].$ref;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return name || undefined;
}

function makeRef(s: OpenApi, preserve: boolean): TypeRef {
  const name = refName(s);
  if (name) {
    const rel = mapRelationship(s);
    return rel ? { named: name, relationship: rel } : { named: name };
  }
  return { inlined: convertSchema(s, preserve) };
}

/** One OpenAPI schema as an atom (schemaconv's parseSchema); `preserve` is inherited by inlined children. */
function convertSchema(s: OpenApi, inherited: boolean): Atom {
  const preserve = inherited || s['x-kubernetes-preserve-unknown-fields'] === true;
  const type = Array.isArray(s.type) ? String(s.type[0] ?? '') : typeof s.type === 'string' ? s.type : '';
  switch (type) {
    case '':
      return { scalar: 'untyped', list: convertList(s, preserve), map: convertObject(s, preserve) };
    case 'object':
      return { map: convertObject(s, preserve) };
    case 'array':
      return { list: convertList(s, preserve) };
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'string':
      return { scalar: s.format === undefined || s.format === '' || s.format === 'byte' ? 'string' : 'untyped' };
    default:
      return { scalar: 'untyped' };
  }
}

function convertObject(s: OpenApi, preserve: boolean): MapType {
  const fields = new Map<string, StructField>();
  const props = isRec(s.properties) ? s.properties : {};
  for (const [name, member] of Object.entries(props)) {
    if (!isRec(member)) continue;
    const f: StructField = { type: makeRef(member, preserve) };
    if (member.default !== undefined) f.default = member.default;
    fields.set(name, f);
  }
  let elementType: TypeRef | undefined;
  const ap = s.additionalProperties;
  if (ap === undefined || ap === null) {
    if (preserve || fields.size === 0) elementType = { named: UNTYPED_DEDUCED };
  } else if (isRec(ap)) elementType = makeRef(ap, preserve);
  else if (ap === true) elementType = { named: UNTYPED_DEDUCED };
  const out: MapType = { fields, relationship: mapRelationship(s) ?? 'separable' };
  if (elementType) out.elementType = elementType;
  return out;
}

function convertList(s: OpenApi, preserve: boolean): ListType {
  let relationship: ListType['relationship'] = 'atomic';
  let keys: string[] = [];
  const lt = s['x-kubernetes-list-type'];
  if (lt !== undefined) {
    if (lt === 'set') relationship = 'associative';
    else if (lt === 'map') {
      relationship = 'associative';
      const k = s['x-kubernetes-list-map-keys'];
      if (!Array.isArray(k)) throw new FieldSchemaError('missing map keys');
      keys = k.filter((x): x is string => typeof x === 'string');
    } else if (lt !== 'atomic') throw new FieldSchemaError(`unknown list type ${jsonText(lt)}`);
  } else {
    const ps = s['x-kubernetes-patch-strategy'];
    if (ps === 'merge' || ps === 'merge,retainKeys') {
      relationship = 'associative';
      const mk = s['x-kubernetes-patch-merge-key'];
      if (typeof mk === 'string') keys = [mk];
    }
  }
  let elementType: TypeRef = { named: UNTYPED_ATOMIC };
  if (isRec(s.items)) elementType = makeRef(s.items, preserve);
  else if (Array.isArray(s.items) && s.items.length === 1 && isRec(s.items[0]))
    elementType = makeRef(s.items[0], preserve);
  return { elementType, relationship, keys };
}

// ---- the built-ins ------------------------------------------------------------------------

/** The Kubernetes version whose OpenAPI the built-ins' field topology comes from. */
export const KUBERNETES_OPENAPI_VERSION = 'v1.37.1';

let builtinModels: Record<string, OpenApi> | undefined;
let gvkIndex: Map<string, string> | undefined;
let builtinSchema: TypeSchema | undefined;

/** The built-ins' OpenAPI v3 component schemas (read once, on first use). */
export function builtinOpenApiModels(): Record<string, OpenApi> {
  if (!builtinModels) {
    const file = new URL(`../../schema/kubernetes/${KUBERNETES_OPENAPI_VERSION}/openapi-v3.json`, import.meta.url);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { components?: { schemas?: Record<string, OpenApi> } };
    builtinModels = doc.components?.schemas ?? {};
  }
  return builtinModels;
}

const gvkKey = (group: string, version: string, kind: string): string => `${group}/${version}/${kind}`;

/** The model name of a built-in kind (`io.k8s.api.apps.v1.Deployment`), from x-kubernetes-group-version-kind. */
export function builtinTypeName(group: string, version: string, kind: string): string | undefined {
  if (!gvkIndex) {
    gvkIndex = new Map();
    for (const [name, m] of Object.entries(builtinOpenApiModels())) {
      const gvks = m['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const g of gvks)
        if (isRec(g))
          gvkIndex.set(gvkKey(jsonText(g.group ?? ''), jsonText(g.version ?? ''), jsonText(g.kind ?? '')), name);
    }
  }
  return gvkIndex.get(gvkKey(group, version, kind));
}

let zeroObjects: Record<string, Record<string, unknown>> | undefined;

/**
 * A built-in kind's empty Go struct as unstructured content (`spec: {}`, `containers: null`),
 * from schema/kubernetes/<version>/typed-zero-objects.json (scripts/gen-typed-zero-objects.sh).
 */
export function builtinZeroObject(group: string, version: string, kind: string): Record<string, unknown> | undefined {
  if (!zeroObjects) {
    const file = new URL(
      `../../schema/kubernetes/${KUBERNETES_OPENAPI_VERSION}/typed-zero-objects.json`,
      import.meta.url,
    );
    zeroObjects = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  }
  const z = zeroObjects[gvkKey(group, version, kind)];
  return z ? structuredClone(z) : undefined;
}

/** The schema of every built-in type. */
export function builtinTypeSchema(): TypeSchema {
  return (builtinSchema ??= new TypeSchema(builtinOpenApiModels()));
}

// ---- custom resources -------------------------------------------------------------------

const CR_ROOT = '__custom_resource_';

/**
 * The typed schema of a CRD version: its structural schema with `metadata` (ObjectMeta),
 * `apiVersion` and `kind` at the root and in every x-kubernetes-embedded-resource, beside the
 * built-in models (for ObjectMeta). Returns the schema and the root reference.
 */
export function customResourceTypeSchema(openAPIV3Schema: Record<string, unknown> | undefined): {
  schema: TypeSchema;
  root: TypeRef;
} {
  const root = structuredClone(
    isRec(openAPIV3Schema) ? openAPIV3Schema : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  );
  const typeMeta = (s: OpenApi): void => {
    const props = isRec(s.properties) ? s.properties : (s.properties = {});
    props.apiVersion = { type: 'string' };
    props.kind = { type: 'string' };
    props.metadata = { $ref: `#/components/schemas/${OBJECT_META}` };
  };
  const embedded = (s: unknown): void => {
    if (!isRec(s)) return;
    if (isRec(s.properties)) for (const v of Object.values(s.properties)) embedded(v);
    if (isRec(s.items)) embedded(s.items);
    if (isRec(s.additionalProperties)) embedded(s.additionalProperties);
    if (s['x-kubernetes-embedded-resource'] === true) typeMeta(s);
  };
  embedded(root);
  typeMeta(root);
  const models = builtinOpenApiModels();
  const schema = new TypeSchema(models, false, { [CR_ROOT]: convertSchema(root, false) });
  return { schema, root: { named: CR_ROOT } };
}
