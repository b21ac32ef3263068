// Runs google/cel-spec's conformance files (tests/simple/testdata/*.textproto, read from
// ../shared/conformance/cel/cel-spec) against crdgen's CEL: parse, type-check with the test's
// declarations (unless disable_check), evaluate with its bindings, compare with the expected value,
// error or deduced type. What Kubernetes' CEL environment does not have is skipped, each with its
// reason; so are the few tests that cel-go — the engine Kubernetes runs — itself skips or answers
// differently, since crdgen answers as Kubernetes does.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check } from '../../../src/runtime/cel/checker.js';
import { compileChecked, parseProgram } from '../../../src/runtime/cel/compile.js';
import { CelCompileError } from '../../../src/runtime/cel/syntax.js';
import {
  BOOL,
  BYTES,
  DOUBLE,
  DURATION,
  DYN,
  INT,
  list,
  map,
  NULL,
  opaque,
  STRING,
  TIMESTAMP,
  typeOf,
  typeString,
  UINT,
  type CelType,
} from '../../../src/runtime/cel/types.js';
import {
  CelEvalError,
  Duration,
  isMap,
  LiteralMap,
  Optional,
  Timestamp,
  TypeValue,
  Uint,
  typeName,
  type Value,
} from '../../../src/runtime/cel/value.js';
import { all, get, msg, parseTextproto, scalar, str, type Msg } from './textproto.js';

/** Where CI and developers find shared/ (beside the clone). */
export const CEL_DATA = join(import.meta.dirname, '../../../../shared/conformance/cel');

/** Whole files outside Kubernetes' CEL environment. */
export const FILE_SKIPS: Record<string, string> = {
  bindings_ext: 'cel.bind (ext.Bindings) is not in Kubernetes’ CEL environment',
  block_ext: 'cel.block is an internal optimizer form, not in Kubernetes’ CEL environment',
  encoders_ext: 'base64 encoders (ext.Encoders) are not in Kubernetes’ CEL environment',
  math_ext: 'the math extension (ext.Math) is not in Kubernetes’ CEL environment',
  enums: 'protobuf enums: Kubernetes’ CEL environment declares no protobuf types',
  proto2: 'protobuf messages: Kubernetes’ CEL environment declares no protobuf types',
  proto2_ext: 'protobuf extensions: Kubernetes’ CEL environment declares no protobuf types',
  proto3: 'protobuf messages: Kubernetes’ CEL environment declares no protobuf types',
  wrappers: 'protobuf wrapper types: Kubernetes’ CEL environment declares no protobuf types',
  unknowns: 'partial evaluation with unknowns: the apiserver evaluates with every variable bound',
  namespace: 'container (namespace) name resolution: Kubernetes’ CEL environment sets no container',
  network_ext:
    'cel-go’s network extension (ext.Network) is not in Kubernetes’ CEL environment; Kubernetes has its own ip/cidr library, tested by its own tables',
};

/** Sections outside Kubernetes' CEL environment (file/section). */
export const SECTION_SKIPS: Record<string, string> = {
  'string_ext/reverse': 'strings v3 reverse(): Kubernetes runs the strings extension at version 2',
  'string_ext/format':
    'cel-spec expects the strings v4 formatter; Kubernetes’ strings v2 format() is cel-go’s locale formatter (tested by crdgen’s own tests)',
  'string_ext/format_errors':
    'cel-spec expects the strings v4 formatter’s errors; Kubernetes’ strings v2 format() is cel-go’s locale formatter',
  'type_deduction/wrappers': 'protobuf wrapper types: Kubernetes’ CEL environment declares no protobuf types',
  'type_deduction/legacy_nullable_types': 'legacy nullable types: a cel-go option Kubernetes does not enable',
  'dynamic/any': 'google.protobuf.Any: Kubernetes’ CEL environment declares no protobuf types',
  'fields/quoted_map_fields':
    'backtick-quoted field names (cel-go’s identifier escape syntax) are not enabled in Kubernetes’ CEL environment',
};

const CEL_GO =
  'cel-go v0.29 (the engine of Kubernetes 1.37) skips this conformance test; crdgen answers as cel-go does';
/** Tests cel-go skips in its own conformance run (google/cel-go conformance/BUILD.bazel), and why crdgen does too. */
export const TEST_SKIPS: Record<string, string> = {
  'comparisons/eq_literal/eq_mixed_types_error': CEL_GO,
  'comparisons/eq_literal/eq_list_elem_mixed_types_error': CEL_GO,
  'comparisons/eq_literal/eq_map_value_mixed_types_error': CEL_GO,
  'comparisons/ne_literal/ne_mixed_types_error': CEL_GO,
  'comparisons/in_list_literal/elem_in_mixed_type_list_error': CEL_GO,
  'comparisons/in_map_literal/key_in_mixed_key_type_map_error': CEL_GO,
  'macros/exists/list_elem_type_exhaustive': CEL_GO,
  'macros/exists/map_key_type_exhaustive': CEL_GO,
  'fields/qualified_identifier_resolution/map_key_float': CEL_GO,
  'fields/qualified_identifier_resolution/map_key_null': CEL_GO,
  'fields/qualified_identifier_resolution/map_value_repeat_key': CEL_GO,
  'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous': CEL_GO,
  'macros/map/map_extract_keys': CEL_GO,
  'timestamps/duration_converters/get_milliseconds': CEL_GO,
  'string_ext/value_errors/indexof_out_of_range': CEL_GO,
  'string_ext/value_errors/lastindexof_out_of_range': CEL_GO,
};

const PROTO = 'protobuf messages: Kubernetes’ CEL environment declares no protobuf types';
const CONTAINER = 'container (namespace) name resolution: Kubernetes’ CEL environment sets no container';
const HOMOGENEOUS =
  'a mixed-type list or map literal: Kubernetes compiles with HomogeneousAggregateLiterals, which refuses it';

/** One test's outcome. */
export interface Outcome {
  id: string;
  status: 'pass' | 'fail' | 'skip';
  reason?: string;
  detail?: string;
}

class Unsupported extends Error {}

/** A cel-spec `Value` as a crdgen value. */
function toValue(m: Msg): Value {
  const [name, f] = [...m.fields.entries()][0] ?? [];
  const v = f?.[0];
  if (!name || !v) throw new Unsupported('empty value');
  const s = v.kind === 'scalar' ? v.text : v.kind === 'bytes' ? new TextDecoder().decode(v.bytes) : '';
  switch (name) {
    case 'int64_value':
      return BigInt(s);
    case 'uint64_value':
      return new Uint(BigInt(s));
    case 'double_value':
      return parseDouble(s);
    case 'string_value':
      return s;
    case 'bytes_value':
      return v.kind === 'bytes' ? v.bytes : new Uint8Array();
    case 'bool_value':
      return s === 'true';
    case 'null_value':
      return null;
    case 'type_value':
      return new TypeValue(s === 'google.protobuf.Duration' || s === 'google.protobuf.Timestamp' ? s : s);
    case 'list_value':
      return v.kind === 'msg' ? all(v.msg, 'values').map((x) => toValue((x as { msg: Msg }).msg)) : [];
    case 'map_value':
      return v.kind === 'msg'
        ? new LiteralMap(
            all(v.msg, 'entries').map((e) => {
              const em = (e as { msg: Msg }).msg;
              return [toValue(msg(em, 'key')!), toValue(msg(em, 'value')!)] as [Value, Value];
            }),
          )
        : new LiteralMap([]);
    case 'object_value': {
      if (v.kind !== 'msg') throw new Unsupported('object');
      const [type, inner] = [...v.msg.fields.entries()][0];
      const im = (inner[0] as { msg: Msg }).msg;
      const sec = BigInt(scalar(im, 'seconds') ?? '0');
      const nanos = BigInt(scalar(im, 'nanos') ?? '0');
      if (type === '[type.googleapis.com/google.protobuf.Duration]') return new Duration(sec * 1_000_000_000n + nanos);
      if (type === '[type.googleapis.com/google.protobuf.Timestamp]')
        return new Timestamp(sec * 1_000_000_000n + nanos);
      throw new Unsupported(PROTO);
    }
  }
  throw new Unsupported(`value kind ${name}`);
}

function parseDouble(s: string): number {
  const l = s.toLowerCase();
  if (l === 'inf' || l === 'infinity') return Infinity;
  if (l === '-inf' || l === '-infinity') return -Infinity;
  if (l === 'nan') return NaN;
  return Number(s);
}

/** A cel-spec `Type` as a checker type. */
function toType(m: Msg): CelType {
  const [name, f] = [...m.fields.entries()][0] ?? [];
  const v = f?.[0];
  const text = v?.kind === 'scalar' ? v.text : v?.kind === 'bytes' ? new TextDecoder().decode(v.bytes) : '';
  switch (name) {
    case 'primitive':
      switch (text) {
        case 'INT64':
          return INT;
        case 'UINT64':
          return UINT;
        case 'DOUBLE':
          return DOUBLE;
        case 'BOOL':
          return BOOL;
        case 'STRING':
          return STRING;
        case 'BYTES':
          return BYTES;
      }
      break;
    case 'dyn':
      return DYN;
    case 'null':
      return NULL;
    case 'well_known':
      if (text === 'DURATION') return DURATION;
      if (text === 'TIMESTAMP') return TIMESTAMP;
      break;
    case 'list_type':
      return list(toType(msg((v as { msg: Msg }).msg, 'elem_type')!));
    case 'map_type': {
      const mm = (v as { msg: Msg }).msg;
      return map(toType(msg(mm, 'key_type')!), toType(msg(mm, 'value_type')!));
    }
    case 'type':
      return typeOf(v?.kind === 'msg' && v.msg.fields.size ? toType(v.msg) : DYN);
    case 'abstract_type': {
      const mm = (v as { msg: Msg }).msg;
      const params = all(mm, 'parameter_types').map((p) => toType((p as { msg: Msg }).msg));
      const n = str(mm, 'name')!;
      return opaque(n, ...params);
    }
    case 'type_param':
      return { k: 'param', name: text };
  }
  throw new Unsupported(name === 'message_type' || name === 'wrapper' ? PROTO : `type ${name}`);
}

/** Exact value identity as cel-spec compares results (kind and value; NaN equals NaN; maps by key). */
export function sameValue(a: Value, b: Value): boolean {
  if (typeName(a) !== typeName(b)) return false;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) ? Number.isNaN(b) : a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isMap(a) && isMap(b)) {
    if (a.size !== b.size) return false;
    return a.keys().every((k) => {
      const other = b.keys().find((k2) => sameValue(k, k2));
      return other !== undefined && sameValue(a.get(k)!, b.get(other)!);
    });
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Uint && b instanceof Uint) return a.v === b.v;
  if (a instanceof Duration && b instanceof Duration) return a.ns === b.ns;
  if (a instanceof Timestamp && b instanceof Timestamp) return a.ns === b.ns;
  if (a instanceof TypeValue && b instanceof TypeValue) return a.name === b.name;
  if (a instanceof Optional && b instanceof Optional)
    return a.value === undefined ? b.value === undefined : b.value !== undefined && sameValue(a.value, b.value);
  return a === b;
}

function show(v: Value): string {
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof Uint) return `${v.v}u`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(show).join(', ')}]`;
  if (isMap(v))
    return `{${v
      .keys()
      .map((k) => `${show(k)}: ${show(v.get(k)!)}`)
      .join(', ')}}`;
  if (v instanceof TypeValue) return `type(${v.name})`;
  if (v instanceof Duration) return `duration(${v.ns}ns)`;
  if (v instanceof Timestamp) return `timestamp(${v.ns}ns)`;
  if (v instanceof Uint8Array) return `b${JSON.stringify(Array.from(v))}`;
  if (v instanceof Optional) return v.value === undefined ? 'optional.none()' : `optional.of(${show(v.value)})`;
  if (v === null || typeof v === 'boolean' || typeof v === 'number') return String(v);
  return `${typeName(v)}(${v.canonical})`;
}

const PROTO_NAMES =
  /TestAllTypes|NestedMessage|NestedEnum|GlobalEnum|google\.protobuf\.(?!Duration\b|Timestamp\b)|cel\.expr\.conformance|\.proto[23]\b/;

function runOne(file: string, section: string, t: Msg): Outcome {
  const name = str(t, 'name')!;
  const id = `${file}/${section}/${name}`;
  const skip = TEST_SKIPS[id];
  if (skip) return { id, status: 'skip', reason: skip };
  const expr = str(t, 'expr')!;
  if (str(t, 'container')) return { id, status: 'skip', reason: CONTAINER };
  if (PROTO_NAMES.test(expr)) return { id, status: 'skip', reason: PROTO };
  const disableCheck = scalar(t, 'disable_check') === 'true';
  const checkOnly = scalar(t, 'check_only') === 'true';
  const disableMacros = scalar(t, 'disable_macros') === 'true';
  if (disableMacros)
    return { id, status: 'skip', reason: 'macros disabled: Kubernetes always parses with the standard macros' };
  let vars: Map<string, CelType>;
  const names: string[] = [];
  const values: Value[] = [];
  try {
    vars = new Map();
    for (const d of all(t, 'type_env')) {
      const dm = (d as { msg: Msg }).msg;
      const n = str(dm, 'name')!;
      const ident = msg(dm, 'ident');
      if (!ident)
        throw new Unsupported(
          'custom function declarations: Kubernetes’ CEL environment has no user-declared functions',
        );
      if (n.includes('.')) throw new Unsupported('dotted variable names: Kubernetes declares only self and oldSelf');
      vars.set(n, toType(msg(ident, 'type')!));
    }
    for (const b of all(t, 'bindings')) {
      const bm = (b as { msg: Msg }).msg;
      const n = str(bm, 'key')!;
      if (n.includes('.')) throw new Unsupported('dotted variable names: Kubernetes declares only self and oldSelf');
      const ev = msg(bm, 'value')!;
      const vv = msg(ev, 'value');
      if (!vv) throw new Unsupported('bound errors or unknowns');
      names.push(n);
      values.push(toValue(vv));
      if (!vars.has(n)) vars.set(n, DYN);
    }
  } catch (e) {
    if (e instanceof Unsupported) return { id, status: 'skip', reason: e.message };
    throw e;
  }
  const typed = msg(t, 'typed_result');
  const expectError = get(t, 'eval_error') !== undefined || get(t, 'any_eval_errors') !== undefined;
  // a test without an expectation expects `true`
  const expectValue =
    msg(t, 'value') ??
    (typed ? msg(typed, 'result') : undefined) ??
    (expectError || typed ? undefined : parseTextproto('bool_value: true'));
  if (get(t, 'unknown') || get(t, 'any_unknowns'))
    return {
      id,
      status: 'skip',
      reason: 'partial evaluation with unknowns: the apiserver evaluates with every variable bound',
    };
  let expected: Value | undefined;
  try {
    expected = expectValue ? toValue(expectValue) : undefined;
  } catch (e) {
    if (e instanceof Unsupported) return { id, status: 'skip', reason: e.message };
    throw e;
  }
  // bindings are passed as extra variables (self and oldSelf stay unbound)
  let run: (vals: Value[]) => Value;
  if (disableCheck) {
    try {
      const p = parseProgram(expr, names);
      run = (vals) => p.program.run(null, null, vals);
    } catch (e) {
      if (e instanceof CelCompileError)
        return expectError ? { id, status: 'pass' } : { id, status: 'fail', detail: e.message };
      throw e;
    }
  } else {
    const c = compileChecked(expr, vars, names);
    if (!c.ok) {
      // Kubernetes' AST validators refuse at compile time what plain cel-go refuses when evaluating
      if (expectError && /invalid (duration|timestamp|matches) argument/.test(c.message))
        return { id, status: 'pass', detail: 'refused at compile time by Kubernetes’ literal validators' };
      if (/expected type '.*' but found/.test(c.message) && !/comprehension/.test(c.message))
        return { id, status: 'skip', reason: HOMOGENEOUS };
      if (expectError)
        return { id, status: 'fail', detail: `expected an evaluation error, got a compile error: ${c.message}` };
      return { id, status: 'fail', detail: c.message };
    }
    if (typed && msg(typed, 'deduced_type')) {
      let want: CelType;
      try {
        want = toType(msg(typed, 'deduced_type')!);
      } catch (e) {
        if (e instanceof Unsupported) return { id, status: 'skip', reason: e.message };
        throw e;
      }
      const got = check(c.ast, vars).type;
      if (typeString(got) !== typeString(want))
        return { id, status: 'fail', detail: `deduced type ${typeString(got)}, expected ${typeString(want)}` };
      if (checkOnly) return { id, status: 'pass' };
    }
    run = (vals) => c.program.run(null, null, vals);
  }
  if (checkOnly) return { id, status: 'pass' };
  let got: Value;
  try {
    got = run(values);
  } catch (e) {
    if (!(e instanceof CelEvalError))
      return { id, status: 'fail', detail: `threw ${(e as Error).constructor.name}: ${(e as Error).message}` };
    if (expectError) return { id, status: 'pass' };
    return { id, status: 'fail', detail: `error: ${e.message}` };
  }
  if (expectError) return { id, status: 'fail', detail: `expected an error, got ${show(got)}` };
  if (expected === undefined) return { id, status: 'fail', detail: 'no expectation understood' };
  return sameValue(got, expected)
    ? { id, status: 'pass' }
    : { id, status: 'fail', detail: `got ${show(got)}, expected ${show(expected)}` };
}

/** Runs every file; returns every test's outcome. */
export function runCelSpec(dir = join(CEL_DATA, 'cel-spec')): Outcome[] {
  const out: Outcome[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.textproto'))
    .sort()) {
    const file = f.replace(/\.textproto$/, '');
    const root = parseTextproto(readFileSync(join(dir, f), 'utf8'));
    for (const s of all(root, 'section')) {
      const sm = (s as { msg: Msg }).msg;
      const section = str(sm, 'name')!;
      for (const t of all(sm, 'test')) {
        const tm = (t as { msg: Msg }).msg;
        const id = `${file}/${section}/${str(tm, 'name')}`;
        const reason = FILE_SKIPS[file] ?? SECTION_SKIPS[`${file}/${section}`];
        if (reason) out.push({ id, status: 'skip', reason });
        else out.push(runOne(file, section, tm));
      }
    }
  }
  return out;
}
