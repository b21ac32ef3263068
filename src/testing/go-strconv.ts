// Go's strconv for the integer query parameters kube-apiserver parses (ListOptions' limit and
// timeoutSeconds, DeleteOptions' gracePeriodSeconds): strconv.ParseInt(s, 10, 64) and its errors
// (`strconv.ParseInt: parsing "x": invalid syntax`), and strconv.Quote as those errors quote.

/** Go's strconv.Quote for the text of messages: `"` + escapes + `"`. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0b) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's strconv.ParseInt(s, 10, 64): the value, or the error it returns. */
export function goParseInt64(s: string): { value: number } | { error: string } {
  const fail = (why: string) => ({ error: `strconv.ParseInt: parsing ${goQuote(s)}: ${why}` });
  if (!/^[+-]?[0-9]+$/.test(s)) return fail('invalid syntax');
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return fail('value out of range');
  return { value: Number(n) };
}
