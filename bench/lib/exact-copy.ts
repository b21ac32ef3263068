// Builds the "hand-written" reference copies for the deepcopy benchmark from a sample
// object's shape: straight-line, field-by-field code such as a person writes for one type
// (the practical limit of a copy). Three styles:
// - exact: an object literal of the known fields (unknown fields are dropped: lossy);
// - spread: `{ ...src }`, then only the non-scalar fields replaced (keeps unknown fields,
//   but shares unknown nested objects with the source);
// - lossless: the spread copy plus one pass over each copy's keys that deep-copies any
//   object value still shared with the source (an unknown field): what the spread copy
//   costs once it keeps crdgen's promise (lossless and alias-free);
// - sorted: a fast path for objects whose keys come in one known order (a custom resource from
//   a real kube-apiserver has its keys sorted at every level): one pass over the source's keys
//   checks they are exactly the sample's, in its order, then an object literal in that order
//   (the exact copy's speed); any other object is copied key by key as JSON (lossless, order
//   kept). Objects whose fields are not all present in every sample element are copied as
//   the lossless style copies them.
// Array elements are merged into one shape; a field missing from some elements is optional.
// An object with a key that is not an identifier (labels, annotations, managedFields' fieldsV1)
// is a map, as a person would treat it: `{ ...map }` when its values are scalars, else a plain
// recursive JSON copy.

type Shape =
  | { kind: 'scalar' }
  | { kind: 'array'; item: Shape | undefined }
  | { kind: 'object'; fields: Map<string, { shape: Shape; count: number }>; count: number };

function shapeOf(v: unknown): Shape {
  if (typeof v !== 'object' || v === null) return { kind: 'scalar' };
  if (Array.isArray(v))
    return {
      kind: 'array',
      item: v.map(shapeOf).reduce<Shape | undefined>((a, b) => (a ? merge(a, b) : b), undefined),
    };
  const fields = new Map<string, { shape: Shape; count: number }>();
  for (const [k, x] of Object.entries(v)) fields.set(k, { shape: shapeOf(x), count: 1 });
  return { kind: 'object', fields, count: 1 };
}

function merge(a: Shape, b: Shape): Shape {
  if (a.kind !== b.kind) throw new Error(`sample mixes a ${a.kind} and a ${b.kind} at one place`);
  if (a.kind === 'scalar') return a;
  if (a.kind === 'array' && b.kind === 'array') {
    return { kind: 'array', item: a.item && b.item ? merge(a.item, b.item) : (a.item ?? b.item) };
  }
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields);
    for (const [k, f] of b.fields) {
      const g = fields.get(k);
      fields.set(k, g ? { shape: merge(g.shape, f.shape), count: g.count + f.count } : f);
    }
    return { kind: 'object', fields, count: a.count + b.count };
  }
  throw new Error('unreachable');
}

/** The copy style: `exact` (literal of known fields), `spread` (`{...src}` + non-scalars), `lossless` (spread + a key pass) or `sorted` (key check + literal). */
export type CopyStyle = 'exact' | 'spread' | 'lossless' | 'sorted';

/** A key that can be written as a plain identifier (`o.key`, `{ key: … }`). */
const IDENT = /^[A-Za-z_$][\w$]*$/;
/** `k` as a property access: `.k` or `["k"]`. */
const prop = (k: string): string => (IDENT.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
/** `k` as an object-literal key. */
const key = (k: string): string => (IDENT.test(k) ? k : JSON.stringify(k));
/** Source of the generic JSON copy every reference falls back to (maps of objects, schemaless values). */
const COPY_JSON = `function copyJson(v) { if (typeof v !== 'object' || v === null) return v; if (Array.isArray(v)) return v.map(copyJson); const o = {}; for (const k in v) o[k] = copyJson(v[k]); return o; }`;

/** The lossless style's key pass: copies each object value the copy still shares with `s`. */
const PASS = `for (const k in o) { const v = o[k]; if (typeof v === 'object' && v !== null && v === s[k]) o[k] = copyJson(v); }`;

/** Emits JavaScript source of `function copy(src)` for `sample`'s shape in `style`. */
export function copySource(sample: unknown, style: CopyStyle): string {
  const fns: string[] = [];
  const isMap = (s: Shape): boolean => s.kind === 'object' && [...s.fields.keys()].some((k) => !IDENT.test(k));

  /** Returns an expression copying `expr` of shape `s`. */
  function expr(s: Shape, e: string): string {
    if (s.kind === 'scalar') return e;
    if (isMap(s) && s.kind === 'object') {
      const flat = [...s.fields.values()].every((f) => f.shape.kind === 'scalar');
      if (!flat) return `copyJson(${e})`;
      if (style !== 'lossless' && style !== 'sorted') return `{ ...${e} }`;
      // One function per map site, so each spread sees few shapes (as inline code would).
      fns.push(`function c${fns.length}(s) { const o = { ...s }; ${PASS} return o; }`);
      return `c${fns.length - 1}(${e})`;
    }
    const name = `c${fns.length}`;
    fns.push('');
    const at = fns.length - 1;
    if (s.kind === 'array') {
      const item = s.item && s.item.kind !== 'scalar' ? expr(s.item, 's[i]') : 's[i]';
      fns[at] =
        item === 's[i]'
          ? `function ${name}(s) { return s.slice(); }`
          : `function ${name}(s) { const n = s.length, o = []; for (let i = 0; i < n; i++) o.push(${item}); return o; }`;
      return `${name}(${e})`;
    }
    if (style === 'sorted' && [...s.fields.values()].every((f) => f.count === s.count)) {
      const keys = [...s.fields.keys()];
      const literal = keys.map((k) => `${key(k)}: ${expr(s.fields.get(k)!.shape, `s${prop(k)}`)}`).join(', ');
      fns[at] =
        `const K${at} = ${JSON.stringify(keys)}; function ${name}(s) { let n = 0; for (const k in s) { if (k !== K${at}[n++]) return copyJson(s); } if (n !== ${keys.length}) return copyJson(s); return { ${literal} }; }`;
      return `${name}(${e})`;
    }
    const required: string[] = [];
    const optional: string[] = [];
    for (const [k, f] of s.fields) {
      const always = f.count === s.count;
      if (style !== 'exact' && f.shape.kind === 'scalar') continue;
      const value = expr(f.shape, `s${prop(k)}`);
      if (style === 'exact' && always) required.push(`${key(k)}: ${value}`);
      else if (always) required.push(`o${prop(k)} = ${value};`);
      else optional.push(`if (s${prop(k)} !== undefined) o${prop(k)} = ${value};`);
    }
    const init =
      style === 'exact' ? `const o = { ${required.join(', ')} };` : `const o = { ...s }; ${required.join(' ')}`;
    const pass = style === 'lossless' || style === 'sorted' ? PASS : '';
    fns[at] = `function ${name}(s) { ${init} ${optional.join(' ')} ${pass} return o; }`;
    return `${name}(${e})`;
  }

  const root = expr(shapeOf(sample), 'src');
  return `${COPY_JSON}\n${fns.join('\n')}\nreturn function copy(src) { return ${root}; };`;
}

/** Compiles the copy function for `sample`'s shape (see {@link copySource}). */
export function compileCopy<T>(sample: T, style: CopyStyle): (src: T) => T {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling the written copy function is what this reference copy measures
  return new Function(copySource(sample, style))() as (src: T) => T;
}

/** An OpenAPI v3 schema node, as a CRD's `openAPIV3Schema` holds it (the parts a copy needs). */
type SchemaNode = {
  type?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
};

const STR: SchemaNode = { type: 'string' };
/**
 * metav1.ObjectMeta, every field: what a hand-written copy of a kind calls for its root (and
 * embedded) metadata, which a CRD's schema leaves as a bare `type: object`.
 */
const OBJECT_META: SchemaNode = {
  type: 'object',
  properties: {
    name: STR,
    generateName: STR,
    namespace: STR,
    selfLink: STR,
    uid: STR,
    resourceVersion: STR,
    generation: { type: 'integer' },
    creationTimestamp: STR,
    deletionTimestamp: STR,
    deletionGracePeriodSeconds: { type: 'integer' },
    labels: { type: 'object', additionalProperties: STR },
    annotations: { type: 'object', additionalProperties: STR },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        required: ['apiVersion', 'kind', 'name', 'uid'],
        properties: {
          apiVersion: STR,
          kind: STR,
          name: STR,
          uid: STR,
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    finalizers: { type: 'array', items: STR },
    managedFields: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          manager: STR,
          operation: STR,
          apiVersion: STR,
          time: STR,
          fieldsType: STR,
          fieldsV1: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          subresource: STR,
        },
      },
    },
  },
};

/**
 * Emits JavaScript source of `function copy(src)` written from a kind's schema rather than from
 * one object: every field the type declares, each copied when present (required fields in the
 * object literal, optional ones assigned after a presence check), metadata as a typed
 * ObjectMeta copy, maps by a key loop (a spread when their values are scalars), arrays by an
 * index loop (`slice` for scalars), schemaless or preserve-unknown-fields values by a JSON copy.
 * Unknown fields are dropped (exact, lossy), as in a Go deepcopy of a struct. This is the copy a
 * person writes for the *kind*: it is correct for every object of that kind, where the
 * sample-derived exact copy is correct only for objects with exactly the sample's fields.
 */
export function typeCopySource(schema: SchemaNode): string {
  const fns: string[] = [];
  /** Reserves a slot (and so a name) for a function whose body is written after its children's. */
  const reserve = (): number => fns.push('') - 1;
  const scalar = (s: SchemaNode): boolean =>
    s['x-kubernetes-int-or-string'] === true || (s.type !== undefined && s.type !== 'object' && s.type !== 'array');

  /** Returns the name of a function copying a (non-null) value of schema `s`, or undefined for a scalar. */
  function copier(s: SchemaNode, root: boolean): string | undefined {
    if (scalar(s)) return undefined;
    if (s.type === 'array') {
      const at = reserve();
      const item = s.items ? copier(s.items, false) : 'copyJson';
      fns[at] =
        item === undefined
          ? `function c${at}(s) { return s.slice(); }`
          : `function c${at}(s) { const n = s.length, o = new Array(n); for (let i = 0; i < n; i++) o[i] = ${item}(s[i]); return o; }`;
      return `c${at}`;
    }
    // Every object of a kind (and an embedded resource) has TypeMeta and ObjectMeta, which a
    // CRD's schema need not declare: the apiserver adds them.
    const resource = root || s['x-kubernetes-embedded-resource'] === true;
    const props = resource ? { apiVersion: STR, kind: STR, ...s.properties } : (s.properties ?? {});
    if (resource && !props.metadata?.properties) props.metadata = OBJECT_META;
    if (Object.keys(props).length === 0) {
      const addl = s.additionalProperties;
      if (typeof addl !== 'object' || s['x-kubernetes-preserve-unknown-fields']) return 'copyJson';
      const at = reserve();
      const value = copier(addl, false);
      fns[at] =
        value === undefined
          ? `function c${at}(s) { return { ...s }; }`
          : `function c${at}(s) { const o = {}; for (const k in s) o[k] = ${value}(s[k]); return o; }`;
      return `c${at}`;
    }
    const at = reserve();
    const required = new Set([...(s.required ?? []), ...(root ? ['apiVersion', 'kind', 'metadata'] : [])]);
    const inLiteral: string[] = [];
    const checked: string[] = [];
    for (const [k, child] of Object.entries(props)) {
      const c = copier(child, false);
      const value = (v: string): string =>
        c === undefined ? v : child.nullable ? `${v} === null ? null : ${c}(${v})` : `${c}(${v})`;
      if (required.has(k)) inLiteral.push(`${key(k)}: ${value(`s${prop(k)}`)}`);
      else checked.push(`if (s${prop(k)} !== undefined) o${prop(k)} = ${value(`s${prop(k)}`)};`);
    }
    fns[at] = `function c${at}(s) { const o = { ${inLiteral.join(', ')} }; ${checked.join(' ')} return o; }`;
    return `c${at}`;
  }

  const root = copier(schema, true) ?? '';
  return `${COPY_JSON}\n${fns.join('\n')}\nreturn function copy(src) { return ${root}(src); };`;
}

/** Compiles the copy function written from `schema` (see {@link typeCopySource}). */
export function compileTypeCopy<T>(schema: unknown): (src: T) => T {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling the written copy function is what this reference copy measures
  return new Function(typeCopySource(schema as SchemaNode))() as (src: T) => T;
}
