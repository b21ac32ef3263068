// OpenAPI v3 schemas (components.schemas, as kube-openapi writes them) → model schema nodes.
// A `$ref` — bare, or kube-openapi's `allOf: [{$ref}]` with a description beside it — resolves
// to the one node of its definition, so a shared definition (PodSpec) is one node wherever it is
// used; the description at the use site goes on the property. A reference back to a definition
// being converted (apiextensions' JSONSchemaProps holds JSONSchemaProps) becomes a node with the
// definition's name and no properties, so the model stays a tree-shaped graph without cycles:
// emitters name the type, the declaration is the definition's own.

import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { NodeBase, ObjectNode, PropertyNode, SchemaNode, ValidationRule } from '../../model/types.js';
import { child, dottedPath, type Path } from '../crd/field-path.js';
import { lazySourcePos } from '../crd/schema-node.js';
import type { ApiDocument } from './document.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The JSON pointer prefix of the definitions a `$ref` may name. */
export const SCHEMAS_REF = '#/components/schemas/';

/** One definition (`components.schemas.<name>`) and the document it is in. */
export interface Definition {
  name: string;
  schema: unknown;
  file: string;
  doc: ApiDocument;
  path: Path;
}

/** A named object node and what names it: its definition, or the definition and property path it is inline in. */
export interface NamedNode {
  node: ObjectNode;
  /** The definition's full name (`io.k8s.api.core.v1.PodSpec`). */
  definition: string;
  /** PascalCase property path below the definition, for an inline object (`''` for the definition itself). */
  suffix: string;
}

/** Names of the definitions the runtime declares: typed as its ObjectMeta and ListMeta. */
export const RUNTIME_DEFINITIONS: ReadonlyMap<string, string> = new Map([
  ['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'ObjectMeta'],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', 'ListMeta'],
]);

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** Type names of other languages, and the OpenAPI type meant. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  int: 'integer',
  int32: 'integer',
  int64: 'integer',
  long: 'integer',
  bool: 'boolean',
  float: 'number',
  double: 'number',
  str: 'string',
  map: 'object',
  list: 'array',
};

/** Levenshtein distance (for "did you mean"). */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** Go zero values kube-openapi writes as the default of every non-pointer field: not API defaults, left out. */
function isZeroDefault(v: unknown): boolean {
  return v === '' || (isObj(v) && Object.keys(v).length === 0);
}

function pascal(s: string): string {
  return s
    .replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase())
    .replace(/[^A-Za-z0-9]/g, '');
}

/** Converts definitions on demand (each once), reporting problems as positioned diagnostics. */
export class SchemaConverter {
  private readonly nodes = new Map<string, SchemaNode>();
  private readonly converting = new Set<string>();
  /** Every named object node, in creation order. */
  readonly named: NamedNode[] = [];
  /** Stubs standing for a definition reached again while it is converted (a cycle). */
  readonly cycleStubs: Array<{ node: ObjectNode; definition: string }> = [];

  constructor(
    private readonly defs: ReadonlyMap<string, Definition>,
    private readonly diagnostics: Diagnostic[],
  ) {}

  private error(def: Definition, path: Path, code: DiagnosticCode, message: string, hint?: string): void {
    this.diagnostics.push({
      severity: 'error',
      code,
      file: def.file,
      ...def.doc.locate(path),
      path: dottedPath(path),
      message,
      ...(hint ? { hint } : {}),
    });
  }

  /** The node of the definition `name` (converted on first use). */
  definition(name: string): SchemaNode {
    const done = this.nodes.get(name);
    if (done) return done;
    const def = this.defs.get(name)!;
    if (this.converting.has(name)) {
      // a cycle: a stub of the same name; its declaration is the definition's
      const stub: ObjectNode = { type: 'object', properties: [], preserveUnknownFields: true, embeddedResource: false };
      const s = def.schema;
      if (isObj(s) && typeof s.description === 'string') stub.description = s.description;
      this.cycleStubs.push({ node: stub, definition: name });
      return stub;
    }
    this.converting.add(name);
    const node = this.convert(def.schema, def.path, def, { definition: name, suffix: '' });
    this.converting.delete(name);
    this.nodes.set(name, node);
    return node;
  }

  /** The definition a `$ref` names, or undefined after reporting why it does not resolve. */
  private resolve(ref: unknown, path: Path, def: Definition): string | undefined {
    if (typeof ref !== 'string') {
      this.error(def, path, 'OAPI005', '$ref must be a string');
      return undefined;
    }
    if (!ref.startsWith(SCHEMAS_REF)) {
      this.error(
        def,
        path,
        'OAPI005',
        `$ref ${JSON.stringify(ref)} is not supported: only references into this document's components.schemas are`,
        `write "${SCHEMAS_REF}<name>"`,
      );
      return undefined;
    }
    const name = ref.slice(SCHEMAS_REF.length).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!this.defs.has(name)) {
      const near = [...this.defs.keys()].filter((n) => distance(n, name) <= 2).sort();
      this.error(
        def,
        path,
        'OAPI004',
        `$ref ${JSON.stringify(ref)}: no schema ${JSON.stringify(name)} in components.schemas`,
        near.length > 0
          ? `did you mean "${SCHEMAS_REF}${near[0]}"?`
          : 'the document must carry every schema it references (fetch the whole /openapi/v3 document of the group-version)',
      );
      return undefined;
    }
    return name;
  }

  /** `$ref`, or kube-openapi's `allOf: [{$ref}]`: the reference and where it is. */
  private refOf(s: Obj, path: Path): { ref: unknown; at: Path } | undefined {
    if (s.$ref !== undefined) return { ref: s.$ref, at: child(path, '$ref') };
    const all = s.allOf;
    if (Array.isArray(all) && all.length === 1 && isObj(all[0]) && all[0].$ref !== undefined)
      return { ref: all[0].$ref, at: child(path, 'allOf', 0, '$ref') };
    return undefined;
  }

  private base(s: Obj, path: Path, def: Definition): NodeBase {
    const b: NodeBase = { source: lazySourcePos(def.file, path, () => def.doc.locate(path)) };
    if (typeof s.description === 'string') b.description = s.description;
    if (s.default !== undefined && !isZeroDefault(s.default)) b.default = s.default;
    if (s.nullable === true) b.nullable = true;
    const rules = s['x-kubernetes-validations'];
    if (Array.isArray(rules)) {
      const vs: ValidationRule[] = [];
      for (const r of rules) {
        if (!isObj(r) || typeof r.rule !== 'string') continue;
        const v: ValidationRule = { rule: r.rule };
        if (typeof r.message === 'string') v.message = r.message;
        if (typeof r.messageExpression === 'string') v.messageExpression = r.messageExpression;
        if (typeof r.reason === 'string') v.reason = r.reason;
        if (typeof r.fieldPath === 'string') v.fieldPath = r.fieldPath;
        vs.push(v);
      }
      if (vs.length > 0) b.validations = vs;
    }
    return b;
  }

  /** The node of a property or item schema: a reference resolves to its definition's node. */
  private use(s: unknown, path: Path, def: Definition, owner: { definition: string; suffix: string }): SchemaNode {
    if (isObj(s)) {
      const r = this.refOf(s, path);
      if (r) {
        const name = this.resolve(r.ref, r.at, def);
        return name === undefined ? { type: 'unknown', object: false } : this.definition(name);
      }
    }
    return this.convert(s, path, def, owner);
  }

  private convert(
    raw: unknown,
    path: Path,
    def: Definition,
    owner: { definition: string; suffix: string },
  ): SchemaNode {
    if (!isObj(raw)) {
      if (raw !== true)
        this.error(
          def,
          path,
          'OAPI007',
          `a schema must be an object, not ${raw === null ? 'null' : Array.isArray(raw) ? 'a list' : typeof raw}`,
        );
      return { type: 'unknown', object: false };
    }
    const s = raw;
    const r = this.refOf(s, path);
    if (r) {
      // a definition that is only a reference to another: the same node
      const name = this.resolve(r.ref, r.at, def);
      return name === undefined ? { type: 'unknown', object: false } : this.definition(name);
    }
    const b = this.base(s, path, def);
    if (s.type !== undefined && (typeof s.type !== 'string' || !TYPES.has(s.type))) {
      const near =
        typeof s.type === 'string'
          ? (TYPE_ALIASES[s.type.toLowerCase()] ?? [...TYPES].find((t) => distance(t, String(s.type)) <= 2))
          : undefined;
      this.error(
        def,
        child(path, 'type'),
        'OAPI007',
        `type ${JSON.stringify(s.type)} is not one of ${[...TYPES].join(', ')}`,
        near ? `did you mean "${near}"?` : undefined,
      );
      return { ...b, type: 'unknown', object: false };
    }
    const type = typeof s.type === 'string' ? s.type : '';
    const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
    const altTypes = alts?.map((a) => (isObj(a) ? a.type : undefined));
    // IntOrString (`format: int-or-string`, oneOf integer/string) and Quantity (oneOf string/number)
    if (
      s['x-kubernetes-int-or-string'] === true ||
      s.format === 'int-or-string' ||
      (type === '' &&
        altTypes?.length === 2 &&
        altTypes.includes('string') &&
        (altTypes.includes('integer') || altTypes.includes('number')))
    ) {
      return { ...b, type: 'int-or-string' };
    }
    const props = s.properties;
    if (props !== undefined && !isObj(props)) {
      this.error(def, child(path, 'properties'), 'OAPI007', 'properties must be an object of property schemas');
      return { ...b, type: 'unknown', object: true };
    }
    const ap = s.additionalProperties;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    if (type === 'object' || (type === '' && (props !== undefined || isObj(ap)))) {
      const hasProps = props !== undefined && Object.keys(props).length > 0;
      if (!hasProps) {
        if (isObj(ap)) {
          const values = this.use(ap, child(path, 'additionalProperties'), def, {
            definition: owner.definition,
            suffix: `${owner.suffix}Value`,
          });
          const m: SchemaNode = { ...b, type: 'map', values };
          if (num(s.minProperties) !== undefined) m.minProperties = num(s.minProperties)!;
          if (num(s.maxProperties) !== undefined) m.maxProperties = num(s.maxProperties)!;
          return m;
        }
        return { ...b, type: 'unknown', object: true };
      }
      const required = new Set(
        Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === 'string') : [],
      );
      const node: ObjectNode = {
        ...b,
        type: 'object',
        properties: [],
        preserveUnknownFields: preserve,
        embeddedResource: s['x-kubernetes-embedded-resource'] === true,
      };
      const mapType = s['x-kubernetes-map-type'];
      if (mapType === 'atomic' || mapType === 'granular') node.mapType = mapType;
      this.named.push({ node, definition: owner.definition, suffix: owner.suffix });
      for (const [name, p] of Object.entries(props)) {
        const ppath = child(path, 'properties', { key: name });
        const prop: PropertyNode = {
          name,
          required: required.has(name),
          schema: this.use(p, ppath, def, { definition: owner.definition, suffix: owner.suffix + pascal(name) }),
        };
        // a reference with its own description: the property's
        if (isObj(p) && typeof p.description === 'string' && this.refOf(p, ppath) !== undefined)
          prop.description = p.description;
        node.properties.push(prop);
      }
      return node;
    }
    if (type === 'array' || (type === '' && s.items !== undefined)) {
      const items =
        s.items === undefined
          ? ({ type: 'unknown', object: false } as const)
          : this.use(s.items, child(path, 'items'), def, {
              definition: owner.definition,
              suffix: `${owner.suffix}Item`,
            });
      const a: SchemaNode = { ...b, type: 'array', items };
      if (num(s.minItems) !== undefined) a.minItems = num(s.minItems)!;
      if (num(s.maxItems) !== undefined) a.maxItems = num(s.maxItems)!;
      if (s.uniqueItems === true) a.uniqueItems = true;
      const lt = s['x-kubernetes-list-type'];
      if (lt === 'atomic' || lt === 'set' || lt === 'map') a.listType = lt;
      const keys = s['x-kubernetes-list-map-keys'];
      if (Array.isArray(keys)) a.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
      return a;
    }
    if (type === 'string') {
      const n: SchemaNode = { ...b, type: 'string' };
      const en = Array.isArray(s.enum) ? s.enum.filter((e): e is string => typeof e === 'string') : [];
      if (en.length > 0) n.enum = en;
      if (typeof s.format === 'string' && s.format !== '') n.format = s.format;
      if (typeof s.pattern === 'string') n.pattern = s.pattern;
      if (num(s.minLength) !== undefined) n.minLength = num(s.minLength)!;
      if (num(s.maxLength) !== undefined) n.maxLength = num(s.maxLength)!;
      return n;
    }
    if (type === 'integer' || type === 'number') {
      const en = Array.isArray(s.enum) ? s.enum.filter((e): e is number => typeof e === 'number') : [];
      const n: SchemaNode = type === 'integer' ? { ...b, type: 'integer' } : { ...b, type: 'number' };
      if (en.length > 0) n.enum = en;
      if (n.type === 'integer' && (s.format === 'int32' || s.format === 'int64')) n.format = s.format;
      if (n.type === 'number' && typeof s.format === 'string' && s.format !== '') n.format = s.format;
      if (num(s.minimum) !== undefined) n.minimum = num(s.minimum)!;
      if (num(s.maximum) !== undefined) n.maximum = num(s.maximum)!;
      if (s.exclusiveMinimum === true) n.exclusiveMinimum = true;
      if (s.exclusiveMaximum === true) n.exclusiveMaximum = true;
      if (num(s.multipleOf) !== undefined) n.multipleOf = num(s.multipleOf)!;
      return n;
    }
    if (type === 'boolean') return { ...b, type: 'boolean' };
    // no type: any JSON (apiextensions' JSON, RawExtension's payload), an object when it says so
    return { ...b, type: 'unknown', object: preserve };
  }
}
