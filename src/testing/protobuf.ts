// Request bodies in Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), which
// client-go's typed clientsets send for built-in kinds (creates, updates, status and scale
// writes, DeleteOptions of deletes) and kubectl ≥ 1.30 for typed creates. The `k8s\0` envelope
// (runtime.Unknown) names the kind; its message is decoded by a table read from the Go types of
// k8s.io/api v0.37 (schema/kubernetes/<version>/protobuf-messages.json, written by
// scripts/gen-protobuf-messages.sh) into the JSON the apiserver would hold: what Go's
// encoding/json writes for the decoded Go struct (zero values of non-pointer fields without
// omitempty kept, `inline` structs merged, Time/Quantity/IntOrString/… in their JSON forms).
import { readFileSync } from 'node:fs';
import { ApiError, failure } from './status.js';

type Json = Record<string, unknown>;

/** The Kubernetes version of the Go types the table was read from. */
const TABLE_VERSION = 'v1.37.1';

/** One field: protobuf number, JSON name (empty when inline), type, Go flags (p pointer, o omitempty, z omitzero, i inline). */
type FieldSpec = [number, string, string, string];

interface MessageSpec {
  /** A type with its own JSON encoding (time, quantity, intorstring, …). */
  special?: string;
  fields?: FieldSpec[];
}

interface Table {
  source: string;
  /** `apiVersion/kind` (DeleteOptions under `*` for any group version) → message name. */
  kinds: Record<string, string>;
  messages: Record<string, MessageSpec>;
}

let table: Table | undefined;

function messages(): Table {
  if (!table) {
    const file = new URL(`../../schema/kubernetes/${TABLE_VERSION}/protobuf-messages.json`, import.meta.url);
    table = JSON.parse(readFileSync(file, 'utf8')) as Table;
  }
  return table;
}

/** The kinds whose protobuf bodies are decoded, as `apiVersion/kind`. */
export function protobufKinds(): string[] {
  return Object.keys(messages().kinds).sort();
}

/** A raw field value: varint, 8 or 4 fixed bytes, or length-delimited bytes. */
type Raw = { wt: 0; v: bigint } | { wt: 1 | 5 | 2; v: Uint8Array };

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }
  take(n: number): Uint8Array {
    if (n < 0 || this.pos + n > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** The fields of a message, by number, in wire order. */
function rawFields(buf: Uint8Array): Map<number, Raw[]> {
  const r = new Reader(buf);
  const out = new Map<number, Raw[]>();
  while (!r.done()) {
    const key = Number(r.varint());
    const no = key >>> 3;
    const wt = key & 7;
    let v: Raw;
    if (wt === 0) v = { wt: 0, v: r.varint() };
    else if (wt === 1) v = { wt: 1, v: r.take(8) };
    else if (wt === 5) v = { wt: 5, v: r.take(4) };
    else if (wt === 2) v = { wt: 2, v: r.take(Number(r.varint())) };
    else throw new Error(`unsupported wire type ${wt}`);
    if (!out.has(no)) out.set(no, []);
    out.get(no)!.push(v);
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });
const EMPTY = new Uint8Array();

function bytesOf(r: Raw | undefined): Uint8Array {
  return r && r.wt === 2 ? r.v : EMPTY;
}

function intOf(r: Raw | undefined, unsigned = false): number {
  if (!r || r.wt !== 0) return 0;
  return Number(unsigned ? BigInt.asUintN(64, r.v) : BigInt.asIntN(64, r.v));
}

/** Go's time.Duration.String() of `ns` nanoseconds. */
export function goDuration(ns: bigint): string {
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  const u = neg ? -ns : ns;
  const frac = (v: bigint, digits: number): string => {
    const s = v.toString().padStart(digits, '0').replace(/0+$/, '');
    return s ? `.${s}` : '';
  };
  let out: string;
  if (u < 1000000000n) {
    if (u < 1000n) out = `${u}ns`;
    else if (u < 1000000n) out = `${u / 1000n}${frac(u % 1000n, 3)}µs`;
    else out = `${u / 1000000n}${frac(u % 1000000n, 6)}ms`;
  } else {
    const secs = u / 1000000000n;
    const rest = u % 1000000000n;
    const h = secs / 3600n;
    const m = (secs % 3600n) / 60n;
    const s = secs % 60n;
    out = `${s}${frac(rest, 9)}s`;
    if (h > 0n || m > 0n) out = `${m}m${out}`;
    if (h > 0n) out = `${h}h${out}`;
  }
  return neg ? `-${out}` : out;
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function parseRawJson(b: Uint8Array): unknown {
  if (b.length === 0) return null;
  try {
    return JSON.parse(utf8.decode(b)) as unknown;
  } catch {
    throw new Error('a raw JSON field does not hold JSON');
  }
}

/** The JSON value of a special type from its message bytes. */
function decodeSpecial(special: string, name: string, buf: Uint8Array): unknown {
  const f = rawFields(buf);
  switch (special) {
    case 'time':
      return buf.length === 0 ? null : isoSeconds(intOf(f.get(1)?.at(-1))); // nanos are dropped (metav1.Time.Unmarshal)
    case 'microtime': {
      if (buf.length === 0) return null;
      const micros = Math.floor(intOf(f.get(2)?.at(-1)) / 1000);
      return isoSeconds(intOf(f.get(1)?.at(-1))).replace(/Z$/, `.${String(micros).padStart(6, '0')}Z`);
    }
    case 'duration': {
      const d = f.get(1)?.at(-1);
      return goDuration(d && d.wt === 0 ? BigInt.asIntN(64, d.v) : 0n);
    }
    case 'quantity': {
      const s = utf8.decode(bytesOf(f.get(1)?.at(-1)));
      return s === '' ? '0' : s;
    }
    case 'intorstring':
      return intOf(f.get(1)?.at(-1)) === 1 ? utf8.decode(bytesOf(f.get(3)?.at(-1))) : intOf(f.get(2)?.at(-1));
    case 'rawextension':
    case 'fieldsv1':
    case 'json':
      return parseRawJson(bytesOf(f.get(1)?.at(-1)));
  }
  // the apiextensions "either/or" types: their fields first, then their JSON form
  const o = decodeFields(name, buf);
  if (special === 'schemaorarray')
    return Array.isArray(o.JSONSchemas) && o.JSONSchemas.length ? o.JSONSchemas : (o.Schema ?? null);
  if (special === 'schemaorbool') return o.Schema ?? o.Allows === true;
  if (special === 'schemaorstringarray')
    return Array.isArray(o.Property) && o.Property.length ? o.Property : (o.Schema ?? null);
  throw new Error(`no decoder for ${special}`);
}

/** The JSON value of message `name`. */
function decodeMessage(name: string, buf: Uint8Array): unknown {
  const spec = messages().messages[name];
  if (!spec) throw new Error(`no message ${name}`);
  if (spec.special) return decodeSpecial(spec.special, name, buf);
  return decodeFields(name, buf);
}

function zeroScalar(type: string): unknown {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  if (type === 'bytes') return null;
  return 0;
}

function isZeroScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

/** One scalar element (never absent). */
function scalar(type: string, r: Raw): unknown {
  switch (type) {
    case 'string':
      return utf8.decode(bytesOf(r));
    case 'bool':
      return r.wt === 0 && r.v !== 0n;
    case 'int':
      return intOf(r);
    case 'uint':
      return intOf(r, true);
    case 'double':
      return r.wt === 1 ? new DataView(r.v.buffer, r.v.byteOffset, 8).getFloat64(0, true) : 0;
    case 'float':
      return r.wt === 5 ? new DataView(r.v.buffer, r.v.byteOffset, 4).getFloat32(0, true) : 0;
    case 'bytes':
      return Buffer.from(bytesOf(r)).toString('base64');
  }
  throw new Error(`unknown scalar type ${type}`);
}

const PACKABLE = new Set(['bool', 'int', 'uint', 'double', 'float']);

/** The elements of a repeated scalar field, packed or not. */
function repeatedScalars(type: string, values: Raw[]): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (v.wt === 2 && PACKABLE.has(type)) {
      const r = new Reader(v.v);
      while (!r.done()) {
        if (type === 'double') out.push(scalar(type, { wt: 1, v: r.take(8) }));
        else if (type === 'float') out.push(scalar(type, { wt: 5, v: r.take(4) }));
        else out.push(scalar(type, { wt: 0, v: r.varint() }));
      }
    } else out.push(scalar(type, v));
  }
  return out;
}

/** The value of one element of `type` (a scalar or `@message`) from its raw value (absent: its zero). */
function element(type: string, r: Raw | undefined): unknown {
  if (type.startsWith('@')) return decodeMessage(type.slice(1), bytesOf(r));
  if (!r) return zeroScalar(type === 'bytes' ? 'string' : type);
  return scalar(type, r);
}

function decodeFields(name: string, buf: Uint8Array): Json {
  const spec = messages().messages[name];
  const raw = rawFields(buf);
  const out: Json = {};
  for (const [no, jsonName, type, flags] of spec.fields ?? []) {
    const values = raw.get(no) ?? [];
    const pointer = flags.includes('p');
    const omitempty = flags.includes('o');
    let value: unknown;
    let absent = values.length === 0;
    if (type.startsWith('[]')) {
      const elem = type.slice(2);
      const items = elem.startsWith('@') ? values.map((v) => element(elem, v)) : repeatedScalars(elem, values);
      absent = items.length === 0;
      value = items;
    } else if (type.startsWith('{}')) {
      const elem = type.slice(2);
      const map: Json = {};
      for (const entry of values) {
        const e = rawFields(bytesOf(entry));
        map[utf8.decode(bytesOf(e.get(1)?.at(-1)))] =
          elem === 'bytes'
            ? Buffer.from(bytesOf(e.get(2)?.at(-1))).toString('base64')
            : element(elem, e.get(2)?.at(-1));
      }
      absent = values.length === 0;
      value = map;
    } else if (type.startsWith('@')) {
      if (absent && pointer) value = undefined;
      else value = decodeMessage(type.slice(1), bytesOf(values.at(-1)));
      if (flags.includes('i')) {
        if (value && typeof value === 'object') Object.assign(out, value);
        continue;
      }
      if (!pointer) absent = false; // a struct is always written (omitempty does not apply)
      if (flags.includes('z') && !pointer && (value === null || isEmptyObject(value))) continue;
    } else {
      const last = values.at(-1);
      if (type === 'bytes') {
        const b = bytesOf(last);
        absent = b.length === 0 && !pointer ? true : absent; // an empty []byte decodes to nil
        value = absent ? null : scalar('bytes', last!);
      } else if (absent) {
        value = pointer ? null : zeroScalar(type);
        if (!pointer) absent = false;
      } else value = scalar(type, last!);
      if (!pointer && omitempty && isZeroScalar(value)) continue;
    }
    if (absent) {
      if (omitempty) continue;
      value = null;
    }
    out[jsonName] = value;
  }
  return out;
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

function unsupported(what: string): ApiError {
  return new ApiError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - ${what}; this test server decodes protobuf for ${protobufKinds()
        .map((k) => k.replace(/^\*\//, ''))
        .join(', ')} - send application/json`,
    ),
  );
}

/** Decodes an `application/vnd.kubernetes.protobuf` body into the object's JSON form. */
export function decodeKubeProtobuf(buf: Uint8Array): Json {
  if (buf.length < 4 || buf[0] !== 0x6b || buf[1] !== 0x38 || buf[2] !== 0x73 || buf[3] !== 0x00) {
    throw unsupported('the protobuf body lacks the k8s envelope');
  }
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = EMPTY;
  try {
    const unknown = rawFields(buf.subarray(4));
    const tm = rawFields(bytesOf(unknown.get(1)?.at(-1)));
    apiVersion = utf8.decode(bytesOf(tm.get(1)?.at(-1)));
    kind = utf8.decode(bytesOf(tm.get(2)?.at(-1)));
    raw = bytesOf(unknown.get(2)?.at(-1));
  } catch (e) {
    throw new ApiError(failure(400, 'BadRequest', `cannot decode the protobuf body: ${(e as Error).message}`));
  }
  const t = messages();
  const msg = t.kinds[`${apiVersion}/${kind}`] ?? t.kinds[`*/${kind}`];
  if (!msg) throw unsupported(`protobuf ${apiVersion} ${kind}`);
  try {
    return { apiVersion, kind, ...(decodeMessage(msg, raw) as Json) };
  } catch (e) {
    throw new ApiError(failure(400, 'BadRequest', `cannot decode the protobuf body: ${(e as Error).message}`));
  }
}
