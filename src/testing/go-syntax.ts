// Go's words for bad JSON and bad numbers, as kube-apiserver answers them: encoding/json's
// scanner (`invalid character 'n' looking for beginning of object key string`, `unexpected end
// of JSON input`), which the apiserver's decoders quote in their 400s, and strconv.ParseInt's
// errors for integer query parameters (`strconv.ParseInt: parsing "x": invalid syntax`). No
// library speaks them: this is the scanner's state machine (encoding/json/scanner.go), reduced to
// finding the first error, and strconv's rules for base-10 int64.

/** Go's quoteChar: the offending byte as the scanner's messages show it (`'x'`, `'\''`, `'\n'`). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

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

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

class Syntax extends Error {}

/**
 * The error encoding/json reports for `data`, or undefined when it is valid JSON. Bytes are read
 * as Go reads them: the offending byte of a multi-byte character is shown as that byte.
 */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  let i = 0;
  const end = (): never => {
    throw new Syntax('unexpected end of JSON input');
  };
  const bad = (c: number, context: string): never => {
    throw new Syntax(`invalid character ${quoteChar(c)} ${context}`);
  };
  const skip = (): void => {
    while (i < data.length && isSpace(data[i])) i++;
  };
  const literal = (word: string): void => {
    // the first byte is already matched
    for (let k = 1; k < word.length; k++) {
      if (i >= data.length) end();
      if (data[i] !== word.charCodeAt(k))
        bad(data[i], `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      i++;
    }
  };
  const string = (): void => {
    // at the opening quote
    i++;
    for (;;) {
      if (i >= data.length) end();
      const c = data[i++];
      if (c === 0x22) return;
      if (c < 0x20) bad(c, 'in string literal');
      if (c === 0x5c) {
        if (i >= data.length) end();
        const e = data[i++];
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) {
            if (i >= data.length) end();
            if (!isHex(data[i])) bad(data[i], 'in \\u hexadecimal character escape');
            i++;
          }
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) bad(e, 'in string escape code');
      }
    }
  };
  const number = (): void => {
    if (data[i] === 0x2d) {
      i++;
      if (i >= data.length) end();
      if (!isDigit(data[i])) bad(data[i], 'in numeric literal');
    }
    if (data[i] === 0x30) i++;
    else while (i < data.length && isDigit(data[i])) i++;
    if (i < data.length && data[i] === 0x2e) {
      i++;
      if (i >= data.length) end();
      if (!isDigit(data[i])) bad(data[i], 'after decimal point in numeric literal');
      while (i < data.length && isDigit(data[i])) i++;
    }
    if (i < data.length && (data[i] === 0x65 || data[i] === 0x45)) {
      i++;
      if (i < data.length && (data[i] === 0x2b || data[i] === 0x2d)) i++;
      if (i >= data.length) end();
      if (!isDigit(data[i])) bad(data[i], 'in exponent of numeric literal');
      while (i < data.length && isDigit(data[i])) i++;
    }
  };
  const value = (depth: number): void => {
    skip();
    if (i >= data.length) end();
    const c = data[i];
    if (depth > 10000) throw new Syntax('exceeded max depth');
    if (c === 0x7b) {
      i++;
      skip();
      if (i >= data.length) end();
      if (data[i] === 0x7d) {
        i++;
        return;
      }
      for (;;) {
        skip();
        if (i >= data.length) end();
        if (data[i] !== 0x22) bad(data[i], 'looking for beginning of object key string');
        string();
        skip();
        if (i >= data.length) end();
        if (data[i] !== 0x3a) bad(data[i], 'after object key');
        i++;
        value(depth + 1);
        skip();
        if (i >= data.length) end();
        if (data[i] === 0x2c) {
          i++;
          continue;
        }
        if (data[i] === 0x7d) {
          i++;
          return;
        }
        bad(data[i], 'after object key:value pair');
      }
    }
    if (c === 0x5b) {
      i++;
      skip();
      if (i >= data.length) end();
      if (data[i] === 0x5d) {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        skip();
        if (i >= data.length) end();
        if (data[i] === 0x2c) {
          i++;
          continue;
        }
        if (data[i] === 0x5d) {
          i++;
          return;
        }
        bad(data[i], 'after array element');
      }
    }
    if (c === 0x22) return string();
    if (c === 0x2d || isDigit(c)) return number();
    if (c === 0x74) {
      i++;
      return literal('true');
    }
    if (c === 0x66) {
      i++;
      return literal('false');
    }
    if (c === 0x6e) {
      i++;
      return literal('null');
    }
    bad(c, 'looking for beginning of value');
  };
  try {
    value(0);
    skip();
    if (i < data.length) bad(data[i], 'after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof Syntax) return e.message;
    throw e;
  }
}

/** Go's strconv.ParseInt(s, 10, 64): the value, or the error it returns. */
export function goParseInt64(s: string): { value: number } | { error: string } {
  const fail = (why: string) => ({ error: `strconv.ParseInt: parsing ${goQuote(s)}: ${why}` });
  if (!/^[+-]?[0-9]+$/.test(s)) return fail('invalid syntax');
  const n = BigInt(s);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return fail('value out of range');
  return { value: Number(n) };
}
