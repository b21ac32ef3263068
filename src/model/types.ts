// The model (IR): what readers produce and the only thing emitters see.
// Plain data, no I/O. Readers build it sorted (groups by name, versions in the
// CRD's order, kinds by name, object properties in source order) so that
// emitters are deterministic without sorting again.
//
// Each kind's schema is ONE tree (SchemaNode): the typed view emitters read (type, properties,
// items, enum, format, list types…) plus, in `keywords`, every other JSONSchemaProps keyword as
// written (oneOf/anyOf/allOf/not, pattern, example, x-kubernetes-* …). src/model/schema-json.ts
// turns it back into the exact JSON, src/model/crd-json.ts the whole CRD; the validators, the CRD
// emitter and the operator's config/crd/ all read it from there. Readers freeze the tree.

/** Where a model element came from, for diagnostics. Lines and columns are 1-based. */
export interface SourcePos {
  file: string;
  line: number;
  col: number;
  /** JSON-ish path inside the input, e.g. `spec.versions[0].schema.openAPIV3Schema.properties.spec`. */
  path?: string;
}

/** The whole API surface read from all inputs. */
export interface Model {
  /** Sorted by group name. */
  groups: Group[];
  /** Input files that contributed, as given (for the generated header). Sorted. */
  sources: string[];
}

export interface Group {
  /** API group, e.g. `coolops.cn` (empty string for the legacy core group). */
  name: string;
  /** Versions in kube-aware order (v1 > v1beta2 > v1beta1 > v1alpha1), de-duplicated. */
  versions: GroupVersion[];
}

export interface GroupVersion {
  /** e.g. `v1alpha1` */
  name: string;
  /** Sorted by kind. */
  kinds: Kind[];
}

export type Scope = 'Namespaced' | 'Cluster';

/** client-gen verbs. */
export type Verb =
  | 'create'
  | 'update'
  | 'updateStatus'
  | 'delete'
  | 'deleteCollection'
  | 'get'
  | 'list'
  | 'watch'
  | 'patch'
  | 'apply'
  | 'applyStatus';

/** Every client-gen verb, in client-gen's order. */
export const ALL_VERBS: readonly Verb[] = [
  'create',
  'update',
  'updateStatus',
  'delete',
  'deleteCollection',
  'get',
  'list',
  'watch',
  'patch',
  'apply',
  'applyStatus',
];

/** The verbs of `+genclient:readonly`. */
export const READONLY_VERBS: readonly Verb[] = ['get', 'list', 'watch'];

/** The verbs that need the status subresource. */
export const STATUS_VERBS: readonly Verb[] = ['updateStatus', 'applyStatus'];

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One kind in one group/version. */
export interface Kind {
  /** The kind as the API names it (`DatabaseManager`; a CRD may also say `widget` or `Wid-get`). */
  kind: string;
  listKind: string;
  /**
   * The TypeScript names of the kind's type and its list's when `kind`/`listKind` cannot serve as
   * they are (not an identifier, a reserved word, a built-in like `Object` or `Promise`); absent
   * otherwise. Read them through `typeName()`/`listTypeName()` (./naming.ts).
   */
  typeName?: string;
  listTypeName?: string;
  /** Lower-case plural resource name, e.g. `databasemanagers`. */
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope: Scope;
  /** This version's flags from the CRD. */
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  subresources: { status: boolean; scale?: ScaleSubresource };
  printerColumns: PrinterColumn[];
  /** The verbs the generated client offers (client-gen's markers applied). */
  verbs: Verb[];
  /** The full schema of the object (openAPIV3Schema), or undefined when the CRD has none. */
  schema?: SchemaNode;
  /** Opt-out of deepcopy (`+k8s:deepcopy-gen=false`). */
  noDeepCopy?: boolean;
  /**
   * Fields of this version's entry in `spec.versions` that the fields above do not carry, or
   * carry differently from how the input wrote them (`selectableFields`, `deprecated: false`,
   * columns with unknown fields…), as written. The CRD writer writes them over the typed ones.
   */
  crdVersion?: JsonObject;
  /**
   * What the CRD this kind came from says beyond its versions' kinds: one object shared by the
   * Kinds of all its versions. Absent when the CRD is exactly what the fields above give (always,
   * for TypeScript input).
   */
  crd?: CrdFacts;
  source: SourcePos;
}

/** A JSON object (the values are JSON too). */
export type JsonObject = Record<string, unknown>;

/** The parts of an input CRD the kinds do not carry, kept so that the CRD written is the CRD read. */
export interface CrdFacts {
  /** `metadata.labels` as written. */
  labels?: Record<string, string>;
  /** `metadata.annotations` as written. */
  annotations?: Record<string, string>;
  /** `spec` fields other than group, names, scope and versions (`conversion`, `preserveUnknownFields`), as written. */
  spec?: JsonObject;
  /** `spec.names` fields the kinds do not carry, or carry differently (`shortNames: []`), as written. */
  names?: JsonObject;
  /** Names the input left out, so that the kinds hold the apiserver's default: not written. */
  defaultedNames?: Array<'listKind' | 'singular'>;
  /** Every version's name, served or not, in the order written, when that is not the model's order. */
  versionOrder?: string[];
  /** The versions that are not served: not in the model's groups (nothing is generated for them), written in the CRD. */
  unserved?: Array<{ version: string; kind: Kind }>;
}

/** Facets shared by every schema node. */
export interface NodeBase {
  description?: string;
  /** JSON value of `default`, if any. */
  default?: unknown;
  nullable?: boolean;
  /**
   * The generated type's name: from a named type in TypeScript input, or derived from the path
   * for CRD input. Not the JSON `title` keyword (that one is in `keywords`).
   */
  title?: string;
  source?: SourcePos;
  /** `x-kubernetes-validations` rules, kept verbatim. */
  validations?: ValidationRule[];
  /**
   * Every JSONSchemaProps keyword of this node that the typed fields do not carry, or carry
   * differently from how the input wrote it, as written: `oneOf`/`anyOf`/`allOf`/`not`, `example`,
   * `externalDocs`, the JSON `title`, `pattern` on a non-string, `x-kubernetes-map-type` on a map,
   * `required` in another order than the properties… The writer writes these over the typed view,
   * so the JSON is the input's; emitters that only read the typed view see no difference.
   */
  keywords?: JsonObject;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface ObjectNode extends NodeBase {
  type: 'object';
  /** In source order. */
  properties: PropertyNode[];
  /** `x-kubernetes-preserve-unknown-fields: true` on an object with known properties. */
  preserveUnknownFields: boolean;
  /** `x-kubernetes-embedded-resource: true`: apiVersion/kind/metadata are implied. */
  embeddedResource: boolean;
  minProperties?: number;
  maxProperties?: number;
  mapType?: 'granular' | 'atomic';
  /**
   * Where the declaration of this named, shared object lives when it is not declared in every
   * version that uses it (an OpenAPI definition reached through `$ref`): in another
   * group/version of the model — emitters import its type and deep copy from there — or in the
   * runtime (`'runtime'`: `ObjectMeta`, `ListMeta`). Unset: declared in each version whose kinds
   * use it (every CRD schema, and definitions whose own version is not in the model).
   */
  declaredIn?: { group: string; version: string } | 'runtime';
}

export interface PropertyNode {
  name: string;
  required: boolean;
  schema: SchemaNode;
  /**
   * The property's own description when its schema is a shared named object described on its
   * own (an OpenAPI `allOf: [{$ref}]` with a description beside it): docs prefer it to the schema's.
   */
  description?: string;
}

export interface MapNode extends NodeBase {
  type: 'map';
  /** Schema of the values (`additionalProperties`). */
  values: SchemaNode;
  minProperties?: number;
  maxProperties?: number;
  /** `x-kubernetes-map-type`: whether server-side apply merges the map's keys or replaces it whole. */
  mapType?: 'granular' | 'atomic';
}

export interface ArrayNode extends NodeBase {
  type: 'array';
  items: SchemaNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
}

export interface StringNode extends NodeBase {
  type: 'string';
  enum?: string[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
}

export interface IntegerNode extends NodeBase {
  type: 'integer';
  format?: 'int32' | 'int64';
  enum?: number[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
}

export interface NumberNode extends NodeBase {
  type: 'number';
  format?: string;
  enum?: number[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
}

export interface BooleanNode extends NodeBase {
  type: 'boolean';
}

/** `x-kubernetes-int-or-string: true` */
export interface IntOrStringNode extends NodeBase {
  type: 'int-or-string';
}

/** `x-kubernetes-preserve-unknown-fields: true` with no known properties (any JSON). */
export interface UnknownNode extends NodeBase {
  type: 'unknown';
  /** True when the schema says `type: object` (so the value is a JSON object). */
  object: boolean;
}

export type SchemaNode =
  | ObjectNode
  | MapNode
  | ArrayNode
  | StringNode
  | IntegerNode
  | NumberNode
  | BooleanNode
  | IntOrStringNode
  | UnknownNode;

export type SchemaNodeType = SchemaNode['type'];
