// Go's words for bad integers (strconv.ParseInt) and bad JSON (encoding/json's scanner,
// json-syntax.ts), which kube-apiserver quotes in its 400s; the first JSON rows are
// kube-apiserver v1.37.1's answers as the fidelity scenario "bad requests" recorded them, the
// others encoding/json's other states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goParseInt64, goQuote } from '../../src/testing/go-strconv.js';
import { goJsonSyntaxError } from '../../src/testing/json-syntax.js';

const json = (s: string): string | undefined => goJsonSyntaxError(Buffer.from(s, 'utf8'));

test('encoding/json syntax errors', () => {
  const cases: Array<[string, string | undefined]> = [
    ['{not json', "invalid character 'n' looking for beginning of object key string"],
    ['{"apiVersion": "fidelity.crdgen.dev/v1",', 'unexpected end of JSON input'],
    ['{"a": 1} x', "invalid character 'x' after top-level value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a": tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a": "\\q"}', "invalid character 'q' in string escape code"],
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['<Widget/>', "invalid character '<' looking for beginning of value"],
    ['{"a": 1 "b": 2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a": "x\ny"}', "invalid character '\\n' in string literal"],
    ['{"a": "\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"a": -x}', "invalid character 'x' in numeric literal"],
    ['{"a": 1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a": 1e}', "invalid character '}' in exponent of numeric literal"],
    ["{'a': 1}", "invalid character '\\'' looking for beginning of object key string"],
    // at the end the scanner steps once more with a space: inside a literal that is the error
    ['{"a": nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['{"a": [1, {"b": null}], "c": -0.5e+3, "d": "\\u00e9\\n"}', undefined],
    ['"text"', undefined],
  ];
  for (const [input, want] of cases) assert.equal(json(input), want, input);
});

test('strconv.ParseInt(s, 10, 64) errors', () => {
  assert.deepEqual(goParseInt64('abc'), { error: 'strconv.ParseInt: parsing "abc": invalid syntax' });
  assert.deepEqual(goParseInt64(''), { error: 'strconv.ParseInt: parsing "": invalid syntax' });
  assert.deepEqual(goParseInt64('1.5'), { error: 'strconv.ParseInt: parsing "1.5": invalid syntax' });
  assert.deepEqual(goParseInt64('99999999999999999999'), {
    error: 'strconv.ParseInt: parsing "99999999999999999999": value out of range',
  });
  assert.deepEqual(goParseInt64('+2'), { value: 2 });
  assert.deepEqual(goParseInt64('-1'), { value: -1 });
  assert.equal(goQuote('a\tb"\u0001'), '"a\\tb\\"\\x01"');
});
