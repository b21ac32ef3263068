// The deepcopy emitter lays out its name-dependent statements as prettier does: a CRD with
// very long kind and property names (every line-breaking branch of the layout helpers it uses:
// importDecl, callLine for signatures and `return copier(src) as T;`, assignCallLines) gives
// output prettier leaves unchanged.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as prettier from 'prettier';
import { readCrdInputs } from '../../../src/input/crd/index.js';
import { createEmitContext } from '../../../src/generate/emitter.js';
import { deepcopy } from '../../../src/generate/deepcopy.js';
import { assignCallLines, callLine, importDecl } from '../../../src/generate/layout.js';
import { tsString } from '../../../src/model/naming.js';

const KIND = 'ExtraordinarilyLongKindNameForLayout';
const LONG = 'aPropertyNameSoLongThatEveryStatementNamingItMustWrapAtEightyColumns';

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: extraordinarilylongkindnameforlayouts.layout.example.com
spec:
  group: layout.example.com
  scope: Namespaced
  names:
    kind: ${KIND}
    plural: extraordinarilylongkindnameforlayouts
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                short:
                  type: object
                  properties:
                    x: {type: string}
                ${LONG}:
                  type: array
                  items:
                    type: object
                    properties:
                      ${LONG}Inner:
                        type: object
                        additionalProperties:
                          type: object
                          properties:
                            y: {type: integer}
                      tags: {type: array, items: {type: string}}
                "quoted-key.with/odd\\"chars":
                  type: object
                  properties:
                    z: {type: string}
                nested:
                  type: array
                  items:
                    type: array
                    items: {type: string}
`;

test('deepcopy output with very long names is prettier-stable', async () => {
  const r = readCrdInputs([{ file: 'layout.yaml', content: Buffer.from(crd) }]);
  assert.deepEqual(
    r.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const [file] = deepcopy(r.model, createEmitContext({ sources: ['layout.yaml'] }));
  assert.ok(file);
  // The names really are long enough to take the wrapping branches.
  assert.match(file.contents, /^ {8}out\[.+\] =\n {10}copy_/m);
  assert.match(file.contents, /^ {8}out\[\n {10}"\w+"\n {8}\] =$/m);
  assert.match(file.contents, /^ {2}return copy_\w+\(\n {4}src,\n {2}\) as \w+;$/m);
  assert.match(file.contents, /^export function deepCopy\w+\(\n {2}src: \w+,\n\): \w+ \{$/m);
  const formatted = await prettier.format(file.contents, { parser: 'typescript' });
  assert.equal(file.contents, formatted);
});

test('layout helpers match prettier on each branch', async () => {
  const long = 'copy_' + 'X'.repeat(90);
  const snippets = [
    importDecl(['a', 'b'], tsString('crdgen/runtime')),
    importDecl(['alpha'.repeat(5), 'beta'.repeat(5), 'gamma'.repeat(5)], tsString('crdgen/runtime')),
    importDecl(['Only'.repeat(30)], tsString('./types.js'), true),
    `${callLine(0, 'function copy_Short', ['src: object'], ': unknown {')}\n  return src;\n}`,
    `${callLine(0, `function ${long}`, ['src: object'], ': unknown {')}\n  return src;\n}`,
    `function f(out: Record<string, unknown>, v: object, k: string): void {\n  switch (k) {\n    case "a":\n${assignCallLines(6, 'out["a"]', 'copy_A', 'v')}\n${assignCallLines(6, 'out["abcdefghijklmnopqrstuvwxyz"]', 'copy_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij', 'v')}\n${assignCallLines(6, 'out["a"]', long, 'v')}\n${assignCallLines(6, `out["${'k'.repeat(70)}"]`, 'copy_A', 'v')}\n${assignCallLines(6, `out["${'k'.repeat(70)}"]`, long, 'v')}\n  }\n}`,
    `function g(src: object): unknown {\n${callLine(2, 'return copy_Short', ['src'], ' as Short;')}\n}`,
    `function g(src: object): unknown {\n${callLine(2, `return copy_${'Long'.repeat(12)}`, ['src'], ` as ${'Long'.repeat(12)};`)}\n}`,
    ['plain', "it's", 'say "hi"', 'tab\tnew\nline', 'back\\slash', '\u2028']
      .map((x) => `s(${tsString(x)});`)
      .join('\n'),
  ];
  for (const code of snippets) {
    const text = `${code}\n`;
    assert.equal(text, await prettier.format(text, { parser: 'typescript' }), `not prettier-stable:\n${text}`);
  }
});
