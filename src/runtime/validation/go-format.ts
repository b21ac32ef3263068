// Go's fmt verbs and json.Marshal as the apiserver's messages use them (%q, %v, JSON), for JSON values.
// The apiserver formats a field error's bad value with these, so we must too.

/** Go's `strconv.Quote`: a double-quoted string with Go escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c >= 0x80 && c < 0xa0) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): `65535`, `1e+06`, `0.5`. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // toExponential() gives the shortest round-trip digits, as Go's shortest formatting does.
  const [mant, e] = f.toExponential().split('e') as [string, string];
  const x = Number(e);
  if (x < -4 || x >= 6) {
    return `${mant}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  }
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let out: string;
  if (x >= 0) {
    const intPart = digits.slice(0, x + 1).padEnd(x + 1, '0');
    const frac = digits.slice(x + 1);
    out = frac ? `${intPart}.${frac}` : intPart;
  } else {
    out = `0.${'0'.repeat(-x - 1)}${digits}`;
  }
  return neg ? `-${out}` : out;
}

/** Go's `%v` of a JSON number as the apiserver holds it: int64 when integral, else float64. */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n);
}

/**
 * Go's `json.Marshal` of a decoded JSON value: map keys sorted, `<`, `>`, `&`, U+2028 and
 * U+2029 escaped. With `sortKeys: false` objects keep their key order (for Go structs, whose
 * fields marshal in declaration order).
 */
export function goJson(v: unknown, options: { sortKeys?: boolean } = {}): string {
  const sort = (x: unknown): unknown => {
    if (options.sortKeys === false) return x;
    if (Array.isArray(x)) return x.map(sort);
    if (x && typeof x === 'object') {
      const rec = x as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(rec)
          .sort()
          .map((k) => [k, sort(rec[k])]),
      );
    }
    return x;
  };
  return (JSON.stringify(sort(v)) ?? 'null').replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * How `field.Error.ErrorBody` prints a bad value (apimachinery 1.37): numbers and booleans
 * plain, strings quoted, anything else (null, objects, arrays) as JSON.
 */
export function goBadValue(v: unknown): string {
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return goQuote(v);
  return goJson(v ?? null);
}
