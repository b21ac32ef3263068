// The model (IR): what readers produce and the only thing emitters see.
// Plain data, no I/O. Readers build it sorted (groups by name, versions in the
// CRD's order, kinds by name, object properties in source order) so that
// emitters are deterministic without sorting again.

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
  'create', 'update', 'updateStatus', 'delete', 'deleteCollection', 'get', 'list', 'watch', 'patch', 'apply', 'applyStatus',
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
  /** UpperCamelCase kind, e.g. `DatabaseManager`. */
  kind: string;
  listKind: string;
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
  /** The schema as the input had it (plain JSON), for validation and the CRD emitter. */
  rawSchema?: unknown;
  /**
   * rawSchema already reduced and its CEL rules compiled by the reader (the runtime's
   * `PrecompiledSchema`), so the validators emitter does not do it twice; absent, it is done there.
   */
  precompiledSchema?: unknown;
  /** Opt-out of deepcopy (`+k8s:deepcopy-gen=false`). */
  noDeepCopy?: boolean;
  source: SourcePos;
}

/** Facets shared by every schema node. */
export interface NodeBase {
  description?: string;
  /** JSON value of `default`, if any. */
  default?: unknown;
  nullable?: boolean;
  /** From a named type in TypeScript input, or derived from the path for CRD input. */
  title?: string;
  source?: SourcePos;
  /** `x-kubernetes-validations` rules, kept verbatim. */
  validations?: ValidationRule[];
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
}

export interface PropertyNode {
  name: string;
  required: boolean;
  schema: SchemaNode;
}

export interface MapNode extends NodeBase {
  type: 'map';
  /** Schema of the values (`additionalProperties`). */
  values: SchemaNode;
  minProperties?: number;
  maxProperties?: number;
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
