// CEL optional values (the functions of Kubernetes' optional library): optional.of,
// optional.ofNonZeroValue, optional.none, hasValue, value, orValue, or. The `.?`/`[?]` selection
// syntax (`.?`, `[?]`, `[?x]`, `{?k: v}`) is parsed by ./syntax.ts and evaluated by ./interp.ts.
import {
  celSize,
  CelEvalError,
  Duration,
  isMap,
  noOverload,
  Optional,
  Timestamp,
  Uint,
  type CelLibrary,
  type Value,
} from './value.js';

const NONE = new Optional(undefined);

const ZERO_TIME_NS = -62135596800n * 1_000_000_000n;

function isZero(v: Value): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (v instanceof Uint) return v.v === 0n;
  if (v instanceof Duration) return v.ns === 0n;
  if (v instanceof Timestamp) return v.ns === ZERO_TIME_NS;
  if (Array.isArray(v) || v instanceof Uint8Array || isMap(v)) return celSize(v) === 0n;
  return false;
}

const opt = (v: Value | undefined, fn: string): Optional => (v instanceof Optional ? v : noOverload(fn, v ?? null));

/** The optional library. */
export const optionalLibrary: CelLibrary = {
  functions: {
    'optional.of': (_t, a) => new Optional(a[0]),
    'optional.ofNonZeroValue': (_t, a) => (isZero(a[0]) ? NONE : new Optional(a[0])),
    'optional.none': () => NONE,
  },
  methods: {
    hasValue: (t) => opt(t, 'hasValue').value !== undefined,
    value: (t) => {
      const o = opt(t, 'value');
      if (o.value === undefined) throw new CelEvalError('optional.none() dereference');
      return o.value;
    },
    orValue: (t, a) => {
      const o = opt(t, 'orValue');
      return o.value === undefined ? a[0]! : o.value;
    },
    or: (t, a) => {
      const o = opt(t, 'or');
      return o.value === undefined ? opt(a[0], 'or') : o;
    },
  },
};
