// `string.format(list)` as Kubernetes has it: cel-go's strings extension v2, whose formatter is
// the locale-aware one (golang.org/x/text/message, locale en_US): %s %d %f %e %b %x %X %o and %%,
// an optional `.N` precision (for %e it is a width, so the precision stays 6), `%f` with
// thousands separators, `%e` written `2.718280×10⁰⁰` (as Kubernetes' tables have it), NaN/Infinity as `NaN`/`∞`; lists and maps
// in %s print their elements as CEL literals.
import { goFloat } from '../validation/go-format.js';
import { formatDuration, formatTimestamp } from './time.js';
import { CelEvalError, Duration, isMap, Timestamp, TypeValue, Uint, typeName, type Value } from './value.js';

const fail = (msg: string): never => {
  throw new CelEvalError(`error during formatting: ${msg}`);
};

function celType(v: Value): string {
  return typeName(v);
}

function toStringValue(v: Value): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint) return v.v.toString();
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Timestamp) return formatTimestamp(v);
  if (v instanceof Duration) return formatDuration(v);
  if (v instanceof TypeValue) return v.name;
  if (v === null) return 'null';
  return fail(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celType(v)}`,
  );
}

/** A value inside a list or map printed by %s: CEL literal form. */
function literal(v: Value): string {
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof Uint8Array) return `b${goQuote(new TextDecoder().decode(v))}`;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return goQuote(goFloat(v));
    return v.toFixed(6);
  }
  if (v instanceof Timestamp) return `timestamp(${goQuote(formatTimestamp(v))})`;
  if (v instanceof Duration) return `duration(${goQuote(formatDuration(v))})`;
  if (v instanceof TypeValue) return `type(${v.name})`;
  if (Array.isArray(v) || isMap(v)) return formatS(v);
  return toStringValue(v);
}

function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function formatS(v: Value): string {
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (isMap(v)) {
    const pairs = v.keys().map((k) => {
      let ks: string;
      if (typeof k === 'string') ks = goQuote(k);
      else if (typeof k === 'boolean' || typeof k === 'bigint') ks = String(k);
      else if (k instanceof Uint) ks = k.v.toString();
      else ks = fail(`no formatting function for map key of type ${celType(k)}`);
      return [ks, literal(v.get(k)!)] as const;
    });
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `{${pairs.map(([k, x]) => `${k}:${x}`).join(', ')}}`;
  }
  return toStringValue(v);
}

function group(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function special(v: number): string | undefined {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '-∞';
  return undefined;
}

function asFloat(v: Value, clause: string): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return fail(`${clause} clause can only be used on doubles, was given ${celType(v)}`);
}

function fixed(v: Value, prec: number): string {
  const x = asFloat(v, 'fixed-point');
  const s = special(x);
  if (s) return s;
  const [int, frac] = Math.abs(x).toFixed(prec).split('.') as [string, string | undefined];
  return `${x < 0 || Object.is(x, -0) ? '-' : ''}${group(int)}${frac !== undefined ? `.${frac}` : ''}`;
}

const SUPER = '⁰¹²³⁴⁵⁶⁷⁸⁹';

function scientific(v: Value): string {
  const x = asFloat(v, 'scientific');
  const s = special(x);
  if (s) return s;
  const [m, e] = x.toExponential(6).split('e') as [string, string];
  const exp = Math.abs(Number(e)).toString().padStart(2, '0');
  return `${m}×10${Number(e) < 0 ? '⁻' : ''}${Array.from(exp, (d) => SUPER[Number(d)]).join('')}`;
}

function decimal(v: Value): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint) return v.v.toString();
  return fail(`decimal clause can only be used on integers, was given ${celType(v)}`);
}

function hex(v: Value, upper: boolean): string {
  let out: string;
  if (typeof v === 'string' || v instanceof Uint8Array) {
    const bytes = typeof v === 'string' ? new TextEncoder().encode(v) : v;
    out = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  } else if (typeof v === 'bigint') out = v.toString(16);
  else if (v instanceof Uint) out = v.v.toString(16);
  else out = fail(`only integers, byte buffers, and strings can be formatted as hex, was given ${celType(v)}`);
  return upper ? out.toUpperCase() : out;
}

/** The strings extension's format(). */
export function formatString(fmt: string, args: readonly Value[]): string {
  let out = '';
  let argIndex = 0;
  for (let i = 0; i < fmt.length;) {
    const c = fmt[i];
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (fmt[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new CelEvalError(`index ${argIndex} out of range`);
    if (i + 1 >= fmt.length) throw new CelEvalError('unexpected end of string');
    let j = i + 1;
    let prec: number | undefined;
    if (fmt[j] === '.') {
      j++;
      let digits = '';
      while (j < fmt.length && /[0-9]/.test(fmt[j])) digits += fmt[j++];
      if (j >= fmt.length)
        throw new CelEvalError(
          'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
        );
      prec = Number(digits || 'NaN');
      if (Number.isNaN(prec))
        throw new CelEvalError(
          `could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax`,
        );
    }
    const verb = fmt[j];
    const v = args[argIndex]!;
    switch (verb) {
      case 's':
        out += formatS(v);
        break;
      case 'd':
        out += decimal(v);
        break;
      case 'f':
        out += fixed(v, prec ?? 6);
        break;
      case 'e':
        out += scientific(v);
        break;
      case 'b':
        if (typeof v === 'bigint') out += v.toString(2);
        else if (v instanceof Uint) out += v.v.toString(2);
        else if (typeof v === 'boolean') out += v ? '1' : '0';
        else fail(`only integers and bools can be formatted as binary, was given ${celType(v)}`);
        break;
      case 'x':
      case 'X':
        out += hex(v, verb === 'X');
        break;
      case 'o':
        if (typeof v === 'bigint') out += v.toString(8);
        else if (v instanceof Uint) out += v.v.toString(8);
        else fail(`octal clause can only be used on integers, was given ${celType(v)}`);
        break;
      default:
        throw new CelEvalError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
    argIndex++;
    i = j + 1;
  }
  return out;
}
