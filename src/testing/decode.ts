// Request bodies decoded as the apiserver's decoders decode them (sigs.k8s.io/json, the fork of
// encoding/json kube-apiserver uses), checked against kube-apiserver v1.37.1:
// - a built-in kind is decoded into its Go struct, whose fields the committed OpenAPI v3
//   (schema/kubernetes/<version>/openapi-v3.json) describes: a value of the wrong JSON type is
//   `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type
//   int32` (the first such error; errors of custom unmarshalers such as IntOrString's abort at
//   once), a `[]byte` field must be base64 (`illegal base64 data at input byte 3`), and fields
//   the struct does not have are dropped: `unknown field "spec.bogus"`;
// - with fieldValidation Strict or Warn, duplicate JSON members are `duplicate field "data.a"`,
//   for built-ins and custom resources (decoded as unstructured: any member, at any depth);
// - the strict errors come in document order, each once, at most 100.
import { builtinOpenApiModels, builtinTypeName, builtinZeroObject } from './field-schema.js';
import { jsonCopy, setOwn } from '../runtime/meta/json.js';
import { rfc3339Error } from '../runtime/validation/go-time.js';
import { isObject } from './meta.js';
import { badRequest } from './status.js';
import type { ApiError } from './status.js';

type Rec = Record<string, unknown>;
type OpenApi = Record<string, unknown>;

/** What decoding found: the first decode (type) error, and the strict errors. */
export interface DecodeFindings {
  /** A decode error (the body is refused with it, whatever fieldValidation says). */
  error?: string;
  /** `unknown field "x"` and `duplicate field "y"`, in document order. */
  strict: string[];
}

const MAX_STRICT_ERRORS = 100;

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_TYPES = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray',
]);
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const EMPTY_STRUCT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus';
const QUANTITY_PATTERN = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/** One node of a Go type, from the OpenAPI schema. */
type GoType =
  | { kind: 'struct'; name: string; goName: string; fields: Map<string, OpenApi> }
  | { kind: 'map'; elem: OpenApi }
  | { kind: 'slice'; elem: OpenApi }
  | { kind: 'int'; bits: 32 | 64 }
  | { kind: 'float' }
  | { kind: 'bool' }
  | { kind: 'string' }
  | { kind: 'bytes' }
  | { kind: 'intOrString' }
  | { kind: 'quantity' }
  | { kind: 'time' }
  | { kind: 'raw' };

function refName(s: OpenApi): string | undefined {
  let ref = typeof s.$ref === 'string' ? s.$ref : '';
  const allOf = s.allOf;
  if (!ref && Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) && typeof allOf[0].$ref === 'string')
    ref = allOf[0].$ref;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return name || undefined;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec` (Go's package-qualified name). */
function goTypeName(model: string): string {
  const parts = model.split('.');
  return parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : model;
}

const typeCache = new Map<OpenApi, GoType>();

function goType(s: OpenApi): GoType {
  const hit = typeCache.get(s);
  if (hit) return hit;
  const t = computeGoType(s);
  typeCache.set(s, t);
  return t;
}

function computeGoType(s: OpenApi): GoType {
  const name = refName(s);
  if (name) {
    if (name === INT_OR_STRING) return { kind: 'intOrString' };
    if (name === TIME) return { kind: 'time' };
    if (name === QUANTITY) return { kind: 'quantity' };
    if (RAW_TYPES.has(name)) return { kind: 'raw' };
    const model = builtinOpenApiModels()[name];
    if (!isObject(model)) return { kind: 'raw' };
    // a struct without fields (the status subresource's): an object whose every member is unknown
    if (name === EMPTY_STRUCT)
      return {
        kind: 'struct',
        name: 'CustomResourceSubresourceStatus',
        goName: 'v1.CustomResourceSubresourceStatus',
        fields: new Map(),
      };
    if (isObject(model.properties) && model.additionalProperties === undefined) {
      return {
        kind: 'struct',
        name: name.slice(name.lastIndexOf('.') + 1),
        goName: goTypeName(name),
        fields: new Map(Object.entries(model.properties).filter((e): e is [string, OpenApi] => isObject(e[1]))),
      };
    }
    return goType({ ...model, description: undefined });
  }
  switch (s.type) {
    case 'integer':
      return { kind: 'int', bits: s.format === 'int32' ? 32 : 64 };
    case 'number':
      return { kind: 'float' };
    case 'boolean':
      return { kind: 'bool' };
    case 'string':
      if (s.format === 'byte') return { kind: 'bytes' };
      if (s.format === 'int-or-string') return { kind: 'intOrString' };
      // date-time (metav1.Time) and the like: strings with their own unmarshalers, taken as they are
      return s.format ? { kind: 'raw' } : { kind: 'string' };
    case 'array':
      return isObject(s.items) ? { kind: 'slice', elem: s.items } : { kind: 'raw' };
    case 'object':
      if (isObject(s.additionalProperties)) return { kind: 'map', elem: s.additionalProperties };
      return { kind: 'raw' };
    default:
      return { kind: 'raw' };
  }
}

/** The Go type as encoding/json names it in `of type …`. */
function goTypeString(t: GoType): string {
  switch (t.kind) {
    case 'struct':
      return t.goName;
    case 'map':
      return `map[string]${goTypeString(goType(t.elem))}`;
    case 'slice':
      return `[]${goTypeString(goType(t.elem))}`;
    case 'int':
      return t.bits === 32 ? 'int32' : 'int64';
    case 'intOrString':
      return 'int32';
    case 'float':
      return 'float64';
    case 'bool':
      return 'bool';
    case 'bytes':
      return '[]uint8';
    default:
      return 'string';
  }
}

class HardError extends Error {}

/** A scanner over JSON text that checks each value against a Go type as the decoder meets it. */
class Scanner {
  pos = 0;
  error: string | undefined;
  readonly strict: string[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly text: string) {}

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  private addStrict(kind: 'unknown' | 'duplicate', path: string): void {
    const e = `${kind} field ${JSON.stringify(path)}`;
    if (this.strict.length >= MAX_STRICT_ERRORS || this.seen.has(e)) return;
    this.seen.add(e);
    this.strict.push(e);
  }

  private saveError(message: string): void {
    this.error ??= message;
  }

  /** The JSON kind of the value starting here, as Go names it. */
  private peekKind(): 'object' | 'array' | 'string' | 'number' | 'bool' | 'null' {
    const c = this.text[this.pos];
    if (c === '{') return 'object';
    if (c === '[') return 'array';
    if (c === '"') return 'string';
    if (c === 't' || c === 'f') return 'bool';
    if (c === 'n') return 'null';
    return 'number';
  }

  private readString(): string {
    const t = this.text;
    const start = this.pos;
    this.pos++;
    let escaped = false;
    while (this.pos < t.length) {
      const c = t[this.pos];
      if (c === '\\') {
        escaped = true;
        this.pos += 2;
        continue;
      }
      if (c === '"') break;
      this.pos++;
    }
    this.pos++;
    const raw = t.slice(start, this.pos);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  private readLiteral(): string {
    const t = this.text;
    const start = this.pos;
    while (this.pos < t.length && !/[\s,\]}:]/.test(t[this.pos])) this.pos++;
    return t.slice(start, this.pos);
  }

  /** Skips one value (checking only duplicates when `dups`). */
  skip(dups: boolean, path: string): void {
    this.ws();
    const k = this.peekKind();
    if (k === 'object') this.object(path, () => (dups ? { dups: true } : { dups: false }), dups);
    else if (k === 'array') this.array(path, (childPath) => this.skip(dups, childPath));
    else if (k === 'string') this.readString();
    else this.readLiteral();
  }

  /** Reads an object; `member(key, path)` decides how each member's value is read. */
  private object(
    path: string,
    member: (key: string, childPath: string) => { dups: boolean } | ((childPath: string) => void),
    checkDups: boolean,
  ): void {
    this.pos++; // {
    const keys = new Set<string>();
    for (;;) {
      this.ws();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return;
      }
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      const key = this.readString();
      this.ws();
      this.pos++; // :
      const childPath = path ? `${path}.${key}` : key;
      if (checkDups) {
        if (keys.has(key)) this.addStrict('duplicate', childPath);
        keys.add(key);
      }
      const how = member(key, childPath);
      if (typeof how === 'function') how(childPath);
      else this.skip(how.dups, childPath);
    }
  }

  private array(path: string, element: (childPath: string, i: number) => void): void {
    this.pos++; // [
    let i = 0;
    for (;;) {
      this.ws();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return;
      }
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      element(`${path}[${i}]`, i);
      i++;
    }
  }

  /** Reads one value as Go decodes it into `t`; `ctx` is the innermost struct and the field stack (for messages). */
  typed(t: GoType, path: string, ctx: { struct: string; fields: string[] }): void {
    this.ws();
    const k = this.peekKind();
    if (k === 'null' || t.kind === 'raw') return this.skip(false, path);
    const typeError = (value: string = k): void => {
      const where = ctx.fields.length ? `Go struct field ${ctx.struct}.${ctx.fields.join('.')}` : 'Go value';
      this.saveError(`json: cannot unmarshal ${value} into ${where} of type ${goTypeString(t)}`);
    };
    switch (t.kind) {
      case 'struct': {
        if (k !== 'object') {
          typeError();
          return this.skip(false, path);
        }
        this.object(
          path,
          (key) => {
            const f = t.fields.get(key);
            if (!f) {
              return (childPath: string) => {
                this.addStrict('unknown', childPath);
                this.skip(false, childPath);
              };
            }
            return (childPath: string) =>
              this.typed(goType(f), childPath, { struct: t.name, fields: [...ctx.fields, key] });
          },
          true,
        );
        return;
      }
      case 'map': {
        if (k !== 'object') {
          typeError();
          return this.skip(false, path);
        }
        const elem = goType(t.elem);
        this.object(path, () => (childPath: string) => this.typed(elem, childPath, ctx), true);
        return;
      }
      case 'slice': {
        if (k !== 'array') {
          typeError();
          return this.skip(false, path);
        }
        const elem = goType(t.elem);
        this.array(path, (childPath) => this.typed(elem, childPath, ctx));
        return;
      }
      case 'int': {
        if (k !== 'number') {
          typeError();
          return this.skip(false, path);
        }
        const lit = this.readLiteral();
        const max = t.bits === 32 ? 2n ** 31n : 2n ** 63n;
        const ok = /^-?(0|[1-9][0-9]*)$/.test(lit) && BigInt(lit) < max && BigInt(lit) >= -max;
        if (!ok) typeError(`number ${lit}`);
        return;
      }
      case 'float':
        if (k !== 'number') typeError();
        return this.skip(false, path);
      case 'bool':
        if (k !== 'bool') typeError();
        return this.skip(false, path);
      case 'string':
        if (k !== 'string') typeError();
        return this.skip(false, path);
      case 'bytes': {
        if (k !== 'string') {
          typeError();
          return this.skip(false, path);
        }
        const bad = base64Error(this.readString());
        if (bad !== undefined) this.saveError(`illegal base64 data at input byte ${bad}`);
        return;
      }
      case 'time': {
        // metav1.Time.UnmarshalJSON: a string in RFC 3339 (time.Parse's error is the decode error)
        if (k !== 'string') {
          typeError();
          return this.skip(false, path);
        }
        const bad = rfc3339Error(this.readString());
        if (bad !== undefined) this.saveError(bad);
        return;
      }
      case 'intOrString': {
        // IntOrString.UnmarshalJSON: a string, or else an int32 (its error aborts the decode)
        if (k === 'string') return this.skip(false, path);
        const lit = k === 'number' ? this.readLiteral() : '';
        if (k !== 'number') this.skip(false, path);
        const ok =
          k === 'number' && /^-?(0|[1-9][0-9]*)$/.test(lit) && BigInt(lit) < 2n ** 31n && BigInt(lit) >= -(2n ** 31n);
        if (!ok) {
          const where = ctx.fields.length ? `Go struct field ${ctx.struct}.${ctx.fields.join('.')}` : 'Go value';
          throw new HardError(
            `json: cannot unmarshal ${k === 'number' ? `number ${lit}` : k} into ${where} of type int32`,
          );
        }
        return;
      }
      case 'quantity': {
        // Quantity.UnmarshalJSON: a string (or number) that parses as a quantity (its error aborts the decode)
        if (k === 'string' || k === 'number') {
          const s = k === 'string' ? this.readString().trim() : this.readLiteral();
          if (!QUANTITY_PATTERN.test(s))
            throw new HardError(
              "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            );
          return;
        }
        this.skip(false, path);
        throw new HardError(`json: cannot unmarshal ${k} into Go value of type string`);
      }
    }
  }
}

/**
 * Where Go's base64.StdEncoding.DecodeString fails on `s` (`illegal base64 data at input byte
 * N`), or undefined when it decodes. Newlines are ignored, as Go ignores them.
 */
export function base64Error(s: string): number | undefined {
  const alphabet = /[A-Za-z0-9+/]/;
  let si = 0;
  const n = s.length;
  const next = (): { c: string; at: number } | undefined => {
    while (si < n && (s[si] === '\n' || s[si] === '\r')) si++;
    if (si >= n) return undefined;
    return { c: s[si], at: si++ };
  };
  for (;;) {
    // one quantum of up to 4 characters
    for (let j = 0; j < 4; j++) {
      const ch = next();
      if (!ch) {
        if (j === 0) return undefined;
        return si - j;
      }
      if (ch.c === '=') {
        // padding: only at j 2 or 3, then the input must end
        if (j < 2) return ch.at;
        if (j === 2) {
          const p = next();
          if (!p) return n;
          if (p.c !== '=') return p.at - 1;
        }
        const rest = next();
        if (rest) return rest.at;
        return undefined;
      }
      if (!alphabet.test(ch.c)) return ch.at;
    }
  }
}

/** The Go type of a built-in kind's object, or undefined when the OpenAPI does not describe it. */
function rootType(group: string, version: string, kind: string): GoType | undefined {
  const name = builtinTypeName(group, version, kind);
  if (!name) return undefined;
  let ref = rootRefs.get(name);
  if (!ref) rootRefs.set(name, (ref = { $ref: `#/components/schemas/${name}` }));
  return goType(ref);
}

/** One reference per model name, so that each kind's Go type is computed once. */
const rootRefs = new Map<string, OpenApi>();

/**
 * Decodes the JSON text of a built-in kind's object as kube-apiserver does: the first decode
 * error, and the strict errors (unknown and duplicate fields) in document order. A body whose
 * kind the OpenAPI does not describe is checked for duplicates only.
 */
export function decodeBuiltinJson(text: string, group: string, version: string, kind: string): DecodeFindings {
  const t = rootType(group, version, kind);
  const s = new Scanner(text);
  try {
    if (t) s.typed(t, '', { struct: kind, fields: [] });
    else s.skip(true, '');
  } catch (e) {
    if (e instanceof HardError) return { error: e.message, strict: [] };
    throw e;
  }
  return s.error !== undefined ? { error: s.error, strict: [] } : { strict: s.strict };
}

/**
 * The duplicate members of a JSON document (what decoding it as unstructured content reports), in
 * document order. `parsed`, when given, is `JSON.parse(text)` as it came out (unmodified): a
 * document whose member count matches it has no duplicate, and is not scanned.
 */
export function duplicateFields(text: string, parsed?: unknown): string[] {
  if (parsed !== undefined && !mayHaveDuplicates(text, parsed)) return [];
  const s = new Scanner(text);
  s.skip(true, '');
  return s.strict;
}

/**
 * Whether `text` may hold a duplicate member: every member of a JSON text is a string followed by
 * `:` (whitespace between), so counting `"` + `:` counts each member at least once (a string
 * value holding `":` counts too), and a parse keeps one member per name; when the count equals the
 * members of the parsed value, no name came twice.
 */
function mayHaveDuplicates(text: string, parsed: unknown): boolean {
  let upper = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
    let j = i - 1;
    while (
      j >= 0 &&
      (text.charCodeAt(j) === 0x20 ||
        text.charCodeAt(j) === 0x09 ||
        text.charCodeAt(j) === 0x0a ||
        text.charCodeAt(j) === 0x0d)
    )
      j--;
    if (j >= 0 && text.charCodeAt(j) === 0x22) upper++;
  }
  return upper !== memberCount(parsed);
}

/** How many object members a parsed JSON value holds, at every depth. */
function memberCount(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) n += memberCount(x);
    return n;
  }
  for (const k of Object.keys(v)) n += 1 + memberCount((v as Rec)[k]);
  return n;
}

/**
 * The fields of a decoded value its Go type does not have (`spec.bogus`), walking members in
 * the order given (`sorted`: as a map re-encoded by Go is read), and the value without them.
 */
export function unknownFields(
  value: unknown,
  group: string,
  version: string,
  kind: string,
  order: 'insertion' | 'sorted' = 'insertion',
): { paths: string[]; value: unknown } {
  const t = rootType(group, version, kind);
  const paths: string[] = [];
  if (!t) return { paths, value };
  return { paths, value: dropUnknown(t, value, '', paths, order) };
}

/** The unknown fields of an ObjectMeta value (`metadata.bogus`), in Go's sorted order, and the value without them. */
export function unknownMetadataFields(metadata: unknown, prefix = 'metadata'): { paths: string[]; value: unknown } {
  const paths: string[] = [];
  return { paths, value: dropUnknown(goType(OBJECT_META), metadata, prefix, paths, 'sorted') };
}

/** ObjectMeta's reference (one object, so that its Go type is computed once). */
const OBJECT_META: OpenApi = { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };

function dropUnknown(t: GoType, v: unknown, path: string, out: string[], order: 'insertion' | 'sorted'): unknown {
  report(t, v, path, out, order);
  return drop(t, v);
}

/** Pushes the paths of `v`'s unknown fields, members walked in `order`. */
function report(t: GoType, v: unknown, path: string, out: string[], order: 'insertion' | 'sorted'): void {
  if (!isObject(v) && !Array.isArray(v)) return;
  const keys = (o: Rec): string[] => (order === 'sorted' ? Object.keys(o).sort() : Object.keys(o));
  if (t.kind === 'struct' && isObject(v)) {
    for (const k of keys(v)) {
      const p = path ? `${path}.${k}` : k;
      const f = t.fields.get(k);
      if (!f) out.push(p);
      else report(goType(f), v[k], p, out, order);
    }
  } else if (t.kind === 'map' && isObject(v)) {
    const elem = goType(t.elem);
    for (const k of keys(v)) report(elem, v[k], path ? `${path}.${k}` : k, out, order);
  } else if (t.kind === 'slice' && Array.isArray(v)) {
    const elem = goType(t.elem);
    v.forEach((x, i) => report(elem, x, `${path}[${i}]`, out, order));
  }
}

/** `v` without its unknown fields (members in their order). */
function drop(t: GoType, v: unknown): unknown {
  // (setOwn: a `__proto__` member stays a member)
  if (t.kind === 'struct' && isObject(v)) {
    const res: Rec = {};
    for (const [k, x] of Object.entries(v)) {
      const f = t.fields.get(k);
      if (f) setOwn(res, k, drop(goType(f), x));
    }
    return res;
  }
  if (t.kind === 'map' && isObject(v)) {
    const elem = goType(t.elem);
    const res: Rec = {};
    for (const [k, x] of Object.entries(v)) setOwn(res, k, drop(elem, x));
    return res;
  }
  if (t.kind === 'slice' && Array.isArray(v)) {
    const elem = goType(t.elem);
    return v.map((x) => drop(elem, x));
  }
  return v;
}

/**
 * The decode errors of a decoded value (from YAML, or a patch's result) as the JSON decoder
 * would report them for its JSON encoding: the first type error, in the order given.
 */
export function decodeBuiltinValue(value: unknown, group: string, version: string, kind: string): DecodeFindings {
  return decodeBuiltinJson(JSON.stringify(value), group, version, kind);
}

/** What {@link decodeObjectBody} needs of the endpoint. */
export interface DecodeTarget {
  group: string;
  version: string;
  kind: string;
  custom: boolean;
  /** A custom resource version's pruning (its structural schema). */
  schema?: () => Promise<{ prune(obj: never): string[] }>;
}

/** `Widget in version "v1" cannot be handled as a Widget: <why>` (400), as the create and update handlers answer a decode error. */
export function cannotBeHandled(target: { version: string; kind: string }, why: string): ApiError {
  return badRequest(
    `${target.kind} in version ${JSON.stringify(target.version)} cannot be handled as a ${target.kind}: ${why}`,
  );
}

/**
 * A create or update body decoded as the apiserver decodes it for `target`: decode errors
 * refused (400); unknown fields dropped and, with duplicates, refused (Strict) or warned
 * about (Warn); returns the body without the dropped fields. `jsonText` is the body as sent
 * when it was JSON (duplicates can only be seen there).
 */
export async function decodeObjectBody(
  target: DecodeTarget,
  body: unknown,
  jsonText: string | undefined,
  fieldValidation: string | undefined,
  warnings: string[] | undefined,
): Promise<unknown> {
  if (!isObject(body)) return body;
  const strictMode = fieldValidation === 'Strict' || fieldValidation === 'Warn';
  let strict: string[] = [];
  let out: Rec = body;
  if (!target.custom) {
    const found =
      jsonText !== undefined
        ? decodeBuiltinJson(jsonText, target.group, target.version, target.kind)
        : decodeBuiltinValue(body, target.group, target.version, target.kind);
    if (found.error !== undefined) throw cannotBeHandled(target, found.error);
    const unknown = unknownFields(body, target.group, target.version, target.kind);
    out = unknown.value as Rec;
    // the scanner saw both kinds in document order; without the text, the unknown fields alone
    strict = jsonText !== undefined ? found.strict : unknown.paths.map((p) => `unknown field ${JSON.stringify(p)}`);
  } else {
    // unstructured: duplicates (decoder), then ObjectMeta's unknown fields, then what pruning drops (sorted)
    // (`body` is the parsed text itself: completeTypeMeta returns a custom resource's body as it is)
    if (strictMode && jsonText !== undefined) strict.push(...duplicateFields(jsonText, body));
    if (body.metadata !== undefined) {
      const meta = unknownMetadataFields(body.metadata);
      strict.push(...meta.paths.map((p) => `unknown field ${JSON.stringify(p)}`));
      out = { ...body, metadata: meta.value };
    }
    if (target.schema) {
      const schema = await target.schema();
      out = jsonCopy(out);
      const pruned = schema
        .prune(out as never)
        .filter((p) => !p.startsWith('metadata.') && p !== 'metadata')
        .sort();
      strict.push(...pruned.map((p) => `unknown field ${JSON.stringify(p)}`));
    }
  }
  if (strictMode && strict.length) {
    if (fieldValidation === 'Strict') throw cannotBeHandled(target, `strict decoding error: ${strict.join(', ')}`);
    warnings?.push(...strict);
  }
  return out;
}

/**
 * A built-in object as its Go struct holds it: the fields the struct always writes (its zero
 * value without omitempty: `spec: {}`, an Event's `eventTime: null`, `source: {}`) filled in
 * where missing, through the structs both have. In place.
 */
export function fillZeroFields(obj: Rec, group: string, version: string, kind: string): void {
  const zero = builtinZeroObject(group, version, kind);
  if (zero) fill(obj, zero);
}

function fill(obj: Rec, zero: Rec): void {
  for (const [k, z] of Object.entries(zero)) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) obj[k] = structuredClone(z);
    else if (isObject(obj[k]) && isObject(z)) fill(obj[k], z);
  }
}
