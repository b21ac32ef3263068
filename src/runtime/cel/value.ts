// CEL runtime values for our evaluator: int = bigint, double = number, uint = Uint, string, bool,
// null, bytes = Uint8Array, list = Value[], map = CelMap (JSON object view or literal map),
// Duration, Timestamp, TypeValue, Opaque (url, ip, cidr, quantity). Equality and ordering follow
// CEL (numbers compare across int/uint/double; other kinds only with their own kind).
import { CEL_DATA, type Node } from '../validation/node.js';
import { parseDuration, parseTimestamp } from './time.js';
import { unescapePropertyName } from './typecheck.js';

/** An evaluation error (CEL's error value); the message is what the apiserver prints. */
export class CelEvalError extends Error {}

/** CEL's "no such overload" error; a library chain tries the next implementation on it. */
export class NoOverloadError extends CelEvalError {}

/** Throws CEL's overload error for `fn` applied to `args`. */
export function noOverload(fn: string, ...args: unknown[]): never {
  throw new NoOverloadError(`no such overload: ${fn}(${args.map((a) => typeName(a as Value)).join(', ')})`);
}

/** A CEL function or method implementation: `target` is the receiver of a method call. */
export type CelFn = (target: Value | undefined, args: Value[]) => Value;

/** A library: global functions and methods by name. */
export interface CelLibrary {
  functions: Record<string, CelFn>;
  methods: Record<string, CelFn>;
}

/** CEL uint. */
export class Uint {
  /** @param v the value, 0 ≤ v < 2^64 */
  constructor(readonly v: bigint) {}
}

/** A CEL duration, in nanoseconds. */
export class Duration {
  /** @param ns nanoseconds */
  constructor(readonly ns: bigint) {}
}

/** A CEL timestamp, in nanoseconds since the Unix epoch, with the UTC offset it was written with. */
export class Timestamp {
  /** @param ns nanoseconds since the epoch; @param offset seconds east of UTC (for string()) */
  constructor(
    readonly ns: bigint,
    readonly offset = 0,
  ) {}
}

/** A CEL type value (`type(x)`, `int`, `string`…). */
export class TypeValue {
  /** @param name the CEL type name */
  constructor(readonly name: string) {}
}

/** A Kubernetes library value (URL, IP, CIDR, Quantity); equal when kind and canonical text are. */
export class Opaque<T = unknown> {
  /** @param kind `url`, `ip`, `cidr`, `quantity`; @param canonical text for equality; @param value parsed form */
  constructor(
    readonly kind: string,
    readonly canonical: string,
    readonly value: T,
  ) {}
}

/** A CEL optional value (`optional.of(x)`); `value` undefined is `optional.none()`. */
export class Optional {
  /** @param value the held value, undefined for none */
  constructor(readonly value: Value | undefined) {}
}

/** A CEL map: a JSON object typed by a schema node, or a literal map. */
export interface CelMap {
  readonly isCelMap: true;
  get(key: Value): Value | undefined;
  has(key: Value): boolean;
  keys(): Value[];
  readonly size: number;
}

/** Any CEL value. */
export type Value =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | Value[]
  | CelMap
  | Uint
  | Duration
  | Timestamp
  | TypeValue
  | Opaque
  | Optional;

/** Per-evaluation memo of converted JSON objects and arrays. */
export type ConversionCache = WeakMap<object, Value>;

function childNode(n: Node | undefined, k: string): Node | undefined {
  return n ? (n.props?.get(k) ?? n.addl) : undefined;
}

/** A JSON object seen as a CEL map, fields converted when read. */
export class JsonMap implements CelMap {
  readonly isCelMap = true;
  /** @param obj the object; @param node its schema; @param cache per-evaluation memo */
  constructor(
    readonly obj: Record<string, unknown>,
    readonly node: Node | undefined,
    readonly cache: ConversionCache,
  ) {}
  get(key: Value): Value | undefined {
    if (typeof key !== 'string') return undefined;
    let k = key;
    if (!Object.prototype.hasOwnProperty.call(this.obj, k)) {
      // a property reached through its CEL-escaped name (`foo__dash__bar` for `foo-bar`)
      if (!this.node?.props || !key.includes('__')) return undefined;
      k = unescapePropertyName(key);
      if (!this.node.props.has(k) || !Object.prototype.hasOwnProperty.call(this.obj, k)) return undefined;
    }
    const v = this.obj[k];
    // a property set to null is absent for CEL (has() is false); a map's null values are values
    if (v === null || v === undefined) return v === null && !this.node?.props && this.node?.addl ? null : undefined;
    return fromJson(childNode(this.node, k), v, this.cache);
  }
  has(key: Value): boolean {
    return this.get(key) !== undefined;
  }
  keys(): Value[] {
    return Object.keys(this.obj);
  }
  get size(): number {
    return Object.keys(this.obj).length;
  }
}

function mapKey(k: Value): string | undefined {
  if (typeof k === 'string') return `s${k}`;
  if (typeof k === 'bigint') return `i${k}`;
  if (k instanceof Uint) return `i${k.v}`;
  if (typeof k === 'number') return Number.isInteger(k) ? `i${BigInt(k)}` : undefined;
  if (typeof k === 'boolean') return `b${k}`;
  return undefined;
}

/** A map built by CEL (`{'a': 1}`, getQuery()). */
export class LiteralMap implements CelMap {
  readonly isCelMap = true;
  private readonly m = new Map<string, [Value, Value]>();
  /** @param entries key/value pairs; a repeated key is an error */
  constructor(entries: Iterable<[Value, Value]>) {
    for (const [k, v] of entries) {
      const mk = mapKey(k);
      if (mk === undefined) throw new CelEvalError(`unsupported key type: ${typeName(k)}`);
      if (this.m.has(mk)) throw new CelEvalError(`Failed with repeated key`);
      this.m.set(mk, [k, v]);
    }
  }
  get(key: Value): Value | undefined {
    const mk = mapKey(key);
    return mk === undefined ? undefined : this.m.get(mk)?.[1];
  }
  has(key: Value): boolean {
    const mk = mapKey(key);
    return mk !== undefined && this.m.has(mk);
  }
  keys(): Value[] {
    return [...this.m.values()].map((e) => e[0]);
  }
  get size(): number {
    return this.m.size;
  }
}

/** True for a CEL map. */
export function isMap(v: unknown): v is CelMap {
  return typeof v === 'object' && v !== null && (v as CelMap).isCelMap === true;
}

/** Converts a JSON value typed by `n` (integer → int, number → double, untyped whole numbers → int). */
export function fromJson(n: Node | undefined, v: unknown, cache: ConversionCache): Value {
  const d = n === undefined ? 0 : n.celData;
  if (d !== 0) checkData(d, v);
  switch (typeof v) {
    case 'string':
      return (d & CEL_DATA.FORMATTED) !== 0 ? formatted(n!.s.format!, v) : v;
    case 'boolean':
      return v;
    case 'number':
      return Number.isInteger(v) && (d & CEL_DATA.TYPE_MASK) !== CEL_DATA.NUMBER ? BigInt(v) : v;
    case 'bigint':
      return v;
    case 'undefined':
      return null;
  }
  if (v === null) return null;
  const hit = cache.get(v as object);
  if (hit !== undefined) return hit;
  let out: Value;
  if (Array.isArray(v)) {
    const list = v.map((x) => fromJson(n?.items, x, cache));
    const lt = n?.s['x-kubernetes-list-type'];
    if (lt === 'set' || lt === 'map') listKinds.set(list, { kind: lt, keys: n!.s['x-kubernetes-list-map-keys'] ?? [] });
    if (list.length === 0 && n?.items) emptyListItems.set(list, n.items);
    out = list;
  } else out = new JsonMap(v as Record<string, unknown>, n, cache);
  cache.set(v as object, out);
  return out;
}

/** The apiserver's errors for data that does not fit its schema (CEL sees it before OpenAPI validation does). */
function checkData(d: number, v: unknown): void {
  if (v === null || v === undefined) {
    if ((d & CEL_DATA.NULLABLE) === 0) throw new CelEvalError('invalid data, got null for schema with nullable=false');
    return;
  }
  if ((d & CEL_DATA.INT_OR_STRING) !== 0) {
    if (typeof v !== 'string' && typeof v !== 'bigint' && !(typeof v === 'number' && Number.isInteger(v)))
      throw new CelEvalError('invalid data, expected XIntOrString value to be either a string or integer');
    return;
  }
  const t = d & CEL_DATA.TYPE_MASK;
  if (t === CEL_DATA.OBJECT) {
    if (typeof v !== 'object' || Array.isArray(v))
      throw new CelEvalError('invalid data, expected a map for the provided schema with type=object');
  } else if (t === CEL_DATA.ARRAY && !Array.isArray(v))
    throw new CelEvalError('invalid data, expected an array for the provided schema with type=array');
}

const emptyListItems = new WeakMap<Value[], Node>();

/** The zero of `sum()` over an empty list: typed by the list's schema (duration, double), else int 0. */
export function emptySum(list: Value[]): Value {
  const s = emptyListItems.get(list)?.s;
  if (s?.type === 'number') return 0;
  if (s?.type === 'string' && s.format === 'duration') return new Duration(0n);
  return 0n;
}

/** Lists typed x-kubernetes-list-type set or map: their equality ignores order, as in Kubernetes CEL. */
const listKinds = new WeakMap<Value[], { kind: 'set' | 'map'; keys: readonly string[] }>();

/**
 * `a + b`. When `a` is a list-type set, the result is the union (b's elements not already in it
 * appended, scalars only); when a list-type map, b's items replace a's items with the same key in
 * place and the others are appended — as Kubernetes' unstructured lists add. The result keeps the kind.
 */
export function concatLists(a: Value[], b: Value[]): Value[] {
  const kind = listKinds.get(a);
  if (!kind) return a.concat(b);
  const out = a.slice();
  if (kind.kind === 'set') {
    for (const x of out.concat(b))
      if (Array.isArray(x) || isMap(x))
        throw new CelEvalError('listSet operations are only supported on lists of scalar values');
    for (const y of b) if (!out.some((x) => celEquals(x, y))) out.push(y);
  } else {
    const keyOf = (x: Value) => (isMap(x) ? kind.keys.map((k) => x.get(k) ?? null) : [x]);
    for (const y of b) {
      const ky = keyOf(y);
      const at = out.findIndex((x) => keyOf(x).every((k, i) => celEquals(k, ky[i])));
      if (at >= 0) out[at] = y;
      else out.push(y);
    }
  }
  listKinds.set(out, kind);
  return out;
}

function unorderedEquals(a: Value[], b: Value[], kind: { kind: 'set' | 'map'; keys: readonly string[] }): boolean {
  if (a.length !== b.length) return false;
  if (kind.kind === 'set')
    return a.every((x) => b.some((y) => celEquals(x, y))) && b.every((y) => a.some((x) => celEquals(x, y)));
  const keyOf = (x: Value) => (isMap(x) ? kind.keys.map((k) => x.get(k) ?? null) : [x]);
  return a.every((x) => {
    const kx = keyOf(x);
    const match = b.find((y) => {
      const ky = keyOf(y);
      return kx.every((k, i) => celEquals(k, ky[i]));
    });
    return match !== undefined && celEquals(x, match);
  });
}

/** Strings with format duration/date/date-time/byte are durations, timestamps and bytes in CEL. */
function formatted(format: string, v: string): Value {
  switch (format) {
    case 'duration':
      return parseDuration(v);
    case 'date-time':
      return parseTimestamp(v);
    case 'date':
      return parseTimestamp(`${v}T00:00:00Z`);
    case 'byte': {
      const bin = Buffer.from(v, 'base64');
      return new Uint8Array(bin.buffer, bin.byteOffset, bin.length);
    }
  }
  return v;
}

const OPAQUE_TYPE_NAMES: Record<string, string> = {
  url: 'kubernetes.URL',
  ip: 'net.IP',
  cidr: 'net.CIDR',
  quantity: 'kubernetes.Quantity',
  semver: 'kubernetes.Semver',
  format: 'kubernetes.NamedFormat',
};

/** A map key in a message: an int, uint, bool or string key as its value, any other value by its type. */
export function keyText(k: Value): string {
  if (typeof k === 'string') return k;
  if (k instanceof Uint) return String(k.v);
  if (k === null || typeof k === 'boolean' || typeof k === 'bigint' || typeof k === 'number') return String(k);
  return typeName(k);
}

/** CEL's type name of a value. */
export function typeName(v: Value): string {
  if (v === null) return 'null_type';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
  }
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v)) return 'list';
  if (isMap(v)) return 'map';
  if (v instanceof Uint) return 'uint';
  if (v instanceof Duration) return 'google.protobuf.Duration';
  if (v instanceof Timestamp) return 'google.protobuf.Timestamp';
  if (v instanceof TypeValue) return 'type';
  if (v instanceof Optional) return 'optional_type';
  if (v instanceof Opaque) return OPAQUE_TYPE_NAMES[v.kind] ?? v.kind;
  return 'unknown';
}

function numeric(v: Value): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof Uint) return v.v;
  return undefined;
}

/** Compares two numbers of any CEL numeric kind exactly. */
function numCompare(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : NaN;
  const [x, y] = [Number(a), Number(b)];
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** CEL `==`. */
export function celEquals(a: Value, b: Value): boolean {
  if (typeof a === 'string' || typeof a === 'boolean') return a === b;
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return numCompare(na, nb) === 0;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    const kind = listKinds.get(a) ?? listKinds.get(b);
    if (kind) return unorderedEquals(a, b, kind);
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
    return true;
  }
  if (isMap(a)) {
    if (!isMap(b) || a.size !== b.size) return false;
    for (const k of a.keys()) {
      const bv = b.get(k);
      if (bv === undefined || !celEquals(a.get(k)!, bv)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Duration) return b instanceof Duration && a.ns === b.ns;
  if (a instanceof Timestamp) return b instanceof Timestamp && a.ns === b.ns;
  if (a instanceof TypeValue) return b instanceof TypeValue && a.name === b.name;
  if (a instanceof Opaque) return b instanceof Opaque && a.kind === b.kind && a.canonical === b.canonical;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    return a.value === undefined || b.value === undefined ? a.value === b.value : celEquals(a.value, b.value);
  }
  return false;
}

/** CEL ordering (`<` and friends); throws the overload error for kinds that do not compare. */
export function celCompare(a: Value, b: Value, op: string): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return numCompare(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Duration && b instanceof Duration) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof Timestamp && b instanceof Timestamp) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }
  return noOverload(op, a, b);
}

const MAX_INT = (1n << 63n) - 1n;
const MIN_INT = -(1n << 63n);

/** Checks int64 range; CEL reports overflow as an error. */
export function checkInt(v: bigint): bigint {
  if (v > MAX_INT || v < MIN_INT) throw new CelEvalError('integer overflow');
  return v;
}

/** Checks uint64 range. */
export function checkUint(v: bigint): Uint {
  if (v < 0n || v >= 1n << 64n) throw new CelEvalError('unsigned integer overflow');
  return new Uint(v);
}

/** Size of a string (code points), bytes, list or map. */
export function celSize(v: Value): bigint {
  if (typeof v === 'string') {
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) i++;
      n++;
    }
    return BigInt(n);
  }
  if (v instanceof Uint8Array || Array.isArray(v)) return BigInt(v.length);
  if (isMap(v)) return BigInt(v.size);
  return noOverload('size', v);
}
