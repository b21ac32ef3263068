import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importPath, jsdoc, literal } from '../../../src/emit/ts-text.js';
import { generatedHeader, GENERATED_HEADER, isGeneratedContents } from '../../../src/emit/header.js';
import { compileTemplate, HELPERS } from '../../../src/emit/handlebars.js';
import { compareStrings } from '../../../src/model/order.js';

test('jsdoc never lets */ close the comment and trims blank edges', () => {
  const out = jsdoc('\nfirst */ line\r\n\nsecond\u2028third  \n', '  ');
  assert.equal(out, '  /**\n   * first *\\/ line\n   *\n   * second\n   * third\n   */\n');
  assert.equal(out.indexOf('*/'), out.lastIndexOf('*/'));
  assert.equal(jsdoc(''), '');
  assert.equal(jsdoc(undefined), '');
});

test('literal writes JSON values as TS expressions, __proto__ as computed key', () => {
  assert.equal(literal({ a: 1, 'b-c': ['x', null, true] }), '{ a: 1, "b-c": ["x", null, true] }');
  assert.equal(literal(JSON.parse('{"__proto__": {"x": 1}}')), '{ ["__proto__"]: { x: 1 } }');
  assert.equal(literal({}), '{}');
  assert.throws(() => literal(Infinity));
});

test('importPath is relative with .js', () => {
  assert.equal(importPath('apis/g/v1/deepcopy.ts', 'apis/g/v1/types.ts'), './types.js');
  assert.equal(importPath('clientset/index.ts', 'apis/g/v1/types.ts'), '../apis/g/v1/types.js');
});

test('header is fixed and sanitises source names', () => {
  const h = generatedHeader(['a.yaml', 'evil\nconsole.log(1)']);
  assert.ok(h.startsWith(GENERATED_HEADER));
  assert.equal(h, `${GENERATED_HEADER}\n// Source: a.yaml\n// Source: evil?console.log(1)\n\n`);
  assert.ok(isGeneratedContents(h));
  assert.ok(!isGeneratedContents('// hand written'));
});

test('handlebars: strict, no HTML escaping, only known helpers', () => {
  const t = compileTemplate('export const {{ident name}} = {{tsString value}};\n{{jsdoc doc}}<{{raw}}>');
  assert.equal(
    t({ name: 'default', value: "a'b", doc: 'x */ y', raw: '&<>' }),
    'export const default_ = "a\'b";\n/**\n * x *\\/ y\n */\n<&<>>',
  );
  assert.throws(() => t({ name: 'x', value: 'v', doc: 'd' }), /raw/); // strict: missing field
  assert.throws(() => compileTemplate('{{unknownHelper x}}')({ x: 1 }));
  assert.equal(
    compileTemplate('{{public k}}/{{private k}}/{{plural k}}/{{propKey p}}')({ k: 'HTTPRoute', p: 'a-b' }),
    'HTTPRoute/httpRoute/HTTPRoutes/"a-b"',
  );
  assert.throws(() => HELPERS.segment('..'), /unsafe/);
});

test('compareStrings is locale independent', () => {
  assert.deepEqual(Object.keys({ b: 1, B: 2, a: 3 }).sort(compareStrings), ['B', 'a', 'b']);
});
