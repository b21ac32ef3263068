// A body that is not JSON: the error is Go's encoding/json syntax error, word for word (what
// kube-apiserver answers after `couldn't get version/kind; json parse error: `).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from '../../src/testing/json-syntax.js';
import { startTestApiServer } from '../../src/testing/index.js';

const syntax = (text: string): string | undefined => goJsonSyntaxError(Buffer.from(text, 'utf8'));

test("Go's syntax errors, by the scanner's states", () => {
  const cases: [string, string | undefined][] = [
    ['{"a":1}', undefined],
    [' [1, 2.5e-3, true, null, "x\\u00e9"] ', undefined],
    ['', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    // at the end Go steps a space through the scanner: an unfinished number or literal names it
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{}x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nil', "invalid character 'i' in literal null (expecting 'u')"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['"a\x01"', "invalid character '\\x01' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\t{\n"a":\rx}', "invalid character 'x' looking for beginning of value"],
  ];
  for (const [text, want] of cases) assert.equal(syntax(text), want, JSON.stringify(text));
});

test("a create whose body is not JSON: 400 with the apiserver's whole message", async () => {
  const server = await startTestApiServer();
  try {
    const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"apiVersion":"v1","kind":"ConfigMap",}',
    });
    assert.equal(res.status, 400);
    const status = (await res.json()) as { message: string };
    assert.equal(
      status.message,
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'}\' looking for beginning of object key string ({"apiVersion":"v1","kind":"Con ...)',
    );
  } finally {
    await server.stop();
  }
});
