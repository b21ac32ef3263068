// Go's encoding/json syntax check (its scanner's state machine): the error the apiserver reports
// for a body that is not JSON, in Go's words (`invalid character ',' looking for beginning of
// object key string`, `unexpected end of JSON input`). JSON.parse decides whether the text is
// JSON; this names what is wrong as Go does.

type Step = (c: number) => void;

class GoJsonSyntaxError extends Error {}

/** Go's quoteChar: how a byte is shown in a syntax error. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const ch = String.fromCharCode(c);
  switch (ch) {
    case '\\':
      return "'\\\\'";
    case '\x07':
      return "'\\a'";
    case '\b':
      return "'\\b'";
    case '\f':
      return "'\\f'";
    case '\n':
      return "'\\n'";
    case '\r':
      return "'\\r'";
    case '\t':
      return "'\\t'";
    case '\v':
      return "'\\v'";
  }
  // strconv.Quote: printable runes as they are, the rest as \x / \u escapes
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  if ((c >= 0x80 && c < 0xa0) || c === 0xad) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${ch}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** The syntax error Go's json.Unmarshal reports for `bytes`, or undefined when it is valid JSON. */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  const stack: ('object' | 'key' | 'array')[] = [];
  let endTop = false;
  const fail = (c: number, context: string): never => {
    throw new GoJsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  };
  let step: Step;

  const endValue: Step = (c) => {
    if (stack.length === 0) {
      endTop = true;
      return endOfTop(c);
    }
    if (isSpace(c)) return void (step = endValue);
    const top = stack[stack.length - 1];
    if (top === 'key') {
      if (c === 0x3a) {
        stack[stack.length - 1] = 'object';
        return void (step = beginValue);
      }
      return fail(c, 'after object key');
    }
    if (top === 'object') {
      if (c === 0x2c) {
        stack[stack.length - 1] = 'key';
        return void (step = beginString);
      }
      if (c === 0x7d) {
        stack.pop();
        return void (step = endValue);
      }
      return fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) return void (step = beginValue);
    if (c === 0x5d) {
      stack.pop();
      return void (step = endValue);
    }
    return fail(c, 'after array element');
  };
  const endOfTop: Step = (c) => {
    if (!isSpace(c)) fail(c, 'after top-level value');
    step = endOfTop;
  };
  const beginValue: Step = (c) => {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b:
        stack.push('key');
        return void (step = beginStringOrEmpty);
      case 0x5b:
        stack.push('array');
        return void (step = beginValueOrEmpty);
      case 0x22:
        return void (step = inString);
      case 0x2d:
        return void (step = neg);
      case 0x30:
        return void (step = zero);
      case 0x74:
        return void (step = literal('true', 1));
      case 0x66:
        return void (step = literal('false', 1));
      case 0x6e:
        return void (step = literal('null', 1));
    }
    if (c >= 0x31 && c <= 0x39) return void (step = one);
    fail(c, 'looking for beginning of value');
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      stack[stack.length - 1] = 'object';
      return endValue(c);
    }
    beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return void (step = beginString);
    if (c === 0x22) return void (step = inString);
    fail(c, 'looking for beginning of object key string');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) return endValue(c);
    beginValue(c);
  };
  const inString: Step = (c) => {
    if (c === 0x22) return void (step = endValue);
    if (c === 0x5c) return void (step = inStringEsc);
    if (c < 0x20) fail(c, 'in string literal');
  };
  const inStringEsc: Step = (c) => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) return void (step = inString);
    if (c === 0x75) return void (step = hexEscape(4));
    fail(c, 'in string escape code');
  };
  const hexEscape =
    (left: number): Step =>
    (c) => {
      if (!isHex(c)) fail(c, 'in \\u hexadecimal character escape');
      step = left === 1 ? inString : hexEscape(left - 1);
    };
  const neg: Step = (c) => {
    if (c === 0x30) return void (step = zero);
    if (c >= 0x31 && c <= 0x39) return void (step = one);
    fail(c, 'in numeric literal');
  };
  const one: Step = (c) => {
    if (isDigit(c)) return;
    zero(c);
  };
  const zero: Step = (c) => {
    if (c === 0x2e) return void (step = dot);
    if (c === 0x65 || c === 0x45) return void (step = exp);
    endValue(c);
  };
  const dot: Step = (c) => {
    if (isDigit(c)) return void (step = dot0);
    fail(c, 'after decimal point in numeric literal');
  };
  const dot0: Step = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) return void (step = exp);
    endValue(c);
  };
  const exp: Step = (c) => {
    if (c === 0x2b || c === 0x2d) return void (step = expSign);
    expSign(c);
  };
  const expSign: Step = (c) => {
    if (isDigit(c)) return void (step = exp0);
    fail(c, 'in exponent of numeric literal');
  };
  const exp0: Step = (c) => {
    if (isDigit(c)) return;
    endValue(c);
  };
  const literal =
    (word: string, at: number): Step =>
    (c) => {
      if (c !== word.charCodeAt(at)) fail(c, `in literal ${word} (expecting '${word[at]}')`);
      step = at === word.length - 1 ? endValue : literal(word, at + 1);
    };

  step = beginValue;
  try {
    for (const c of bytes) step(c);
    if (endTop) return undefined;
    step(0x20);
    if (endTop) return undefined;
    return 'unexpected end of JSON input';
  } catch (e) {
    if (e instanceof GoJsonSyntaxError) return e.message;
    throw e;
  }
}
